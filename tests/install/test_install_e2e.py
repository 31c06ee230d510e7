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
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.install import HARNESSES, install, jsonc
from elision.install.doctor import host_params
from elision.mcp.tools import MAX_RESULT_CHARS_KEY
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
    return dict(doc["mcpServers"]["ledger"])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_rewritten_entry_serves_shaped_results_as_the_host_starts_it(
        tmp_path: Path, layout: str) -> None:
    config = write_layout(layout, tmp_path)
    store, audit = tmp_path / "data" / "store.db", tmp_path / "data" / "audit.db"
    install(harness_of(layout), config=config, store=str(store), audit=str(audit))
    entry = ledger_entry(layout, config)
    budget = HARNESSES[harness_of(layout)].budget

    async def main() -> None:
        async with Client(host_params(entry)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "search_trades" in tools and "elision_fetch" in tools
            for tool in tools.values():
                assert (tool.meta or {}).get(MAX_RESULT_CHARS_KEY) == budget
            result = await client.call_tool("search_trades", {})
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            assert len(block.text.encode()) <= budget
            envelope = json.loads(block.text)["__elision__"]
            assert envelope["complete"] is False and envelope["ref"]

    anyio.run(main)
    # The host's environment had no ELISION_* or XDG variable: the paths came from the args.
    assert store.is_file() and audit.is_file()
