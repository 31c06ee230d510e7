"""The OpenAI Agents SDK adapter, against the real SDK's FunctionTool and ToolContext."""

from __future__ import annotations

import json

import anyio
import pytest

agents = pytest.importorskip("agents", reason="pip install 'elision[openai-agents]'")

from agents import function_tool  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

from adapters.ledger import check_shaped, pipeline, search_result  # noqa: E402
from elision.adapters.openai_agents import shaped_tools  # noqa: E402


@function_tool
def search_trades(symbol: str) -> dict[str, object]:
    """Search trades of one symbol."""
    return search_result()


def call(tool: agents.FunctionTool, arguments: dict[str, object]) -> str:
    raw = json.dumps(arguments)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call_1",
                      tool_arguments=raw)

    async def main() -> str:
        return str(await tool.on_invoke_tool(ctx, raw))

    return anyio.run(main)


def test_a_tool_result_reaches_the_model_shaped_and_the_rest_is_fetchable() -> None:
    pipe = pipeline()
    tool, fetch = shaped_tools([search_trades], pipe)
    assert tool.name == "search_trades" and fetch.name == "elision_fetch"
    assert tool.params_json_schema == search_trades.params_json_schema
    envelope = check_shaped(call(tool, {"symbol": "ACME"}))
    page = json.loads(call(fetch, {"ref": envelope["ref"], "path": "$.rows[390:]"}))
    assert [row["id"] for row in page["value"]] == list(range(390, 400))


def test_fetch_refuses_a_ref_it_does_not_have() -> None:
    _, fetch = shaped_tools([search_trades], pipeline())
    assert "no body is kept under ref 'el_nope'" in call(fetch, {"ref": "el_nope"})
