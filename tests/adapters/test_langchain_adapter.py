"""The LangChain adapter, against the real langchain-core: tool calls as agents make them."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

pytest.importorskip("langchain_core", reason="pip install 'elision[langchain]'")

from langchain_core.messages import ToolMessage
from langchain_core.tools import tool

from adapters.ledger import check_shaped, pipeline, search_result
from elision.adapters.langchain import shaped_tools


@tool
def search_trades(symbol: str) -> dict[str, Any]:
    """Search trades of one symbol."""
    return search_result()


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "args": args, "id": "call_1", "type": "tool_call"}


def test_a_tool_call_returns_a_shaped_tool_message_and_the_rest_is_fetchable() -> None:
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


def test_the_async_path_is_shaped_too() -> None:
    shaped, _ = shaped_tools([search_trades], pipeline())

    async def main() -> Any:
        return await shaped.ainvoke(tool_call("search_trades", {"symbol": "ACME"}))

    check_shaped(str(anyio.run(main).content))
