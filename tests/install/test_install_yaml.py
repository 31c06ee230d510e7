"""`elision install goose` and `elision install continue`: YAML configs edited in place.

What the harness would read after an install is checked with PyYAML (the test environment's,
an oracle only: elision reads YAML with its own strict reader), and the properties are the
installer's: uninstall gives back every byte, a second install changes nothing, and a file
outside the subset the reader knows is refused and left as it was.
"""

from __future__ import annotations

import functools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.cli import main
from elision.errors import InputError
from elision.install import HARNESSES, install, uninstall
from elision.install.entries import read_proxied
from support.built import strategies_built

GOOSE = """# goose's own settings
GOOSE_PROVIDER: anthropic
GOOSE_MODEL: "claude-4.5-sonnet"

extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  github:
    args: [-y, "@modelcontextprotocol/server-github"]   # pinned by the team
    cmd: npx
    enabled: true
    envs: { "GITHUB_PERSONAL_ACCESS_TOKEN": "kept" }
    name: GitHub
    type: stdio
    timeout: 300
  docs:
    enabled: true
    name: docs
    type: streamable_http
    uri: http://127.0.0.1:9/mcp
  bare:
    cmd: /usr/bin/some-server  # no args
    type: stdio
GOOSE_SEARCH_PATHS:
  - "/usr/local/bin"
"""

