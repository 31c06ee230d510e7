"""Each rewritten entry started as its harness starts it, with the official client.

A harness runs an MCP server from its entry alone: the command and args, the entry's env on top
of a stripped environment (HOME, LOGNAME, PATH, SHELL, TERM, USER), its cwd, no terminal. So
the proxy must find its store and audit log from its arguments, and the demo server must still
start behind it; the result the agent gets is shaped within the harness's budget, and the tools
tell Claude Code not to cut it again.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.install import HARNESSES, install, jsonc
from elision.install.doctor import host_params
from elision.mcp.gate.tools import MAX_RESULT_CHARS_KEY
from install.layouts import LAYOUTS, harness_of, write_layout
from mcp import Client

pytestmark = pytest.mark.e2e

def ledger_entry(layout: str, config: Path) -> dict[str, Any]:
    text = config.read_text("utf-8")
    if layout == "codex":
        return dict(tomllib.loads(text)["mcp_servers"]["ledger"])
    doc = jsonc.parse(text, str(config)).value()
    if layout == "vscode":
        return dict(doc["servers"]["ledger"])
    if layout == "claude-code-user":
        return dict(doc["projects"]["/home/someone/project"]["mcpServers"]["ledger"])
    return dict(doc[HARNESSES[harness_of(layout)].containers[0][0]]["ledger"])


@dataclass
class Served:
    """What an agent was given by one layout's rewritten entry, and where its files went."""

    budget: int
    tools: dict[str, types.Tool]
    result: types.CallToolResult
    store: Path
    audit: Path


async def _serve(layout: str, tmp: Path) -> Served:
    config = write_layout(layout, tmp)
    store, audit = tmp / "data" / "store.db", tmp / "data" / "audit.db"
    install(harness_of(layout), config=config, store=str(store), audit=str(audit))
    entry = ledger_entry(layout, config)
    # The proxy sizes results for the client connected: this one names itself as the harness.
    h = HARNESSES[harness_of(layout)]
    info = types.Implementation(name=h.clients[0], version="1.0.0")
    async with Client(host_params(entry), client_info=info) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("search_trades", {})
    return Served(HARNESSES[harness_of(layout)].budget, tools, result, store, audit)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Served | BaseException]:
    """Every layout's entry started at once, each in a folder of its own: a proxy and its
    demo server take seconds of CPU to start, and one after the other they kept one of the
    two cores idle. A layout that failed holds its exception, raised by its own test."""
    outcome: dict[str, Served | BaseException] = {}

    async def one(layout: str) -> None:
        try:
            outcome[layout] = await _serve(layout, tmp_path_factory.mktemp(layout))
        except Exception as exc:
            outcome[layout] = exc

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for layout in sorted(LAYOUTS):
                group.start_soon(one, layout)

    anyio.run(main)
    return outcome


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_rewritten_entry_serves_shaped_results_as_the_host_starts_it(
        served: dict[str, Served | BaseException], layout: str) -> None:
    got = served[layout]
    if isinstance(got, BaseException):
        raise got
    assert "search_trades" in got.tools and "elision_fetch" in got.tools
    for tool in got.tools.values():
        assert (tool.meta or {}).get(MAX_RESULT_CHARS_KEY) == got.budget
    block = got.result.content[0]
    assert isinstance(block, types.TextContent)
    assert len(block.text.encode()) <= got.budget
    envelope = json.loads(block.text)["__elision__"]
    assert envelope["complete"] is False and envelope["ref"]
    # The host's environment had no ELISION_* or XDG variable: the paths came from the args.
    assert got.store.is_file() and got.audit.is_file()
