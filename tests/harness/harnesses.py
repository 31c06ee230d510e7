"""Each harness of the in-harness suite: where its config goes, how it is run, what it speaks.

Each harness gets its servers written in its own layout, bare, and then ``elision install
TARGET --servers fixture`` puts the fixture server behind the proxy, as a user would, with no
``--budget``: the proxy sizes results for the client that connects, from the installer's table
(:data:`elision.install.harnesses.HARNESSES`), and that table is what the suite tests. Beside
the fixture the harness starts ``witness.py`` directly, which writes down the ``clientInfo`` the
harness sends. Every run is offline: telemetry, update checks and other traffic are switched
off, and the driver runs in a network namespace with loopback only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elision.install.harnesses import HARNESSES
from harness.received import handed_as_json
from support.kept import share_cache

HERE = Path(__file__).resolve().parent
PINNED = HERE / "node_modules"
#: where ELISION_HARNESS_LATEST=1 installs each harness's @latest (gitignored)
NEWEST = HERE / "latest" / "node_modules"
BIN = PINNED / ".bin"
TOOLSERVER = [sys.executable, str(HERE / "toolserver.py")]
#: the server ``elision install --servers`` proxies; the witness stays bare
FIXTURE = "fixture"
PORT = 18080  # a fresh network namespace has every port free
BASE = f"http://127.0.0.1:{PORT}"
LATEST = os.environ.get("ELISION_HARNESS_LATEST") == "1"


@dataclass
class Ctx:
    """One run's folders and the fixture server's command line."""

    root: Path
    #: the node_modules the harness runs from: the pinned one, or NEWEST
    modules: Path = PINNED
    home: Path = field(init=False)
    work: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.home.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        share_cache(self.home)  # the proxy's hyperscan databases: compiled once a run

    @property
    def bin(self) -> Path:
        return self.modules / ".bin"

    @property
    def store(self) -> Path:
        return self.root / "store.db"

    @property
    def audit(self) -> Path:
        return self.root / "audit.db"

    @property
    def clients(self) -> Path:
        """Where the witness writes the clientInfo of each request it gets."""
        return self.root / "clients.jsonl"

    def servers(self) -> dict[str, list[str]]:
        """Each server's command line as the harness's config names it before the install."""
        return {FIXTURE: list(TOOLSERVER),
                "witness": [sys.executable, str(HERE / "witness.py"), str(self.clients)]}

    def base_env(self) -> dict[str, str]:
        """What a harness starts with: a fresh HOME, the venv's elision first on PATH."""
        path = os.pathsep.join([str(Path(sys.executable).parent), str(Path(shutil.which(
            "node") or "/usr/bin/node").parent), "/usr/local/bin", "/usr/bin", "/bin"])
        return {"HOME": str(self.home), "PATH": path, "USER": "root", "LOGNAME": "root",
                "SHELL": "/bin/bash", "TERM": "dumb", "NO_COLOR": "1", "CI": "1",
                "XDG_DATA_HOME": str(self.root / "data"),
                "XDG_CONFIG_HOME": str(self.home / ".config"),
                "XDG_CACHE_HOME": str(self.home / ".cache")}


@dataclass(frozen=True)
class Spec:
    """How to set one harness up and drive it with one prompt."""

    key: str
    title: str
    package: str
    binary: str
    #: the fake model's dialect the harness speaks
    dialect: str
    #: ``elision install`` target (None: the config is the test's own, as the hook test's)
    target: str | None
    #: writes the config naming the servers bare; returns the file ``elision install`` edits
    configure: Callable[[Ctx], Path]
    #: the command line and environment for one prompt
    command: Callable[[Ctx, str, str], tuple[list[str], dict[str, str]]]
    #: the budget the proxy gives this harness: the installer's table's, for the target
    budget: int
    #: how the harness names an MCP tool ``tool`` of server ``fixture``
    tool_name: Callable[[str], str] = lambda tool: tool
    #: the result's text in what the harness hands the model (the checks read this; a harness
    #: that hands the result over as JSON gives it escaped, inside its own document)
    unwrap: Callable[[str], str] = lambda handed: handed

    def executable(self, modules: Path = PINNED) -> Path:
        return modules / ".bin" / self.binary


# ---- Claude Code ------------------------------------------------------------------------------

def _claude_configure(ctx: Ctx) -> Path:
    config = ctx.home / ".claude.json"
    config.write_text(json.dumps({"hasCompletedOnboarding": True, "mcpServers": {
        name: {"type": "stdio", "command": argv[0], "args": argv[1:]}
        for name, argv in ctx.servers().items()}}), "utf-8")
    return config


