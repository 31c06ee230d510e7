"""`elision install claude-code --hook`: elision's PostToolUse hook on every tool, in Claude
Code's settings, added and removed byte for byte."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.cli import main
from elision.errors import InputError
from elision.install import install_hook, uninstall_hook
from elision.install.harnesses import HARNESSES
from elision.install.hook import elision_groups, runs_elision_hook
from elision.install.opencode_hook import MARKER

OTHER_HOOK = {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier -w"}]}

# (the settings file as the user has it, or None when there is none)
LAYOUTS = {
    "no file": None,
    "empty object": "{}\n",
    "other settings": '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls:*)"]}\n}\n',
    "hooks, no PostToolUse": '{\n    "hooks": {\n        "Stop": []\n    }\n}\n',
    "an empty PostToolUse": '{"hooks": {"PostToolUse": []}}',
    "another PostToolUse group": json.dumps({"hooks": {"PostToolUse": [OTHER_HOOK]}},
                                            indent=2) + "\n",
    "on one line": json.dumps({"env": {"A": "1"}, "hooks": {"PostToolUse": [OTHER_HOOK]}}),
    "tabs": '{\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t{"hooks": []}\n\t\t]\n\t}\n}\n',
}


def _settings(tmp_path: Path, text: str | None) -> Path:
    path = tmp_path / ".claude" / "settings.json"
    if text is not None:
        path.parent.mkdir()
        path.write_bytes(text.encode())
    return path


def _paths(tmp_path: Path) -> dict[str, str]:
    return {"store": str(tmp_path / "s.db"), "audit": str(tmp_path / "a.db")}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_hook_is_added_once_for_every_tool_and_removed_byte_for_byte(
        tmp_path: Path, layout: str) -> None:
    text = LAYOUTS[layout]
    path = _settings(tmp_path, text)
    plan = install_hook(config=path, **_paths(tmp_path))
    assert plan.changed and plan.changes[0].outcome == "added"
    doc = json.loads(path.read_text("utf-8"))
    (at,) = elision_groups(doc)
    added = doc["hooks"]["PostToolUse"][at]
    assert added["matcher"] == "*"  # every tool: Bash, Read, WebFetch, Grep, MCP tools
    (command,) = added["hooks"]
    assert command["type"] == "command" and runs_elision_hook(command["command"])
    # everything that was there is there as it was
    before = json.loads(text) if text else {}
    del doc["hooks"]["PostToolUse"][at]
    if not doc["hooks"]["PostToolUse"] and "PostToolUse" not in before.get("hooks", {}):
        del doc["hooks"]["PostToolUse"]
    if not doc["hooks"] and "hooks" not in before:
        del doc["hooks"]
    assert doc == before
    installed = path.read_bytes()
    assert not install_hook(config=path, **_paths(tmp_path)).changed  # a second install
    assert path.read_bytes() == installed
    uninstall_hook(config=path)
    if text is None:
        assert not path.exists()  # the install made the file, so uninstall takes it away
    else:
        assert path.read_bytes() == text.encode()
    assert not uninstall_hook(config=path).changed


def test_the_installed_command_shapes_a_bash_result_it_is_given(tmp_path: Path) -> None:
    """The command written is one a shell runs: a 3,000-line Bash result comes back shaped,
    the verdict on its last line kept (a real subprocess, as Claude Code runs it)."""
    path = _settings(tmp_path, None)
    install_hook(config=path, **_paths(tmp_path))
    doc = json.loads(path.read_text("utf-8"))
    command = doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    stdout = "".join(f"step {i} passed\n" for i in range(3000)) + "SUMMARY: 3 failures\n"
    event = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "session_id": "s",
             "tool_input": {"command": "make test"},
             "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False}}
    done = subprocess.run(command, shell=True, input=json.dumps(event), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert "[elision]" in answer["stdout"] and "SUMMARY: 3 failures" in answer["stdout"]
    assert len(answer["stdout"]) < len(stdout)


def test_uninstall_keeps_an_edit_made_elsewhere(tmp_path: Path) -> None:
    path = _settings(tmp_path, LAYOUTS["other settings"])
    install_hook(config=path, **_paths(tmp_path))
    path.write_text(path.read_text("utf-8").replace('"opus"', '"sonnet"'), "utf-8")
    uninstall_hook(config=path)
    assert path.read_text("utf-8") == LAYOUTS["other settings"].replace('"opus"', '"sonnet"')


def test_uninstall_refuses_a_hook_edited_since(tmp_path: Path) -> None:
    path = _settings(tmp_path, "{}\n")
    install_hook(config=path, **_paths(tmp_path))
    edited = path.read_text("utf-8").replace('"matcher": "*"', '"matcher": "Bash"')
    path.write_text(edited, "utf-8")
    with pytest.raises(InputError, match="changed since it was installed"):
        uninstall_hook(config=path)
    assert path.read_text("utf-8") == edited


def test_a_hook_not_installed_by_elision_is_named_not_removed(tmp_path: Path) -> None:
    text = json.dumps({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "/opt/bin/elision hook claude-code"}]}]}})
    path = _settings(tmp_path, text)
    plan = uninstall_hook(config=path)
    assert not plan.changed and "by hand" in plan.changes[0].why
    assert not install_hook(config=path).changed  # and it counts as installed


def test_cli_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = _settings(tmp_path, LAYOUTS["other settings"])
    result = CliRunner().invoke(main, ["install", "claude-code", "--hook", "--config",
                                       str(path), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert '+  "hooks": {' in result.stdout and "hook claude-code" in result.stdout
    assert "would add elision's PostToolUse hook" in result.stderr
    assert path.read_text("utf-8") == LAYOUTS["other settings"]


@pytest.mark.parametrize(("name", "noted"), [
    (".claude/settings.json", True),  # VS Code's agent hooks load Claude Code's files
    (".claude/settings.local.json", True),
    ("elsewhere/hooks.json", False),
])
def test_a_settings_file_vscode_also_reads_is_noted(tmp_path: Path, name: str,
                                                    noted: bool) -> None:
    path = tmp_path / name
    path.parent.mkdir()
    path.write_text("{}\n", "utf-8")
    result = CliRunner().invoke(main, ["install", "claude-code", "--hook", "--config",
                                       str(path), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert ("is read by VS Code (agent hooks) too" in result.stderr) is noted


@pytest.mark.parametrize(("argv", "said"), [
    (["install", "codex", "--hook"], "--hook is for claude-code and opencode"),
    (["uninstall", "gemini-cli", "--hook"], "--hook is for claude-code and opencode"),
    (["install", "claude-code", "--hook", "--servers", "a"], "--servers picks MCP servers"),
])
def test_hook_misuse_is_a_usage_error(argv: list[str], said: str) -> None:
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2 and said in result.stderr


def test_settings_that_are_not_an_object_are_refused_untouched(tmp_path: Path) -> None:
    path = _settings(tmp_path, '{"hooks": {"PostToolUse": {"matcher": "*"}}}')
    with pytest.raises(InputError, match="is not a list"):
        install_hook(config=path)
    assert path.read_text("utf-8") == '{"hooks": {"PostToolUse": {"matcher": "*"}}}'


@pytest.mark.parametrize(("command", "runs"), [
    ("/x/bin/elision hook claude-code --budget 24000", True),
    ("'/path with space/elision' hook claude-code", True),
    ("python3 -m elision hook claude-code", True),
    ("elision hook codex", False),
    ("echo elision hook claude-code", False),  # a mention is not a run
    ("prettier -w", False),
    ("unbalanced 'quote", False),
])
def test_what_counts_as_elisions_hook(command: str, runs: bool) -> None:
    assert runs_elision_hook(command) is runs


scalars = st.one_of(st.none(), st.booleans(), st.integers(-9, 9), st.text(max_size=8))
groups = st.fixed_dictionaries({"matcher": st.sampled_from(["Bash", "Write|Edit", ""]),
                                "hooks": st.just([{"type": "command", "command": "true"}])})


@st.composite
def settings_file(draw: st.DrawFn) -> str:
    doc: dict[str, Any] = draw(st.dictionaries(st.sampled_from(["model", "env", "x"]), scalars,
                                               max_size=2))
    if draw(st.booleans()):
        hooks: dict[str, Any] = {}
        for event in draw(st.lists(st.sampled_from(["PreToolUse", "PostToolUse", "Stop"]),
                                   unique=True, max_size=3)):
            hooks[event] = draw(st.lists(groups, max_size=2))
        doc["hooks"] = hooks
    return json.dumps(doc, indent=draw(st.sampled_from([None, 2, 4, "\t"])),
                      ensure_ascii=draw(st.booleans())) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_file())
def test_any_settings_file_gets_the_hook_once_and_back_byte_for_byte(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = _settings(Path(tmp), text)
        install_hook(config=path, store=f"{tmp}/s.db", audit=f"{tmp}/a.db")
        assert len(elision_groups(json.loads(path.read_text("utf-8")))) == 1
        installed = path.read_bytes()
        assert not install_hook(config=path).changed
        assert path.read_bytes() == installed
        uninstall_hook(config=path)
        assert path.read_bytes() == text.encode()


# -- OpenCode: a plugin file ------------------------------------------------------------------

def test_the_opencode_plugin_is_written_once_and_removed(tmp_path: Path) -> None:
    path = tmp_path / ".opencode" / "plugins" / "elision.js"
    plan = install_hook("opencode", config=path, **_paths(tmp_path))
    assert plan.changes[0].outcome == "added"
    text = path.read_text("utf-8")
    budget = HARNESSES["opencode"].budget  # the table's, OpenCode's own cut measured
    assert text.startswith(MARKER) and f'"hook", "claude-code", "--budget", "{budget}"' in text
    assert not install_hook("opencode", config=path, **_paths(tmp_path)).changed
    other = install_hook("opencode", config=path, budget=4096, **_paths(tmp_path))
    assert not other.changed and "other settings" in other.changes[0].why
    uninstall_hook("opencode", config=path)
    assert not path.exists()


def test_a_plugin_file_not_elisions_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "elision.js"
    path.write_text("export const Mine = async () => ({})\n", "utf-8")
    with pytest.raises(InputError, match="not a plugin elision wrote"):
        install_hook("opencode", config=path)
    assert path.read_text("utf-8") == "export const Mine = async () => ({})\n"
    assert not uninstall_hook("opencode", config=path).changed


def test_an_edited_plugin_is_not_deleted(tmp_path: Path) -> None:
    path = tmp_path / "elision.js"
    install_hook("opencode", config=path, **_paths(tmp_path))
    path.write_text(path.read_text("utf-8") + "// mine\n", "utf-8")
    with pytest.raises(InputError, match="changed since elision wrote it"):
        uninstall_hook("opencode", config=path)
    assert path.exists()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_plugin_shapes_a_bash_result_through_elision(tmp_path: Path) -> None:
    """Node loads the plugin as OpenCode would and calls its tool.execute.after with a
    3,000-line bash result: the text is replaced by the shaped one, the verdict kept; a
    small result and an MCP result (content blocks) are left as they are."""
    path = tmp_path / "elision.js"
    install_hook("opencode", config=path, **_paths(tmp_path))
    module = tmp_path / "elision.mjs"  # node reads ESM from .mjs without a package.json
    module.write_text(path.read_text("utf-8"), "utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(f"""
import {{ ElisionPlugin }} from {json.dumps(str(module))}
const hooks = await ElisionPlugin({{}})
const after = hooks["tool.execute.after"]
const lines = Array.from({{length: 3000}}, (_, i) => `step ${{i}} passed`)
const big = {{ title: "bash", output: lines.join("\\n") + "\\nSUMMARY: 3 failures\\n",
               metadata: {{}} }}
await after({{ tool: "bash", sessionID: "s", callID: "c", args: {{}} }}, big)
const small = {{ title: "bash", output: "ok\\n", metadata: {{}} }}
await after({{ tool: "bash", sessionID: "s", callID: "d", args: {{}} }}, small)
const mcp = {{ content: [{{ type: "text", text: "x" }}] }}
await after({{ tool: "fixture_x", sessionID: "s", callID: "e", args: {{}} }}, mcp)
console.log(JSON.stringify({{ big: big.output, small: small.output, mcp }}))
""", "utf-8")
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["big"].startswith("[elision] partial") and got["big"].endswith(
        "SUMMARY: 3 failures\n")
    assert len(got["big"].encode()) <= HARNESSES["opencode"].budget
    assert got["small"] == "ok\n"
    assert got["mcp"] == {"content": [{"type": "text", "text": "x"}]}
