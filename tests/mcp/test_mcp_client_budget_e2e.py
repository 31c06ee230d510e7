"""End to end: one proxy entry, two harnesses, each result sized for the client connected.

Found in the harnesses (issue 24): GitHub Copilot CLI also loads Claude Code's ``.mcp.json``,
so the budget ``install claude-code`` wrote there (23,925 B) was over Copilot's own cut and
Copilot spilled the result to a file. The same entry (no ``--budget``) must size a result for
whoever connected: the client names itself in ``initialize`` (``clientInfo``), or in each
request's ``_meta`` in the newest era.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from elision.install.harnesses import HARNESSES
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

LOWEST = min(h.budget for h in HARNESSES.values())
#: The demo ledger's server without the SDK: each test starts one or more, for one result's size.
LEDGER = str(Path(__file__).with_name("ledger_server.py"))


def entry(tmp_path: Path, *extra: str) -> StdioServerParameters:
    """What an installed harness entry runs: the proxy with no --budget of its own."""
    return StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", *extra,
        "--store", str(tmp_path / "store.db"), "--no-audit",
        "--", sys.executable, LEDGER,
    ], env=dict(os.environ))


async def shown_size(params: StdioServerParameters, client: str, mode: str) -> int:
    info = types.Implementation(name=client, version="1.0.0")
    async with Client(params, client_info=info, mode=mode) as session:  # type: ignore[arg-type]
        result = await session.call_tool("failed_settlements", {})
        assert not result.is_error
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        assert block.text.startswith("[elision]")  # cut, and saying so
        return len(block.text.encode())


# Each client, as it names itself, and the budget the table gives its harness.
CLIENTS = [
    ("claude-code", "claude-code", "legacy"),
    ("codex-mcp-client", "codex", "legacy"),
    ("gemini-cli-mcp-client", "gemini-cli", "auto"),  # the newest era: clientInfo in _meta
]


def test_one_entry_sizes_each_result_for_the_client_connected(tmp_path: Path) -> None:
    params = entry(tmp_path)

    async def main() -> dict[str, int]:
        return {name: await shown_size(params, name, mode) for name, _, mode in CLIENTS}

    sizes = anyio.run(main)
    for name, harness, _ in CLIENTS:
        budget = HARNESSES[harness].budget
        assert sizes[name] <= budget, (name, sizes[name], budget)
        # Sized for this client, not for the smallest: most of its budget is used.
        assert sizes[name] > budget * 0.8, (name, sizes[name], budget)


@pytest.mark.parametrize(("extra", "client", "expected"), [
    # A client no table names gets the lowest known cut.
    ((), "some-new-harness", LOWEST),
    # An explicit --budget is what the user wrote: it wins over the table.
    (("--budget", "4096"), "claude-code", 4096),
    # --client-budget overrides the table for that harness...
    (("--client-budget", "claude-code=12000"), "claude-code", 12000),
    # ...and for the unknown ones with *.
    (("--client-budget", "*=16000"), "some-new-harness", 16000),
])
def test_explicit_budgets_and_unknown_clients(tmp_path: Path, extra: tuple[str, ...],
                                              client: str, expected: int) -> None:
    size = anyio.run(shown_size, entry(tmp_path, *extra), client, "legacy")
    assert expected * 0.8 < size <= expected


def test_the_config_client_budgets_override_the_table(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"clientBudgets": {"claude-code": 10000}, "mcpServers": {
        "ledger": {"command": sys.executable, "args": [LEDGER]}}}))
    params = StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", "--config", str(config),
        "--store", str(tmp_path / "store.db"), "--no-audit"], env=dict(os.environ))

    async def main() -> int:
        info = types.Implementation(name="claude-code", version="2.1")
        async with Client(params, client_info=info, mode="legacy") as session:
            result = await session.call_tool("ledger__failed_settlements", {})
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            return len(block.text.encode())

    assert 8000 < anyio.run(main) <= 10000
