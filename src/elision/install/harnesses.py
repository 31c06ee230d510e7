"""The agent harnesses elision installs into: where each keeps its MCP servers, and its own cut.

Each harness bounds tool results itself, and a result cut twice is a head slice again. So each
gets a default budget below its own limit, in a unit that holds whatever the harness counts:
a budget in bytes bounds chars (a char is at least one byte) and o200k/cl100k tokens (a token
is at least one byte), so a bytes budget needs no tokenizer to stay under a token cap.

The limits, and where each figure comes from, are in docs/harnesses.md (a test keeps that table
and this one the same).
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from elision.errors import InputError


@dataclass(frozen=True)
class Harness:
    """One harness's config layout and elision's default budget for it."""

    name: str
    title: str
    #: "json" (JSONC accepted), "toml" or "yaml" (the block subset :mod:`yamlcfg` reads)
    format: str
    #: where the servers object is; "*" stands for every member (Claude Code's projects)
    containers: tuple[tuple[str, ...], ...]
    #: keys whose presence makes an entry remote, each with the transport it means
    url_keys: tuple[tuple[str, str], ...]
    #: the member that names an entry's transport ("type"), if the harness has one
    type_key: str | None
    #: keys that carry request headers or tokens elision proxy cannot forward
    header_keys: tuple[str, ...]
    budget: int
    #: the harness's own cut, in words (the source is in docs/harnesses.md)
    limit: str
    #: default config files for this OS, the one to write first
    paths: Callable[[], list[Path]]
    #: where the figure in ``limit`` comes from
    source: str = ""
    #: what the harness calls itself in ``clientInfo.name``, lowercased substrings: the proxy
    #: sizes results for the client actually connected (:mod:`elision.mcp.agent.clients`)
    clients: tuple[str, ...] = ()
    #: the entry's ``command`` is one array, program and arguments (OpenCode), not command+args
    command_array: bool = False
    #: other harnesses' files this one loads too, as the tail of their path (glob patterns)
    also_reads: tuple[tuple[str, ...], ...] = ()
    #: the member that holds the program an entry runs (Goose names it ``cmd``)
    command_key: str = "command"
    #: the servers are a list of entries, each named by its ``name`` (Continue), not an object
    listed: bool = False
    #: the most lines of a result the harness keeps (it cuts by lines as well as by size), as
    #: it counts them: the pieces of the text split at newlines; None when it has no such cap
    lines: int | None = None


def _home() -> Path:
    return Path.home()


def _appdata() -> Path:
    return Path(os.environ.get("APPDATA") or _home() / "AppData" / "Roaming")


def _config_home() -> Path:
    value = os.environ.get("XDG_CONFIG_HOME")
    return Path(value) if value and os.path.isabs(value) else _home() / ".config"


def _claude_code() -> list[Path]:
    return [Path.cwd() / ".mcp.json", _home() / ".claude.json"]


def _claude_desktop() -> list[Path]:
    if sys.platform == "darwin":
        return [_home() / "Library" / "Application Support" / "Claude" /
                "claude_desktop_config.json"]
    if sys.platform == "win32":
        return [_appdata() / "Claude" / "claude_desktop_config.json"]
    return [_config_home() / "Claude" / "claude_desktop_config.json"]


def _cursor() -> list[Path]:
    return [Path.cwd() / ".cursor" / "mcp.json", _home() / ".cursor" / "mcp.json"]


def _vscode_user_dir() -> Path:
    if sys.platform == "darwin":
        return _home() / "Library" / "Application Support" / "Code" / "User"
    if sys.platform == "win32":
        return _appdata() / "Code" / "User"
    return _config_home() / "Code" / "User"


def _vscode() -> list[Path]:
    return [Path.cwd() / ".vscode" / "mcp.json", _vscode_user_dir() / "mcp.json"]


def _codex() -> list[Path]:
    home = os.environ.get("CODEX_HOME")
    user = Path(home) if home else _home() / ".codex"
    return [Path.cwd() / ".codex" / "config.toml", user / "config.toml"]


def _gemini() -> list[Path]:
    return [Path.cwd() / ".gemini" / "settings.json", _home() / ".gemini" / "settings.json"]


def _windsurf() -> list[Path]:
    return [_home() / ".codeium" / "windsurf" / "mcp_config.json"]


def _opencode() -> list[Path]:
    return [Path.cwd() / "opencode.json", Path.cwd() / "opencode.jsonc",
            _config_home() / "opencode" / "opencode.json"]


def _copilot() -> list[Path]:
    return [_home() / ".copilot" / "mcp-config.json"]


def _qwen() -> list[Path]:
    return [Path.cwd() / ".qwen" / "settings.json", _home() / ".qwen" / "settings.json"]


def _crush() -> list[Path]:
    return [Path.cwd() / ".crush.json", Path.cwd() / "crush.json",
            _config_home() / "crush" / "crush.json"]


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value) if value else None


def _cline() -> list[Path]:
    """The CLI's file as its storage paths resolve it (the file named outright, else the data
    folder's, else the Cline folder's), then the VS Code extension's."""
    storage = (_vscode_user_dir() / "globalStorage" / "saoudrizwan.claude-dev" / "settings" /
               "cline_mcp_settings.json")
    data = _env_path("CLINE_DATA_DIR") or (
        _env_path("CLINE_DIR") or _home() / ".cline") / "data"
    cli = _env_path("CLINE_MCP_SETTINGS_PATH") or data / "settings" / "cline_mcp_settings.json"
    return [cli, storage]


