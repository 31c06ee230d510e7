"""The ``elision`` executable reads a hook's or ``shape``'s plain arguments itself, without
click (issue 24: click was a tenth of a hook's start), and must read them exactly as click
does: the same parameters when it reads them, and click's own answer (help, usage error, exit
code) for everything else.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.cli.entry import _plain_process, hook_params, plain_call, shape_params
from support.clickpaths import command_at

GITHUB_TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"


def click_params(path: list[str], args: list[str]) -> dict[str, Any] | None:
    """The parameters click calls the command at ``path`` with, or ``None`` when click answers
    ``args`` itself (a usage error, ``--help``)."""
    command = command_at(path)
    try:
        with command.make_context(path[-1], list(args)) as ctx:
            return dict(ctx.params)
    except (click.ClickException, click.exceptions.Exit):
        return None


#: Symbolic tokens, made real paths per test: a readable file, a directory, a missing path.
FILES = ("@file", "@dir", "@missing")
VALUES = ("600", "512", "511", "100", "2000", "8", "7", "0600", "24000", "+600", " 600", "6_00",
          "-5", "", "x",
          "bytes", "chars", "tokens", "furlongs", "json", "text", "auto", "csv", "a.db", "-",
          "--no-audit", "--store", *FILES)
OPTIONS = ("--budget", "-b", "--store", "--audit", "--no-audit", "--no-store", "--no-redact",
           "--unit", "--format", "--explain", "--help", "-h", "--", "--bogus", "-x", "-b600",
           "--budget=600", "--budget=", "--store=s.db", "--no-audit=1", "--format=json",
           "--unit=chars", "--lines", "--lines=2000", "--lines=7")
tokens = st.lists(st.sampled_from(OPTIONS + VALUES), max_size=7)


def real(args: list[str], root: Path) -> list[str]:
    return [str(root / a[1:]) if a in FILES else a for a in args]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("entry")
    (where / "file").write_text("hello\n")
    (where / "dir").mkdir()
    return where


@given(args=tokens)
def test_the_hook_reader_agrees_with_click(root: Path, args: list[str]) -> None:
    argv = real(args, root)
    mine = hook_params(argv)
    if mine is not None:  # what it reads, click reads alike; where click objects, it is not read
        assert mine == click_params(["hook", "claude-code"], argv)


@given(args=tokens)
def test_the_shape_reader_agrees_with_click(root: Path, args: list[str]) -> None:
    argv = real(args, root)
    mine = shape_params(argv)
    if mine is not None:
        assert mine == click_params(["shape"], argv)


@pytest.mark.parametrize("args", [
    ["hook", "claude-code"],
    ["hook", "claude-code", "--budget", "600", "--store", "s.db", "--audit", "a.db"],
    ["hook", "claude-code", "--budget=600", "--no-audit"],
    ["hook", "claude-code", "--lines", "2000"],  # OpenCode's plugin passes its line cap
    ["shape"],  # stdin
    ["shape", "@file", "-b", "600", "--unit", "chars", "--format", "text", "--no-store"],
    ["shape", "--store=s.db", "--no-redact", "-"],
])
def test_plain_arguments_are_read_without_click(root: Path, args: list[str]) -> None:
    assert plain_call(real(args, root)) is not None


@pytest.mark.parametrize("args", [
    [],
    ["--help"],
    ["--version"],
    ["hook"],
    ["hook", "--help"],
    ["hook", "claude-code", "--help"],
    ["hook", "claude-code", "-h"],
    ["hook", "claude-code", "--budget", "100"],  # below 512: click says so
    ["hook", "claude-code", "--lines", "7"],  # below the smallest cap: click says so
    ["hook", "claude-code", "--budget", "+600"],  # click's int() takes it; left to click
    ["hook", "claude-code", "--budget", "600", "--budget", "700"],  # twice: click's last wins
    ["hook", "claude-code", "--store="],  # an empty value
    ["hook", "claude-code", "--store", "-x"],  # a value like an option
    ["hook", "claude-code", "extra"],
    ["hook", "claude-code", "--", "--budget"],
    ["hook", "--budget", "600", "claude-code"],
    ["hook", "claude", "--budget", "600"],
    ["shape", "@missing"],
    ["shape", "@dir"],
    ["shape", "@file", "@file"],
    ["shape", "@file", "--explain"],  # rich draws the table: click's path
    ["shape", "-b600", "@file"],
    ["shape", "--unit", "furlongs"],
    ["shape", "--format", "xml"],
    ["shape", "--bogus"],
    ["fetch", "el_x"],
    ["proxy", "--", "server"],
])
def test_click_answers_everything_else(root: Path, args: list[str]) -> None:
    assert plain_call(real(args, root)) is None


def test_a_stream_click_would_rewrap_goes_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    """click writes UTF-8 to a stream whose encoding is ASCII; print() would fail there."""
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    assert _plain_process() is False
    assert plain_call(["shape"]) is None


def test_shell_completion_goes_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_ELISION_COMPLETE", "bash_source")
    assert plain_call(["shape"]) is None


# Real processes: `python -m elision` (what `elision install --hook` writes) against the click
# group run the old way, on the same arguments and stdin.
BY_CLICK = "import sys; from elision.cli import main; main()"
REF = re.compile(r"el_[A-Za-z0-9_-]{8,}")
LOG = "\n".join(f"line {i}: " + "x" * 60 for i in range(800)) + "\nSUMMARY: 3 failures\n"


def bash(stdout: str) -> str:
    return json.dumps({"session_id": "s1", "hook_event_name": "PostToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "make test"},
                       "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False}})


CASES = {
    # name: (args, stdin); @dir is the test's folder, @file a file written there first
    "hook, a result that fits": (["hook", "claude-code"], bash("a.txt\nb.txt\n")),
    "hook, a credential": (["hook", "claude-code"], bash(f"GITHUB_TOKEN={GITHUB_TOKEN}\n")),
    "hook, a long log cut": (["hook", "claude-code", "--budget", "2048"], bash(LOG)),
    "hook, no audit": (["hook", "claude-code", "--no-audit"], bash(LOG)),
    "hook, stdin not JSON": (["hook", "claude-code"], "{not json"),
    "hook, stdin not an object": (["hook", "claude-code"], "[1]"),
    "shape, a small file": (["shape", "@file"], ""),
    "shape, stdin cut": (["shape", "-b", "1024"], LOG),
    "shape, chars, no store": (["shape", "@file", "--unit", "chars", "--no-store"], ""),
    "shape, a budget below 512": (["shape", "@file", "--budget", "100"], ""),
    "shape, not the format asked for": (["shape", "@file", "--format", "json"], ""),
    "shape, empty stdin": (["shape", "-"], "  \n"),
    "shape, a credential not redacted": (["shape", "--no-redact"], GITHUB_TOKEN),
}


def answered(entry: list[str], args: list[str], stdin: str, where: Path) -> tuple[Any, ...]:
    argv = [str(where / "file") if a == "@file" else a for a in args]
    if argv[0] == "hook":
        argv += ["--store", str(where / "s.db")] + (
            [] if "--no-audit" in argv else ["--audit", str(where / "a.db")])
    elif "--no-store" not in argv:
        argv += ["--store", str(where / "s.db")]
    done = subprocess.run([*entry, *argv], input=stdin.encode(), capture_output=True,
                          timeout=120, check=False, env={**os.environ, "PYTHONUTF8": "1"})
    return done.returncode, REF.sub("el_…", done.stdout.decode()), done.stderr.decode()


@pytest.mark.parametrize("case", CASES)
def test_the_executable_answers_as_click_does(tmp_path: Path, case: str) -> None:
    args, stdin = CASES[case]
    (tmp_path / "file").write_text(LOG if "cut" in case else "hello\n")
    plain = answered([sys.executable, "-m", "elision"], args, stdin, tmp_path)
    by_click = answered([sys.executable, "-c", BY_CLICK], args, stdin, tmp_path)
    assert plain == by_click
    assert GITHUB_TOKEN not in plain[1] or "--no-redact" in args
