"""The audit log as pages of calls: keyset-paged, filtered on indexed members, read-only.

A page is one index range (``seq`` below or above a key, newest first), never an OFFSET and
never the whole log: the page after entry 51,200 costs what the first one does. Filters on
``tool``, ``server``, ``decision`` and a time range use the indexes of the log's schema 2
(:data:`elision.audit.log.INDEXED_MEMBERS`), which :func:`open_calls` gives a log that lacks
them. Both backends answer the same two questions: a page, and one entry by position.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import orjson

from elision.errors import AuditError, InputError

#: Rows a page shows.
PAGE_SIZE = 50
FILTERS = ("tool", "server", "decision")


@dataclass(frozen=True)
class Filter:
    """What a page is narrowed to; empty members do not narrow."""

    tool: str = ""
    server: str = ""
    decision: str = ""
    since: str = ""
    before: str = ""

    @classmethod
    def parse(cls, query: dict[str, str]) -> Filter:
        """From a page's query string; a time that is not one is an :class:`InputError`."""
        values = {name: query.get(name, "").strip() for name in FILTERS}
        return cls(**values, since=_timestamp(query.get("since", "")),
                   before=_timestamp(query.get("before", "")))

    def clauses(self, member: Any, mark: str) -> tuple[list[str], list[str]]:
        """SQL conditions and their parameters; ``member(name)`` spells an indexed member."""
        where: list[str] = []
        params: list[str] = []
        for name in FILTERS:
            value = getattr(self, name)
            if value:
                where.append(f"{member(name)} = {mark}")
                params.append(value)
        if self.since:
            where.append(f"{member('timestamp')} >= {mark}")
            params.append(self.since)
        if self.before:
            where.append(f"{member('timestamp')} < {mark}")
            params.append(self.before)
        return where, params

    def query(self) -> dict[str, str]:
        """The members that narrow, for the links of the next and previous pages."""
        return {k: v for k, v in (
            ("tool", self.tool), ("server", self.server), ("decision", self.decision),
            ("since", self.since), ("before", self.before)) if v}


def _timestamp(text: str) -> str:
    """``text`` (ISO 8601: a date, or a date and time) in the entries' own form,
    ``2026-12-03T14:00:00.000Z``, so that comparing the strings compares the times."""
    text = text.strip()
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"a time filter must be an ISO 8601 date or time such as 2026-12-03 or "
            f"2026-12-03T14:00Z, got {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    utc = moment.astimezone(UTC).isoformat(timespec="milliseconds")
    return utc.replace("+00:00", "Z")


@dataclass(frozen=True)
class Call:
    """One entry of the log, as a row of the list and the head of the call view."""

    seq: int
    entry: dict[str, Any] | None

    def member(self, name: str) -> Any:
        return (self.entry or {}).get(name)

    @property
    def withheld_count(self) -> int:
        withheld = self.member("withheld")
        if not isinstance(withheld, dict):
            return 0
        return sum(n for n in withheld.values() if isinstance(n, int))

    def digest(self, which: str) -> tuple[str | None, int | None]:
        """``(sha256, bytes)`` of the ``full`` or ``shown`` body the entry binds."""
        part = self.member(which)
        if not isinstance(part, dict):
            return None, None
        sha, size = part.get("sha256"), part.get("bytes")
        return (sha if isinstance(sha, str) else None, size if isinstance(size, int) else None)


@dataclass(frozen=True)
class Page:
    calls: list[Call]
    #: The key of the page of older entries, or None at the log's start.
    older: int | None
    #: The key of the page of newer entries, or None at the log's head.
    newer: int | None
    filter: Filter = field(default_factory=Filter)


def _call(seq: int, body: str) -> Call:
    try:
        entry = orjson.loads(body)
    except orjson.JSONDecodeError:
        entry = None  # a tampered row: shown as unreadable, the verifier says where
    return Call(int(seq), entry if isinstance(entry, dict) else None)