def _zed() -> list[Path]:
    user = (_appdata() / "Zed" if sys.platform == "win32" else _config_home() / "zed")
    return [Path.cwd() / ".zed" / "settings.json", user / "settings.json"]


def _goose() -> list[Path]:
    if sys.platform == "win32":
        return [_appdata() / "Block" / "goose" / "config" / "config.yaml"]
    return [_config_home() / "goose" / "config.yaml"]


def _continue() -> list[Path]:
    """A workspace's block files, then the user's, then the user's config.yaml: each block file
    is a config of its own (``--config``), and doctor looks at every one found."""
    user = _env_path("CONTINUE_GLOBAL_DIR") or _home() / ".continue"
    blocks = [path for folder in (Path.cwd() / ".continue" / "mcpServers", user / "mcpServers")
              for pattern in ("*.yaml", "*.yml") for path in sorted(folder.glob(pattern))]
    return [*blocks, user / "config.yaml"]


def _antigravity() -> list[Path]:
    gemini = _home() / ".gemini"
    return [Path.cwd() / ".agents" / "mcp_config.json", gemini / "config" / "mcp_config.json",
            gemini / "antigravity" / "mcp_config.json"]


_UNMEASURED = "not measured; elision's former default"
_MEASURED = "measured with the harness in elision issue 24 (tests/harness/measure.py)"

