"""LangChain and LangGraph: a ``BaseTool``'s results through the pipeline.

>>> from elision.adapters.langchain import shaped_tools
>>> tools = shaped_tools([search_trades])    # doctest: +SKIP
>>> create_agent(model, tools=tools)         # or LangGraph's ToolNode(tools)  # doctest: +SKIP

A shaped tool has the wrapped tool's name, description and argument schema; a tool call through
it (``tool.invoke(tool_call)``, as agents and ``ToolNode`` make them) returns a ``ToolMessage``
whose content is the shaped text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from elision.adapters.core import (
    FETCH_DESCRIPTION,
    FETCH_NAME,
    FETCH_PARAMETERS,
    default_pipeline,
    fetch_text,
    shape_output,
)
from elision.pipeline import Pipeline


def shaped(tool: BaseTool, pipeline: Pipeline | None = None) -> BaseTool:
    """``tool`` whose every result the model gets through ``pipeline``."""
    pipe = pipeline if pipeline is not None else default_pipeline()

    def run(**arguments: Any) -> str:
        return shape_output(pipe, tool.invoke(arguments), tool=tool.name)

    async def arun(**arguments: Any) -> str:
        return shape_output(pipe, await tool.ainvoke(arguments), tool=tool.name)

    return StructuredTool.from_function(func=run, coroutine=arun, name=tool.name,
                                        description=tool.description,
                                        args_schema=tool.args_schema, infer_schema=False)


def fetch_tool(pipeline: Pipeline) -> BaseTool:
    """``elision_fetch`` as a LangChain tool, over ``pipeline``'s store."""

    def run(**arguments: Any) -> str:
        return fetch_text(pipeline, arguments)

    return StructuredTool.from_function(func=run, name=FETCH_NAME,
                                        description=FETCH_DESCRIPTION,
                                        args_schema=FETCH_PARAMETERS, infer_schema=False)


def shaped_tools(tools: Iterable[BaseTool], pipeline: Pipeline | None = None) -> list[BaseTool]:
    """Each of ``tools`` shaped, and ``elision_fetch`` to read the rest of a cut result."""
    pipe = pipeline if pipeline is not None else default_pipeline()
    return [*(shaped(t, pipe) for t in tools), fetch_tool(pipe)]