def claude_env(ctx: Ctx) -> dict[str, str]:
    return {**ctx.base_env(), "ANTHROPIC_BASE_URL": BASE, "ANTHROPIC_API_KEY": "sk-ant-fake",
            "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # the first request waits for MCP servers, and offers their tools, not a search
            "MCP_CONNECTION_NONBLOCKING": "0", "ENABLE_TOOL_SEARCH": "false",
            "MCP_TIMEOUT": "180000"}


def _claude_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    allowed = f"mcp__fixture__{tool},mcp__fixture__elision_fetch,WaitForMcpServers"
    return ([str(ctx.bin / "claude"), "-p", prompt, "--allowedTools", allowed,
             "--output-format", "json"], claude_env(ctx))


CLAUDE = Spec("claude-code", "Claude Code", "@anthropic-ai/claude-code", "claude", "anthropic",
              "claude-code", _claude_configure, _claude_command,
              HARNESSES["claude-code"].budget,
              lambda tool: f"mcp__fixture__{tool}")

# ---- Codex CLI --------------------------------------------------------------------------------

CODEX_MODEL = "gpt-5.5"  # a model family Codex knows: its own cut follows the model


def _codex_configure(ctx: Ctx) -> Path:
    config = ctx.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    # required: Codex leaves a server still starting out of the turn ("pending optional MCP
    # server"), and the proxy starts in seconds on a loaded machine
    servers = "".join(f"""
[mcp_servers.{name}]
command = {json.dumps(argv[0])}
args = {json.dumps(argv[1:])}
""" for name, argv in ctx.servers().items() if name != FIXTURE)
    fixture = ctx.servers()[FIXTURE]
    config.write_text(f"""model = "{CODEX_MODEL}"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{BASE}/v1"
wire_api = "responses"

[analytics]
enabled = false

[mcp_servers.fixture]
required = true
startup_timeout_sec = 120
command = {json.dumps(fixture[0])}
args = {json.dumps(fixture[1:])}
{servers}""", "utf-8")
    return config


def _codex_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "CODEX_HOME": str(ctx.home / ".codex"), "OPENAI_API_KEY": "sk-fake"}
    return ([str(ctx.bin / "codex"), "exec", "--skip-git-repo-check",
             "--dangerously-bypass-approvals-and-sandbox", prompt], env)


CODEX = Spec("codex", "Codex CLI", "@openai/codex", "codex", "responses", "codex",
             _codex_configure, _codex_command, HARNESSES["codex"].budget,
             lambda tool: f"mcp__fixture__{tool}")

# ---- Gemini CLI -------------------------------------------------------------------------------

GEMINI_MODEL = "gemini-2.5-pro"  # named, so no routing classifier asks the model first


def _gemini_configure(ctx: Ctx) -> Path:
    settings = ctx.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "mcpServers": {name: {"command": argv[0], "args": argv[1:], "timeout": 120_000}
                       for name, argv in ctx.servers().items()}}, indent=2), "utf-8")
    # Gemini CLI starts no server of a folder the user has not trusted
    (settings.parent / "trustedFolders.json").write_text(
        json.dumps({str(ctx.work): "TRUST_FOLDER"}), "utf-8")
    return settings


def _gemini_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": BASE,
           "GEMINI_CLI_NO_RELAUNCH": "true"}
    return ([str(ctx.bin / "gemini"), "-p", prompt, "--yolo", "-m", GEMINI_MODEL,
             "--output-format", "json"], env)


GEMINI = Spec("gemini-cli", "Gemini CLI", "@google/gemini-cli", "gemini", "gemini",
              "gemini-cli", _gemini_configure, _gemini_command,
              HARNESSES["gemini-cli"].budget,
              lambda tool: f"mcp_fixture_{tool}")

# ---- OpenCode ---------------------------------------------------------------------------------

def _opencode_configure(ctx: Ctx) -> Path:
    config = ctx.work / "opencode.json"
    config.write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False, "share": "disabled",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible", "name": "fake",
            "options": {"baseURL": f"{BASE}/v1", "apiKey": "fake-key"},
            "models": {"fake-model": {"name": "fake", "tool_call": True}}}},
        "model": "fake/fake-model",
        "mcp": {name: {"type": "local", "command": argv, "enabled": True, "timeout": 120_000}
                for name, argv in ctx.servers().items()}}, indent=2), "utf-8")
    return config