CONTINUE = """name: My Config
version: 0.0.1
schema: v1
models: []
mcpServers:
  - name: SQLite MCP
    command: npx
    args:
      - "-y"
      - mcp-sqlite   # the database
      - /path/to/db.sqlite
    env: {}
  - name: Web
    type: streamable-http
    url: https://web.example.invalid/mcp
  - command: uvx
    name: Bare
    env:
      TOKEN: ${{ secrets.TOKEN }}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def _paths(tmp_path: Path) -> dict[str, str]:
    return {"store": str(tmp_path / "s.db"), "audit": str(tmp_path / "a.db")}


def test_goose_entries_read_as_goose_reads_them(tmp_path: Path) -> None:
    config = _write(tmp_path, "config.yaml", GOOSE)
    plan = install("goose", config=config, **_paths(tmp_path))
    outcome = {c.name: (c.outcome, c.why) for c in plan.changes}
    assert outcome["github"][0] == outcome["bare"][0] == "proxied"
    assert "type is 'builtin'" in outcome["developer"][1]
    # a remote entry is the user's to edit, and they are told exactly what to write
    assert "edit it by hand" in outcome["docs"][1] and "--upstream-url" in outcome["docs"][1]
    before, after = yaml.safe_load(GOOSE), yaml.safe_load(config.read_text("utf-8"))
    github = after["extensions"]["github"]
    proxied = read_proxied(github, "cmd")
    assert proxied is not None
    assert proxied.command == ["npx", "-y", "@modelcontextprotocol/server-github"]
    assert proxied.options["--store"] == str(tmp_path / "s.db")
    assert github["envs"] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "kept"}
    assert read_proxied(after["extensions"]["bare"], "cmd").command == [  # type: ignore[union-attr]
        "/usr/bin/some-server"]
    # everything but the two rewritten entries reads the same
    for name in ("github", "bare"):
        del before["extensions"][name], after["extensions"][name]
    assert after == before
    # and the lines that were not the entries' command or args are the same bytes
    text = config.read_text("utf-8")
    assert "    args: [" in text and "   # pinned by the team\n    cmd: \"" in text
    assert "  bare:\n    cmd: \"" in text and "\"  # no args\n    args: [" in text


def test_continue_entries_read_as_continue_reads_them(tmp_path: Path) -> None:
    config = _write(tmp_path, "config.yaml", CONTINUE)
    plan = install("continue", config=config, **_paths(tmp_path))
    assert {c.name: c.outcome for c in plan.changes} == {
        "SQLite MCP": "proxied", "Web": "left", "Bare": "proxied"}
    before, after = yaml.safe_load(CONTINUE), yaml.safe_load(config.read_text("utf-8"))
    sqlite, web, bare = after["mcpServers"]
    assert read_proxied(sqlite).command == [  # type: ignore[union-attr]
        "npx", "-y", "mcp-sqlite", "/path/to/db.sqlite"]
    assert read_proxied(bare).command == ["uvx"]  # type: ignore[union-attr]
    assert bare["env"] == {"TOKEN": "${{ secrets.TOKEN }}"} and web == before["mcpServers"][1]
    # a block list of args stays a block list, at its own indentation
    assert '    args:\n      - "proxy"\n' in config.read_text("utf-8")


@pytest.mark.parametrize(("harness", "text"), [("goose", GOOSE), ("continue", CONTINUE)])
def test_a_second_install_changes_nothing_and_uninstall_gives_back_every_byte(
        tmp_path: Path, harness: str, text: str) -> None:
    config = _write(tmp_path, "config.yaml", text)
    install(harness, config=config)
    installed = config.read_bytes()
    assert installed != text.encode()
    assert not install(harness, config=config).changed
    assert config.read_bytes() == installed
    assert uninstall(harness, config=config).changed
    assert config.read_bytes() == text.encode()


def test_uninstall_keeps_an_edit_made_elsewhere(tmp_path: Path) -> None:
    config = _write(tmp_path, "config.yaml", GOOSE)
    install("goose", config=config)
    edited = config.read_text("utf-8").replace("GOOSE_PROVIDER: anthropic",
                                               "GOOSE_PROVIDER: openai")
    config.write_text(edited, "utf-8")
    uninstall("goose", config=config)
    assert config.read_text("utf-8") == GOOSE.replace("anthropic", "openai")


def test_a_file_outside_the_subset_is_refused_untouched_with_the_lines_to_write(
        tmp_path: Path) -> None:
    text = GOOSE.replace("GOOSE_MODEL: \"claude-4.5-sonnet\"",
                         "GOOSE_SYSTEM: |\n  be brief\n  and kind")
    config = _write(tmp_path, "config.yaml", text)
    result = CliRunner().invoke(main, ["install", "goose", "--config", str(config)])
    assert result.exit_code == 2
    assert "config.yaml:3:15: a multi-line (| or >) scalar" in result.stderr
    assert "nothing was changed" in result.stderr
    assert 'cmd: "' in result.stderr and '"proxy", "--store"' in result.stderr
    assert config.read_text("utf-8") == text


def test_an_entry_written_as_a_flow_mapping_is_left_with_the_lines_to_write(
        tmp_path: Path) -> None:
    text = "mcpServers:\n  - {name: one, command: npx, args: [x]}\n"
    config = _write(tmp_path, "one.yaml", text)
    plan = install("continue", config=config)
    assert not plan.changed
    (change,) = plan.changes
    assert "edit it by hand" in change.why and 'command: "' in change.why


def test_dry_run_prints_the_yaml_diff_and_writes_nothing(tmp_path: Path) -> None:
    config = _write(tmp_path, "config.yaml", CONTINUE)
    result = CliRunner().invoke(main, ["install", "continue", "--config", str(config),
                                       "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "-    command: npx\n" in result.stdout and '+      - "proxy"\n' in result.stdout
    assert config.read_text("utf-8") == CONTINUE


def test_a_workspace_block_file_comes_before_the_user_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Continue's `.continue/mcpServers/*.yaml` are configs of their own: found, in order."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    blocks = tmp_path / ".continue" / "mcpServers"
    blocks.mkdir(parents=True)
    for name in ("b.yaml", "a.yaml", "notes.txt"):
        (blocks / name).write_text("mcpServers: []\n", "utf-8")
    paths = HARNESSES["continue"].paths()
    assert paths[:2] == [blocks / "a.yaml", blocks / "b.yaml"]
    assert paths[-1] == tmp_path / "home" / ".continue" / "config.yaml"


# -- properties ------------------------------------------------------------------------------

# BMP text without the characters YAML 1.1 (PyYAML) takes for line breaks or refuses
text_chars = st.characters(min_codepoint=0x20, max_codepoint=0xFFFD,
                           exclude_categories=("Cs", "Cc", "Zl", "Zp"),
                           exclude_characters="\x85\ufeff")
strings = st.text(text_chars, max_size=12)
names = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
safe_plain = st.from_regex(r"[a-z/][a-z0-9_./@-]{0,10}", fullmatch=True).filter(
    lambda s: s not in ("y", "n", "yes", "no", "on", "off", "null", "true", "false"))
# The composites' parts, built once (per argument where they take one): built on every draw
# they were most of drawing's CPU (2,550 strategies for 20 configs).
_QUOTED_STYLES = st.sampled_from(["double", "single"])
_ANY_STYLES = st.sampled_from(["double", "single", "plain"])
_ENTRY_KINDS = st.sampled_from(["stdio", "stdio", "stdio", "remote", "builtin"])
_COMMANDS = st.one_of(safe_plain, strings.filter(bool))
_ARGS = st.lists(st.one_of(safe_plain, strings), max_size=3)
_ENVS = st.dictionaries(st.from_regex(r"[A-Z][A-Z_]{0,5}", fullmatch=True).filter(
    lambda k: k not in ("Y", "N", "YES", "NO", "ON", "OFF")),  # YAML 1.1's bools
    strings, max_size=2)
_HARNESS_NAMES = st.sampled_from(["goose", "continue"])
_UNITS = st.sampled_from([2, 4])
_FILE_HEADS = st.sampled_from(["", "# settings\n", "---\n"])
_TOP_KEYS = st.lists(st.sampled_from(["GOOSE_MODEL", "schema", "version"]), unique=True,
                     max_size=2)


@functools.cache
def _key_orders(keys: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    return st.permutations(list(keys))


@functools.cache
def _list_columns(col: int, inner: int) -> st.SearchStrategy[int]:
    return st.sampled_from([col, inner])


@functools.lru_cache(maxsize=4096)
def scalar_text(value: str) -> st.SearchStrategy[str]:
    """One strategy a value: the rendered values recur (keys, commands) across draws."""
    return _scalar_text(value)


@st.composite
def _scalar_text(draw: st.DrawFn, value: str) -> str:
    """``value`` written in a style YAML reads back as that string."""
    styles = ["double", "single"] + (["plain"] if re.fullmatch(r"[a-z/][a-z0-9_./@-]*", value)
                                     and value not in ("y", "n", "yes", "no", "on", "off",
                                                       "null", "true", "false") else [])
    style = draw(_ANY_STYLES if len(styles) == 3 else _QUOTED_STYLES)
    if style == "plain":
        return value
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value)


@st.composite
def entry(draw: st.DrawFn, harness: str) -> dict[str, Any]:
    command_key = HARNESSES[harness].command_key
    kind = draw(_ENTRY_KINDS)
    if kind == "remote":
        key = "uri" if harness == "goose" else "url"
        return {"type": "streamable_http" if harness == "goose" else "sse",
                key: "http://127.0.0.1:9/" + draw(names)}
    if kind == "builtin":
        return {"type": "builtin", "enabled": draw(st.booleans())}
    out: dict[str, Any] = {command_key: draw(_COMMANDS)}
    if draw(st.booleans()):
        out["args"] = draw(_ARGS)
    if draw(st.booleans()):
        out["envs" if harness == "goose" else "env"] = draw(_ENVS)
    if draw(st.booleans()):
        out["timeout"] = draw(st.integers(1, 600))
    keys = draw(_key_orders(tuple(out)))
    return {k: out[k] for k in keys}


def render_value(value: Any, col: int, unit: int, block: bool = False) -> st.SearchStrategy[str]:
    """One strategy a value and place: its JSON spelling is the key (it tells a bool from an
    int, and keeps a mapping's order), read back into the value it spells."""
    return _rendered(json.dumps(value), col, unit, block)


@functools.lru_cache(maxsize=4096)
def _rendered(spelled: str, col: int, unit: int, block: bool) -> st.SearchStrategy[str]:
    return _render_value(json.loads(spelled), col, unit, block)


@st.composite
def _render_value(draw: st.DrawFn, value: Any, col: int, unit: int, block: bool = False) -> str:
    """The text after ``key:`` for ``value``: inline, or block lines indented under ``col``."""
    if isinstance(value, (bool, int)):
        return " " + str(value).lower()
    if isinstance(value, str):
        return " " + draw(scalar_text(value))
    inner = col + unit
    if isinstance(value, list):
        if not value or draw(st.booleans()):
            return " [" + ", ".join(json.dumps(v) for v in value) + "]"
        at = draw(_list_columns(col, inner))  # a list may sit at its key's indentation
        return "".join(f"\n{' ' * at}- {draw(scalar_text(v))}" for v in value)
    if not block and (not value or draw(st.booleans())):  # an entry is a block mapping
        return " {" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                for k, v in value.items()) + "}"
    return "".join(f"\n{' ' * inner}{k}:{draw(render_value(v, inner, unit))}"
                   for k, v in value.items())