HARNESSES: dict[str, Harness] = {h.name: h for h in (
    Harness("claude-code", "Claude Code", "json",
            (("mcpServers",), ("projects", "*", "mcpServers")),
            (("url", "by-type"),), "type", ("headers",),
            24_000, "25,000 tokens a result (MAX_MCP_OUTPUT_TOKENS); over 50,000 chars it "
            "is written to a file and the model gets a 2 KB preview", _claude_code,
            "Claude Code docs, MCP output limits (code.claude.com/docs/en/mcp)",
            ("claude-code",)),
    Harness("claude-desktop", "Claude Desktop", "json", (("mcpServers",),),
            (), None, (), 24_000, "not documented; taken as Claude Code's", _claude_desktop,
            "none found; the Claude Code figure is the safe side", ("claude-ai",)),
    Harness("cursor", "Cursor", "json", (("mcpServers",),),
            (("url", "unknown"),), "type", ("headers",),
            8_192, "not documented; elision keeps its own default", _cursor, "", ("cursor",)),
    Harness("vscode", "VS Code", "json", (("servers",),),
            (("url", "by-type"),), "type", ("headers",),
            8_192, "not documented; elision keeps its own default", _vscode, "",
            ("visual studio code",)),
    Harness("codex", "Codex CLI", "toml", (("mcp_servers",),),
            (("url", "http"),), None,
            ("bearer_token_env_var", "bearer_token", "http_headers", "env_http_headers"),
            8_192, "follows the model: ~11.4 KB kept with a model it does not know, 47,757 B "
            "kept and 48,146 B cut with gpt-5.5 (head and tail kept)", _codex, _MEASURED,
            ("codex-mcp-client",)),
    Harness("gemini-cli", "Gemini CLI", "json", (("mcpServers",),),
            (("httpUrl", "http"), ("url", "sse")), None, ("headers",),
            32_000, "40,000 chars a result, its framing included (39,574 B kept whole, "
            "39,964 B cut to its first 8,000 and last 32,000 chars)", _gemini, _MEASURED,
            ("gemini-cli-mcp-client",)),
    Harness("windsurf", "Windsurf", "json", (("mcpServers",),),
            (("serverUrl", "unknown"), ("url", "unknown")), None, ("headers",),
            8_192, "not documented; elision keeps its own default", _windsurf, "",
            ("windsurf",)),
    Harness("opencode", "OpenCode", "json", (("mcp",),),
            (("url", "unknown"),), "type", ("headers",),
            # the proxy never hands it more than its 2,000 lines, so the bytes sit just
            # under its byte cut, as Copilot CLI's do
            48_000, "51,200 bytes or 2,000 lines, the head kept and the rest spilled to a file "
            "(50,875 B kept whole, 51,264 B cut; 3,001 lines of 49,912 B cut to 2,000)",
            _opencode, _MEASURED, ("opencode",), command_array=True, lines=2_000),
    Harness("copilot-cli", "GitHub Copilot CLI", "json", (("mcpServers",),),
            (("url", "by-type"),), "type", ("headers",),
            19_000, "20,312 B kept whole, 20,500 B spilled to a file (20 KiB): the model gets "
            "its path and a short preview",
            _copilot, _MEASURED, ("copilot-cli",),
            # seen in issue 24: Copilot CLI loads a project's .mcp.json, Claude Code's file
            also_reads=((".mcp.json",),)),
    Harness("qwen-code", "Qwen Code", "json", (("mcpServers",),),
            (("httpUrl", "http"), ("url", "sse")), None, ("headers",),
            # the proxy never hands it more than its 1,000 lines, so the bytes sit just
            # under its cut of 25,000 chars (a char is at least a byte)
            23_000, "25,000 chars or 1,000 lines, head and tail kept and the whole spilled to a "
            "file (24,843 B kept whole, 25,038 B cut; 22,991 B in ~1,350 short lines cut)",
            _qwen, _MEASURED,
            # Qwen Code names itself qwen-cli-mcp-client-SERVER: the longest match wins, so
            # a server named after another harness does not make it that harness
            ("qwen-cli-mcp-client",),
            # seen in issue 24: Qwen Code, a Gemini CLI fork, read Gemini CLI's layout
            also_reads=((".gemini", "settings.json"),), lines=1_000),
    Harness("crush", "Crush", "json", (("mcp",),),
            (("url", "by-type"),), "type", ("headers",),
            8_192, _UNMEASURED, _crush, "Crush README, MCP configuration (format only)",
            ("crush",)),
    Harness("cline", "Cline", "json", (("mcpServers",),),
            (("url", "by-type"),), "type", ("headers",),
            # Cline hands the model the whole result as JSON: the proxy's _meta, the text
            # escaped, and structuredContent, which repeats a JSON result; 3,000 bytes of JSON
            # come to about 7,300 chars of that
            3_000, "8,000 chars of the whole result serialized as JSON (its _meta, content and "
            "structuredContent), the middle cut (7,781 B of text kept whole, 7,875 B cut)",
            _cline, f"{_MEASURED}; Cline docs, MCP configuration (format)",
            ("cline",)),
    Harness("zed", "Zed", "json", (("context_servers",),),
            (("url", "unknown"),), None, ("headers",),
            8_192, _UNMEASURED, _zed, "zed.dev/docs/ai/mcp (format only)", ("zed",)),
    Harness("goose", "Goose", "yaml", (("extensions",),),
            (("uri", "by-type"),), "type", ("headers",),
            8_192, "over 200,000 chars a text is written to a file (goose source, "
            "large_response_handler.rs); not measured with the harness; elision's former "
            "default", _goose,
            "goose docs, Configuration Files (format); goose source (the cut)", ("goose",),
            command_key="cmd"),
    Harness("continue", "Continue", "yaml", (("mcpServers",),),
            (("url", "by-type"),), "type", ("headers", "requestOptions"),
            # its cut is in tokens, of the whole conversation, and follows the model's context
            # (compaction at 121,000 tokens with the default 200,000): Claude Code's budget
            24_000, "no cut of a result: the history is compacted (the result summarized away) "
            "when the conversation reaches the model's context less its output and a buffer, "
            "121,000 tokens by default (678,125 B of text kept whole, 684,218 B compacted "
            "away; fewer with a model configured with a smaller contextLength)", _continue,
            f"{_MEASURED}; Continue docs, MCP deep dive (format); Continue CLI source "
            "(compaction.ts)",
            ("continue-cli-client", "continue-client"), listed=True,
            # Continue loads the JSON MCP files of other harnesses copied into its folder
            also_reads=((".continue", "mcpServers", "*.json"),)),
    Harness("antigravity", "Antigravity", "json", (("mcpServers",),),
            (("serverUrl", "unknown"), ("url", "unknown")), None, ("headers",),
            8_192, _UNMEASURED, _antigravity, "antigravity.google/docs/mcp (format only)",
            ("antigravity",)),
)}


