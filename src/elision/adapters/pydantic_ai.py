"""Pydantic AI: every tool of a toolset through the pipeline, MCP server toolsets included.

>>> from elision.adapters.pydantic_ai import ShapedToolset
>>> agent = Agent(model, toolsets=[ShapedToolset(MCPServerStdio("uvx", ["some-server"]))])
... # doctest: +SKIP

:class:`ShapedToolset` wraps any toolset (a ``FunctionToolset``, an MCP server) and adds
``elision_fetch`` to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from elision.adapters.core import (
    FETCH_DESCRIPTION,
    FETCH_NAME,
    FETCH_PARAMETERS,
    default_pipeline,
    fetch_text,
    shape_output,
)
from elision.pipeline import Pipeline


@dataclass
class ShapedToolset(WrapperToolset[Any]):
    """``wrapped`` with each tool result shaped by ``pipeline``, plus ``elision_fetch``."""

    wrapped: AbstractToolset[Any]
    pipeline: Pipeline = field(default_factory=default_pipeline)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = dict(await super().get_tools(ctx))
        fetch_def = ToolDefinition(name=FETCH_NAME, description=FETCH_DESCRIPTION,
                                   parameters_json_schema=FETCH_PARAMETERS)
        tools[FETCH_NAME] = ToolsetTool(
            toolset=self, tool_def=fetch_def, max_retries=0,
            args_validator=_any_args(),
        )
        return tools

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> Any:
        if name == FETCH_NAME:
            return fetch_text(self.pipeline, tool_args)
        result = await super().call_tool(name, tool_args, ctx, tool)
        return shape_output(self.pipeline, result, tool=name)


def _any_args() -> Any:
    from pydantic_core import SchemaValidator, core_schema

    return SchemaValidator(core_schema.dict_schema())
