"""An error message never quotes a credential from the command line (QA pass).

Found as an attacker: `elision proxy --upstream-url http://user:pw@host/mcp` (or a command
with `--api-key ghp_…`) that could not start printed the URL or the command whole in its
`error:` line, password and token included; so did `elision lint`, and `elision doctor`
printed a server's command line with its token.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789AB"  # a GitHub token's shape
PASSWORD = "hunter2pw-" + "Zq81"


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("args", [
    # a URL's user:password, for a port where nothing listens
    ["proxy", "--no-audit", "--no-store", "--timeout", "5",
     "--upstream-url", f"http://alice:{PASSWORD}@127.0.0.1:1/mcp"],
    # a token in the upstream's command line, for a command that does not exist
    ["proxy", "--no-audit", "--no-store", "--", "no-such-command-qa", "--api-key", TOKEN],
    # the lint quotes the server it could not reach
    ["lint", "--no-progress", "--url", f"http://alice:{PASSWORD}@127.0.0.1:1/mcp"],
    ["lint", "--no-progress", "--", "no-such-command-qa", "--token", TOKEN],
])
def test_an_error_line_withholds_credentials(args: list[str]) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "error:" in result.stderr and "credential withheld" in result.stderr
    assert TOKEN not in result.output and PASSWORD not in result.output


def test_doctor_withholds_a_token_in_a_server_command_line(tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"gh": {
        "command": "no-such-command-qa", "args": ["--token", TOKEN]}}}))
    result = CliRunner().invoke(main, ["doctor", "claude-code", "--config", str(config)])
    assert result.exit_code == 1, result.output  # the server does not start
    assert "gh: NOT through elision" in result.stdout
    assert "no-such-command-qa --token [credential withheld" in result.stdout
    assert TOKEN not in result.output
