"""One fixture for every store test, parametrized over the backends.

PostgreSQL runs when ``ELISION_TEST_POSTGRES_URL`` is set: every ``db_name`` becomes its own
random schema, dropped after the test, so parallel runs and reruns never share rows.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from elision.store import MemoryStore, SQLiteStore
from elision.store.base import Store
from support.pgurl import pg_url

PG_URL_ENV = "ELISION_TEST_POSTGRES_URL"
_examples = itertools.count()


@dataclass
class FakeClock:
    """A clock the test moves by hand, so TTLs expire without sleeping."""

    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Backend:
    name: str
    tmp: Path
    clock: FakeClock = field(default_factory=FakeClock)
    opened: list[Store] = field(default_factory=list)
    schemas: dict[str, str] = field(default_factory=dict)
    _shared: Store | None = None
    _set_aside: Store | None = None
    #: PostgreSQL: the rows of every table of the examples' schema as its migration left them.
    _pristine: dict[str, list[tuple[Any, ...]]] | None = None
    _admin: Any = None  # a psycopg connection that empties the examples' schema

    @property
    def persistent(self) -> bool:
        return self.name != "memory"

    def open(self, *, db_name: str = "store.db", **options: Any) -> Store:
        """A store of this backend; the same ``db_name`` reopens the same data if persistent."""
        options.setdefault("clock", self.clock)
        store: Store
        if self.name == "memory":
            store = MemoryStore(**options)
        elif self.name == "postgres":
            from elision.store.postgres import PostgresStore

            schema = self.schemas.setdefault(db_name, f"elision_test_{uuid.uuid4().hex[:16]}")
            # Commits that do not wait for the WAL flush (support.pgurl): no store test crashes
            # the server; the state machine alone commits ~17,000 times.
            store = PostgresStore(pg_url(os.environ[PG_URL_ENV], unflushed=True), schema=schema,
                                  **options)
        elif self.name == "sqlite-files":
            # Every body but the empty one a file beside the database, not chunk rows.
            options.setdefault("file_bytes", 1)
            store = SQLiteStore(self.tmp / db_name, **options)
        else:
            store = SQLiteStore(self.tmp / db_name, **options)
        self.opened.append(store)
        return store

    def shared(self) -> Store:
        """One store for all of a Hypothesis test's examples.

        A PostgreSQL store holds a connection pool: one per example ran the server out of
        connections, and each new pool's threads touch the ``random`` module while Hypothesis
        draws the next example, which it reports as a flaky strategy.
        """
        if self._shared is None:
            self._shared = self.open()
        return self._shared

    def open_empty(self, **options: Any) -> tuple[str, Store]:
        """``(db_name, an empty store on it)`` for one example of a Hypothesis test.

        PostgreSQL: every example's store is on one schema, made and migrated once, whose
        tables are put back here to the rows the migration left; the store the last example
        set aside is taken again, pool and all. A schema, its migration and a pool per example
        were most of the state machine's time, and under load it once ran past pytest's
        300 s timeout. The other backends get a new database: a SQLite file is cheap.
        """
        if self.name != "postgres":
            db_name = f"example-{next(_examples)}.db"
            return db_name, self.open(db_name=db_name, **options)
        db_name = "examples.db"
        store, self._set_aside = self._set_aside, None
        if store is None:
            store = self.open(db_name=db_name, **options)
        if self._pristine is None:
            self._pristine = self._snapshot(self.schemas[db_name])
        else:
            self._restore(self.schemas[db_name], self._pristine)
        return db_name, store

    def set_aside(self, store: Store) -> None:
        """The end of an example: PostgreSQL keeps its store open for the next one."""
        if self.name == "postgres":
            self._set_aside = store
        else:
            store.close()

    def _connection(self) -> Any:
        import psycopg

        if self._admin is None:
            # It commits every example's emptying: unflushed too, like the stores' own.
            self._admin = psycopg.connect(pg_url(os.environ[PG_URL_ENV], unflushed=True),
                                          autocommit=True)
        return self._admin

    def _snapshot(self, schema: str) -> dict[str, list[tuple[Any, ...]]]:
        from psycopg import sql

        conn = self._connection()
        tables = [row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,))]
        return {table: conn.execute(sql.SQL("SELECT * FROM {}").format(
            sql.Identifier(schema, table))).fetchall() for table in tables}

    def _restore(self, schema: str, pristine: dict[str, list[tuple[Any, ...]]]) -> None:
        from psycopg import sql

        conn = self._connection()
        with conn.transaction(), conn.pipeline():
            for table, rows in pristine.items():
                name = sql.Identifier(schema, table)
                conn.execute(sql.SQL("DELETE FROM {}").format(name))
                for row in rows:
                    conn.execute(sql.SQL("INSERT INTO {} VALUES ({})").format(
                        name, sql.SQL(", ").join(sql.Placeholder() * len(row))), row)

    def close_all(self) -> None:
        for store in self.opened:
            store.close()
        if self._admin is not None:
            self._admin.close()
        if self.schemas:
            import psycopg
            from psycopg import sql

            with psycopg.connect(os.environ[PG_URL_ENV], autocommit=True) as conn:
                for schema in self.schemas.values():
                    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                        sql.Identifier(schema)))


#: Memory-backed: SQLite's fsyncs (a WAL checkpoint at every close, the state machine's
#: ~1,100 restarts) are free there, and they were a sixth of its time on a disk the other
#: sessions of a CI machine share. No store test of this fixture crashes the machine, which
#: is all a disk would add; the tests of crashed writers (test_store_files) use tmp_path.
_RAM_DISK = Path("/dev/shm")


@contextlib.contextmanager
def _files_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder for a test's SQLite files: on the RAM disk where there is one."""
    if not (_RAM_DISK.is_dir() and os.access(_RAM_DISK, os.W_OK | os.X_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="elision-store-test-", dir=_RAM_DISK) as where:
        yield Path(where)


@pytest.fixture(params=["memory", "sqlite", "sqlite-files", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[_Backend]:
    if request.param == "postgres" and not os.environ.get(PG_URL_ENV):
        pytest.skip(f"{PG_URL_ENV} is unset: set it (e.g. postgresql://postgres@127.0.0.1:5432/"
                    "test, as .ci/run does) to run the store suite against PostgreSQL")
    with _files_dir(tmp_path) as where:
        b = _Backend(request.param, where)
        yield b
        b.close_all()
