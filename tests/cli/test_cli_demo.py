"""``elision demo`` end to end: real server, real proxy, real client, a readable comparison."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from elision.demo.run import head_view
from support.kept import share_cache

ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


@pytest.mark.e2e
def test_demo_shows_what_a_head_slice_loses_and_what_elision_keeps(tmp_path: Path) -> None:
    # The SDK starts servers with a trimmed environment (HOME and PATH pass, XDG_DATA_HOME does
    # not), so the demo names its store to the proxy itself.
    home = share_cache(tmp_path / "home")
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "HOME": str(home),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("ELISION_STORE", None)
    done = subprocess.run([*ELISION, "demo"], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr
    # Nothing under HOME, and no audit entry in the user's own chain: the demo's log is
    # temporary. Its bodies are in the default store, where `elision fetch` looks.
    assert not home.exists() or not any(home.rglob("*.db")), list(home.rglob("*"))
    assert not list((tmp_path / "data").rglob("audit.db"))
    out = done.stdout
    assert "torn JSON: no parser reads it" in out
    assert "searched 528 of 22,933 rows" in out  # the caveat survives through elision
    assert "SUMMARY:" in out or "settlements FAILED" in out
    assert "Following next: elision_fetch(" in out
    assert "same sha256 as the first result" in out
    follow(out, env)


def follow(out: str, env: dict[str, str]) -> None:
    """Found as a new user (issue 25): the demo printed `elision_fetch(...)` calls whose
    store was temporary, so `elision fetch` pasted afterwards found nothing. The command the
    demo prints runs as printed, afterwards."""
    [line] = [line for line in out.splitlines() if line.lstrip().startswith("$ elision fetch")]
    args = shlex.split(line.strip()[2:])
    assert args[:2] == ["elision", "fetch"]
    page = subprocess.run([*ELISION, *args[1:]], capture_output=True, text=True, timeout=60,
                          env=env)
    assert page.returncode == 0, page.stderr
    assert '"__elision__"' in page.stdout and '"value"' in page.stdout


@pytest.mark.parametrize(
    ("original", "intact", "integrity"),
    [
        ('{"rows": [' + '{"id": 1}, ' * 2000 + "{}]}", False, "torn JSON: no parser reads it"),
        ('{"ok": true}', True, "valid JSON"),  # fits: a head slice is harmless
        ("abcdefg\n" * 5000, True, "whole lines"),  # 8192 is a multiple of 8-byte lines
        ("abc\n" * 1 + "x" * 9000, False, "ends mid-line"),  # a long last line is torn
    ],
)
def test_head_view_judges_the_slice(original: str, intact: bool, integrity: str) -> None:
    view = head_view(original, 8192)
    assert (view.intact, view.integrity) == (intact, integrity)
    assert view.shown_bytes == min(8192, len(original.encode()))


def test_demo_refuses_a_budget_below_the_minimum() -> None:
    done = subprocess.run([*ELISION, "demo", "--budget", "10"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2  # bad usage: nothing was started
    assert "budget must be at least 512 bytes, got 10" in done.stderr
