"""End to end: an upstream tool that asks for input (``InputRequiredResult``, protocol
2026-07-28) behind the proxy, driven by the official mcp.Client over stdio.

The proxy passes the interim result to the agent as the upstream sent it, passes the agent's
answer and the opaque ``request_state`` back, and shapes the final result like any other.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ASKING = [sys.executable, str(HERE / "asking_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 4096


def proxy(config: Path) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--config", str(config), "--store", ":memory:"]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


def write_config(tmp_path: Path, mode: str) -> Path:
    config = tmp_path / f"servers-{mode}.json"
    config.write_text(json.dumps({"budget": BUDGET, "mcpServers": {
        "bank": {"command": ASKING[0], "args": ASKING[1:], "mode": mode},
    }}))
    return config


def test_input_required_passes_through_both_ways_and_the_final_result_is_shaped(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    async def confirm(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": True})

    async def main() -> None:
        async with Client(proxy(write_config(tmp_path, "auto")),
                          elicitation_callback=confirm) as client:
            # The interim result itself, as the agent's client receives it.
            interim = await client.session.call_tool(
                "bank__transfer", {"amount": 7}, allow_input_required=True
            )
            assert isinstance(interim, types.InputRequiredResult)
            # MCPServer seals its state; the proxy hands it on untouched, whatever it is.
            state = interim.request_state
            assert isinstance(state, str) and state
            assert interim.input_requests is not None
            request = interim.input_requests["confirm"]
            assert isinstance(request, types.ElicitRequest)
            assert request.params.message == "Transfer 7 EUR?"

            # The whole round as an agent runs it: the client answers and retries, the
            # proxy carries the answer and the state to the upstream unchanged.
            result = await client.call_tool("bank__transfer", {"amount": 7})
            assert asked == ["Transfer 7 EUR?"]
            assert not result.is_error, result.content
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            assert len(block.text.encode()) <= BUDGET
            doc = json.loads(block.text)
            envelope = doc["__elision__"]
            assert envelope["complete"] is False
            assert doc["done"] is True and doc["total_rows"] == 2000
            elided = envelope["elided"][0]
            assert elided["path"] == "$.rows" and elided["total"] == 2000
            assert 0 < elided["shown"] < 2000

            # The state goes back byte for byte: the same state answered again gives the same
            # rows, and a state the upstream did not write is the upstream's to refuse.
            yes = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
            again = await client.session.call_tool(
                "bank__transfer", {"amount": 7}, request_state=state, input_responses=yes,
                allow_input_required=True,
            )
            assert isinstance(again, types.CallToolResult) and not again.is_error
            again_block = again.content[0]
            assert isinstance(again_block, types.TextContent)
            # The same body upstream: the digest of what the tool returned is the same.
            assert json.loads(again_block.text)["__elision__"]["sha256"] == envelope["sha256"]
            forged_state = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
            with pytest.raises(MCPError, match="requestState"):
                await client.session.call_tool(
                    "bank__transfer", {"amount": 7}, request_state=forged_state,
                    input_responses=yes, allow_input_required=True,
                )

    anyio.run(main)


def test_a_client_of_an_older_protocol_is_told_why_it_cannot_answer(tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(proxy(write_config(tmp_path, "auto")), mode="legacy") as client:
            result = await client.call_tool("bank__transfer", {"amount": 7})
            assert result.is_error
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            assert "server 'bank' needs input before 'transfer' can answer" in block.text
            assert "this client speaks '2025-11-25'" in block.text

    anyio.run(main)
