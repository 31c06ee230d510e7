"""The default store: one SQLite file shared by every command, proxy replica and process.

WAL lets readers go on while one process writes; a busy timeout makes writers queue instead
of failing; every multi-statement write runs in one ``BEGIN IMMEDIATE`` transaction, so a crash
or a concurrent writer never leaves a ref without its body. A small body is split into chunk
rows; a large one is a file of its own beside the database (:mod:`elision.store.bodyfiles`),
written and removed inside the same transaction as its row.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from elision.errors import StoreError
from elision.private import create_private_file, make_private_dir, place_problem
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
    lost,
    not_found,
    reference_not_found,
    scope_allows,
    scope_key,
)
from elision.store.bodyfiles import FILE_BYTES, BodyFiles

#: 4 MiB chunks: big enough that a 100 MB body is 25 rows, small enough to stay off the limit.
CHUNK_BYTES = 4 * MiB
#: The page size of a new store file. A 4 MiB chunk is 64 overflow pages instead of 1,024,
#: which halves the time a large body takes to write (bench/store.py). A file made with
#: another page size keeps it: SQLite can change it only by rewriting the whole file.
PAGE_BYTES = 64 * 1024
SCHEMA_VERSION = 3

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE bodies (
            sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, chunks INTEGER NOT NULL,
            created REAL NOT NULL)""",
        """CREATE TABLE chunks (
            sha256 TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY (sha256, seq))""",
        """CREATE TABLE refs (
            ref TEXT PRIMARY KEY, sha256 TEXT NOT NULL, format TEXT NOT NULL,
            scope TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL,
            last_access REAL NOT NULL)""",
        "CREATE INDEX refs_by_sha256 ON refs (sha256)",
        "CREATE INDEX refs_by_expiry ON refs (expires)",
        "CREATE INDEX refs_by_access ON refs (last_access)",
        """CREATE TABLE tombstones (
            ref TEXT PRIMARY KEY, scope TEXT NOT NULL, reason TEXT NOT NULL, at REAL NOT NULL)""",
        # Host-private records behind stubs: never served by read/fetch, never logged.
        """CREATE TABLE reference_records (
            stub_id TEXT NOT NULL, scope TEXT NOT NULL, record BLOB NOT NULL,
            created REAL NOT NULL, expires REAL NOT NULL, PRIMARY KEY (stub_id, scope))""",
        "CREATE INDEX reference_records_by_expiry ON reference_records (expires)",
    ),
    # A running total, so holding the quota does not scan every body on every put.
    2: (
        """CREATE TABLE usage (
            id INTEGER PRIMARY KEY CHECK (id = 1), bodies INTEGER NOT NULL,
            bytes INTEGER NOT NULL)""",
        "INSERT INTO usage SELECT 1, COUNT(*), COALESCE(SUM(size), 0) FROM bodies",
    ),
    # Large bodies as files beside the database; the rows of older bodies stay where they are.
    3: ("ALTER TABLE bodies ADD COLUMN file INTEGER NOT NULL DEFAULT 0",),
}


def chunk_count(size: int) -> int:
    return len(range(0, size, CHUNK_BYTES))


def chunked(body: bytes) -> Iterator[tuple[int, memoryview]]:
    """``(seq, view)`` for each chunk of ``body``, without copying it."""
    view = memoryview(body)
    for seq, start in enumerate(range(0, len(body), CHUNK_BYTES)):
        yield seq, view[start:start + CHUNK_BYTES]