def _opencode_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "OPENCODE_DISABLE_AUTOUPDATE": "true",
           "OPENCODE_DISABLE_SHARE": "true", "OPENCODE_DISABLE_MODELS_FETCH": "true",
           "OPENCODE_DISABLE_LSP_DOWNLOAD": "true"}
    return ([str(ctx.bin / "opencode"), "run", prompt], env)


OPENCODE = Spec("opencode", "OpenCode", "opencode-ai", "opencode", "chat", "opencode",
                _opencode_configure, _opencode_command, HARNESSES["opencode"].budget,
                lambda tool: f"fixture_{tool}")

# ---- Qwen Code --------------------------------------------------------------------------------

def _qwen_configure(ctx: Ctx) -> Path:
    settings = ctx.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({
        "security": {"auth": {"selectedType": "openai"}}, "selectedAuthType": "openai",
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "mcpServers": {name: {"command": argv[0], "args": argv[1:], "timeout": 120_000,
                              "trust": True} for name, argv in ctx.servers().items()}},
        indent=2), "utf-8")
    (settings.parent / "trustedFolders.json").write_text(
        json.dumps({str(ctx.work): "TRUST_FOLDER"}), "utf-8")
    return settings


def _qwen_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "OPENAI_BASE_URL": f"{BASE}/v1", "OPENAI_API_KEY": "fake-key",
           "OPENAI_MODEL": "qwen3-coder-plus", "QWEN_CODE_NO_RELAUNCH": "true"}
    return ([str(ctx.bin / "qwen"), "-p", prompt, "--yolo", "--output-format", "json"], env)


QWEN = Spec("qwen-code", "Qwen Code", "@qwen-code/qwen-code", "qwen", "chat", "qwen-code",
            _qwen_configure, _qwen_command, HARNESSES["qwen-code"].budget,
            lambda tool: f"mcp__fixture__{tool}")

# ---- GitHub Copilot CLI -----------------------------------------------------------------------

def _copilot_configure(ctx: Ctx) -> Path:
    config = ctx.home / ".copilot" / "mcp-config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"mcpServers": {
        name: {"type": "local", "command": argv[0], "args": argv[1:], "tools": ["*"]}
        for name, argv in ctx.servers().items()}}, indent=2), "utf-8")
    return config


def _copilot_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
           "COPILOT_PROVIDER_BASE_URL": f"{BASE}/v1", "COPILOT_PROVIDER_TYPE": "openai",
           "COPILOT_PROVIDER_API_KEY": "fake-key", "COPILOT_MODEL": "gpt-4.1",
           "COPILOT_HOME": str(ctx.home / ".copilot"),
           # the binary unpacks ~200 MB of itself once per cache, not once per run
           "COPILOT_PKG_CACHE_HOME": str(ctx.modules / ".copilot-pkg")}
    return ([str(ctx.bin / "copilot"), "-p", prompt, "--allow-all-tools"], env)


COPILOT = Spec("copilot", "GitHub Copilot CLI", "@github/copilot", "copilot", "chat",
               "copilot-cli", _copilot_configure, _copilot_command,
               HARNESSES["copilot-cli"].budget, lambda tool: f"fixture-{tool}")

# ---- Cline CLI --------------------------------------------------------------------------------

def _cline_configure(ctx: Ctx) -> Path:
    settings = ctx.home / ".cline" / "data" / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    # what `cline auth -p openai-compatible -k KEY -m MODEL -b URL` writes, without its start
    (settings / "providers.json").write_text(json.dumps({
        "version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
        "providers": {"openai-compatible": {"settings": {
            "provider": "openai-compatible", "apiKey": "fake-key", "model": "fake-model",
            "baseUrl": f"{BASE}/v1"}, "updatedAt": "2026-12-03T00:00:00.000Z",
            "tokenSource": "manual"}}}, indent=2), "utf-8")
    (settings / "global-settings.json").write_text(json.dumps(
        {"telemetryOptOut": True, "autoUpdateEnabled": False}), "utf-8")
    config = settings / "cline_mcp_settings.json"
    # Cline's `timeout` is in seconds
    config.write_text(json.dumps({"mcpServers": {
        name: {"type": "stdio", "command": argv[0], "args": argv[1:], "timeout": 120}
        for name, argv in ctx.servers().items()}}, indent=2), "utf-8")
    return config


def _cline_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    # local: no hub daemon, which would outlive the run
    env = {**ctx.base_env(), "CLINE_NO_AUTO_UPDATE": "1", "CLINE_NO_INTERACTIVE": "1",
           "CLINE_SESSION_BACKEND_MODE": "local"}
    return ([str(ctx.bin / "cline"), "--json", "--auto-approve", "true", "--cwd",
             str(ctx.work), prompt], env)


