"""``elision doctor``: for each harness config found, which servers go through elision, and
whether each one starts as the harness would start it.

A server is started the way a host starts it: its command and args, its ``env`` on top of the
few variables hosts pass on (HOME, LOGNAME, PATH, SHELL, TERM, USER), its ``cwd``, no terminal;
then the official client initializes it and lists its tools, within a timeout. What a failing
server printed is redacted before it is shown.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from elision.install.entries import argv_of, neither, read_proxied
from elision.install.harnesses import Harness
from elision.install.plan import located_entries, read_config

#: The variables an MCP host passes from its own environment to a stdio server.
HOST_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


@dataclass
class ServerReport:
    harness: str
    config: Path
    name: str
    proxied: bool
    options: dict[str, str]
    #: what the entry runs (or the proxy runs behind it): a command line or a url
    upstream: str
    starts: bool | None = None
    detail: str = ""


def examine(harness: Harness, path: Path) -> list[ServerReport]:
    """Every server entry of one config file, read (not started)."""
    _, found = located_entries(harness, path, read_config(path))
    reports = []
    for loc in found:
        entry = loc.value if isinstance(loc.value, dict) else {}
        proxied = read_proxied(entry, harness.command_key)
        if proxied is not None:
            upstream = proxied.upstream_url or " ".join(proxied.command)
            options = proxied.options
        else:
            url = next((entry[k] for k, _ in harness.url_keys if isinstance(entry.get(k), str)),
                       None)
            upstream = url or " ".join(argv_of(entry, harness.command_key) or [
                str(entry.get(harness.command_key, ""))])
            options = {}
        reports.append(ServerReport(harness.name, path, loc.name, proxied is not None,
                                    options, upstream))
        reports[-1].detail = "" if entry else "not an object"
    return reports


def host_params(entry: dict[str, Any], command_key: str = "command") -> Any:
    from mcp import StdioServerParameters

    env = {name: os.environ[name] for name in HOST_ENV if name in os.environ}
    # OpenCode names it "environment", Goose "envs"
    own = entry.get("env") or entry.get("environment") or entry.get("envs") or {}
    env.update({str(k): str(v) for k, v in own.items()})
    argv = argv_of(entry, command_key) or [str(entry[command_key])]
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=entry.get("cwd"))


async def probe(harness: Harness, entry: dict[str, Any], timeout: float) -> tuple[bool, str]:
    """Start one entry as the host would; (started, how many tools or what went wrong)."""
    from mcp.client.stdio import stdio_client

    from mcp import Client

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        if harness.command_key in entry:
            target: Any = stdio_client(host_params(entry, harness.command_key), errlog=errlog)
        else:
            url = next((entry[k] for k, _ in harness.url_keys
                        if isinstance(entry.get(k), str)), None)
            if url is None:
                return False, "has neither a command nor a url"
            target = url
        try:
            with anyio.fail_after(timeout):
                async with Client(target) as client:
                    tools = (await client.list_tools()).tools
        except TimeoutError:
            return False, f"did not answer initialize and tools/list within {timeout:g} s"
        except Exception as exc:  # a foreign server's failure is a finding, not a crash
            errlog.seek(0)
            return False, _why(exc, errlog.read())
    return True, f"{len(tools)} tools"


def _why(exc: BaseException, stderr: str) -> str:
    """The innermost error and the server's last stderr line, redacted, on one line."""
    from elision.redact.messages import clip, describe

    said = (describe(exc, limit=400).splitlines() or [""])[0]
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    text = f"{said} (its stderr: {lines[-1]})" if lines else said
    return clip(text, 400)


def _transport(harness: Harness, entry: dict[str, Any]) -> str:
    for key, transport in harness.url_keys:
        if isinstance(entry.get(key), str):
            if transport == "by-type" and harness.type_key:
                return str(entry.get(harness.type_key, "unknown"))
            return transport
    return "unknown"


def check(harness: Harness, path: Path, *, start: bool, timeout: float) -> list[ServerReport]:
    reports = examine(harness, path)
    if not start:
        return reports
    _, found = located_entries(harness, path, read_config(path))
    entries = {loc.name: loc.value for loc in found}

    async def run() -> None:
        for report in reports:
            entry = entries.get(report.name)
            if not isinstance(entry, dict) or entry.get("disabled") is True or (
                    entry.get("enabled") is False):
                report.detail = report.detail or "disabled"
                continue
            if harness.command_key not in entry and not any(
                    isinstance(entry.get(k), str) for k, _ in harness.url_keys):
                report.detail = f"{neither(harness, entry)}: not probed"
                continue
            if harness.command_key not in entry and _transport(harness, entry) != "http":
                report.detail = "a remote server over SSE or an undeclared transport: not probed"
                continue
            report.starts, report.detail = await probe(harness, entry, timeout)

    anyio.run(run)
    return reports
