"""``elision lint`` on the command line: help, bad usage and unreachable servers.

The lint against real servers is tested end to end in tests/lint/test_lint_e2e.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["lint", *args])
    return result.exit_code, result.stdout, result.stderr


def test_lint_is_listed_with_help_text() -> None:
    code, out, _ = run("--help")
    assert code == 0
    assert "Audit an MCP server's tools against the four rules" in out
    assert "elision lint -- python my_server.py" in out
    for option in ("--url", "--scenarios", "--format", "--out", "--timeout", "--no-progress"):
        assert option in out
    top = CliRunner().invoke(main, ["--help"])
    assert top.exit_code == 0
    assert "lint" in top.stdout.split("Commands:", 1)[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # No server at all.
        ((), "give exactly one server to lint: a command after -- or --url; got neither"),
        # Both a command and a URL: which one to lint is ambiguous.
        (("--url", "http://127.0.0.1:1/mcp", "--", "python", "s.py"),
         "got both"),
        # Not an HTTP URL.
        (("--url", "127.0.0.1:9000"),
         "--url must be an http:// or https:// URL, got '127.0.0.1:9000'"),
        # A timeout that could never be met.
        (("--timeout", "0", "--", "python", "s.py"),
         "--timeout must be a positive number of seconds, got 0.0"),
        # --out names a directory: found by the QA pass, a traceback once the lint was done.
        (("--out", "/", "--", sys.executable, "-c", "pass"),
         "--out '/' is a directory; give a file to write the report to"),
        # --out in a directory that does not exist: the same traceback, after the whole lint.
        (("--out", "/no/such/dir/report.md", "--", sys.executable, "-c", "pass"),
         "--out '/no/such/dir/report.md': its directory '/no/such/dir' does not exist"),
    ],
)
def test_bad_usage_exits_2_with_a_message(args: tuple[str, ...], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert message in err


def test_a_bad_scenarios_file_exits_2_naming_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_text(json.dumps({"tools": {"search": [{"args": {}}]}}))
    code, _, err = run("--scenarios", str(path), "--", sys.executable, "-c", "pass")
    assert code == 2
    assert "tools.search[0] has unknown keys ['args']" in err


def test_a_command_that_does_not_speak_mcp_exits_1() -> None:
    code, out, err = run("--no-progress", "--timeout", "5", "--", sys.executable, "-c",
                         "import sys; sys.stdin.read(1)")
    assert code == 1
    assert out == ""
    assert err.startswith("error: could not connect to ")
    assert "speaks MCP" in err
