"""The LangChain adapter, against the real langchain-core: tool calls as agents make them.

langchain-core is imported by the fixtures, not at collection: every xdist worker collects
every file, and its tools module (tracers, langsmith) took ~0.5 s of CPU to import on a
worker that never runs these tests.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import anyio
import pytest

from adapters.ledger import check_shaped, pipeline, search_result

pytestmark = pytest.mark.skipif(importlib.util.find_spec("langchain_core") is None,
                                reason="pip install 'elision[langchain]'")


@pytest.fixture(scope="module")
def search_trades() -> Any:
    from langchain_core.tools import tool

    @tool
    def search_trades(symbol: str) -> dict[str, Any]:
        """Search trades of one symbol."""
        return search_result()

    return search_trades


@pytest.fixture(scope="module")
def shaped_tools() -> Any:
    from elision.adapters.langchain import shaped_tools

    return shaped_tools


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": args, "id": "call_1", "type": "tool_call"}


def test_a_tool_call_returns_a_shaped_tool_message_and_the_rest_is_fetchable(
    search_trades: Any, shaped_tools: Any
) -> None:
    from langchain_core.messages import ToolMessage

    shaped, fetch = shaped_tools([search_trades], pipeline())
    assert shaped.name == "search_trades" and fetch.name == "elision_fetch"
    assert shaped.args == search_trades.args
    message = shaped.invoke(tool_call("search_trades", {"symbol": "ACME"}))
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call_1"
    envelope = check_shaped(str(message.content))
    page = fetch.invoke(tool_call("elision_fetch",
                                  {"ref": envelope["ref"], "path": "$.rows[395:]"}))
    assert [r["id"] for r in json.loads(str(page.content))["value"]] == [395, 396, 397, 398,
                                                                         399]


def test_the_async_path_is_shaped_too(search_trades: Any, shaped_tools: Any) -> None:
    shaped, _ = shaped_tools([search_trades], pipeline())

    async def main() -> Any:
        return await shaped.ainvoke(tool_call("search_trades", {"symbol": "ACME"}))

    check_shaped(str(anyio.run(main).content))
