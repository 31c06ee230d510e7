"""open_store(), the default path, and a body the store refuses to keep."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from elision.budget import Budget
from elision.errors import StoreError
from elision.shape import new_ref, shape
from elision.store import MemoryStore, SQLiteStore, default_store_path, open_store


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ELISION_STORE", "ELISION_STORE_TTL", "ELISION_STORE_QUOTA", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("xdg", "expected"),
    [
        ("/data", Path("/data/elision/store.db")),  # XDG_DATA_HOME wins
        ("relative/dir", None),  # the XDG spec says to ignore a relative value
        ("", None),  # empty is unset
    ],
)
def test_default_store_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, xdg: str, expected: Path | None
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", xdg)
    home_default = tmp_path / ".local" / "share" / "elision" / "store.db"
    assert default_store_path() == (expected or home_default)


def test_open_store_resolution_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    default = open_store()
    assert isinstance(default, SQLiteStore)
    assert default.path == tmp_path / "xdg" / "elision" / "store.db" and default.path.exists()
    default.close()
    monkeypatch.setenv("ELISION_STORE", str(tmp_path / "env.db"))
    from_env = open_store()
    assert isinstance(from_env, SQLiteStore) and from_env.path == tmp_path / "env.db"
    from_env.close()
    explicit = open_store(str(tmp_path / "a" / "b" / "given.db"))  # directories are created
    assert isinstance(explicit, SQLiteStore) and explicit.path.exists()
    explicit.close()
    assert isinstance(open_store(":memory:"), MemoryStore)


@pytest.mark.parametrize(
    "spec",
    [
        "postgresql://u:s3cret@127.0.0.1:1/db",  # nothing listens on port 1 of loopback
        "postgres://u:s3cret@127.0.0.1:1/x",  # the short scheme selects the same backend
    ],
)
def test_postgres_spec_that_cannot_connect_is_a_clear_error(spec: str) -> None:
    with pytest.raises(StoreError, match=r"cannot connect to PostgreSQL at") as caught:
        open_store(spec)
    assert "s3cret" not in str(caught.value)  # never the password


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("ELISION_STORE_TTL", "soon", "must be a number"),  # not a number
        ("ELISION_STORE_QUOTA", "-5", "must be positive"),  # negative
    ],
)
def test_bad_retention_env_is_clear(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(StoreError, match=message) as caught:
        open_store(":memory:")
    assert repr(value) in str(caught.value)


def test_retention_env_is_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELISION_STORE_TTL", "90")
    monkeypatch.setenv("ELISION_STORE_QUOTA", "4096")
    store: Any = open_store(":memory:")
    assert (store.retention.ttl, store.retention.quota_bytes) == (90, 4096)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    import sqlite3

    SQLiteStore(tmp_path / "s.db").close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("INSERT INTO migrations VALUES (99, 0)")
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SQLiteStore(tmp_path / "s.db")


def test_unopenable_path_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError, match="cannot create the store directory"):
        SQLiteStore(blocker / "store.db")


def test_body_too_large_still_shapes_and_says_not_stored(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db", max_body_bytes=10_000)
    doc = {"rows": [{"id": i} for i in range(2000)]}
    shaped = shape(json.dumps(doc), Budget(1024), store=store)
    env = shaped.envelope
    assert env is not None and env["complete"] is False
    assert env["stored"] is False and "ref" not in env and "next" not in env
    assert any("maximum of 10,000 bytes" in note for note in env.get("notes", []))
    assert store.stats().refs == 0
    store.close()


def test_new_store_file_is_private(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "new" / "store.db")
    body = b"tool result"
    store.put(body, ref=new_ref(), sha256=hashlib.sha256(body).hexdigest(), format="text")
    for path in (tmp_path / "new" / "store.db", tmp_path / "new" / "store.db-wal"):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) & 0o077 == 0
    store.close()


def test_v1_store_migrates_and_keeps_its_totals(tmp_path: Path) -> None:
    import sqlite3

    from elision.store import sqlite as sqlite_store

    # A file as an older elision left it: schema 1, two bodies in chunk rows.
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, "
                     "applied_at REAL NOT NULL)")
        for statement in sqlite_store._MIGRATIONS[1]:
            conn.execute(statement)
        conn.execute("INSERT INTO migrations VALUES (1, 0)")
        for body in (b"a" * 100, b"b" * 250):
            sha = hashlib.sha256(body).hexdigest()
            conn.execute("INSERT INTO bodies VALUES (?, ?, 1, 0)", (sha, len(body)))
            conn.execute("INSERT INTO chunks VALUES (?, 0, ?)", (sha, body))
    conn.close()
    again = SQLiteStore(tmp_path / "s.db")
    stats = again.stats()
    assert (stats.bodies, stats.bytes) == (2, 350)
    with sqlite3.connect(tmp_path / "s.db") as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM migrations ORDER BY 1")]
    conn.close()
    assert versions == [1, 2, 3]
    again.close()
