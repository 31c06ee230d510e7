"""The fleet store: bodies in PostgreSQL, shared by every proxy replica that points at it.

Same rules as the SQLite store (``base.Retention``: TTL, LRU quota, tombstones, scopes), so a
ref written by one replica is fetchable through any other. Writes that can evict take a
transaction-scoped advisory lock, one per schema: eviction reads the total and deletes the
oldest, which must not interleave with another replica doing the same. Reads run in one
``REPEATABLE READ`` snapshot, so a concurrent removal can never show up as a torn body.

Connections come from a pool. A lost connection is retried a few times on a fresh one; after
that the call raises :class:`~elision.errors.StoreError`, which the pipeline turns into a
denial rather than an unaudited result.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from elision.budget import Budget
from elision.errors import ElisionError, StoreError
from elision.shape import Shaped
from elision.store.base import (
    DEFAULT_FETCH_BUDGET,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_QUOTA_BYTES,
    DEFAULT_TTL,
    GcResult,
    MiB,
    RefInfo,
    Retention,
    StoreStats,
    corrupted,
    expired,
    not_found,
    reference_not_found,
    scope_key,
)
from elision.store.fetch import shape_page

T = TypeVar("T")
Conn = psycopg.Connection[Any]

#: 1 MiB chunks: PostgreSQL toasts a bytea anyway; smaller rows keep memory per row low.
CHUNK_BYTES = 1 * MiB
SCHEMA_VERSION = 1

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE store_bodies (
            sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, chunks INTEGER NOT NULL,
            created DOUBLE PRECISION NOT NULL)""",
        """CREATE TABLE store_chunks (
            sha256 TEXT NOT NULL, seq INTEGER NOT NULL, data BYTEA NOT NULL,
            PRIMARY KEY (sha256, seq))""",
        # Bodies are mostly compressed or random-looking JSON already; skipping pglz on the
        # way in keeps a put at copy speed.
        "ALTER TABLE store_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
        """CREATE TABLE store_refs (
            ref TEXT PRIMARY KEY, sha256 TEXT NOT NULL, format TEXT NOT NULL,
            scope TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
            expires DOUBLE PRECISION NOT NULL, last_access DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX store_refs_by_sha256 ON store_refs (sha256)",
        "CREATE INDEX store_refs_by_expiry ON store_refs (expires)",
        "CREATE INDEX store_refs_by_access ON store_refs (last_access, created)",
        """CREATE TABLE store_tombstones (
            ref TEXT PRIMARY KEY, scope TEXT NOT NULL, reason TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL)""",
        # Host-private records behind stubs: never served by read/fetch, never logged.
        """CREATE TABLE store_references (
            stub_id TEXT NOT NULL, scope TEXT NOT NULL, record BYTEA NOT NULL,
            created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (stub_id, scope))""",
        "CREATE INDEX store_references_by_expiry ON store_references (expires)",
    ),
}

_ORPHANS = ("SELECT sha256 FROM store_bodies b WHERE NOT EXISTS "
            "(SELECT 1 FROM store_refs r WHERE r.sha256 = b.sha256)")


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


class PgConnector:
    """A connection pool bound to one schema, and transactions that survive a lost connection.

    ``error`` builds the exception for a failure (StoreError for the store, AuditError for the
    audit log), so each caller's errors stay in its own branch of the hierarchy.
    """

    def __init__(
        self, url: str, *, schema: str | None, error: Callable[[str], ElisionError],
        retries: int = 3, timeout: float = 10.0, max_size: int = 4,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("postgresql://", "postgres://")):
            raise error(f"a PostgreSQL URL must start with postgresql://, got {describe(url)!r}")
        self.url, self.where, self._error = url, describe(url), error
        self.retries, self.timeout, self.max_size = retries, timeout, max_size
        self._pool: ConnectionPool[Any] | None = None
        self._pid = -1
        self._given_schema = schema
        self._probe()
        try:
            self._choose_schema(schema)
        except BaseException:
            self.close()
            raise

    def _choose_schema(self, schema: str | None) -> None:
        if schema:
            self.schema = schema
            # Replicas starting together race to create it: the lock makes that a queue.
            self.run(lambda c: c.execute(
                sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))),
                lock=lock_key(schema, "schema"))
        else:
            # No schema given: the first one of the URL's search_path, as psql would use.
            self.schema = "(default)"
            found = self.run(lambda c: _one(c, "SELECT current_schema()"), write=False)
            if found is None:
                raise self._error(
                    f"no schema on the search_path of {self.where} exists; create it with "
                    "CREATE SCHEMA, or name one that exists in the URL's "
                    "options=-csearch_path%3D<schema>")
            self.schema = str(found)

    def _probe(self) -> None:
        # A pool only says "couldn't get a connection" after its timeout; one direct attempt
        # first gives the real reason (no such role, no such database) at once.
        try:
            psycopg.connect(self.url, connect_timeout=max(1, int(self.timeout))).close()
        except psycopg.Error as exc:
            raise self._error(
                f"cannot connect to PostgreSQL at {self.where}: {_first_line(exc)}; check "
                "that the server is up and that the URL's user and database exist") from None

    def _connections(self) -> ConnectionPool[Any]:
        # A pool must not cross a fork: the child's sockets would be the parent's.
        if self._pool is None or self._pid != os.getpid():
            schema = self._given_schema

            def configure(conn: Conn) -> None:
                # Naming a schema that does not exist yet is allowed: it is created next.
                if schema:
                    conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))

            self._pool = ConnectionPool(
                self.url, min_size=1, max_size=self.max_size, open=True,
                timeout=self.timeout / (self.retries + 1),
                kwargs={"autocommit": True, "connect_timeout": max(1, int(self.timeout))},
                configure=configure, check=ConnectionPool.check_connection,
                name=f"elision-{os.getpid()}",
            )
            self._pid = os.getpid()
        return self._pool

    def run(
        self, work: Callable[[Conn], T], *, write: bool = True, lock: int | None = None,
    ) -> T:
        """``work`` in one transaction; retried on a fresh connection if the link drops.

        Only connection-level failures are retried: the transaction either committed or
        rolled back as a whole, and every caller's work is safe to run again.
        """
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(0.05 * 2 ** attempt, 1.0))
            try:
                with self._connections().connection() as conn, conn.transaction():
                    if not write:
                        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, "
                                     "READ ONLY")
                    if lock is not None:
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
                    return work(conn)
            except psycopg.OperationalError as exc:
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


def _one(conn: Conn, query: str, params: tuple[Any, ...] = ()) -> Any:
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
    current = int(_one(conn, f"SELECT COALESCE(MAX(version), 0) FROM {table}"))
    if current > latest:
        raise error(f"{where} has schema version {current}, newer than this elision knows "
                    f"({latest}); upgrade elision or use another schema")
    for version in range(current + 1, latest + 1):
        for statement in migrations[version]:
            conn.execute(statement)
        conn.execute(f"INSERT INTO {table} VALUES (%s, %s)", (version, now))
    return latest


class PostgresStore:
    """Bodies in PostgreSQL (``bytea`` chunks); safe to share between processes and hosts."""

    def __init__(
        self,
        url: str,
        *,
        schema: str | None = None,
        ttl: float = DEFAULT_TTL,
        quota_bytes: int = DEFAULT_QUOTA_BYTES,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        lru_resolution: float = 1.0,
        clock: Callable[[], float] = time.time,
        retries: int = 3,
        timeout: float = 10.0,
        pool_size: int = 4,
    ) -> None:
        self.retention = Retention(ttl, quota_bytes, max_body_bytes, lru_resolution)
        self._clock = clock
        self._db = PgConnector(url, schema=schema, error=StoreError, retries=retries,
                               timeout=timeout, max_size=pool_size)
        self._lock = lock_key(self._db.schema, "store")
        self.path = f"{self._db.where} schema {self._db.schema}"
        try:
            self.schema_version = self.migrate()
        except BaseException:
            self._db.close()
            raise

    def migrate(self) -> int:
        """Create or upgrade this schema's tables; returns the schema version now in place."""
        return self._db.run(lambda c: migrate(
            c, "store_migrations", _MIGRATIONS, SCHEMA_VERSION, self.path, StoreError,
            self._clock()), lock=self._lock)

    # -- bodies --

    def put(
        self, body: bytes, *, ref: str, sha256: str, format: str, scope: str | None = None
    ) -> None:
        body = bytes(body)
        self.retention.check_body(body, sha256)
        key = scope_key(scope)

        def work(conn: Conn) -> None:
            now = self._clock()
            self._expire(conn, now)
            self._drop_ref(conn, ref, None, now)
            if conn.execute("SELECT 1 FROM store_bodies WHERE sha256 = %s",
                            (sha256,)).fetchone() is None:
                self._evict_for(conn, len(body), now)
                starts = range(0, len(body), CHUNK_BYTES)
                conn.execute("INSERT INTO store_bodies VALUES (%s, %s, %s, %s)",
                             (sha256, len(body), len(starts), now))
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO store_chunks VALUES (%s, %s, %s)", [
                        (sha256, seq, body[start:start + CHUNK_BYTES])
                        for seq, start in enumerate(starts)])
            conn.execute("INSERT INTO store_refs VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (ref, sha256, format, key, now, self.retention.expires_at(now), now))
            conn.execute("DELETE FROM store_tombstones WHERE ref = %s", (ref,))

        self._db.run(work, lock=self._lock)

    def read(self, ref: str, *, scope: str | None = None) -> bytes:
        return self._read(ref, scope)[0]

    def _read(self, ref: str, scope: str | None) -> tuple[bytes, RefInfo]:
        def work(conn: Conn) -> tuple[RefInfo, list[bytes]]:
            info = self._live(conn, ref, scope)
            rows = conn.execute("SELECT data FROM store_chunks WHERE sha256 = %s ORDER BY seq",
                                (info.sha256,)).fetchall()
            return info, [bytes(row[0]) for row in rows]

        info, parts = self._db.run(work, write=False)
        body = b"".join(parts)
        actual = hashlib.sha256(body).hexdigest()
        if actual != info.sha256:
            raise corrupted(ref, info.sha256, actual)
        now = self._clock()
        if self.retention.needs_touch(info.last_access, now):  # LRU: a read makes it young
            # One row, no advisory lock: an update of a ref evicted meanwhile touches nothing.
            self._db.run(lambda c: c.execute(
                "UPDATE store_refs SET last_access = %s WHERE ref = %s", (now, ref)))
        return body, info

    def info(self, ref: str, *, scope: str | None = None) -> RefInfo:
        return self._db.run(lambda c: self._live(c, ref, scope), write=False)

    def fetch(
        self,
        ref: str,
        *,
        path: str | None = None,
        lines: str | None = None,
        byte_range: str | None = None,
        budget: Budget = DEFAULT_FETCH_BUDGET,
        scope: str | None = None,
    ) -> Shaped:
        body, info = self._read(ref, scope)
        return shape_page(body, ref=ref, sha256=info.sha256, format=info.format, budget=budget,
                          path=path, lines=lines, byte_range=byte_range)

    def remove(self, ref: str) -> bool:
        return self._db.run(lambda c: self._drop_ref(c, ref, None, self._clock()),
                            lock=self._lock)

    def gc(self) -> GcResult:
        def work(conn: Conn) -> GcResult:
            now = self._clock()
            bodies_before, bytes_before = self._totals(conn)
            expired_refs = self._expire(conn, now)
            forgotten = conn.execute("DELETE FROM store_tombstones WHERE at < %s",
                                     (self.retention.tombstone_cutoff(now),)).rowcount
            bodies_after, bytes_after = self._totals(conn)
            return GcResult(expired_refs, bodies_before - bodies_after,
                            bytes_before - bytes_after, forgotten)

        return self._db.run(work, lock=self._lock)

    def stats(self) -> StoreStats:
        def work(conn: Conn) -> StoreStats:
            bodies, total = self._totals(conn)
            row = conn.execute("SELECT COUNT(*), MIN(created) FROM store_refs").fetchone()
            assert row is not None
            references = int(_one(conn, "SELECT COUNT(*) FROM store_references"))
            return StoreStats(bodies, int(row[0]), total, row[1], self.retention.quota_bytes,
                              self.retention.ttl, self.path, references)

        return self._db.run(work, write=False)

    def close(self) -> None:
        self._db.close()

    # -- reference records (issue 5) --

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None:
        blob, key = orjson.dumps(record), scope_key(scope)

        def work(conn: Conn) -> None:
            now = self._clock()
            conn.execute(
                """INSERT INTO store_references VALUES (%s, %s, %s, %s, %s)
                   ON CONFLICT (stub_id, scope) DO UPDATE SET record = EXCLUDED.record,
                   created = EXCLUDED.created, expires = EXCLUDED.expires""",
                (stub_id, key, blob, now, self.retention.expires_at(now)))

        self._db.run(work)

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]:
        key = scope_key(scope)
        row = self._db.run(lambda c: c.execute(
            "SELECT record, expires FROM store_references WHERE stub_id = %s AND scope = %s",
            (stub_id, key)).fetchone(), write=False)
        if row is None or self.retention.is_expired(row[1], self._clock()):
            raise reference_not_found(stub_id)
        record: dict[str, Any] = orjson.loads(bytes(row[0]))
        return record

    # -- internals; each runs inside a caller's transaction --

    def _live(self, conn: Conn, ref: str, scope: str | None) -> RefInfo:
        key = scope_key(scope)
        row = conn.execute(
            """SELECT r.sha256, b.size, r.format, r.created, r.expires, r.last_access, r.scope
               FROM store_refs r JOIN store_bodies b ON b.sha256 = r.sha256
               WHERE r.ref = %s""", (ref,)).fetchone()
        if row is not None and row[6] == key:
            if self.retention.is_expired(row[4], self._clock()):
                raise expired(ref, "expired", self.retention)
            return RefInfo(ref, row[0], int(row[1]), row[2], row[3], row[4], row[5])
        stone = conn.execute("SELECT reason FROM store_tombstones WHERE ref = %s AND scope = %s",
                             (ref, key)).fetchone()
        if stone is not None:
            raise expired(ref, stone[0], self.retention)
        raise not_found(ref)

    @staticmethod
    def _totals(conn: Conn) -> tuple[int, int]:
        row = conn.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM store_bodies").fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def _drop_ref(self, conn: Conn, ref: str, reason: str | None, now: float) -> bool:
        row = conn.execute("DELETE FROM store_refs WHERE ref = %s RETURNING sha256, scope",
                           (ref,)).fetchone()
        if row is None:
            return False
        if reason is not None:
            conn.execute("""INSERT INTO store_tombstones VALUES (%s, %s, %s, %s)
                            ON CONFLICT (ref) DO UPDATE SET scope = EXCLUDED.scope,
                            reason = EXCLUDED.reason, at = EXCLUDED.at""",
                         (ref, row[1], reason, now))
        if conn.execute("SELECT 1 FROM store_refs WHERE sha256 = %s LIMIT 1",
                        (row[0],)).fetchone() is None:
            conn.execute("DELETE FROM store_chunks WHERE sha256 = %s", (row[0],))
            conn.execute("DELETE FROM store_bodies WHERE sha256 = %s", (row[0],))
        return True

    def _expire(self, conn: Conn, now: float) -> int:
        conn.execute("""INSERT INTO store_tombstones
                        SELECT ref, scope, 'expired', %s FROM store_refs WHERE expires <= %s
                        ON CONFLICT (ref) DO UPDATE SET scope = EXCLUDED.scope,
                        reason = EXCLUDED.reason, at = EXCLUDED.at""", (now, now))
        gone = conn.execute("DELETE FROM store_refs WHERE expires <= %s", (now,)).rowcount
        if gone:
            conn.execute(f"DELETE FROM store_chunks WHERE sha256 IN ({_ORPHANS})")
            conn.execute(f"DELETE FROM store_bodies WHERE sha256 IN ({_ORPHANS})")
        conn.execute("DELETE FROM store_references WHERE expires <= %s", (now,))
        return int(gone)

    def _evict_for(self, conn: Conn, incoming: int, now: float) -> None:
        _, total = self._totals(conn)
        while total + incoming > self.retention.quota_bytes:
            oldest = conn.execute(
                "SELECT ref FROM store_refs ORDER BY last_access, created LIMIT 1").fetchone()
            if oldest is None:
                break
            self._drop_ref(conn, oldest[0], "been evicted", now)
            _, total = self._totals(conn)

    def corrupt_for_test(self, sha256: str, body: bytes) -> None:
        """Overwrite stored bytes in place, as a failing disk would (tests only)."""
        def work(conn: Conn) -> None:
            conn.execute("DELETE FROM store_chunks WHERE sha256 = %s", (sha256,))
            conn.execute("INSERT INTO store_chunks VALUES (%s, 0, %s)", (sha256, body))

        self._db.run(work, lock=self._lock)
