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
from collections.abc import Awaitable, Callable
from functools import partial
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

EXPLICIT: list[tuple[tuple[str, ...], str, int]] = [
    # A client no table names gets the lowest known cut.
    ((), "some-new-harness", LOWEST),
    # An explicit --budget is what the user wrote: it wins over the table.
    (("--budget", "4096"), "claude-code", 4096),
    # --client-budget overrides the table for that harness...
    (("--client-budget", "claude-code=12000"), "claude-code", 12000),
    # ...and for the unknown ones with *.
    (("--client-budget", "*=16000"), "some-new-harness", 16000),
]


def config_params(tmp_path: Path) -> StdioServerParameters:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"clientBudgets": {"claude-code": 10000}, "mcpServers": {
        "ledger": {"command": sys.executable, "args": [LEDGER]}}}))
    return StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", "--config", str(config),
        "--store", str(tmp_path / "store.db"), "--no-audit"], env=dict(os.environ))


async def config_size(params: StdioServerParameters) -> int:
    info = types.Implementation(name="claude-code", version="2.1")
    async with Client(params, client_info=info, mode="legacy") as session:
        result = await session.call_tool("ledger__failed_settlements", {})
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return len(block.text.encode())


Outcome = tuple[int | None, BaseException | None]


@pytest.fixture(scope="module")
def sizes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every proxy of this file started at once, each session's size or what it raised, by
    case: one after the other, eight proxy starts held a worker 28 s. The three clients of the
    one entry share its folder (its store), as before; each other case has a folder of its own."""
    one_entry = entry(tmp_path_factory.mktemp("one-entry"))
    cases: dict[str, Callable[[], Awaitable[int]]] = {
        **{name: partial(shown_size, one_entry, name, mode) for name, _, mode in CLIENTS},
        **{f"explicit-{i}": partial(shown_size, entry(tmp_path_factory.mktemp("explicit"),
                                                      *extra), client, "legacy")
           for i, (extra, client, _) in enumerate(EXPLICIT)},
        "config": partial(config_size, config_params(tmp_path_factory.mktemp("config"))),
    }
    got: dict[str, Outcome] = {}

    async def one(name: str, case: Callable[[], Awaitable[int]]) -> None:
        try:
            got[name] = (await case(), None)
        except Exception as exc:  # raised again by the test that asks for it
            got[name] = (None, exc)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for name, case in cases.items():
                tg.start_soon(one, name, case)

    anyio.run(main)
    return got


def size_of(sizes: dict[str, Outcome], case: str) -> int:
    size, failure = sizes[case]
    if failure is not None:
        raise failure
    assert size is not None
    return size


def test_one_entry_sizes_each_result_for_the_client_connected(
        sizes: dict[str, Outcome]) -> None:
    for name, harness, _ in CLIENTS:
        size = size_of(sizes, name)
        budget = HARNESSES[harness].budget
        assert size <= budget, (name, size, budget)
        # Sized for this client, not for the smallest: most of its budget is used.
        assert size > budget * 0.8, (name, size, budget)


@pytest.mark.parametrize(("case", "extra", "client", "expected"), [
    (i, *explicit) for i, explicit in enumerate(EXPLICIT)])
def test_explicit_budgets_and_unknown_clients(sizes: dict[str, Outcome], case: int,
                                              extra: tuple[str, ...], client: str,
                                              expected: int) -> None:
    size = size_of(sizes, f"explicit-{case}")
    assert expected * 0.8 < size <= expected


def test_the_config_client_budgets_override_the_table(sizes: dict[str, Outcome]) -> None:
    assert 8000 < size_of(sizes, "config") <= 10000
