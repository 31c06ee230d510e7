"""The SDK original of roots_server.py, kept so that test_mcp_raw_servers.py checks the raw
server against it byte for byte; no other test starts it.

An MCP server that confines itself to its client's roots, as the reference filesystem
server does, written with the SDK's low-level Server. Run as a script on stdio.

What it serves, asks and reports: roots_server.py's docstring.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.server.lowlevel import Server
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

# Roots are what this server exists to use.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

state: dict[str, Any] = {"serving": sys.argv[1:], "asked": 0, "answers": 0, "error": None}


@asynccontextmanager
async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
    async with anyio.create_task_group() as tg:
        yield {"tg": tg}
        tg.cancel_scope.cancel()


async def ask(session: ServerSession) -> None:
    state["asked"] += 1
    try:
        result = await session.list_roots()
    except MCPError as exc:
        state["error"] = exc.error.message
        return
    state["answers"] += 1
    state["error"] = None
    if result.roots:
        state["serving"] = [str(root.uri) for root in result.roots]


async def asks_for_roots(ctx: Any, params: Any) -> None:
    # Asked from a task of its own: the answer comes in on the loop this handler runs on.
    tg: TaskGroup = ctx.lifespan_context["tg"]
    tg.start_soon(ask, ctx.session)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(
        name="roots", description="What this server serves now, and how it learnt it.",
        input_schema={"type": "object", "properties": {}},
    )])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    # What its client (the proxy) said it can do, as the handshake told it.
    caps = ctx.session.client_capabilities
    offered = caps.model_dump(mode="json", by_alias=True, exclude_none=True) if caps else None
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps({**state, "offered": offered}))]
    )


server: Server[Any] = Server(
    "elision-test-roots", lifespan=lifespan, on_list_tools=list_tools, on_call_tool=call_tool
)
server.add_notification_handler(
    "notifications/initialized", types.NotificationParams, asks_for_roots
)
server.add_notification_handler(
    "notifications/roots/list_changed", types.NotificationParams, asks_for_roots
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
    # Ended: out now, without the interpreter's teardown of the SDK's modules (~0.13 s of
    # CPU and up to 0.5 s a stop, for each of the many starts of the e2e tests).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
