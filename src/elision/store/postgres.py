"""The fleet store: bodies in PostgreSQL, shared by every proxy replica that points at it.

Same rules as the SQLite store (``base.Retention``: TTL, LRU quota, tombstones, scopes), so a
ref written by one replica is fetchable through any other. Writes that can evict take a
transaction-scoped advisory lock, one per schema: eviction reads the total and deletes the
oldest, which must not interleave with another replica doing the same. Reads run in one
``REPEATABLE READ`` snapshot, so a concurrent removal can never show up as a torn body.

Connections come from a pool (:mod:`elision.store.pgpool`). A lost connection is retried a
few times on a fresh one; after that the call raises :class:`~elision.errors.StoreError`,
which the pipeline turns into a denial rather than an unaudited result.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import orjson

from elision.errors import StoreError
from elision.store.base import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_QUOTA_BYTES,
    DEFAULT_TTL,
    GcResult,
    MiB,
    PagedStore,
    RefInfo,
    Retention,
    StoreStats,
    check_name,
    corrupted,
    expired,
    is_storable,
    not_found,
    reference_not_found,
    scope_allows,
    scope_key,
)
from elision.store.pgpool import Conn, PgConnector, lock_key, migrate, one

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
        # A running total, so holding the quota does not scan every body on every put.
        """CREATE TABLE store_usage (
            id INTEGER PRIMARY KEY CHECK (id = 1), bodies BIGINT NOT NULL,
            bytes BIGINT NOT NULL)""",
        "INSERT INTO store_usage VALUES (1, 0, 0)",
    ),
}



class PostgresStore(PagedStore):
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
        stall_timeout: float = 60.0,
        pool_size: int = 4,
    ) -> None:
        self.retention = Retention(ttl, quota_bytes, max_body_bytes, lru_resolution)
        self._clock = clock
        self._db = PgConnector(url, schema=schema, error=StoreError, retries=retries,
                               timeout=timeout, max_size=pool_size,
                               stall_timeout=stall_timeout)
        self._lock = lock_key(self._db.schema, "store")
        self.path = f"{self._db.where} schema {self._db.schema}"
        try:
            self.schema_version = self.migrate()
        except BaseException:
            self._db.close()
            raise

    def migrate(self) -> int:
        """Create or upgrade this schema's tables; returns the schema version now in place."""
        return self._db.migrate(lambda c: migrate(
            c, "store_migrations", _MIGRATIONS, SCHEMA_VERSION, self.path, StoreError,
            self._clock()), lock=self._lock)

    # -- bodies --

    def put(
        self, body: bytes, *, ref: str, sha256: str, format: str, scope: str | None = None,
        verified: bool = False,
    ) -> None:
        if not isinstance(body, bytes):
            body = bytes(body)
        check_name(ref, keeping=True)
        self.retention.check_body(body, sha256, verified=verified)
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
                conn.execute("UPDATE store_usage SET bodies = bodies + 1, bytes = bytes + %s",
                             (len(body),))
                # One statement per chunk, each given a view: a list of slices was a second
                # copy of the whole body. The pipeline sends each as it is queued.
                view = memoryview(body)
                for seq, start in enumerate(starts):
                    conn.execute("INSERT INTO store_chunks VALUES (%s, %s, %s)",
                                 (sha256, seq, view[start:start + CHUNK_BYTES]))
            conn.execute("INSERT INTO store_refs VALUES (%s, %s, %s, %s, %s, %s, %s)",
                         (ref, sha256, format, key, now, self.retention.expires_at(now), now))
            conn.execute("DELETE FROM store_tombstones WHERE ref = %s", (ref,))

        # Pipelined: a put is a dozen statements, most of whose results nobody reads.
        self._db.run(work, lock=self._lock, pipeline=True)

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
                "UPDATE store_refs SET last_access = %s WHERE ref = %s", (now, ref)),
                durable=False)
        return body, info

    def info(self, ref: str, *, scope: str | None = None) -> RefInfo:
        return self._db.run(lambda c: self._live(c, ref, scope), write=False)

    def refs_for(self, sha256: str) -> list[str]:
        rows = self._db.run(lambda c: c.execute(
            "SELECT ref FROM store_refs WHERE sha256 = %s AND expires > %s "
            "ORDER BY created DESC", (sha256, self._clock())).fetchall(), write=False)
        return [str(row[0]) for row in rows]

    def remove(self, ref: str) -> bool:
        if not is_storable(ref):
            return False
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
            references = int(one(conn, "SELECT COUNT(*) FROM store_references"))
            return StoreStats(bodies, int(row[0]), total, row[1], self.retention.quota_bytes,
                              self.retention.ttl, self.path, references)

        return self._db.run(work, write=False)

    def close(self) -> None:
        self._db.close()

    # -- reference records (issue 5) --

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None:
        check_name(stub_id, "stub", keeping=True)
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
        check_name(stub_id, "stub")
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
        check_name(ref)
        key = scope_key(scope)
        row = conn.execute(
            """SELECT r.sha256, b.size, r.format, r.created, r.expires, r.last_access, r.scope
               FROM store_refs r JOIN store_bodies b ON b.sha256 = r.sha256
               WHERE r.ref = %s""", (ref,)).fetchone()
        if row is not None and scope_allows(key, row[6]):
            if self.retention.is_expired(row[4], self._clock()):
                raise expired(ref, "expired", self.retention)
            return RefInfo(ref, row[0], int(row[1]), row[2], row[3], row[4], row[5])
        stone = conn.execute("SELECT reason, scope FROM store_tombstones WHERE ref = %s",
                             (ref,)).fetchone()
        if stone is not None and scope_allows(key, stone[1]):
            raise expired(ref, stone[0], self.retention)
        raise not_found(ref)

    @staticmethod
    def _totals(conn: Conn) -> tuple[int, int]:
        row = conn.execute("SELECT bodies, bytes FROM store_usage").fetchone()
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
        self._drop_body_if_unused(conn, row[0])
        return True

    @staticmethod
    def _drop_body_if_unused(conn: Conn, sha256: str) -> None:
        if conn.execute("SELECT 1 FROM store_refs WHERE sha256 = %s LIMIT 1",
                        (sha256,)).fetchone() is not None:
            return
        row = conn.execute("DELETE FROM store_bodies WHERE sha256 = %s RETURNING size",
                           (sha256,)).fetchone()
        if row is None:
            return
        conn.execute("DELETE FROM store_chunks WHERE sha256 = %s", (sha256,))
        conn.execute("UPDATE store_usage SET bodies = bodies - 1, bytes = bytes - %s", (row[0],))

    def _expire(self, conn: Conn, now: float) -> int:
        gone = conn.execute("DELETE FROM store_refs WHERE expires <= %s "
                            "RETURNING ref, scope, sha256", (now,)).fetchall()
        if gone:
            with conn.cursor() as cur:
                cur.executemany("""INSERT INTO store_tombstones VALUES (%s, %s, 'expired', %s)
                                   ON CONFLICT (ref) DO UPDATE SET scope = EXCLUDED.scope,
                                   reason = EXCLUDED.reason, at = EXCLUDED.at""",
                                [(ref, scope, now) for ref, scope, _ in gone])
            for sha256 in {sha for _, _, sha in gone}:
                self._drop_body_if_unused(conn, sha256)
        conn.execute("DELETE FROM store_references WHERE expires <= %s", (now,))
        return len(gone)

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
