"""Files that hold evidence or secrets are their owner's alone (issue 25).

Found by listing what a fresh install wrote: `audit.db` was 0644 (every local user could read
which tools ran on what), the install record copied an `env` token from a 0600 config into a
0644 file under 0755 directories, a store others could write was used silently, and a store
whose `bodies` directory was a symlink to a 0777 directory wrote bodies into it. Now each is
created 0600 (directories 0700), and a store, log or record directory that others can write,
directly or through a symlink, is refused, as ssh refuses such a key directory.
PostgreSQL keeps no files: nothing to check there.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.errors import AuditError, StoreError
from elision.store import SQLiteStore

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")

KEY = "hmac:private-files-test-key-long-enough"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture(autouse=True)
def _umask_of_a_usual_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A 022 umask, as most shells have: what elision creates must not depend on it."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ELISION_STORE", "ELISION_AUDIT", "ELISION_AUDIT_KEY"):
        monkeypatch.delenv(name, raising=False)
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _keep(store: SQLiteStore, body: bytes) -> None:
    store.put(body, ref="el_" + "a" * 24, sha256=hashlib.sha256(body).hexdigest(),
              format="text")


def _append(log: AuditLog, n: int = 2) -> None:
    for i in range(n):
        log.append(tool_result_entry(
            step_id=f"s{i}", tool="search", server="docs", full_sha256="a" * 64,
            full_bytes=10, shown_sha256="b" * 64, shown_bytes=5, complete=True,
            decision="allow", policy_ids=[]))


def test_audit_log_its_wal_and_checkpoints_are_the_owner_s_alone(tmp_path: Path) -> None:
    where = tmp_path / "new" / "logs"
    with AuditLog(where / "audit.db", key=KEY, checkpoint_every=1) as log:
        _append(log)
        files = [where / "audit.db", where / "audit.db-wal", where / "audit.db-shm",
                 where / "audit.db.checkpoints"]
        for path in files:
            assert path.exists(), path
            assert mode(path) == 0o600, (path, oct(mode(path)))
    assert mode(where) == 0o700
    assert mode(where.parent) == 0o700


def test_store_its_wal_and_body_files_are_the_owner_s_alone(tmp_path: Path) -> None:
    where = tmp_path / "new" / "store"
    store = SQLiteStore(where / "store.db", file_bytes=16)
    try:
        _keep(store, b"x" * 100)
        for path in (where / "store.db", where / "store.db-wal", where / "store.db-shm"):
            assert mode(path) == 0o600, (path, oct(mode(path)))
        bodies = where / "store.db.bodies"
        assert mode(bodies) == 0o700
        kept = list(bodies.iterdir())
        assert kept and all(mode(p) == 0o600 for p in kept)
    finally:
        store.close()
    assert mode(where) == 0o700


def test_install_record_keeps_an_env_token_private(tmp_path: Path) -> None:
    from elision.install import install
    from elision.install.record import record_path

    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"mcpServers": {
        "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": TOKEN}}}}), "utf-8")
    config.chmod(0o600)
    install("gemini-cli", config=config)
    record = record_path(config)
    assert TOKEN in record.read_text("utf-8")  # it must keep it: uninstall puts it back
    assert mode(record) == 0o600
    assert mode(record.parent) == 0o700
    assert mode(record.parent.parent) == 0o700


# -- refused: a place others can write ------------------------------------------------------

@pytest.mark.parametrize(("bits", "who"), [(0o777, "everyone"), (0o770, "the group")])
def test_a_store_in_a_directory_others_can_write_is_refused(tmp_path: Path, bits: int,
                                                            who: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(bits)
    with pytest.raises(StoreError, match="others can write") as info:
        SQLiteStore(shared / "store.db")
    assert "chmod go-w" in str(info.value), who
    assert not (shared / "store.db").exists()  # refused before anything was written


def test_a_store_file_others_can_write_is_refused(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "store.db").close()
    (tmp_path / "store.db").chmod(0o666)
    with pytest.raises(StoreError, match="others can write"):
        SQLiteStore(tmp_path / "store.db")


def test_a_bodies_directory_symlinked_to_a_shared_one_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "world"
    shared.mkdir()
    shared.chmod(0o777)
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / "store.db.bodies").symlink_to(shared, target_is_directory=True)
    with pytest.raises(StoreError, match="others can write"):
        store = SQLiteStore(mine / "store.db", file_bytes=16)
        try:
            _keep(store, b"x" * 100)
        finally:
            store.close()
    assert list(shared.iterdir()) == []


def test_a_sticky_shared_directory_is_allowed(tmp_path: Path) -> None:
    """/tmp is 1777: others can write there but cannot rename or remove our files."""
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    SQLiteStore(sticky / "store.db").close()
    assert mode(sticky / "store.db") == 0o600


def test_an_audit_log_in_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(AuditError, match="others can write"):
        AuditLog(shared / "audit.db")


def test_an_existing_log_others_can_write_is_refused(tmp_path: Path) -> None:
    AuditLog(tmp_path / "audit.db").close()
    (tmp_path / "audit.db").chmod(0o646)
    with pytest.raises(AuditError, match="others can write"):
        AuditLog(tmp_path / "audit.db")