class Calls:
    """Pages of one audit log. Thread-safe: the viewer serves from a thread pool."""

    indexed: bool = False
    where: str = ""

    def page(self, filter: Filter = Filter(), *, before: int | None = None,
             after: int | None = None, size: int = PAGE_SIZE) -> Page:
        """The ``size`` newest calls below ``before`` (or the oldest above ``after``)."""
        where, params = filter.clauses(self._member, self._mark)
        if after is not None:
            where.append(f"seq > {self._mark}")
            rows = self._select(where, [*params, str(after)], "ASC", size + 1)
            more_newer = len(rows) > size
            rows = list(reversed(rows[:size]))
            calls = [_call(seq, body) for seq, body in rows]
            older = calls[-1].seq if calls and self._exists(filter, below=calls[-1].seq) else None
            newer = calls[0].seq if calls and more_newer else None
            return Page(calls, older, newer, filter)
        if before is not None:
            where.append(f"seq < {self._mark}")
            params = [*params, str(before)]
        rows = self._select(where, params, "DESC", size + 1)
        calls = [_call(seq, body) for seq, body in rows[:size]]
        older = calls[-1].seq if len(rows) > size else None
        newer = calls[0].seq if calls and before is not None and self._exists(
            filter, above=calls[0].seq) else None
        return Page(calls, older, newer, filter)

    def _exists(self, filter: Filter, *, below: int | None = None,
                above: int | None = None) -> bool:
        where, params = filter.clauses(self._member, self._mark)
        if below is not None:
            where.append(f"seq < {self._mark}")
            params.append(str(below))
        if above is not None:
            where.append(f"seq > {self._mark}")
            params.append(str(above))
        return bool(self._select(where, params, "ASC", 1))

    def get(self, seq: int) -> Call | None:
        rows = self._select([f"seq = {self._mark}"], [str(seq)], "ASC", 1)
        return _call(*rows[0]) if rows else None

    def size(self) -> int:
        rows = self._select([], [], "DESC", 1)
        return int(rows[0][0]) if rows else 0

    # -- a backend provides these --

    _mark = "?"

    def _member(self, name: str) -> str:
        raise NotImplementedError

    def _select(self, where: Sequence[str], params: Sequence[str], order: str,
                limit: int) -> list[tuple[int, str]]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class SQLiteCalls(Calls):
    """A SQLite log, read through a read-only connection (WAL: a writer may go on appending).

    Opening migrates a log that lacks the filter indexes, through a short write connection
    of its own; a log this user may not write is read without them (filters then scan)."""

    def __init__(self, path: Path) -> None:
        from elision.audit.log import member_expression, migrate_log, schema_version

        if not path.is_file():
            raise AuditError(
                f"no audit log at {str(path)!r}; pass --log PATH (or set ELISION_AUDIT) to "
                "the file a proxy or Guardian writes"
            )
        self.where = str(path)
        self._expression = member_expression
        self._lock = threading.Lock()
        try:
            probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                version = schema_version(probe)
            finally:
                probe.close()
            if version < 2:
                with suppress_readonly():
                    db = sqlite3.connect(path, timeout=10.0, isolation_level=None)
                    try:
                        migrate_log(db)
                    finally:
                        db.close()
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                       timeout=10.0, check_same_thread=False)
            self.indexed = schema_version(self._db) >= 2
        except sqlite3.Error as exc:
            raise AuditError(f"could not read the audit log {str(path)!r}: {exc}") from None

    def _member(self, name: str) -> str:
        return self._expression(name)

    def _select(self, where: Sequence[str], params: Sequence[str], order: str,
                limit: int) -> list[tuple[int, str]]:
        sql = "SELECT seq, body FROM entries"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY seq {order} LIMIT {int(limit)}"
        typed = [int(p) if w.startswith("seq") else p for w, p in zip(where, params, strict=True)]
        with self._lock:
            try:
                return [(int(s), str(b)) for s, b in self._db.execute(sql, typed).fetchall()]
            except sqlite3.Error as exc:
                raise AuditError(f"could not read the audit log {self.where!r}: {exc}") from None

    def close(self) -> None:
        self._db.close()


class suppress_readonly:
    """Skip a migration this user may not write; the log is then read without its indexes."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        return exc_type is not None and issubclass(exc_type, sqlite3.OperationalError)


class PgCalls(Calls):
    """A PostgreSQL chain, read in read-only transactions on one connection."""

    _mark = "%s"

    def __init__(self, url: str, *, schema: str | None = None) -> None:
        try:
            import psycopg
            from psycopg import sql
        except ImportError:
            raise AuditError(
                "reading a postgresql:// audit log needs psycopg; install elision[postgres]"
            ) from None
        from elision.audit.pgread import ENTRIES_TABLE, pg_member, where

        host, port, db = where(url)
        self.where = f"postgresql://{host}:{port}/{db}"
        self._table = ENTRIES_TABLE
        self._expression = pg_member
        self._lock = threading.Lock()
        self._psycopg = psycopg
        try:
            self._db = psycopg.connect(url, autocommit=True, connect_timeout=10)
            if schema:
                self._db.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            found = self._db.execute("SELECT to_regclass(%s)", (ENTRIES_TABLE,)).fetchone()
            if found is None or found[0] is None:
                self._db.close()
                raise AuditError(f"no audit log in {self.where}; pass the URL a writer "
                                 "appends to")
            self.indexed = self._db.execute(
                "SELECT to_regprocedure('audit_member(text, text)')").fetchone() not in (
                None, (None,))
        except psycopg.Error as exc:
            raise AuditError(f"could not read the audit log at {self.where}: "
                             f"{type(exc).__name__}; check that the server is up") from None

    def _member(self, name: str) -> str:
        if self.indexed:
            return self._expression(name)
        return f"((body::json) ->> '{name}')"  # a chain no writer of schema 2 opened yet

    def _select(self, where: Sequence[str], params: Sequence[str], order: str,
                limit: int) -> list[tuple[int, str]]:
        sql = f"SELECT seq, body FROM {self._table}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY seq {order} LIMIT {int(limit)}"
        typed = [int(p) if w.startswith("seq") else p for w, p in zip(where, params, strict=True)]
        with self._lock:
            try:
                rows = self._db.execute(sql, typed).fetchall()
            except self._psycopg.Error as exc:
                raise AuditError(f"could not read the audit log at {self.where}: "
                                 f"{str(exc).strip().splitlines()[0]}") from None
        return [(int(s), str(b)) for s, b in rows]

    def close(self) -> None:
        self._db.close()


def open_calls(spec: str | None) -> Calls:
    """The calls of the log ``spec`` names: a ``postgresql://`` URL, else a SQLite file
    (``None``: ``$ELISION_AUDIT``, else the default file)."""
    import os

    from elision.audit.log import default_log_path
    from elision.audit.pgread import is_pg_url

    spec = spec if spec is not None else (os.environ.get("ELISION_AUDIT") or None)
    if is_pg_url(spec):
        assert spec is not None
        return PgCalls(spec)
    path = Path(spec).expanduser() if spec is not None else default_log_path()
    return SQLiteCalls(path)
