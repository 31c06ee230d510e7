"""Schema version 2 of the audit log: the indexes `elision view` filters by, which a log
written by an older elision gets when a writer (or the viewer) opens it."""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import pytest

from elision.audit.log import INDEXED_MEMBERS, SCHEMA_VERSION, AuditLog, schema_version
from elision.audit.verify import verify_log

#: The version-1 schema exactly as elision wrote it before the viewer existed.
V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema_version', '1');
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY, entry_hash TEXT NOT NULL UNIQUE, previous_hash TEXT,
    body TEXT NOT NULL);
CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries are never updated'); END;
CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries are never deleted'); END;
"""


def _indexes(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'entries_by_%'")}
    finally:
        db.close()


def _v1_log(path: Path, entries: int) -> None:
    """A version-1 log with ``entries`` chained entries, written by today's hashing."""
    from elision.audit.chain import link

    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    head = None
    for n in range(1, entries + 1):
        entry = link({"entry_id": str(n), "tool": f"t{n % 3}", "decision": "allow",
                      "timestamp": f"2026-01-01T00:00:{n:02d}.000Z"}, head)
        import orjson

        db.execute("INSERT INTO entries VALUES (?, ?, ?, ?)",
                   (n, entry["entry_hash"], head, orjson.dumps(entry).decode()))
        head = entry["entry_hash"]
    db.commit()
    db.close()


def test_a_version_1_log_gets_the_filter_indexes_when_a_writer_opens_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    _v1_log(path, 5)
    assert _indexes(path) == set()
    with AuditLog(path) as log:
        log.append({"tool": "after", "decision": "allow"})
    assert _indexes(path) == {f"entries_by_{m}" for m in INDEXED_MEMBERS}
    db = sqlite3.connect(path)
    assert schema_version(db) == SCHEMA_VERSION == 2
    db.close()
    # The migration adds indexes only: every entry still verifies, the new one linked on.
    result = verify_log(path)
    assert result.ok and result.entries == 6


@pytest.mark.parametrize("member", INDEXED_MEMBERS)
def test_a_filtered_page_is_an_index_search_not_a_scan(tmp_path: Path, member: str) -> None:
    from elision.audit.log import member_expression

    path = tmp_path / "audit.db"
    with AuditLog(path) as log:
        log.append({"tool": "t", "decision": "allow"})
    db = sqlite3.connect(path)
    plan = db.execute(
        f"EXPLAIN QUERY PLAN SELECT seq FROM entries WHERE {member_expression(member)} = ? "
        "AND seq < ? ORDER BY seq DESC LIMIT 50", ("t", 10)).fetchall()
    db.close()
    assert f"USING INDEX entries_by_{member}" in " ".join(str(row[3]) for row in plan)


def test_a_row_that_is_not_json_neither_blocks_the_index_nor_a_query(tmp_path: Path) -> None:
    """A tampered log (a row that is not JSON) is the verifier's to report; the migration
    and the viewer's filters must not fail on it."""
    path = tmp_path / "audit.db"
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    db.execute("INSERT INTO entries VALUES (1, 'x', NULL, 'not json {')")
    db.commit()
    db.close()
    with AuditLog(path):
        pass
    assert len(_indexes(path)) == len(INDEXED_MEMBERS)
def test_the_viewer_migrates_a_version_1_log_it_reads(tmp_path: Path) -> None:
    from elision.view.calls import open_calls

    path = tmp_path / "audit.db"
    _v1_log(path, 3)
    with open_calls(str(path)) as calls:
        assert calls.indexed
    assert _indexes(path) == {f"entries_by_{m}" for m in INDEXED_MEMBERS}




@pytest.mark.skipif(not os.environ.get("ELISION_TEST_POSTGRES_URL"),
                    reason="set ELISION_TEST_POSTGRES_URL to a PostgreSQL database")
def test_a_version_1_postgresql_chain_gets_the_indexes_when_a_writer_opens_it() -> None:
    import psycopg

    from elision.audit import pglog
    from elision.audit.pglog import PgAuditLog

    url = os.environ["ELISION_TEST_POSTGRES_URL"]
    schema = "elision_v1_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    scoped = f"{url}?options=-csearch_path%3D{schema}"
    try:
        # A chain as a writer of version 1 left it: migration 1 only, two entries.
        v1 = {1: pglog._MIGRATIONS[1]}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pglog, "_MIGRATIONS", v1)
            patch.setattr(pglog, "SCHEMA_VERSION", 1)
            with PgAuditLog(scoped, schema=schema) as log:
                log.append({"tool": "before", "decision": "allow"})
                log.append({"tool": "before", "decision": "allow"})

        def indexes() -> set[str]:
            with psycopg.connect(url, autocommit=True) as conn:
                rows = conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = %s",
                                    (schema,)).fetchall()
            return {r[0] for r in rows if r[0].startswith("audit_entries_by_")}

        assert indexes() == set()
        with PgAuditLog(scoped, schema=schema) as log:
            assert log.schema_version == 2
            log.append({"tool": "after", "decision": "allow"})
        assert indexes() == {f"audit_entries_by_{m}" for m in INDEXED_MEMBERS}
        from elision.audit.pgread import verify_pg_log

        result = verify_pg_log(scoped, schema=schema)
        assert result.ok and result.entries == 3
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