CLINE = Spec("cline", "Cline CLI", "cline", "cline", "chat", "cline", _cline_configure,
             _cline_command, HARNESSES["cline"].budget, lambda tool: f"fixture__{tool}",
             handed_as_json)

# ---- Continue CLI -----------------------------------------------------------------------------

def _continue_configure(ctx: Ctx) -> Path:
    config = ctx.home / ".continue" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    servers = "".join(f"""  - name: {name}
    command: {json.dumps(argv[0])}
    args: {json.dumps(argv[1:])}
""" for name, argv in ctx.servers().items())
    config.write_text(f"""name: elision-harness
version: 1.0.0
schema: v1
models:
  - name: fake
    provider: openai
    model: fake-model
    apiBase: {BASE}/v1
    apiKey: fake-key
    roles: [chat]
mcpServers:
{servers}""", "utf-8")
    return config


def _continue_command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    env = {**ctx.base_env(), "CONTINUE_GLOBAL_DIR": str(ctx.home / ".continue"),
           "CONTINUE_METRICS_ENABLED": "0", "CONTINUE_CLI_ENABLE_TELEMETRY": "0"}
    return ([str(ctx.bin / "cn"), "-p", prompt, "--auto", "--config",
             str(ctx.home / ".continue" / "config.yaml")], env)


CONTINUE = Spec("continue", "Continue CLI", "@continuedev/cli", "cn", "chat", "continue",
                _continue_configure, _continue_command, HARNESSES["continue"].budget,
                unwrap=handed_as_json)

SPECS: dict[str, Spec] = {s.key: s for s in (CLAUDE, CODEX, GEMINI, OPENCODE, QWEN, COPILOT,
                                             CLINE, CONTINUE)}


def version(spec: Spec, modules: Path = PINNED) -> str:
    manifest = modules / spec.package / "package.json"
    return str(json.loads(manifest.read_text("utf-8"))["version"])


def install_latest(spec: Spec) -> None:
    """``npm install PACKAGE@latest`` into tests/harness/latest (ELISION_HARNESS_LATEST=1)."""
    prefix = NEWEST.parent
    prefix.mkdir(exist_ok=True)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                    str(prefix), f"{spec.package}@latest"], check=True, timeout=900,
                   capture_output=True)


def run(spec: Spec, ctx: Ctx, tool: str, timeout: float = 300,
        args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Install the fixture server into the harness, run one prompt asking for ``tool`` with the
    fake model in a loopback-only namespace, and return the model's record."""
    argv, env = spec.command(ctx, f"Call the {tool} tool.", tool)
    out = ctx.root / f"run-{tool}.json"
    request = ctx.root / f"spec-{tool}.json"
    request.write_text(json.dumps({"wanted": tool, "args": args or {}, "port": PORT,
                                   "argv": argv, "env": env, "cwd": str(ctx.work),
                                   "timeout": timeout, "out": str(out)}), "utf-8")
    subprocess.run(["unshare", "-n", sys.executable, str(HERE / "driver.py"), str(request)],
                   check=True, timeout=timeout + 30)
    record: dict[str, Any] = json.loads(out.read_text("utf-8"))
    record["clients"] = clients_seen(ctx)
    return record


def clients_seen(ctx: Ctx) -> list[dict[str, Any]]:
    """Each distinct ``clientInfo`` the harness sent the witness, in the order first seen."""
    seen: list[dict[str, Any]] = []
    lines = ctx.clients.read_text("utf-8").splitlines() if ctx.clients.is_file() else []
    for line in lines:
        info = json.loads(line)["clientInfo"]
        if info is not None and info not in seen:
            seen.append(info)
    return seen


def install(spec: Spec, ctx: Ctx, config: Path) -> str:
    """``elision install TARGET --config FILE --servers fixture``, run as a user runs it (no
    ``--budget``), with elision's own data (the install's record) kept in this run's folder.
    Returns what the installer said on stderr."""
    assert spec.target is not None, spec.key
    argv = [str(Path(sys.executable).parent / "elision"), "install", spec.target,
            "--config", str(config), "--servers", FIXTURE,
            "--store", str(ctx.store), "--audit", str(ctx.audit)]
    done = subprocess.run(argv, env={**ctx.base_env(), "XDG_DATA_HOME": str(ctx.root / "data")},
                          cwd=ctx.work, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"{' '.join(argv[1:3])} failed: {done.stderr}"
    return done.stderr
