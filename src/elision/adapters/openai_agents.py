"""The OpenAI Agents SDK: ``FunctionTool`` results through the pipeline.

>>> from agents import Agent, function_tool
>>> from elision.adapters.openai_agents import shaped_tools
>>> agent = Agent(name="a", tools=shaped_tools([search_trades]))   # doctest: +SKIP

:func:`shaped` keeps a tool's name, schema and options and changes only what its result becomes;
:func:`shaped_tools` does that to each tool and adds ``elision_fetch`` beside them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

from elision.adapters.core import (
    FETCH_DESCRIPTION,
    FETCH_NAME,
    FETCH_PARAMETERS,
    default_pipeline,
    fetch_text,
    shape_output,
)
from elision.pipeline import Pipeline


def shaped(tool: FunctionTool, pipeline: Pipeline | None = None) -> FunctionTool:
    """``tool`` whose every result the model gets through ``pipeline``."""
    pipe = pipeline if pipeline is not None else default_pipeline()
    invoke = tool.on_invoke_tool

    async def on_invoke(ctx: ToolContext[Any], arguments: str) -> str:
        return shape_output(pipe, await invoke(ctx, arguments), tool=tool.name)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke)


def fetch_tool(pipeline: Pipeline) -> FunctionTool:
    """``elision_fetch`` as a tool of the SDK, over ``pipeline``'s store."""

    async def on_invoke(ctx: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments or "{}")
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            return "elision_fetch: the arguments must be a JSON object with a ref"
        return fetch_text(pipeline, parsed)

    return FunctionTool(name=FETCH_NAME, description=FETCH_DESCRIPTION,
                        params_json_schema=FETCH_PARAMETERS, on_invoke_tool=on_invoke,
                        strict_json_schema=False)


def shaped_tools(tools: Iterable[FunctionTool],
                 pipeline: Pipeline | None = None) -> list[FunctionTool]:
    """Each of ``tools`` shaped, and ``elision_fetch`` to read the rest of a cut result."""
    pipe = pipeline if pipeline is not None else default_pipeline()
    return [*(shaped(t, pipe) for t in tools), fetch_tool(pipe)]
