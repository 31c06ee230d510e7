"""`elision doctor` tells which servers go through elision and which do not start."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.install import install

pytestmark = pytest.mark.e2e

#: The demo ledger's raw twin (byte for byte the demo server's lines, test_mcp_raw_servers.py):
#: doctor starts it behind the proxy in ~0.1 s of CPU, not the SDK's ~1.3 s.
LEDGER = str(Path(__file__).parents[1] / "mcp" / "ledger_server.py")


def test_doctor_shows_each_server_and_fails_on_one_that_does_not_start(tmp_path: Path) -> None:
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"mcpServers": {
        "ledger": {"command": sys.executable, "args": [LEDGER]},
        "gone": {"command": str(tmp_path / "no-such-server"), "env": {"API_KEY":
                 "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}},
        "remote": {"url": "http://127.0.0.1:9/sse"},
    }}), "utf-8")
    install("gemini-cli", config=config, servers=("ledger", "gone"),
            store=str(tmp_path / "s.db"), audit=str(tmp_path / "a.db"))
    result = CliRunner().invoke(main, ["doctor", "gemini-cli", "--config", str(config),
                                       "--timeout", "60"])
    assert result.exit_code == 1, result.output
    lines = {line.split(":")[0].strip(): line for line in result.stdout.splitlines()}
    assert "through elision (budget the client's, Gemini CLI: 32,000 bytes" in lines["ledger"]
    assert "; starts: 5 tools" in lines["ledger"]  # the demo's 3 and elision_fetch*
    assert "DOES NOT START" in lines["gone"] and "no-such-server" in lines["gone"]
    assert "NOT through elision" in lines["remote"] and "not probed" in lines["remote"]
    assert "ghp_" not in result.output


def test_doctor_without_start_reads_only(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"servers": {"x": {"type": "stdio", "command": "never-run-me"}}}',
                      "utf-8")
    result = CliRunner().invoke(main, ["doctor", "vscode", "--config", str(config),
                                       "--no-start"])
    assert result.exit_code == 0, result.output
    assert "x: NOT through elision; not started" in result.stdout


def test_doctor_starts_a_goose_extension_as_goose_would(tmp_path: Path) -> None:
    """Goose names the program `cmd` and the environment `envs`: doctor reads both, starts the
    installed proxy, and the demo server behind it answers."""
    config = tmp_path / "config.yaml"
    config.write_text(
        "extensions:\n"
        "  ledger:\n"
        f"    cmd: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(LEDGER)}]\n"
        "    envs: {LEDGER_NOTE: kept}\n"
        "    type: stdio\n"
        "    enabled: true\n"
        "  developer:\n"
        "    type: builtin\n"
        "    enabled: true\n", "utf-8")
    install("goose", config=config, store=str(tmp_path / "s.db"), audit=str(tmp_path / "a.db"))
    result = CliRunner().invoke(main, ["doctor", "goose", "--config", str(config),
                                       "--timeout", "60"])
    assert result.exit_code == 0, result.output
    lines = {line.split(":")[0].strip(): line for line in result.stdout.splitlines()}
    assert "through elision (budget the client's, Goose: 8,192 bytes" in lines["ledger"]
    assert "; starts: 5 tools" in lines["ledger"]
    assert "NOT through elision" in lines["developer"]
    # a builtin extension runs inside Goose: not a remote server, not probed
    assert "neither a command nor a url (its type is 'builtin'): not probed" in lines[
        "developer"]