def harness(name: str) -> Harness:
    try:
        return HARNESSES[name]
    except KeyError:
        known = ", ".join(sorted(HARNESSES))
        raise InputError(f"unknown harness {name!r}; elision installs into: {known}") from None


def readers(h: Harness, path: Path) -> list[Harness]:
    """The other harnesses that read the file ``h`` keeps its servers in at ``path``."""
    where = path.absolute()
    found = []
    for other in HARNESSES.values():
        if other is h:
            continue
        tails = other.also_reads
        if any(_tail_matches(where, tail) for tail in tails) or where in [
                p.absolute() for p in other.paths()]:
            found.append(other)
    return found


def _tail_matches(path: Path, tail: tuple[str, ...]) -> bool:
    parts = path.parts[-len(tail):]
    return len(parts) == len(tail) and all(
        fnmatch.fnmatchcase(part, pattern) for part, pattern in zip(parts, tail, strict=True))


def default_config(h: Harness) -> Path:
    """The first of the harness's config files that exists, else the one to create."""
    paths = h.paths()
    for path in paths:
        if path.is_file():
            return path
    return paths[-1]


def limits_table() -> str:
    """The markdown table of docs/harnesses.md: each harness, its budget and its own cut."""
    rows = ["| harness | servers under | clientInfo name holds | default budget | "
            "the harness's own cut | source |",
            "|---|---|---|---|---|---|"]
    for h in HARNESSES.values():
        under = " and ".join(f"`{'.'.join(c)}`" for c in h.containers)
        names = " or ".join(f"`{c}`" for c in h.clients) or "—"
        budget = f"{h.budget:,} bytes" + (f" and {h.lines:,} lines" if h.lines else "")
        rows.append(f"| `{h.name}` ({h.title}) | {under} | {names} | {budget} | "
                    f"{h.limit} | {h.source or '—'} |")
    return "\n".join(rows) + "\n"