@functools.cache
def _comment_choices(col: int) -> st.SearchStrategy[str]:
    return st.sampled_from(["", "", f"\n{' ' * col}# a note", "\n"])


@st.composite
def comment(draw: st.DrawFn, col: int) -> str:
    return draw(_comment_choices(col))


_ENTRIES = {harness: entry(harness) for harness in ("goose", "continue")}
_COMMENTS = {col: comment(col) for col in (0, 2, 4)}


@functools.cache
def _servers(harness: str) -> st.SearchStrategy[dict[str, dict[str, Any]]]:
    return st.dictionaries(names, _ENTRIES[harness], min_size=1, max_size=4)


@st.composite
def config(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    harness = draw(_HARNESS_NAMES)
    unit = draw(_UNITS)
    servers_named = draw(_servers(harness))
    lines = [draw(_FILE_HEADS)]
    doc: dict[str, Any] = {}
    for key in draw(_TOP_KEYS):
        doc[key] = draw(safe_plain)
        lines.append(f"{key}:{draw(render_value(doc[key], 0, unit))}\n")
    if harness == "goose":
        doc["extensions"] = servers_named
        lines.append("extensions:")
        for name, item in servers_named.items():
            lines.append(f"\n{' ' * unit}{name}:{draw(render_value(item, unit, unit, True))}"
                         f"{draw(_COMMENTS[unit])}")
    else:
        items = [{"name": name, **item} for name, item in servers_named.items()]
        doc["mcpServers"] = items
        at = draw(_list_columns(0, unit))
        lines.append("mcpServers:")
        for item in items:
            body = draw(render_value(item, at + 2 - unit, unit, True))
            # the first key goes on the dash line: "- name: x"
            lines.append(f"\n{' ' * at}- " + body.lstrip("\n").lstrip(" ")
                         + draw(_COMMENTS[at]))
    lines.append("\n")
    text = "".join(lines)
    if draw(st.booleans()):  # a file saved with Windows line ends keeps them
        text = text.replace("\n", "\r\n")
    return harness, text, doc


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config())
def test_install_is_read_as_meant_and_uninstall_gives_back_every_byte(
        case: tuple[str, str, dict[str, Any]]) -> None:
    harness, text, doc = case
    assert yaml.safe_load(text) == doc  # the generator writes what it means (the oracle)
    h = HARNESSES[harness]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_bytes(text.encode())
        plan = install(harness, config=path, store=str(Path(tmp) / "s.db"),
                       audit=str(Path(tmp) / "a.db"))
        after = yaml.safe_load(path.read_text("utf-8"))
        container = "extensions" if harness == "goose" else "mcpServers"
        old = doc[container]
        new = after[container]
        pairs = (zip(old.values(), new.values(), strict=True) if harness == "goose"
                 else zip(old, new, strict=True))
        proxied = 0
        for was, now in pairs:
            if h.command_key not in was:
                assert now == was
                continue
            proxied += 1
            got = read_proxied(now, h.command_key)
            assert got is not None, now
            assert got.command == [was[h.command_key], *was.get("args", [])]
            assert {k: v for k, v in now.items() if k not in (h.command_key, "args")} == {
                k: v for k, v in was.items() if k not in (h.command_key, "args")}
        assert sum(c.outcome == "proxied" for c in plan.changes) == proxied
        assert {k: v for k, v in after.items() if k != container} == {
            k: v for k, v in doc.items() if k != container}
        installed = path.read_bytes()
        if b"\r\n" in text.encode():  # no bare line end written into a CRLF file
            assert installed.count(b"\n") == installed.count(b"\r\n")
        assert not install(harness, config=path).changed  # idempotent
        assert path.read_bytes() == installed
        uninstall(harness, config=path)
        assert path.read_bytes() == text.encode()


