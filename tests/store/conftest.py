"""One fixture for every store test, parametrized over the backends.

PostgreSQL runs when ``ELISION_TEST_POSTGRES_URL`` is set: every ``db_name`` becomes its own
random schema, dropped after the test, so parallel runs and reruns never share rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from elision.store import MemoryStore, SQLiteStore
from elision.store.base import Store

PG_URL_ENV = "ELISION_TEST_POSTGRES_URL"


@dataclass
class FakeClock:
    """A clock the test moves by hand, so TTLs expire without sleeping."""

    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _unflushed(url: str) -> str:
    """``url`` with commits that do not wait for the server's WAL flush.

    What a client sees of a commit is the same; only a crash of the server itself could lose
    one, which no test here does. The state machine commits ~17,000 times, and the flush wait
    was a quarter of its time (and disk the other sessions of a CI machine share).
    """
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csynchronous_commit%3Doff"


@dataclass
class _Backend:
    name: str
    tmp: Path
    clock: FakeClock = field(default_factory=FakeClock)
    opened: list[Store] = field(default_factory=list)
    schemas: dict[str, str] = field(default_factory=dict)
    _shared: Store | None = None

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
            store = PostgresStore(_unflushed(os.environ[PG_URL_ENV]), schema=schema, **options)
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

    def close_all(self) -> None:
        for store in self.opened:
            store.close()
        if self.schemas:
            import psycopg
            from psycopg import sql

            with psycopg.connect(os.environ[PG_URL_ENV], autocommit=True) as conn:
                for schema in self.schemas.values():
                    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                        sql.Identifier(schema)))


@pytest.fixture(params=["memory", "sqlite", "sqlite-files", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[_Backend]:
    if request.param == "postgres" and not os.environ.get(PG_URL_ENV):
        pytest.skip(f"{PG_URL_ENV} is unset: set it (e.g. postgresql://postgres@127.0.0.1:5432/"
                    "test, as .ci/run does) to run the store suite against PostgreSQL")
    b = _Backend(request.param, tmp_path)
    yield b
    b.close_all()
