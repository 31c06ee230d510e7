"""`elision install` / `uninstall` on every harness layout: what changes, what stays, exactly."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.errors import InputError
from elision.install import HARNESSES, install, uninstall
from elision.install.entries import argv_of, read_proxied
from install.layouts import LAYOUTS, harness_of, write_layout


def read_doc(path: Path) -> Any:
    from elision.install import jsonc

    text = path.read_text("utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else jsonc.parse(text, "t").value()


def servers_of(layout: str, doc: Any) -> dict[str, Any]:
    if layout == "codex":
        return dict(doc["mcp_servers"])
    if layout == "vscode":
        return dict(doc["servers"])
    if harness_of(layout) != "claude-code":
        return dict(doc[HARNESSES[harness_of(layout)].containers[0][0]])
    found = dict(doc.get("mcpServers", {}))
    for project in doc.get("projects", {}).values():
        found.update(project.get("mcpServers", {}))
    return found


def without_servers(layout: str, doc: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    key = HARNESSES[harness_of(layout)].containers[0][0]
    doc.pop(key, None)
    for project in doc.get("projects", {}).values():
        project.pop("mcpServers", None)
    return doc


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_install_proxies_each_stdio_entry_and_keeps_the_rest(tmp_path: Path,
                                                             layout: str) -> None:
    config = write_layout(layout, tmp_path)
    before_bytes = config.read_bytes()
    before = read_doc(config)
    plan = install(harness_of(layout), config=config, store=str(tmp_path / "s.db"),
                   audit=str(tmp_path / "a.db"))
    assert plan.changed
    after = read_doc(config)
    # Everything but the server entries reads the same...
    assert without_servers(layout, after) == without_servers(layout, before)
    # ...and every byte outside the rewritten entries is the same byte.
    text = config.read_text("utf-8")
    original = before_bytes.decode()
    for change in plan.changes:
        if change.outcome == "proxied":
            assert change.after in text
            text = text.replace(change.after, change.before, 1)
    assert text == original

    old, new = servers_of(layout, before), servers_of(layout, after)
    assert set(old) == set(new)
    ledger = new["ledger"]
    proxied = read_proxied(ledger)
    assert proxied is not None, ledger
    # The server's own command and args come after "--", its env and cwd are kept.
    assert proxied.command == argv_of(old["ledger"])
    assert ledger.get("env") == old["ledger"].get("env")
    assert ledger.get("environment") == old["ledger"].get("environment")
    assert ledger.get("cwd") == old["ledger"].get("cwd")
    assert Path(argv_of(ledger)[0]).is_absolute()
    # The store and audit paths travel as arguments: a host strips the environment.
    assert proxied.options["--store"] == str(tmp_path / "s.db")
    assert proxied.options["--audit"] == str(tmp_path / "a.db")
    # No --budget of its own: the proxy sizes results for the client connected, so a file
    # several harnesses read is right for each (issue 24).
    assert "--budget" not in proxied.options
    # Entries the proxy cannot serve are left exactly as they were.
    for name, entry in old.items():
        if read_proxied(new[name]) is None:
            assert new[name] == entry
            assert any(c.name == name and c.outcome == "left" and c.why
                       for c in plan.changes)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_second_install_changes_nothing_and_uninstall_restores_every_byte(
        tmp_path: Path, layout: str) -> None:
    config = write_layout(layout, tmp_path)
    original = config.read_bytes()
    install(harness_of(layout), config=config)
    installed = config.read_bytes()
    assert installed != original
    again = install(harness_of(layout), config=config)
    assert not again.changed and config.read_bytes() == installed
    undone = uninstall(harness_of(layout), config=config)
    assert undone.changed
    assert config.read_bytes() == original
    # Nothing left to undo.
    assert not uninstall(harness_of(layout), config=config).changed


def test_uninstall_keeps_edits_made_elsewhere_in_the_file(tmp_path: Path) -> None:
    config = write_layout("vscode", tmp_path)
    original = config.read_text("utf-8")
    install("vscode", config=config)
    edited = config.read_text("utf-8").replace("// Servers for this workspace",
                                               "// Servers, edited after the install")
    config.write_text(edited, "utf-8")
    uninstall("vscode", config=config)
    assert config.read_text("utf-8") == original.replace(
        "// Servers for this workspace", "// Servers, edited after the install")


@pytest.mark.parametrize("layout", ["vscode", "codex", "gemini-cli"])
def test_uninstall_refuses_an_entry_edited_since_the_install(tmp_path: Path,
                                                             layout: str) -> None:
    config = write_layout(layout, tmp_path)
    install(harness_of(layout), config=config)
    edited = config.read_text("utf-8").replace('"--store", "', '"--store", "1')
    assert edited != config.read_text("utf-8")
    config.write_text(edited, "utf-8")
    with pytest.raises(InputError, match="ledger changed since elision installed it"):
        uninstall(harness_of(layout), config=config)
    assert config.read_text("utf-8") == edited


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    config = write_layout("codex", tmp_path)
    original = config.read_bytes()
    result = CliRunner().invoke(main, ["install", "codex", "--config", str(config),
                                       "--dry-run"])
    assert result.exit_code == 0, result.output
    assert config.read_bytes() == original
    assert "-command = " in result.stdout and "+command = " in result.stdout
    assert "would change 1 of 1 server entries" in result.stderr


# Broken configs are refused, untouched, with where and what.
BROKEN = [
    ("vscode", "mcp.json", '{"servers": {"a": {"command": "x"}', "line 1"),  # torn
    ("cursor", "mcp.json", '{"mcpServers": {"a": {}, "a": {}}}', "appears twice"),
    ("cursor", "mcp.json", '["not", "an", "object"]', "JSON array"),
    ("gemini-cli", "settings.json", '{"mcpServers": {"a": {"command": NaN}}}', "not a JSON"),
    ("codex", "config.toml", '[mcp_servers.a]\ncommand = "x\n', "not valid TOML"),
    ("windsurf", "mcp_config.json", "{/* never closed", "never closed"),
]


@pytest.mark.parametrize(("harness", "name", "text", "said"), BROKEN)
def test_a_broken_config_is_refused_untouched(tmp_path: Path, harness: str, name: str,
                                              text: str, said: str) -> None:
    config = tmp_path / name
    config.write_text(text, "utf-8")
    result = CliRunner().invoke(main, ["install", harness, "--config", str(config)])
    assert result.exit_code == 2
    assert said in result.stderr and "nothing was changed" in result.stderr
    assert config.read_text("utf-8") == text


def test_servers_picks_entries_and_names_an_unknown_one(tmp_path: Path) -> None:
    config = write_layout("claude-code-user", tmp_path)
    plan = install("claude-code", config=config, servers=("ledger-user",))
    assert [c.name for c in plan.changes if c.outcome == "proxied"] == ["ledger-user"]
    with pytest.raises(InputError, match=r"--servers names nope, not in .*ledger, ledger-user"):
        install("claude-code", config=config, servers=("nope",))


def test_a_missing_config_says_what_to_do(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["install", "cursor", "--config",
                                       str(tmp_path / "absent.json")])
    assert result.exit_code == 2
    assert "does not exist" in result.stderr and "--config" in result.stderr


def test_an_http_entry_goes_through_upstream_url(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text('{"servers": {"api": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}',
                      "utf-8")
    install("vscode", config=config)
    entry = json.loads(config.read_text("utf-8"))["servers"]["api"]
    proxied = read_proxied(entry)
    assert proxied is not None and proxied.upstream_url == "http://127.0.0.1:9/mcp"
    assert entry["type"] == "stdio" and "url" not in entry
    uninstall("vscode", config=config)
    assert json.loads(config.read_text("utf-8"))["servers"]["api"]["url"].endswith("/mcp")


def test_dry_run_withholds_a_token_the_config_holds(tmp_path: Path) -> None:
    """Found by the QA pass: the diff printed an entry's env token whole."""
    token = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"gh": {
        "command": "github-mcp", "env": {"GITHUB_TOKEN": token}}}}, indent=2), "utf-8")
    result = CliRunner().invoke(main, ["install", "cursor", "--config", str(config),
                                       "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "[credential withheld: github-token]" in result.stdout  # in the diff context
    assert token not in result.output and token[:12] not in result.output
    assert token in config.read_text("utf-8")  # the file itself is the user's, untouched


@pytest.mark.parametrize("layout", ["claude-code", "opencode", "copilot-cli", "qwen-code"])
def test_an_explicit_budget_is_written_and_undone(tmp_path: Path, layout: str) -> None:
    """--budget is what the user wrote: it goes into the entry (and wins in the proxy)."""
    config = write_layout(layout, tmp_path)
    original = config.read_bytes()
    install(harness_of(layout), config=config, budget=5000)
    proxied = read_proxied(servers_of(layout, read_doc(config))["ledger"])
    assert proxied is not None and proxied.options["--budget"] == "5000"
    assert HARNESSES[harness_of(layout)].budget != 5000
    uninstall(harness_of(layout), config=config)
    assert config.read_bytes() == original
