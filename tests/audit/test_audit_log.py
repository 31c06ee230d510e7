"""The SQLite log: append-only in the database itself, chained, checkpointed apart."""

from __future__ import annotations

import base64
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.audit.log import AuditLog, default_log_path
from elision.audit.verify import read_checkpoints, verify_log
from elision.audit.walfold import FOLD_EVERY
from elision.errors import AuditError, InputError

KEY = "hmac:a-long-enough-test-secret"


def test_appends_chain_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    with AuditLog(path, key=KEY, checkpoint_every=2) as log:
        first = log.append({"step_id": "a", "step_type": "steps/toolCallResult"})
        second = log.append({"step_id": "b", "step_type": "steps/toolCallResult"})
        assert first["previous_hash"] is None
        assert second["previous_hash"] == first["entry_hash"]
        assert [e["entry_id"] for e in log.entries()] == ["1", "2"]
        assert log.head() == (2, second["entry_hash"])
        log.append({"step_id": "c"})
    checkpoints = read_checkpoints(tmp_path / "audit.db.checkpoints")
    # One at entry 2 (every 2), one at close for the head (3).
    assert [cp["size"] for cp in checkpoints] == [2, 3]
    result = verify_log(path, key=KEY)
    assert result.ok, result.problem
    assert result.checkpoints == 2


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE entries SET body = '{}' WHERE seq = 1",  # an edit in place
        "DELETE FROM entries WHERE seq = 1",  # dropping an entry
        "DELETE FROM entries",  # emptying the log
    ],
)
def test_the_database_refuses_update_and_delete(tmp_path: Path, statement: str) -> None:
    path = tmp_path / "audit.db"
    with AuditLog(path) as log:
        log.append({"step_id": "a"})
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute(statement)
    db.close()


def tamper(path: Path, statement: str) -> None:
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER entries_no_update")
    db.execute("DROP TRIGGER entries_no_delete")
    db.execute(statement)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("statement", "first_bad"),
    [
        # an edited decision in entry 2
        ("UPDATE entries SET body = replace(body, '\"allow\"', '\"deny\"') WHERE seq = 2", 2),
        ("DELETE FROM entries WHERE seq = 2", 2),  # a deleted middle entry
        ("DELETE FROM entries WHERE seq = 3", 3),  # a cut tail (caught by the checkpoint)
    ],
)
def test_tampering_behind_the_triggers_is_caught(
    tmp_path: Path, statement: str, first_bad: int
) -> None:
    path = tmp_path / "audit.db"
    with AuditLog(path, key=KEY) as log:
        for step in "abc":
            log.append({"step_id": step, "decision": "allow"})
    tamper(path, statement)
    result = verify_log(path, key=KEY)
    assert not result.ok
    assert result.first_bad == first_bad


