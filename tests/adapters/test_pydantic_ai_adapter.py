"""The Pydantic AI adapter, against real Agent runs.

The runs use ``agent.run`` under anyio: ``run_sync`` leaves its event loop open, and the
collector's warning about it then fails whichever test runs next.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

pytest.importorskip("pydantic_ai", reason="pip install 'elision[pydantic-ai]'")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset

from adapters.ledger import check_shaped, pipeline, search_result
from elision.adapters.core import fetch_text
from elision.adapters.pydantic_ai import ShapedToolset


def search_trades(symbol: str) -> dict[str, Any]:
    """Search trades of one symbol."""
    return search_result()


def test_an_agent_run_gets_shaped_results_and_can_fetch_the_rest() -> None:
    pipe = pipeline()
    toolset = ShapedToolset(FunctionToolset([search_trades]), pipeline=pipe)
    agent = Agent(TestModel(call_tools=["search_trades"]), toolsets=[toolset])
    run = anyio.run(agent.run, "find ACME trades")
    returns = [part for message in run.all_messages() for part in message.parts
               if isinstance(part, ToolReturnPart) and part.tool_name == "search_trades"]
    assert len(returns) == 1
    envelope = check_shaped(str(returns[0].content))
    assert '"id":399' in fetch_text(pipe, {"ref": envelope["ref"], "path": "$.rows[399]"})


def test_the_model_is_offered_elision_fetch_and_follows_next() -> None:
    """A whole agent loop: call the tool, read the envelope, fetch the last rows, answer."""
    offered: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in info.function_tools])
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("search_trades", {"symbol": "ACME"})])
        if len(returns) == 1:
            ref = json.loads(str(returns[0].content))["__elision__"]["ref"]
            return ModelResponse(parts=[ToolCallPart(
                "elision_fetch", {"ref": ref, "path": "$.rows[398:]"})])
        return ModelResponse(parts=[TextPart(str(returns[1].content))])

    toolset = ShapedToolset(FunctionToolset([search_trades]), pipeline=pipeline())
    agent = Agent(FunctionModel(model), toolsets=[toolset])
    answer = anyio.run(agent.run, "last ACME trades")
    assert offered[0] == ["search_trades", "elision_fetch"]
    assert [row["id"] for row in json.loads(answer.output)["value"]] == [398, 399]
