"""The chain as the call view words it: the verifier's verdict on the log, on the entry and
on its session, for a log that verifies (signed or not) and one edited behind its triggers."""

from __future__ import annotations

import html
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.view.app import Viewer, build_app
from elision.view.calls import open_calls
from elision.view.chain import ChainWatch

TOKEN = "c" * 43
HOST = "127.0.0.1:8766"
KEY = "hmac:" + "v" * 40
ZERO = "0" * 64


def write(path: Path, *, key: str | None = None) -> None:
    """Six entries: session s1 is entries 1-3, s2 is 4-6."""
    with AuditLog(path, key=key, checkpoint_every=4) as log:
        for i in range(6):
            log.append(tool_result_entry(
                step_id=f"{i}", tool="t", session_id="s1" if i < 3 else "s2",
                full_sha256=ZERO, full_bytes=1, shown_sha256=ZERO, shown_bytes=1,
                complete=True, decision="allow"))


def edited(path: Path) -> None:
    """Entry 5 changed the way an attacker with the file would: around the triggers."""
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE bare AS SELECT * FROM entries; DROP TABLE entries;"
                     "ALTER TABLE bare RENAME TO entries;"
                     "UPDATE entries SET body = replace(body, '\"allow\"', '\"deny\"') "
                     "WHERE seq = 5;")
    db.commit()
    db.close()


def page(path: Path, seq: int, key: str | None = None) -> str:
    chain = ChainWatch(path, key=key)
    chain.start()
    chain.wait(60)
    viewer = Viewer(open_calls(str(path)), None, chain)
    client = TestClient(build_app(viewer, token=TOKEN, hosts={HOST}), base_url=f"http://{HOST}")
    client.cookies.set("elision_view", TOKEN)
    text = client.get(f"/call/{seq}").text
    viewer.calls.close()
    return html.unescape(text)


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chain") / "audit.db"
    write(path)
    edited(path)
    return path


@pytest.mark.parametrize(("seq", "entry", "session"), [
    # Before the break, in a session that ends before it.
    (2, "this entry recomputes and links; the chain breaks later, at entry 5",
     "3 entries, #1 to #3: every one recomputes and links"),
    # The edited entry itself: the verifier's own words.
    (5, "the chain breaks at this entry: entry 5 was altered",
     "3 entries, #4 to #6: the chain breaks inside it, at entry 5"),
    # After the break.
    (6, "the chain breaks at entry 5, before this one",
     "3 entries, #4 to #6: the chain breaks inside it, at entry 5"),
])
def test_an_edited_log_is_worded_for_each_entry_and_its_session(
    broken: Path, seq: int, entry: str, session: str
) -> None:
    text = page(broken, seq)
    assert "entry 5 was altered" in text  # the log's verdict
    assert f"this entry: {entry}" in text
    assert f"its session: {session}" in text


def test_a_signed_log_says_which_checkpoint_covers_an_entry(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    write(path, key=KEY)
    covered = page(path, 3, key=KEY)
    assert "6 entries verify; 2 signed checkpoint(s) verified" in covered
    assert "a signed checkpoint covers it (size 6)" in covered
    # Without the key the checkpoints cannot be checked: the page says so, as verify does.
    unkeyed = page(path, 3)
    assert "checkpoint(s) found but no key" in unkeyed


def test_an_unsigned_log_says_what_it_cannot_show(tmp_path: Path) -> None:
    path = tmp_path / "audit.db"
    write(path)
    text = page(path, 1)
    assert "no signed checkpoint, so a cut tail or a rewrite of the whole log would not show" \
        in text
    assert "no signed checkpoint covers it yet" in text