class SQLiteStore(PagedStore):
    """Bodies in one SQLite file; safe to share between threads and processes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        ttl: float = DEFAULT_TTL,
        quota_bytes: int = DEFAULT_QUOTA_BYTES,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        busy_timeout: float = 30.0,
        lru_resolution: float = 1.0,
        clock: Callable[[], float] = time.time,
        file_bytes: int = FILE_BYTES,
    ) -> None:
        self.retention = Retention(ttl, quota_bytes, max_body_bytes, lru_resolution)
        self.path = Path(os.path.expanduser(os.fspath(path)))
        if isinstance(file_bytes, bool) or not isinstance(file_bytes, int) or file_bytes < 1:
            raise StoreError(f"store file_bytes must be a positive integer, got {file_bytes!r}")
        self.file_bytes = file_bytes
        self._busy_timeout = busy_timeout
        self._clock = clock
        self._lock = threading.RLock()
        in_memory = os.fspath(path) == ":memory:"
        try:
            # Kept bodies are tool results: only their owner may read them, and no one else
            # may plant or swap one (elision.private).
            if not in_memory:
                make_private_dir(self.path.parent)
                refused = place_problem(self.path, "store")
                if refused:
                    raise StoreError(refused)
                create_private_file(self.path)
        except OSError as exc:
            raise StoreError(
                f"cannot create the store directory {str(self.path.parent)!r}: {exc.strerror}; "
                "pass another --store path or set ELISION_STORE"
            ) from None
        #: Bodies of at least ``file_bytes`` are kept as files in ``<path>.bodies``; an
        #: in-memory database keeps every body in rows (it has no place beside it).
        self.files = None if in_memory else BodyFiles(self.path)
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._connect()

    # -- connection and transactions --

    def _connect(self) -> sqlite3.Connection:
        # A connection must not cross a fork: a child opens its own.
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            conn = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            # Before WAL mode: it is fixed once the file holds a page (ignored after that).
            conn.execute(f"PRAGMA page_size = {PAGE_BYTES}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open the store {str(self.path)!r}: {exc}; check the path is a writable "
                "SQLite file, or pass another --store path"
            ) from None
        self._conn, self._pid = conn, os.getpid()
        self._migrate(conn)
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        with self._tx(immediate=True, conn=conn):
            conn.execute("""CREATE TABLE IF NOT EXISTS migrations (
                version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)""")
            row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM migrations").fetchone()
            current = int(row[0])
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"the store {str(self.path)!r} has schema version {current}, newer than this "
                    f"elision knows ({SCHEMA_VERSION}); upgrade elision or use another store"
                )
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute("INSERT INTO migrations VALUES (?, ?)", (version, self._clock()))

    @contextmanager
    def _tx(
        self, *, immediate: bool, conn: sqlite3.Connection | None = None
    ) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = conn or self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
                if self.files is not None:
                    self.files.begin()
                try:
                    yield conn
                    if self.files is not None:
                        self.files.before_commit(lambda sha256: self._is_file(conn, sha256))
                except BaseException:
                    if self.files is not None:
                        self.files.before_rollback()
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    hint = "another process held it longer than busy_timeout; retry"
                else:
                    hint = (f"check the file with sqlite3 {str(self.path)!r} "
                            "'PRAGMA integrity_check', or point --store elsewhere")
                raise StoreError(f"the store {str(self.path)!r} failed: {exc}; {hint}") from None

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
        with self._tx(immediate=True) as conn:
            now = self._clock()
            self._expire(conn, now)
            self._drop_ref(conn, ref, None, now)
            row = conn.execute("SELECT file FROM bodies WHERE sha256 = ?", (sha256,)).fetchone()
            if row is None:
                self._evict_for(conn, len(body), now)
                as_file = self.files is not None and len(body) >= self.file_bytes
                if as_file:
                    self._body_files().place(sha256, body)  # first: a row names a file
                conn.execute(
                    "INSERT INTO bodies (sha256, size, chunks, created, file) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (sha256, len(body), 0 if as_file else chunk_count(len(body)), now, as_file))
                conn.execute("UPDATE usage SET bodies = bodies + 1, bytes = bytes + ?",
                             (len(body),))
                if not as_file:
                    # Views, not slices: SQLite copies one chunk at a time into its pages, so
                    # the write holds no second copy of the body.
                    conn.executemany("INSERT INTO chunks VALUES (?, ?, ?)",
                                     ((sha256, seq, part) for seq, part in chunked(body)))
            elif row[0] and self._body_files().size(sha256) != len(body):
                # The file was lost (a crash before the disk caught up, a read that found it
                # torn, someone's rm): this put holds the bytes again, so it mends the body.
                self._body_files().place(sha256, body)
            conn.execute("INSERT INTO refs VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (ref, sha256, format, key, now, self.retention.expires_at(now), now))
            conn.execute("DELETE FROM tombstones WHERE ref = ?", (ref,))

    def read(self, ref: str, *, scope: str | None = None) -> bytes:
        return self._read(ref, scope)[0]

    def _read(self, ref: str, scope: str | None) -> tuple[bytes, RefInfo]:
        with self._tx(immediate=False) as conn:
            info = self._live(conn, ref, scope)
            body = self._body(conn, info)
        if body is None or hashlib.sha256(body).hexdigest() != info.sha256:
            # Rows are read in one snapshot, so a bad row body is corrupt. A file is not in
            # the snapshot: another process may have removed the ref and its file since, or
            # put it back. Look again holding the write lock, when nothing can move.
            body, info = self._read_again(ref, scope)
        now = self._clock()
        if self.retention.needs_touch(info.last_access, now):  # LRU: a read makes it young
            with self._tx(immediate=True) as conn:
                conn.execute("UPDATE refs SET last_access = ? WHERE ref = ?", (now, ref))
        return body, info

    def _body(self, conn: sqlite3.Connection, info: RefInfo) -> bytes | None:
        """The body ``info`` names, as stored (not yet checked); ``None``: its file is gone."""
        if self._is_file(conn, info.sha256):
            return self._body_files().read(info.sha256, info.size)
        return b"".join(row[0] for row in conn.execute(
            "SELECT data FROM chunks WHERE sha256 = ? ORDER BY seq", (info.sha256,)))

    def _read_again(self, ref: str, scope: str | None) -> tuple[bytes, RefInfo]:
        with self._tx(immediate=True) as conn:
            info = self._live(conn, ref, scope)  # says "not found" if the ref went meanwhile
            body = self._body(conn, info)
            if body is None:
                raise lost(ref, str(self._body_files().path_of(info.sha256)))
            actual = hashlib.sha256(body).hexdigest()
            if actual == info.sha256:
                return body, info
            if self._is_file(conn, info.sha256):
                # A torn or altered file: remove it (safe: no writer can be writing it now),
                # so that keeping the body again, as the error advises, writes it afresh.
                self._body_files().unlink(info.sha256)
        raise corrupted(ref, info.sha256, actual)

    def info(self, ref: str, *, scope: str | None = None) -> RefInfo:
        with self._tx(immediate=False) as conn:
            return self._live(conn, ref, scope)

    def refs_for(self, sha256: str) -> list[str]:
        with self._tx(immediate=False) as conn:
            rows = conn.execute(
                "SELECT ref FROM refs WHERE sha256 = ? AND expires > ? ORDER BY created DESC",
                (sha256, self._clock())).fetchall()
        return [str(row[0]) for row in rows]

    def remove(self, ref: str) -> bool:
        if not is_storable(ref):
            return False
        with self._tx(immediate=True) as conn:
            return self._drop_ref(conn, ref, None, self._clock())

    def gc(self) -> GcResult:
        with self._tx(immediate=True) as conn:
            now = self._clock()
            bodies_before, bytes_before = self._totals(conn)
            expired_refs = self._expire(conn, now)
            cursor = conn.execute("DELETE FROM tombstones WHERE at < ?",
                                  (self.retention.tombstone_cutoff(now),))
            bodies_after, bytes_after = self._totals(conn)
            swept = 0
            if self.files is not None:
                # The files of bodies expired just now go before COMMIT, with the others.
                live = {sha for (sha,) in conn.execute("SELECT sha256 FROM bodies WHERE file")}
                swept, _ = self.files.sweep(live)
            return GcResult(expired_refs, bodies_before - bodies_after, bytes_before - bytes_after,
                            cursor.rowcount, swept)

    def stats(self) -> StoreStats:
        with self._tx(immediate=False) as conn:
            bodies, total = self._totals(conn)
            refs, oldest = conn.execute("SELECT COUNT(*), MIN(created) FROM refs").fetchone()
            references = conn.execute("SELECT COUNT(*) FROM reference_records").fetchone()[0]
        return StoreStats(bodies, refs, total, oldest, self.retention.quota_bytes,
                          self.retention.ttl, str(self.path), references)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # -- reference records (issue 5) --

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None:
        check_name(stub_id, "stub", keeping=True)
        blob = orjson.dumps(record)
        with self._tx(immediate=True) as conn:
            now = self._clock()
            conn.execute("INSERT OR REPLACE INTO reference_records VALUES (?, ?, ?, ?, ?)",
                         (stub_id, scope_key(scope), blob, now, self.retention.expires_at(now)))

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]:
        check_name(stub_id, "stub")
        with self._tx(immediate=False) as conn:
            row = conn.execute(
                "SELECT record, expires FROM reference_records WHERE stub_id = ? AND scope = ?",
                (stub_id, scope_key(scope))).fetchone()
        if row is None or self.retention.is_expired(row[1], self._clock()):
            raise reference_not_found(stub_id)
        record: dict[str, Any] = orjson.loads(row[0])
        return record

    # -- internals; each runs inside a caller's transaction --

    def _live(self, conn: sqlite3.Connection, ref: str, scope: str | None) -> RefInfo:
        check_name(ref)
        key = scope_key(scope)
        row = conn.execute(
            """SELECT r.sha256, b.size, r.format, r.created, r.expires, r.last_access, r.scope
               FROM refs r JOIN bodies b ON b.sha256 = r.sha256 WHERE r.ref = ?""",
            (ref,)).fetchone()
        if row is not None and scope_allows(key, row[6]):
            if self.retention.is_expired(row[4], self._clock()):
                raise expired(ref, "expired", self.retention)
            return RefInfo(ref, *row[:6])
        stone = conn.execute("SELECT reason, scope FROM tombstones WHERE ref = ?",
                             (ref,)).fetchone()
        if stone is not None and scope_allows(key, stone[1]):
            raise expired(ref, stone[0], self.retention)
        raise not_found(ref)

    @staticmethod
    def _totals(conn: sqlite3.Connection) -> tuple[int, int]:
        count, total = conn.execute("SELECT bodies, bytes FROM usage").fetchone()
        return int(count), int(total)

    def _drop_ref(
        self, conn: sqlite3.Connection, ref: str, reason: str | None, now: float
    ) -> bool:
        row = conn.execute("SELECT sha256, scope FROM refs WHERE ref = ?", (ref,)).fetchone()
        if row is None:
            return False
        conn.execute("DELETE FROM refs WHERE ref = ?", (ref,))
        if reason is not None:
            conn.execute("INSERT OR REPLACE INTO tombstones VALUES (?, ?, ?, ?)",
                         (ref, row[1], reason, now))
        self._drop_body_if_unused(conn, row[0])
        return True

    def _drop_body_if_unused(self, conn: sqlite3.Connection, sha256: str) -> None:
        if conn.execute("SELECT 1 FROM refs WHERE sha256 = ? LIMIT 1", (sha256,)).fetchone():
            return
        row = conn.execute("SELECT size, file FROM bodies WHERE sha256 = ?",
                           (sha256,)).fetchone()
        if row is None:
            return
        if row[1]:
            self._body_files().doom(sha256)  # its file goes just before COMMIT
        else:
            conn.execute("DELETE FROM chunks WHERE sha256 = ?", (sha256,))
        conn.execute("DELETE FROM bodies WHERE sha256 = ?", (sha256,))
        conn.execute("UPDATE usage SET bodies = bodies - 1, bytes = bytes - ?", (row[0],))

    # -- body files; each runs inside a caller's write transaction --

    def _body_files(self) -> BodyFiles:
        if self.files is None:
            raise StoreError("an in-memory SQLite store keeps no body files")  # unreachable
        return self.files

    @staticmethod
    def _is_file(conn: sqlite3.Connection, sha256: str) -> bool:
        row = conn.execute("SELECT file FROM bodies WHERE sha256 = ?", (sha256,)).fetchone()
        return bool(row and row[0])

    def _expire(self, conn: sqlite3.Connection, now: float) -> int:
        gone = conn.execute("SELECT ref, scope, sha256 FROM refs WHERE expires <= ?",
                            (now,)).fetchall()
        if gone:
            conn.executemany("INSERT OR REPLACE INTO tombstones VALUES (?, ?, 'expired', ?)",
                             ((ref, scope, now) for ref, scope, _ in gone))
            conn.execute("DELETE FROM refs WHERE expires <= ?", (now,))
            for sha256 in {sha for _, _, sha in gone}:
                self._drop_body_if_unused(conn, sha256)
        conn.execute("DELETE FROM reference_records WHERE expires <= ?", (now,))
        return len(gone)

    def _evict_for(self, conn: sqlite3.Connection, incoming: int, now: float) -> None:
        _, total = self._totals(conn)
        while total + incoming > self.retention.quota_bytes:
            oldest = conn.execute(
                "SELECT ref FROM refs ORDER BY last_access, created LIMIT 1").fetchone()
            if oldest is None:
                break
            self._drop_ref(conn, oldest[0], "been evicted", now)
            _, total = self._totals(conn)

    def corrupt_for_test(self, sha256: str, body: bytes) -> None:
        """Overwrite stored bytes in place, as a failing disk would (tests only)."""
        with self._tx(immediate=True) as conn:
            if self._is_file(conn, sha256):
                with open(self._body_files().path_of(sha256), "r+b") as file:
                    file.truncate()
                    file.write(body)
                return
            conn.execute("DELETE FROM chunks WHERE sha256 = ?", (sha256,))
            conn.execute("INSERT INTO chunks VALUES (?, 0, ?)", (sha256, body))