def test_two_writers_on_one_file_never_fork_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    logs = [AuditLog(path), AuditLog(path)]

    def write(log: AuditLog, tag: str) -> None:
        for i in range(25):
            log.append({"step_id": f"{tag}{i}"})

    threads = [
        threading.Thread(target=write, args=(log, tag))
        for log, tag in zip(logs, "xy", strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for log in logs:
        log.close()
    result = verify_log(path)
    assert result.ok, result.problem
    assert result.entries == 50


@given(st.lists(st.integers(0, 2), min_size=1, max_size=12))
@settings(max_examples=25, deadline=None)
def test_writers_taking_turns_link_after_the_real_head(turns: list[int]) -> None:
    # Each log remembers the head it wrote last; whenever another one appended since, that
    # memory is stale and the entry must still link after the real head, with no gap.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.db"
        logs = [AuditLog(path) for _ in range(3)]
        written = [logs[w].append({"step_id": f"{w}-{i}"}) for i, w in enumerate(turns)]
        for log in logs:
            log.close()
        assert [e["entry_id"] for e in written] == [str(i + 1) for i in range(len(turns))]
        assert [e["step_id"] for e in written] == [f"{w}-{i}" for i, w in enumerate(turns)]
        result = verify_log(path)
        assert result.ok, result.problem
        assert result.entries == len(turns)


def test_the_wal_is_folded_off_the_appending_thread(tmp_path: Path) -> None:
    # Appends never fold the WAL themselves (that waits for fsyncs); a thread does it every
    # FOLD_EVERY appends, so the entries reach the database file while the log stays open.
    path = tmp_path / "audit.db"
    with AuditLog(path) as log:
        start = path.stat().st_size
        for i in range(FOLD_EVERY - 1):
            log.append({"step_id": f"s{i}"})
        assert log._folder.folds == 0 and path.stat().st_size == start
        log.append({"step_id": "last"})
        deadline = time.monotonic() + 10
        while log._folder.folds == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert log._folder.folds == 1
        assert path.stat().st_size > start + 100 * 1024
        threads = [t.name for t in threading.enumerate()]
        assert "elision-audit-wal-fold" in threads
    assert "elision-audit-wal-fold" not in [t.name for t in threading.enumerate()]
    result = verify_log(path)
    assert result.ok and result.entries == FOLD_EVERY


def test_without_a_key_no_checkpoint_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ELISION_AUDIT_KEY", raising=False)
    with AuditLog(tmp_path / "a.db", checkpoint_every=1) as log:
        log.append({"step_id": "a"})
        assert not log.signs_checkpoints
    assert not (tmp_path / "a.db.checkpoints").exists()


def test_key_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELISION_AUDIT_KEY", KEY)
    with AuditLog(tmp_path / "a.db") as log:
        log.append({"step_id": "a"})
    assert verify_log(tmp_path / "a.db", key=KEY).ok
    assert not verify_log(tmp_path / "a.db", key="hmac:some-other-long-secret").ok


def test_ed25519_checkpoints_verify_with_the_public_key(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    seed = bytes(range(32))
    key = "ed25519:" + base64.b64encode(seed).decode()
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw
    )
    with AuditLog(tmp_path / "a.db", key=key) as log:
        log.append({"step_id": "a"})
    assert read_checkpoints(tmp_path / "a.db.checkpoints")[0]["algorithm"] == "Ed25519"
    public_key = "ed25519-pub:" + base64.b64encode(public).decode()
    assert verify_log(tmp_path / "a.db", key=public_key).ok
    assert not verify_log(tmp_path / "a.db", key=KEY).ok


@pytest.mark.parametrize(
    "key",
    [
        "short",  # under 16 bytes: too weak to sign with
        "ed25519:bm90LWEtc2VlZA==",  # decodes, but not to 32 bytes
    ],
)
def test_a_bad_key_is_refused_without_showing_it(tmp_path: Path, key: str) -> None:
    with pytest.raises(InputError) as info:  # a key of no usable form is bad input (exit 2)
        AuditLog(tmp_path / "a.db", key=key)
    assert key.split(":")[-1] not in str(info.value)


def test_default_path_follows_env_then_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ELISION_AUDIT", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_log_path() == tmp_path / "data" / "elision" / "audit.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_log_path() == tmp_path / "home" / ".local" / "share" / "elision" / "audit.db"
    monkeypatch.setenv("ELISION_AUDIT", str(tmp_path / "x.db"))
    assert default_log_path() == tmp_path / "x.db"


def test_a_closed_log_refuses_appends(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.db")
    log.close()
    with pytest.raises(AuditError, match="closed"):
        log.append({"step_id": "a"})


def test_reopening_an_unchanged_log_signs_no_duplicate_checkpoint(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "a.db", key=KEY) as log:
        log.append({"step_id": "a"})
    with AuditLog(tmp_path / "a.db", key=KEY):
        pass
    with AuditLog(tmp_path / "a.db", key=KEY) as log:
        log.append({"step_id": "b"})
    sizes = [cp["size"] for cp in read_checkpoints(tmp_path / "a.db.checkpoints")]
    assert sizes == [1, 2]


def test_an_entry_past_orjson_depth_is_appended_and_verifies(tmp_path: Path) -> None:
    """Red before: orjson's raw ``TypeError: Recursion limit reached`` left ``append`` after
    the entry was hashed (the auditjcs session's finding)."""
    deep: object = "x"
    for _ in range(300):
        deep = [deep]
    path = tmp_path / "audit.db"
    with AuditLog(path, key=KEY) as log:
        log.append({"step_id": "a", "detail": deep})
        log.append({"step_id": "b"})
        assert [e["step_id"] for e in log.entries()] == ["a", "b"]
    result = verify_log(path, key=KEY)
    assert result.ok, result.problem


def test_an_entry_that_is_not_json_is_refused_by_an_audit_error(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "audit.db") as log, pytest.raises(
        AuditError, match="cannot be canonicalized"
    ):
        log.append({"step_id": "a", "detail": {1, 2}})
