"""The audit log: an append-only SQLite file of chained entries, plus signed checkpoints.

Append-only is enforced by the database, not by good manners: triggers abort any UPDATE or
DELETE on the entries table. Each append is one ``BEGIN IMMEDIATE`` transaction that reads the
head and writes the next entry, so two writers (a proxy and a Guardian sharing one file)
serialize instead of forking the chain. WAL lets ``elision audit show`` read while a writer
appends.

Every ``checkpoint_every`` entries, and at :meth:`AuditLog.close`, a signed checkpoint goes to
the separate checkpoint file (see :mod:`elision.audit.checkpoint`) when a key is configured.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import orjson

from elision.audit.chain import link, now_timestamp
from elision.audit.checkpoint import (
    Signer,
    append_checkpoint,
    default_checkpoint_path,
    key_from_env,
    make_checkpoint,
    signer_from_key,
)
from elision.audit.walfold import FOLD_EVERY, WalFolder
from elision.errors import AuditError, InputError
from elision.private import create_private_file, make_private_dir, place_problem

LOG_ENV = "ELISION_AUDIT"
SCHEMA_VERSION = 2
DEFAULT_CHECKPOINT_EVERY = 1000
#: The members ``elision view`` filters calls by. Version 2 indexes each with ``seq``, so a
#: filtered page of a 100,000-entry log is an index range, not a scan. They are indexes on
#: expressions: the entries' rows stay as hashed (the triggers refuse any UPDATE anyway).
INDEXED_MEMBERS = ("tool", "server", "decision", "timestamp")


def member_expression(name: str) -> str:
    """The SQL expression an index on an entry member is built on; a query must spell it
    the same way for SQLite to use the index. A row that is not JSON (a tampered log, which
    the verifier reports) has NULL there rather than failing the index or the query."""
    assert name in INDEXED_MEMBERS
    return f"(CASE WHEN json_valid(body) THEN json_extract(body, '$.{name}') END)"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1');
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY,
    entry_hash TEXT NOT NULL UNIQUE,
    previous_hash TEXT,
    body TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries are never updated'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries are never deleted'); END;
"""

#: Version 2: an index per member the viewer filters by (see INDEXED_MEMBERS).
_MIGRATION_2 = "".join(
    f"CREATE INDEX IF NOT EXISTS entries_by_{name} ON entries ({member_expression(name)}, seq);\n"
    for name in INDEXED_MEMBERS
) + "UPDATE meta SET value = '2' WHERE key = 'schema_version' AND CAST(value AS INTEGER) < 2;\n"


def migrate_log(db: sqlite3.Connection) -> None:
    """Bring a log's schema to :data:`SCHEMA_VERSION` (every writer does on open, and so
    does ``elision view``): a log written by an older elision gets the filter indexes."""
    db.executescript(_SCHEMA + "BEGIN IMMEDIATE;\n" + _MIGRATION_2 + "COMMIT;\n")


