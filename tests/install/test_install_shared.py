"""A config file several harnesses read: the installer says so, and what the budget does.

Found in the harnesses (issue 24): GitHub Copilot CLI loads a project's ``.mcp.json`` (Claude
Code's file) and spilled the result ``install claude-code`` had budgeted for Claude Code; Qwen
Code, behind ``install gemini-cli``, cut Gemini CLI's 32,000-byte result again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main

ENTRY = {"mcpServers": {"ledger": {"command": sys.executable, "args": ["-m", "x"]}}}


# (harness, the file, the other harness named, or None when no other reads it)
SHARED = [
    ("claude-code", ".mcp.json", "GitHub Copilot CLI"),  # Copilot loads the project's file
    ("gemini-cli", ".gemini/settings.json", "Qwen Code"),  # Qwen Code reads Gemini's layout
    ("copilot-cli", ".copilot/mcp-config.json", None),  # Copilot's own file: no one else
    ("cursor", ".cursor/mcp.json", None),
    # Continue loads the JSON MCP files put in its folder (its docs)
    ("claude-desktop", ".continue/mcpServers/mcp.json", "Continue"),
]


@pytest.mark.parametrize(("harness", "name", "other"), SHARED)
def test_install_names_every_other_harness_that_reads_the_file(
        tmp_path: Path, harness: str, name: str, other: str | None) -> None:
    config = tmp_path / name
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(ENTRY), "utf-8")
    result = CliRunner().invoke(main, ["install", harness, "--config", str(config),
                                       "--dry-run"])
    assert result.exit_code == 0, result.output
    if other is None:
        assert "is read by" not in result.stderr
        return
    assert f"is read by {other} too" in result.stderr
    # ...and what the installer did about it: no budget of the file's own.
    assert "sizes each result for the harness that connects" in result.stderr


def test_an_explicit_budget_on_a_shared_file_is_said_to_apply_to_both(tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps(ENTRY), "utf-8")
    result = CliRunner().invoke(main, ["install", "claude-code", "--config", str(config),
                                       "--budget", "24000", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "--budget 24000 applies to GitHub Copilot CLI too" in result.stderr
    assert "19,000" in result.stderr  # Copilot's own budget, which 24,000 is over


@pytest.mark.parametrize(("harness", "name", "text"), [
    ("goose", ".config/goose/config.yaml", "extensions:\n  a:\n    cmd: x\n"),
    ("continue", ".continue/mcpServers/a.yaml", "mcpServers:\n  - name: a\n    command: x\n"),
])
def test_the_yaml_targets_files_are_read_by_no_other_harness(
        tmp_path: Path, harness: str, name: str, text: str) -> None:
    config = tmp_path / name
    config.parent.mkdir(parents=True)
    config.write_text(text, "utf-8")
    result = CliRunner().invoke(main, ["install", harness, "--config", str(config),
                                       "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "proxied" in result.stderr and "is read by" not in result.stderr
