"""The audit chain in PostgreSQL: one linear chain that every proxy replica appends to.

Each append is one transaction that takes a row lock on the chain's single lock row, reads the
head, links the entry after it and inserts it; a second replica waits for that lock, so the
chain never forks and never skips a position. Two unique indexes make a fork impossible
even for a writer that skipped the lock: each entry has at most one successor, and there is
one first entry.

Append-only is enforced by the database: triggers refuse UPDATE, DELETE and TRUNCATE of the
entries table. (An owner can drop a trigger; that is what checkpoints, kept off the
database, are for.)

A lost connection is retried on a fresh one. Each append carries an id of its own, so a retry
after a commit whose acknowledgement was lost finds the entry instead of writing it twice.
After the retries, :class:`~elision.errors.AuditError` is raised and the pipeline delivers
nothing: no result leaves unaudited.

Checkpoints work as for the SQLite log: signed ``origin\\nsize\\nhead\\n`` lines in a file
of the replica's own (see :func:`elision.audit.pgread.default_pg_checkpoint_path`). All
replicas share one origin, so any replica's checkpoints verify against the one chain.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from elision.audit.chain import link, now_timestamp
from elision.audit.checkpoint import (
    Signer,
    key_from_env,
    signer_from_key,
)
from elision.audit.log import (
    DEFAULT_CHECKPOINT_EVERY,
    INDEXED_MEMBERS,
    CheckpointingLog,
    dump_entry,
)
from elision.audit.pgread import (
    ENTRIES_TABLE,
    MEMBER_FUNCTION,
    default_pg_checkpoint_path,
    pg_member,
)
from elision.audit.verify import read_checkpoints
from elision.errors import AuditError
from elision.store.pgpool import Conn, PgConnector, lock_key, migrate

SCHEMA_VERSION = 2

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        f"""CREATE TABLE {ENTRIES_TABLE} (
            seq BIGINT PRIMARY KEY CHECK (seq > 0),
            entry_hash TEXT NOT NULL UNIQUE,
            previous_hash TEXT UNIQUE,
            body TEXT NOT NULL,
            append_id UUID NOT NULL UNIQUE)""",
        # UNIQUE lets many NULLs through; this one lets exactly one entry start the chain.
        f"CREATE UNIQUE INDEX audit_one_first_entry ON {ENTRIES_TABLE} ((true)) "
        "WHERE previous_hash IS NULL",
        "CREATE TABLE audit_lock (id INTEGER PRIMARY KEY CHECK (id = 1))",
        "INSERT INTO audit_lock VALUES (1)",
        """CREATE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             RAISE EXCEPTION 'the audit log is append-only: entries are never %',
               lower(TG_OP) || 'd' USING ERRCODE = 'insufficient_privilege';
           END $$""",
        f"""CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON {ENTRIES_TABLE}
            FOR EACH ROW EXECUTE FUNCTION audit_refuse_change()""",
        f"""CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON {ENTRIES_TABLE}
            FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change()""",
    ),
    # What `elision view` filters by, each with seq: a filtered page is an index range.
    2: (MEMBER_FUNCTION, *(
        f"CREATE INDEX audit_entries_by_{name} ON {ENTRIES_TABLE} ({pg_member(name)}, seq)"
        for name in INDEXED_MEMBERS
    )),
}


class PgAuditLog(CheckpointingLog):
    """An append-only, hash-chained audit log in PostgreSQL, shared by many processes.

    The same interface as :class:`~elision.audit.log.AuditLog`: ``append``, ``head``,
    ``entries``, ``checkpoint``, ``close``.
    """

    def __init__(
        self,
        url: str,
        *,
        schema: str | None = None,
        key: str | None = None,
        checkpoint_path: str | os.PathLike[str] | None = None,
        checkpoint_every: int = DEFAULT_CHECKPOINT_EVERY,
        origin: str | None = None,
        retries: int = 3,
        timeout: float = 10.0,
        stall_timeout: float = 60.0,
    ) -> None:
        if checkpoint_every < 1:
            raise AuditError(f"checkpoint_every must be at least 1, got {checkpoint_every!r}")
        key = key if key is not None else key_from_env()
        self._signer: Signer | None = signer_from_key(key) if key else None
        self._db = PgConnector(url, schema=schema, error=AuditError, retries=retries,
                               timeout=timeout, max_size=2,
                               stall_timeout=stall_timeout)
        self.path = f"{self._db.where} schema {self._db.schema}"
        self.checkpoint_path = (
            Path(checkpoint_path) if checkpoint_path is not None
            else default_pg_checkpoint_path(url, self._db.schema)
        )
        self.checkpoint_every = checkpoint_every
        self.origin = origin or f"elision-audit:{self.path}"
        self._lock = threading.Lock()
        self._closed = False
        try:
            self.schema_version = self._db.migrate(lambda c: migrate(
                c, "audit_migrations", _MIGRATIONS, SCHEMA_VERSION, self.path, AuditError,
                0.0), lock=lock_key(self._db.schema, "audit"))
        except BaseException:
            self._db.close()
            raise
        self._last_checkpoint_size = _last_signed_size(self.checkpoint_path)

    @property
    def signs_checkpoints(self) -> bool:
        return self._signer is not None

    def append(self, content: Mapping[str, Any]) -> dict[str, Any]:
        """Link ``content`` after the head and store it; returns the entry as hashed.

        ``entry_id`` becomes the entry's 1-based position, as in the SQLite log.
        """
        append_id = uuid.uuid4()

        def work(conn: Conn) -> tuple[int, dict[str, Any]]:
            # The lock comes first: a retried append whose first try is still in flight
            # waits here until that try has committed or rolled back, then sees the truth.
            conn.execute("SELECT id FROM audit_lock WHERE id = 1 FOR UPDATE")
            done = conn.execute(f"SELECT seq, body FROM {ENTRIES_TABLE} WHERE append_id = %s",
                                (append_id,)).fetchone()
            if done is not None:
                return int(done[0]), orjson.loads(done[1])
            row = conn.execute(f"SELECT seq, entry_hash FROM {ENTRIES_TABLE} "
                               "ORDER BY seq DESC LIMIT 1").fetchone()
            seq, head = (int(row[0]), str(row[1])) if row else (0, None)
            body: dict[str, Any] = {"entry_id": str(seq + 1)}
            body.update({k: v for k, v in content.items() if k != "entry_id"})
            body.setdefault("timestamp", now_timestamp())
            entry = link(body, head)
            conn.execute(f"INSERT INTO {ENTRIES_TABLE} VALUES (%s, %s, %s, %s, %s)",
                         (seq + 1, entry["entry_hash"], head, dump_entry(entry), append_id))
            return seq + 1, entry

        with self._lock:
            if self._closed:
                raise AuditError("the audit log is closed; open a new PgAuditLog to append")
            seq, entry = self._db.run(work)
            if self._signer is not None and seq % self.checkpoint_every == 0:
                self._checkpoint(seq, entry["entry_hash"])
            return entry

    def _disconnect(self) -> None:
        self._db.close()

    def head(self) -> tuple[int, str | None]:
        """``(size, chain_hash)`` of the chain as it is now."""
        row = self._db.run(lambda c: c.execute(
            f"SELECT seq, entry_hash FROM {ENTRIES_TABLE} ORDER BY seq DESC LIMIT 1"
        ).fetchone(), write=False)
        return (int(row[0]), str(row[1])) if row else (0, None)

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every entry, oldest first, exactly as hashed."""
        rows = self._db.run(lambda c: c.execute(
            f"SELECT body FROM {ENTRIES_TABLE} ORDER BY seq").fetchall(), write=False)
        for (body,) in rows:
            yield orjson.loads(body)



def _last_signed_size(path: Path) -> int:
    """The size this host's checkpoint file last signed, so that reopening an unchanged
    chain and closing it does not sign the same head twice."""
    try:
        checkpoints = read_checkpoints(path)
    except AuditError:
        return 0
    size = checkpoints[-1].get("size") if checkpoints else 0
    return size if isinstance(size, int) else 0
