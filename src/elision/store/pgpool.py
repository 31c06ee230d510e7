"""PostgreSQL plumbing shared by the store and the audit chain: a pool bound to one schema,
transactions retried on a fresh connection when the link drops, versioned migrations.

Every failure becomes the caller's own error class (StoreError, AuditError), with the
server's address but never the URL's password.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from contextlib import nullcontext, suppress
from typing import Any, LiteralString, TypeVar

import psycopg
from psycopg import IsolationLevel, sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from elision.errors import ElisionError

T = TypeVar("T")
Conn = psycopg.Connection[Any]


def describe(url: str) -> str:
    """Where a URL points, for messages: host, port and database, never the password."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "postgresql://(unparseable URL)"
    host, port = parts.get("host") or "localhost", parts.get("port") or "5432"
    return f"postgresql://{host}:{port}/{parts.get('dbname') or ''}"


def lock_key(schema: str, purpose: str) -> int:
    """A bigint advisory-lock key: advisory locks are database-wide, so it names the schema."""
    digest = hashlib.sha256(f"elision:{purpose}:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


#: Failures after which the work may be run again on a fresh connection: the link or the
#: session is gone (an idle-in-transaction timeout is an InternalError, not an Operational one).
_LOST = (psycopg.OperationalError, psycopg.errors.IdleInTransactionSessionTimeout)


class PgConnector:
    """A connection pool bound to one schema, and transactions that survive a lost connection.

    ``error`` builds the exception for a failure (StoreError for the store, AuditError for the
    audit log), so each caller's errors stay in its own branch of the hierarchy.
    """

    def __init__(
        self, url: str, *, schema: str | None, error: Callable[[str], ElisionError],
        retries: int = 3, timeout: float = 10.0, max_size: int = 4,
        stall_timeout: float = 60.0,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("postgresql://", "postgres://")):
            # Only the scheme is shown: the rest may hold a password.
            scheme = url.partition("://")[0] if isinstance(url, str) else type(url).__name__
            raise error(f"a PostgreSQL URL must start with postgresql://, got {scheme!r}://…")
        self.url, self.where, self._error = url, describe(url), error
        self.retries, self.timeout, self.max_size = retries, timeout, max_size
        self.stall_timeout = stall_timeout
        self._pool: ConnectionPool[Any] | None = None
        self._pid = -1
        self._kwargs: dict[str, Any] = {
            "autocommit": True, "connect_timeout": max(1, int(timeout)),
            # A dead peer is noticed in about a minute, not in two hours.
            "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
            "keepalives_count": 3}
        # The probe's connection, kept for the pool's first: an open costs one connection.
        self._first: Conn | None = self._probe()
        self._first_pid = os.getpid()
        try:
            self._choose_schema(schema, self._first)
        except BaseException:
            self.close()
            raise

    def _choose_schema(self, schema: str | None, conn: Conn) -> None:
        self._given_schema = schema
        if schema:
            self.schema = schema
            return
        # No schema given: the first one of the URL's search_path, as psql would use. Asked on
        # the probe's connection, outside any transaction: one round trip.
        found = conn.execute("SELECT current_schema(), current_setting('search_path')").fetchone()
        assert found is not None
        first = found[1].split(",")[0].strip().strip('"')
        if found[0] is None and first and first != "$user":
            # The URL names a schema that does not exist yet: make it, as for schema=.
            self.schema = self._given_schema = first
            return
        if found[0] is None:
            raise self._error(
                f"no schema on the search_path of {self.where} exists; create one with "
                "CREATE SCHEMA, or name one that exists in the URL's "
                "options=-csearch_path%3D<schema>")
        self.schema = str(found[0])

    def _probe(self) -> Conn:
        # A pool only says "couldn't get a connection" after its timeout; one direct attempt
        # first gives the real reason (no such role, no such database) at once.
        try:
            return psycopg.connect(self.url, **self._kwargs)
        except psycopg.Error as exc:
            raise self._error(
                f"cannot connect to PostgreSQL at {self.where}: {_first_line(exc)}; check "
                "that the server is up and that the URL's user and database exist") from None

    def migrate(self, work: Callable[[Conn], T], *, lock: int) -> T:
        """``work`` (a :func:`migrate`) under ``lock``, after creating the schema if it was named.

        One transaction, sent as one batch up to ``work``'s first read: the schema's own lock
        is taken first (the store and the audit log of one schema both create it), so replicas
        starting together on a new schema queue instead of racing on CREATE SCHEMA.
        """
        schema = self._given_schema

        def create_then(conn: Conn) -> T:
            conn.execute("SELECT pg_advisory_xact_lock(%s), pg_advisory_xact_lock(%s)",
                         (lock_key(self.schema, "schema"), lock))
            if schema:
                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    sql.Identifier(schema)))
            return work(conn)

        return self.run(create_then, batched=True)

    def _connections(self) -> ConnectionPool[Any]:
        # A pool must not cross a fork: the child's sockets would be the parent's.
        if self._pool is None or self._pid != os.getpid():
            schema = self._given_schema
            stall_ms = max(1, int(self.stall_timeout * 1000))

            def configure(conn: Conn) -> None:
                # A writer that stalls (or is cut off) inside a transaction would hold the
                # chain's lock for every replica until TCP gave up; the server ends it instead.
                # Naming a schema that does not exist yet is allowed: it is created next.
                # Both in one statement: one round trip per connection.
                query = "SELECT set_config('idle_in_transaction_session_timeout', %s, false)"
                params: tuple[str, ...] = (str(stall_ms),)
                if schema:
                    query += ", set_config('search_path', %s, false)"
                    params += (sql.Identifier(schema).as_string(conn),)
                conn.execute(query, params)

            # The probe's connection is the pool's first, in the process that made it only.
            first, self._first = self._first, None
            if first is not None and (self._first_pid != os.getpid() or first.closed):
                first = None
            pool = ConnectionPool(
                self.url, min_size=1, max_size=self.max_size, open=False,
                timeout=self.timeout / (self.retries + 1),
                connection_class=_handing_over(first), kwargs=self._kwargs,
                configure=configure, name=f"elision-{os.getpid()}",
                # One worker, not three: it only connects while the pool grows (to 4 at most)
                # and each thread costs an open a millisecond or more to start on a busy host.
                num_workers=1,
            )
            try:
                # With a connection handed over, wait for it: a request made before the pool
                # holds it would make the pool grow, a second connection for nothing.
                pool.open(wait=first is not None, timeout=self.timeout)
            except BaseException:
                pool.close()
                raise
            self._pool, self._pid = pool, os.getpid()
        return self._pool

    def run(
        self, work: Callable[[Conn], T], *, write: bool = True, lock: int | None = None,
        durable: bool = True, pipeline: bool = False, batched: bool = False,
    ) -> T:
        """``work`` in one transaction; retried on a fresh connection if the link drops.

        Only connection-level failures are retried: the transaction either committed or
        rolled back as a whole, and every caller's work is safe to run again. A read runs in
        one ``REPEATABLE READ`` snapshot. ``durable=False`` skips the wait for the WAL flush,
        for writes that may be lost in a server crash without harm (an LRU touch).
        ``pipeline=True`` sends statements whose results ``work`` does not read without
        waiting for each (``rowcount`` is then not to be trusted before a fetch).
        ``batched=True`` (a write) goes further: BEGIN and COMMIT travel in the batch too, so
        the transaction costs a round trip per read of ``work`` and one for the COMMIT
        (psycopg's own transaction in a pipeline waits on its BEGIN and again after COMMIT).
        """
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(0.05 * 2 ** attempt, 1.0))
                if self._pool is not None and self._pid == os.getpid():
                    # Drop every idle connection that died with the one that just failed,
                    # so a server restart costs one retry, not one per pooled connection.
                    self._pool.check()
            try:
                with self._connections().connection() as conn:
                    if batched:
                        return _batched(conn, work, lock)
                    if not write and lock is None and not pipeline:
                        # BEGIN travels with the first statement, not a turn of its own.
                        return _batched(conn, work, None, begin=_READ_BEGIN)
                    # Set before BEGIN, so they travel in it: no extra round trip.
                    conn.isolation_level = None if write else IsolationLevel.REPEATABLE_READ
                    conn.read_only = None if write else True
                    with conn.pipeline() if pipeline else nullcontext(), conn.transaction():
                        if not durable:
                            conn.execute("SET LOCAL synchronous_commit TO OFF")
                        if lock is not None:
                            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
                        return work(conn)
            except _LOST as exc:
                last = exc
            except psycopg.Error as exc:
                raise self._error(
                    f"PostgreSQL at {self.where} refused the operation: "
                    f"{_first_line(exc)}; check that the schema {self.schema!r} holds "
                    "elision's tables at this version, or point at another schema") from None
        raise self._error(
            f"could not reach PostgreSQL at {self.where} in {self.retries + 1} tries, on "
            f"fresh connections ({_first_line(last)}); check that the server is up and that "
            "the URL's user and database exist, then try again") from None

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.close()
        self._pool = None
        first, self._first = self._first, None
        if first is not None and self._first_pid == os.getpid():
            first.close()


