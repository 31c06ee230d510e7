"""Read an audit chain kept in PostgreSQL, for the verifier: no writer code, no writes.

Like :mod:`elision.audit.verify`, this imports nothing from the writer (``chain``, ``log``,
``checkpoint``, ``pglog``), so ``elision audit verify --log postgresql://…`` recomputes every
hash with code that did not write them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from elision.errors import AuditError

if TYPE_CHECKING:
    from elision.audit.verify import VerifyResult

ENTRIES_TABLE = "audit_entries"
#: The members a chain's indexes cover (the writer's INDEXED_MEMBERS, spelled here as well
#: so that this module keeps importing nothing from the writer).
_INDEXED = ("tool", "server", "decision", "timestamp")


def pg_member(name: str) -> str:
    """The SQL expression an index on an entry member is built on (queries spell it alike):
    :data:`MEMBER_FUNCTION`, which gives NULL where the member cannot be read as text."""
    assert name in _INDEXED
    return f"audit_member(body, '{name}')"


#: An entry member as text, NULL where it cannot be: PostgreSQL's text cannot hold U+0000,
#: which JSON may spell (``\\u0000``), and a cast that failed would refuse the append.
MEMBER_FUNCTION = """CREATE FUNCTION audit_member(body TEXT, name TEXT) RETURNS TEXT
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    BEGIN
      RETURN (body::json) ->> name;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END $$"""


def is_pg_url(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(("postgresql://", "postgres://"))


def where(url: str) -> tuple[str, str, str]:
    """``(host, port, dbname)`` of a URL, for names and messages; never the password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        raise AuditError(
            "the audit log URL is not a valid postgresql:// URL (its text is not shown: it "
            "may hold a password); check its form: postgresql://user@host:5432/dbname"
        ) from None
    return (str(parts.get("host") or "localhost"), str(parts.get("port") or "5432"),
            str(parts.get("dbname") or ""))


def default_pg_checkpoint_path(url: str, schema: str) -> Path:
    """Where a writer on this host keeps checkpoints of that chain, unless told otherwise.

    Checkpoints stay off the database on purpose: whoever can rewrite the chain's table
    must not be able to rewrite its commitments in the same stroke.
    """
    host, port, db = where(url)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"audit-pg-{host}-{port}-{db}-{schema}")
    data_home = os.environ.get("XDG_DATA_HOME")
    if data_home and os.path.isabs(data_home):
        base = Path(data_home)
    else:
        base = Path.home() / ".local" / "share"
    return base / "elision" / f"{name}.checkpoints"


def read_pg_log(url: str, *, schema: str | None = None) -> tuple[list[Any], str]:
    """The entries of a PostgreSQL chain, oldest first, and the schema they were read from."""
    try:
        import psycopg
        from psycopg import sql
    except ImportError:
        raise AuditError(
            "reading a postgresql:// audit log needs psycopg; install elision[postgres]"
        ) from None

    host, port, db = where(url)
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            if schema:
                conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            row = conn.execute("SELECT current_schema()").fetchone()
            used = str(row[0]) if row and row[0] else (schema or "")
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                exists = conn.execute("SELECT to_regclass(%s)", (ENTRIES_TABLE,)).fetchone()
                if exists is None or exists[0] is None:
                    raise AuditError(
                        f"no audit log in schema {used!r} of postgresql://{host}:{port}/{db}; "
                        "pass the URL a writer appends to (and its schema)"
                    )
                rows = conn.execute(
                    f"SELECT body FROM {ENTRIES_TABLE} ORDER BY seq").fetchall()
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise AuditError(
            f"could not read the audit log at postgresql://{host}:{port}/{db}: {first}; check "
            "that the server is up and the URL's user may read it"
        ) from None
    out: list[Any] = []
    for (body,) in rows:
        try:
            out.append(orjson.loads(body))
        except orjson.JSONDecodeError:
            out.append(None)  # reported as "not a JSON object" at its position
    return out, used


def verify_pg_log(
    url: str,
    *,
    schema: str | None = None,
    checkpoint_paths: Sequence[str | Path] | None = None,
    key: str | None = None,
    heads: Sequence[str] = (),
) -> VerifyResult:
    """Verify a PostgreSQL chain against checkpoints (this host's default file unless given).

    Each replica signs checkpoints into its own file; pass them all to check every one.
    """
    entries, used = read_pg_log(url, schema=schema)
    if checkpoint_paths is None:
        checkpoint_paths = [default_pg_checkpoint_path(url, used)]
    # Imported here: opening a log (every hook call) asks is_pg_url, and only a check
    # verifies (issue 24).
    from elision.audit.verify import verify_against_files

    return verify_against_files(entries, checkpoint_paths, key=key, heads=heads)