OUTSIDE = ["anchor: &a 1\n", "tagged: !!str x\n", "prompt: |\n  two\n  lines\n",
           "folded: >\n  text\n", "flow: [1,\n  2]\n", "alias: *a\n", "second: 1\n---\nthird: 2\n"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config(), st.sampled_from(OUTSIDE), st.booleans())
def test_a_file_outside_the_subset_is_refused_and_left_untouched(
        case: tuple[str, str, dict[str, Any]], outside: str, first: bool) -> None:
    harness, text, _ = case
    body = text.removeprefix("---\n")
    text = outside + body if first else body + outside
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_bytes(text.encode())
        with pytest.raises(InputError, match="nothing was changed"):
            install(harness, config=path)
        assert path.read_bytes() == text.encode()


def test_install_without_config_names_the_other_block_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of Continue's block files is a config of its own: an install edits the first,
    and says which others still run their servers directly."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    blocks = tmp_path / ".continue" / "mcpServers"
    blocks.mkdir(parents=True)
    for name in ("a.yaml", "b.yaml"):
        (blocks / name).write_text("mcpServers:\n  - name: x\n    command: y\n", "utf-8")
    result = CliRunner().invoke(main, ["install", "continue", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "a.yaml" in result.stdout  # the first is the one changed
    assert "other config files here: " in result.stderr and "b.yaml" in result.stderr
    assert "--config PATH" in result.stderr


@pytest.mark.parametrize("text", [
    # one block item: the old list held no line end to copy, so "\n" was written
    'extensions:\r\n  a:\r\n    cmd: "a"\r\n    args:\r\n    - "a"\r\n',
    # args missing on the last line, no line end after it: the file's own is used
    "mcpServers:\r\n  - name: x\r\n    command: y",
])
def test_a_crlf_file_gets_no_bare_line_end(tmp_path: Path, text: str) -> None:
    """Found by the property test: a Windows file with a one-item block list of args got
    bare "\\n" line ends in the rewritten list."""
    config = _write(tmp_path, "config.yaml", text)
    install("goose" if text.startswith("extensions") else "continue", config=config)
    written = config.read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n") > text.count("\n")


def test_drawing_configs_builds_few_strategies() -> None:
    """Red before: each draw built its parts again (2,347-2,550 strategies for 20 configs).
    A value is rendered by one strategy kept per value and place; what is left is Hypothesis's
    own: a dictionary filters its keys with a strategy of each draw."""
    assert strategies_built(config(), examples=5) < 30


@pytest.mark.parametrize("harness", ["goose", "continue"])
def test_drawing_entries_builds_no_strategy(harness: str) -> None:
    """Red before: each entry built its parts again."""
    assert strategies_built(entry(harness), examples=5) < 5
