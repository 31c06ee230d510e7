"""What `elision install` says when a config holds no server entry it can read (QA pass).

Found as a newcomer: a VS Code config with its servers under "mcpServers" (VS Code reads
"servers"), or an "mcpServers" that is a list, got only "nothing to change", so it looked
as if everything already went through elision; and a dry run printed that line twice, once
on stdout where the diff goes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.cli import main


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.mark.parametrize(("harness", "text", "where"), [
    # VS Code reads "servers"; these entries sit under the key other harnesses use
    ("vscode", '{"mcpServers": {"a": {"command": "x"}}}', '"servers"'),
    # a list where the object of entries belongs
    ("claude-code", '{"mcpServers": [{"command": "x"}]}', '"mcpServers"'),
    # no servers at all
    ("cursor", "{}", '"mcpServers"'),
    # Codex's TOML layout, with its table misspelt
    ("codex", '[mcp_server.a]\ncommand = "x"\n', '"mcp_servers"'),
])
@pytest.mark.parametrize("dry_run", [True, False])
def test_a_config_with_no_entries_says_where_they_are_read(
    tmp_path: Path, harness: str, text: str, where: str, dry_run: bool,
) -> None:
    config = tmp_path / ("config.toml" if harness == "codex" else "config.json")
    config.write_text(text)
    args = ["install", harness, "--config", str(config)] + (["--dry-run"] if dry_run else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "no MCP server entries" in result.stderr and where in result.stderr
    assert result.stdout == ""  # no diff, and the summary is said once, on stderr
    assert config.read_text() == text


def test_a_dry_run_with_nothing_to_change_prints_no_diff(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"a": {"url": "https://x/mcp", "headers": {"k": "v"}}}}')
    result = CliRunner().invoke(main, ["install", "cursor", "--config", str(config), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr.count("nothing to change") == 1


def test_doctor_on_a_config_with_no_entries_says_where_they_are_read(tmp_path: Path) -> None:
    """Found by the QA pass: `elision doctor claude-code --config x.json` on a file with no
    servers printed only the harness's title, as if there were nothing to check."""
    config = tmp_path / "x.json"
    config.write_text('{"servers": {"a": {"command": "x"}}}')
    result = CliRunner().invoke(main, ["doctor", "claude-code", "--config", str(config),
                                       "--no-start"])
    assert result.exit_code == 0, result.output
    assert "no MCP server entries" in result.output and '"mcpServers"' in result.output


@pytest.mark.parametrize(("project", "dry_run", "said"), [
    # an empty project file shadows the user's: nothing was changed anywhere
    ('{"mcpServers": {}}', False, "read only"),
    ('{"mcpServers": {}}', True, "read only"),
    # a project file with a server: a dry run changes nothing, a real install that file
    ('{"mcpServers": {"a": {"command": "x"}}}', True, "would change only"),
    ('{"mcpServers": {"a": {"command": "x"}}}', False, "changed only"),
])
def test_the_note_on_other_files_says_what_this_install_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: str, dry_run: bool, said: str,
) -> None:
    """Found as a newcomer: with an empty .mcp.json in the project and the servers in
    ~/.claude.json, `elision install claude-code --dry-run` said "nothing to change" and then
    "this install changed .mcp.json only", though it changed nothing at all."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".mcp.json").write_text(project)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"mcpServers": {"b": {"command": "y"}}}')
    result = CliRunner().invoke(main, ["install", "claude-code",
                                       *(["--dry-run"] if dry_run else [])])
    assert result.exit_code == 0, result.output
    note = next(line for line in result.stderr.splitlines() if "other config files" in line)
    assert re.search(rf"this install {said} \S*\.mcp\.json ", note), note
