"""The OpenAI Agents SDK adapter, against the real SDK's FunctionTool and ToolContext.

The SDK is imported by the fixtures, not at collection: every xdist worker collects every
file, and importing it took ~2 s of CPU on a worker that never runs these tests.
"""

from __future__ import annotations

import importlib.util
import json
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from adapters.ledger import check_shaped, pipeline, search_result

if TYPE_CHECKING:
    import agents

pytestmark = pytest.mark.skipif(importlib.util.find_spec("agents") is None,
                                reason="pip install 'elision[openai-agents]'")


@pytest.fixture(scope="module")
def search_trades() -> agents.FunctionTool:
    from agents import function_tool

    @function_tool
    def search_trades(symbol: str) -> dict[str, object]:
        """Search trades of one symbol."""
        return search_result()

    return search_trades


@pytest.fixture(scope="module")
def shaped_tools() -> Any:
    from elision.adapters.openai_agents import shaped_tools

    return shaped_tools


def call(tool: agents.FunctionTool, arguments: dict[str, object]) -> str:
    from agents.tool_context import ToolContext

    raw = json.dumps(arguments)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1",
                      tool_arguments=raw)

    async def main() -> str:
        return str(await tool.on_invoke_tool(ctx, raw))

    return anyio.run(main)


def test_a_tool_result_reaches_the_model_shaped_and_the_rest_is_fetchable(
    search_trades: agents.FunctionTool, shaped_tools: Any
) -> None:
    pipe = pipeline()
    tool, fetch = shaped_tools([search_trades], pipe)
    assert tool.name == "search_trades" and fetch.name == "elision_fetch"
    assert tool.params_json_schema == search_trades.params_json_schema
    envelope = check_shaped(call(tool, {"symbol": "ACME"}))
    page = json.loads(call(fetch, {"ref": envelope["ref"], "path": "$.rows[390:]"}))
    assert [row["id"] for row in page["value"]] == list(range(390, 400))


def test_fetch_refuses_a_ref_it_does_not_have(
    search_trades: agents.FunctionTool, shaped_tools: Any
) -> None:
    _, fetch = shaped_tools([search_trades], pipeline())
    assert "no body is kept under ref 'el_nope'" in call(fetch, {"ref": "el_nope"})
