"""The Pydantic AI adapter, against real Agent runs.

The runs use ``agent.run`` under anyio: ``run_sync`` leaves its event loop open, and the
collector's warning about it then fails whichever test runs next. Pydantic AI is imported in
the tests, not at collection: every xdist worker collects every file, and importing it took
~1 s of CPU on a worker that never runs these tests.
"""

from __future__ import annotations

import importlib.util
import json
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from adapters.ledger import check_shaped, pipeline, search_result
from elision.adapters.core import fetch_text

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models.function import AgentInfo

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pydantic_ai") is None,
                                reason="pip install 'elision[pydantic-ai]'")


def search_trades(symbol: str) -> dict[str, Any]:
    """Search trades of one symbol."""
    return search_result()


def test_an_agent_run_gets_shaped_results_and_can_fetch_the_rest() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ToolReturnPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.toolsets import FunctionToolset

    from elision.adapters.pydantic_ai import ShapedToolset

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
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from elision.adapters.pydantic_ai import ShapedToolset

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
