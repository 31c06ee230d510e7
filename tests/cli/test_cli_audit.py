"""`elision audit verify` and `elision audit show`, on real log files."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.cli import main

KEY = "hmac:cli-test-secret-long-enough"


def make_log(path: Path, n: int = 3, key: str | None = KEY) -> None:
    with AuditLog(path, key=key) as log:
        for i in range(n):
            log.append(tool_result_entry(
                step_id=f"s{i}", tool="search", server="docs", full_sha256="a" * 64,
                full_bytes=1000 + i, shown_sha256="b" * 64, shown_bytes=100,
                complete=False, decision="allow", policy_ids=["size-ceiling"],
            ))


def tamper(path: Path, trigger: str, statement: str) -> None:
    """Run ``statement`` on the log with its guard ``trigger`` dropped, as someone with
    write access to the file could."""
    db = sqlite3.connect(path)
    db.execute(f"DROP TRIGGER {trigger}")
    db.execute(statement)
    db.commit()
    db.close()


def alter_entry_2(path: Path) -> None:
    tamper(path, "entries_no_update",
           "UPDATE entries SET body = replace(body, '1001', '9') WHERE seq = 2")


def cut_tail(path: Path) -> None:
    """Delete the last of three entries."""
    tamper(path, "entries_no_delete", "DELETE FROM entries WHERE seq = 3")


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_verify_ok_with_checkpoints(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db")
    code, out, _ = run("audit", "verify", "--log", str(tmp_path / "a.db"),
                       env={"ELISION_AUDIT_KEY": KEY})
    assert code == 0
    assert out.startswith("ok: 3 entries")
    assert "1 checkpoint(s)" in out


def test_verify_names_the_first_bad_entry(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db")
    alter_entry_2(tmp_path / "a.db")
    code, out, err = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--key", KEY)
    assert code == 1
    assert err.startswith("error: entry 2 was altered")
    assert KEY.split(":")[1] not in err + out  # the key is never echoed


def test_verify_catches_a_cut_tail_with_the_checkpoint_file(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db")
    cut_tail(tmp_path / "a.db")
    code, _, err = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--key", KEY,
                       "--checkpoints", str(tmp_path / "a.db.checkpoints"))
    assert code == 1
    assert "tail was cut" in err


def test_verify_without_checkpoints_warns(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db", key=None)
    code, out, err = run("audit", "verify", "--log", str(tmp_path / "a.db"),
                         env={"ELISION_AUDIT_KEY": ""})
    assert code == 0 and out.startswith("ok: 3 entries")
    assert "no signed checkpoint" in err


def test_verify_a_missing_log_says_how_to_point_at_one(tmp_path: Path) -> None:
    code, _, err = run("audit", "verify", "--log", str(tmp_path / "nope.db"))
    assert code == 1
    assert "--log PATH" in err


def jcs_by_hand(value: dict[str, object]) -> bytes:
    # An independent JCS for what entries hold (ASCII keys, strings, integers, booleans):
    # sorted keys, no whitespace, UTF-8.
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def test_show_json_prints_entries_exactly_as_hashed(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db")
    code, out, _ = run("audit", "show", "--json", "--log", str(tmp_path / "a.db"))
    assert code == 0
    entries = [orjson.loads(line) for line in out.splitlines()]
    assert len(entries) == 3
    previous = None
    for entry in entries:
        content = {k: v for k, v in entry.items() if k not in ("entry_hash", "previous_hash")}
        digest = hashlib.sha256(jcs_by_hand(content))
        if previous is not None:
            digest.update(bytes.fromhex(previous))
        assert entry["previous_hash"] == previous
        assert digest.hexdigest() == entry["entry_hash"]
        previous = entry["entry_hash"]


def test_show_table_and_last(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db", n=5)
    code, out, _ = run("audit", "show", "--log", str(tmp_path / "a.db"), "--last", "2")
    assert code == 0
    assert "audit log: 2 entries" in out
    assert "docs/search" in out and "1,004" in out and "1,002" not in out


def test_show_a_long_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import elision.cli.audit

    # A lower threshold stands in for a long log, so the progress path runs in a quick test.
    monkeypatch.setattr(elision.cli.audit, "PROGRESS_THRESHOLD", 10)
    n = 30
    path = tmp_path / "long.db"
    with AuditLog(path, key=None) as log:
        for i in range(n):
            log.append({"step_id": str(i), "step_type": "steps/toolCallResult"})
    code, out, _ = run("audit", "show", "--log", str(path))
    assert code == 0
    assert f"audit log: {n} entries" in out


def test_default_log_comes_from_the_environment(tmp_path: Path) -> None:
    make_log(tmp_path / "env.db", n=1, key=None)
    code, out, _ = run("audit", "show", "--json",
                       env={"ELISION_AUDIT": str(tmp_path / "env.db")})
    assert code == 0 and len(out.splitlines()) == 1


def test_verify_against_a_published_head(tmp_path: Path) -> None:
    make_log(tmp_path / "a.db", key=None)
    with AuditLog(tmp_path / "a.db") as log:
        head = log.head()[1]
    assert head is not None
    ok = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--head", head,
             env={"ELISION_AUDIT_KEY": ""})
    assert ok[0] == 0 and "warning" not in ok[2]
    bad = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--head", "c" * 64,
              env={"ELISION_AUDIT_KEY": ""})
    assert bad[0] == 1 and "published chain_hash" in bad[2]


def _delete(cps: Path) -> None:
    cps.unlink()


def _empty(cps: Path) -> None:
    cps.write_bytes(b"")


def _torn(cps: Path) -> None:
    cps.write_bytes(cps.read_bytes()[:-20])


def _unreadable(cps: Path) -> None:
    # The tests run as root, where a chmod does not stop a read; a directory in the
    # file's place cannot be read by anyone.
    cps.unlink()
    cps.mkdir()


@pytest.mark.parametrize("damage, said", [
    (_delete, "does not exist"),  # the file deleted: the plainest way to hide a cut tail
    (_empty, "holds no checkpoint"),  # truncated to nothing
    (_torn, "is not JSON"),  # truncated mid-line
    (_unreadable, "could not read"),  # there but not readable
])
@pytest.mark.parametrize("key_by", ["env", "flag"])
def test_verify_with_a_key_fails_when_the_checkpoints_are_gone(
    tmp_path: Path, damage: object, said: str, key_by: str,
) -> None:
    """Found by deleting the checkpoint file after cutting the tail: verify passed with a
    warning, so deleting one file hid the cut."""
    make_log(tmp_path / "a.db")
    cut_tail(tmp_path / "a.db")
    assert callable(damage)
    damage(tmp_path / "a.db.checkpoints")
    args = ["audit", "verify", "--log", str(tmp_path / "a.db")]
    if key_by == "flag":
        code, out, err = run(*args, "--key", KEY, env={"ELISION_AUDIT_KEY": ""})
    else:
        code, out, err = run(*args, env={"ELISION_AUDIT_KEY": KEY})
    assert code == 1, out + err
    assert not out.startswith("ok")
    assert said in err and "a.db.checkpoints" in err
    assert "--checkpoints" in err  # says what to do
    assert KEY.split(":")[1] not in err + out


def test_verify_with_a_key_names_each_missing_checkpoint_file(tmp_path: Path) -> None:
    # One good file given beside one that is gone: the missing one could have held the
    # checkpoint that shows the cut, so it fails too.
    make_log(tmp_path / "a.db")
    code, _, err = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--key", KEY,
                       "--checkpoints", str(tmp_path / "a.db.checkpoints"),
                       "--checkpoints", str(tmp_path / "other.checkpoints"))
    assert code == 1
    assert "other.checkpoints" in err and "does not exist" in err


def test_with_a_key_an_altered_entry_is_named_before_a_missing_checkpoint_file(
    tmp_path: Path,
) -> None:
    # A copy of a log, tampered, without its checkpoint file: both are failures, and the
    # altered entry is the more exact finding.
    make_log(tmp_path / "a.db")
    (tmp_path / "a.db.checkpoints").unlink()
    alter_entry_2(tmp_path / "a.db")
    code, _, err = run("audit", "verify", "--log", str(tmp_path / "a.db"), "--key", KEY)
    assert code == 1
    assert err.startswith("error: entry 2 was altered")