def schema_version(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def default_log_path() -> Path:
    """``$ELISION_AUDIT``, else ``audit.db`` in elision's data directory beside the store."""
    override = os.environ.get(LOG_ENV)
    if override:
        return Path(override).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME")
    # As for the store: the XDG spec says a relative value is invalid and must be ignored.
    if data_home and os.path.isabs(data_home):
        return Path(data_home) / "elision" / "audit.db"
    return Path.home() / ".local" / "share" / "elision" / "audit.db"


def dump_entry(entry: Mapping[str, Any]) -> str:
    """The stored (and ``audit show --json``) form of an entry: one compact JSON line.

    An entry nested past orjson's 255 levels (a caller's own member) is written by
    :func:`elision.shape.jsondump.dumps_value`, the same bytes: orjson's ``TypeError``
    escaped ``append`` after the entry was hashed, where every other failure of an append is
    an :class:`AuditError`."""
    try:
        return orjson.dumps(dict(entry)).decode()
    except orjson.JSONEncodeError:
        from elision.shape.jsondump import dumps_value

        try:
            return dumps_value(dict(entry)).decode()
        except InputError as exc:
            raise AuditError(f"the audit entry is not JSON: {exc}") from None


class CheckpointingLog:
    """What every audit log does the same way: signed checkpoints, and closing with one.

    A log sets ``_signer``, ``_lock``, ``origin``, ``checkpoint_path``,
    ``_last_checkpoint_size`` and ``_closed``, and provides ``head()`` and ``_disconnect()``.
    """

    _signer: Signer | None
    _lock: threading.Lock
    _closed: bool
    _last_checkpoint_size: int
    origin: str
    checkpoint_path: Path

    def head(self) -> tuple[int, str | None]:
        raise NotImplementedError

    def _disconnect(self) -> None:
        raise NotImplementedError

    def checkpoint(self) -> None:
        """Write a signed checkpoint of the current head now (no-op without a key)."""
        if self._signer is None:
            return
        size, head = self.head()
        with self._lock:
            if head is not None:
                self._checkpoint(size, head)

    def _checkpoint(self, size: int, head: str) -> None:
        assert self._signer is not None
        if size == self._last_checkpoint_size:
            return
        append_checkpoint(
            self.checkpoint_path, make_checkpoint(self._signer, self.origin, size, head)
        )
        self._last_checkpoint_size = size

    def close(self) -> None:
        """Checkpoint the head (when a key is configured) and close the connection."""
        if self._closed:
            return
        try:
            self.checkpoint()
        finally:
            with self._lock:
                self._closed = True
                self._disconnect()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AuditLog(CheckpointingLog):
    """An append-only, hash-chained audit log in one SQLite file.

    ``key`` signs checkpoints (``ELISION_AUDIT_KEY`` when not given); with no key, entries
    are still chained but no checkpoint is written, so a cut tail cannot be detected.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        key: str | None = None,
        checkpoint_path: str | os.PathLike[str] | None = None,
        checkpoint_every: int = DEFAULT_CHECKPOINT_EVERY,
        origin: str | None = None,
    ) -> None:
        if checkpoint_every < 1:
            raise AuditError(f"checkpoint_every must be at least 1, got {checkpoint_every!r}")
        self.path = Path(path) if path is not None else default_log_path()
        self.checkpoint_path = (
            Path(checkpoint_path) if checkpoint_path is not None
            else default_checkpoint_path(self.path)
        )
        self.checkpoint_every = checkpoint_every
        self.origin = origin or f"elision-audit:{self.path.name}"
        key = key if key is not None else key_from_env()
        self._signer: Signer | None = signer_from_key(key) if key else None
        self._lock = threading.Lock()
        self._last_checkpoint_size = _last_checkpoint_size(self.checkpoint_path)
        try:
            # Evidence: no one else may read which tools ran on what, or swap the chain.
            make_private_dir(self.path.parent)
            refused = place_problem(self.path, "audit log")
            if refused:
                raise AuditError(refused)
            create_private_file(self.path)
            self._db = sqlite3.connect(
                self.path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            # In WAL, NORMAL survives a crash of the process and costs ~0.4 ms an append
            # instead of ~3 ms. A power cut can lose the last appends; the checkpoint file is
            # fsynced, so such a loss shows as a cut tail instead of passing unseen.
            self._db.execute("PRAGMA synchronous=NORMAL")
            # The WAL is folded into the file by a thread of its own (see walfold.py).
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            migrate_log(self._db)
        except (OSError, sqlite3.Error) as exc:
            raise AuditError(
                f"could not open the audit log {str(self.path)!r}: {exc}; check the path, or "
                f"set {LOG_ENV} to a writable file"
            ) from None
        self._closed = False
        #: ``(seq, entry_hash)`` of the entry this log appended last; ``None`` until then.
        self._head: tuple[int, str | None] | None = None
        self._folder = WalFolder(self.path)
        self._appended = 0

    @property
    def signs_checkpoints(self) -> bool:
        return self._signer is not None

    def append(self, content: Mapping[str, Any]) -> dict[str, Any]:
        """Link ``content`` after the head and store it; returns the entry as hashed.

        ``entry_id`` becomes the entry's 1-based position, so the verifier can tell a gap or
        a duplicate from a link error. A missing ``timestamp`` is filled in.

        The head this log last wrote is remembered, and the next entry goes in as one
        statement (its own transaction) linked after it. Every writer appends at the next
        ``seq``, so if another one appended meanwhile that ``seq`` is taken, the insert fails
        on the primary key, and the entry is linked again after the real head inside a
        ``BEGIN IMMEDIATE`` transaction. A stale head can cost a retry, never a fork.
        """
        with self._lock:
            if self._closed:
                raise AuditError("the audit log is closed; open a new AuditLog to append")
            try:
                entry: dict[str, Any] | None = None
                if self._head is not None:
                    seq, head = self._head
                    entry = _linked(content, seq, head)
                    try:
                        self._insert(seq + 1, entry)
                    except sqlite3.IntegrityError:
                        entry = None  # another writer took seq + 1: link after its head
                if entry is None:
                    seq, entry = self._append_at_head(content)
            except sqlite3.Error as exc:
                raise AuditError(
                    f"could not append to the audit log {str(self.path)!r}: {exc}"
                ) from None
            self._head = (seq + 1, entry["entry_hash"])
            self._appended += 1
            if self._appended % FOLD_EVERY == 0:
                self._folder.request()
            if self._signer is not None and (seq + 1) % self.checkpoint_every == 0:
                self._checkpoint(seq + 1, entry["entry_hash"])
            return entry

    def _append_at_head(self, content: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """Read the head and append after it in one write transaction."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            row = self._db.execute(
                "SELECT seq, entry_hash FROM entries ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            seq, head = (row[0], row[1]) if row else (0, None)
            entry = _linked(content, seq, head)
            self._insert(seq + 1, entry)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return seq, entry

    def _insert(self, seq: int, entry: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO entries (seq, entry_hash, previous_hash, body) VALUES (?, ?, ?, ?)",
            (seq, entry["entry_hash"], entry["previous_hash"], dump_entry(entry)),
        )

    def _disconnect(self) -> None:
        self._folder.close()
        self._db.close()

    def head(self) -> tuple[int, str | None]:
        """``(size, chain_hash)`` of the log as it is now."""
        with self._lock:
            row = self._db.execute(
                "SELECT seq, entry_hash FROM entries ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        return (row[0], row[1]) if row else (0, None)

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry, oldest first, exactly as hashed."""
        with self._lock:
            rows = self._db.execute("SELECT body FROM entries ORDER BY seq").fetchall()
        for (body,) in rows:
            yield orjson.loads(body)


def _linked(content: Mapping[str, Any], seq: int, head: str | None) -> dict[str, Any]:
    """``content`` as the entry at ``seq + 1``, linked after ``head``."""
    body: dict[str, Any] = {"entry_id": str(seq + 1)}
    body.update({k: v for k, v in content.items() if k != "entry_id"})
    if "timestamp" not in body:
        body["timestamp"] = now_timestamp()
    return link(body, head)


def _last_checkpoint_size(path: Path) -> int:
    """The size the checkpoint file last signed, so reopening and closing an unchanged log
    does not sign the same head again. Only the file's tail is read."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = f.read().splitlines()
        size = orjson.loads(lines[-1]).get("size") if lines else 0
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return 0
    return size if isinstance(size, int) else 0