def _handing_over(first: Conn | None) -> type[Conn]:
    """A connection class whose first connect returns ``first``.

    psycopg_pool has no call to give a pool a connection made already; its connection class
    is how it connects, so the probe's connection goes in through that door (and still gets
    the pool's ``configure``).
    """
    waiting = [first] if first is not None else []

    class HandingOver(psycopg.Connection[Any]):
        @classmethod
        def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
            if waiting:
                try:
                    conn = waiting.pop()
                except IndexError:  # another thread took it
                    pass
                else:
                    if not conn.closed:
                        return conn
            return super().connect(conninfo, **kwargs)

    return HandingOver


#: A read's one snapshot, as ``run`` asks of psycopg's own transaction (``write=False``).
_READ_BEGIN: LiteralString = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"


def _batched(conn: Conn, work: Callable[[Conn], T], lock: int | None, *,
             begin: LiteralString = "BEGIN") -> T:
    """``work`` in a transaction sent as one pipeline on an autocommit connection: a write,
    or with ``begin`` a read's snapshot."""
    try:
        with conn.pipeline():
            conn.execute(begin)
            if lock is not None:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            result = work(conn)
            conn.execute("COMMIT")
        return result
    except BaseException:
        # Whatever failed, nothing of it stays: the pool would roll back too, with a warning.
        if not conn.closed and conn.pgconn.transaction_status != TransactionStatus.IDLE:
            with suppress(psycopg.Error):  # the connection is gone: the pool drops it
                conn.execute("ROLLBACK")
        raise


def one(conn: Conn, query: str, params: tuple[Any, ...] = ()) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


def _first_line(exc: BaseException | None) -> str:
    return str(exc).strip().splitlines()[0] if exc is not None and str(exc).strip() else "?"


def migrate(conn: Conn, table: str, migrations: dict[int, tuple[str, ...]], latest: int,
            where: str, error: Callable[[str], ElisionError], now: float) -> int:
    """Bring one schema's tables to ``latest``; callers hold the schema's advisory lock."""
    conn.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (version INTEGER PRIMARY KEY, "
                         "applied_at DOUBLE PRECISION NOT NULL)").format(sql.Identifier(table)))
    current = int(one(conn, f"SELECT COALESCE(MAX(version), 0) FROM {table}"))
    if current > latest:
        raise error(f"{where} has schema version {current}, newer than this elision knows "
                    f"({latest}); upgrade elision or use another schema")
    for version in range(current + 1, latest + 1):
        for statement in migrations[version]:
            conn.execute(statement)
        conn.execute(f"INSERT INTO {table} VALUES (%s, %s)", (version, now))
    return latest
