"""An MCP server that sends every kind of notification the proxy forwards, in either era.

Written with the SDK's low-level ``Server`` so that it serves ``resources/subscribe`` to a
client of a handshake-era protocol and ``subscriptions/listen`` to one of protocol 2026-07-28,
and announces each change the way the era of the calling connection expects: a notification
on the connection before 2026-07-28, an event on the listen bus at 2026-07-28. Run as a
script: ``python notify_server.py`` (stdio) or ``python notify_server.py --http PORT``.

Tools:

* ``grow``: adds the tool ``grown`` and announces that the tool list changed;
* ``touch(uri)``: announces that the resource ``uri`` was updated, but only to a subscriber:
  before 2026-07-28 only if ``resources/subscribe`` was sent for it; at 2026-07-28 the listen
  stream's own filter decides. So an update that arrives proves the subscription was made;
* ``say(message, level)``: sends a log message at ``level`` during the call;
* ``subscribed``: the uris subscribed with ``resources/subscribe``, as JSON;
* ``era``: the protocol version of the calling connection;
* ``crash``: the process exits at once.

Reading a resource sends a log message at ``notice``. It also serves ``logging/setLevel``
(and ignores the level: filtering is left to the proxy).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.server.subscriptions import ToolsListChanged as ToolsListChangedEvent
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

# Logging is deprecated at 2026-07-28; this server sends log messages on purpose.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

FEED = "test://feed"
bus = InMemorySubscriptionBus()
subscribed: set[str] = set()
grown = False

_OBJECT = {"type": "object", "properties": {}}
TOOLS = {
    "grow": types.Tool(name="grow", description="Adds the tool grown.", input_schema=_OBJECT),
    "touch": types.Tool(
        name="touch", description="Announces that a resource was updated.",
        input_schema={"type": "object", "properties": {"uri": {"type": "string"}},
                      "required": ["uri"]},
    ),
    "say": types.Tool(
        name="say", description="Sends a log message during the call.",
        input_schema={"type": "object", "properties": {
            "message": {"type": "string"}, "level": {"type": "string"}}},
    ),
    "subscribed": types.Tool(
        name="subscribed", description="The uris subscribed with resources/subscribe.",
        input_schema=_OBJECT,
    ),
    "era": types.Tool(name="era", description="The caller's protocol.", input_schema=_OBJECT),
    "crash": types.Tool(name="crash", description="Exits at once.", input_schema=_OBJECT),
}
GROWN = types.Tool(name="grown", description="Appears after grow.", input_schema=_OBJECT)


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=value)])


def modern(ctx: Any) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[*TOOLS.values(), *([GROWN] if grown else [])])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    global grown
    args = params.arguments or {}
    if params.name == "grow":
        grown = True
        if modern(ctx):
            await bus.publish(ToolsListChangedEvent())
        else:
            await ctx.session.send_tool_list_changed()
        return text("grew")
    if params.name == "grown" and grown:
        return text("grown")
    if params.name == "touch":
        uri = str(args["uri"])
        if modern(ctx):
            await bus.publish(ResourceUpdated(uri=uri))
        elif uri in subscribed:
            await ctx.session.send_resource_updated(uri)
        return text("touched")
    if params.name == "say":
        await ctx.session.send_log_message(
            args.get("level", "info"), args.get("message", ""), logger="notify",
            related_request_id=ctx.request_id,
        )
        return text("said")
    if params.name == "subscribed":
        return text(json.dumps(sorted(subscribed)))
    if params.name == "era":
        return text(ctx.protocol_version)
    if params.name == "crash":
        os._exit(3)
    return types.CallToolResult(content=[types.TextContent(text="no such tool")], is_error=True)


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(uri=FEED, name="feed")])


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    await ctx.session.send_log_message(
        "notice", f"read {params.uri}", logger="notify", related_request_id=ctx.request_id
    )
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text="the feed")]
    )


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    subscribed.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    subscribed.discard(str(params.uri))
    return types.EmptyResult()


server: Server[Any] = Server(
    "elision-test-notify",
    version="1",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
    on_subscriptions_listen=ListenHandler(bus),
)
server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
OPTIONS = NotificationOptions(tools_changed=True, resources_changed=True)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(OPTIONS))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        import uvicorn

        app = server.streamable_http_app(host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        anyio.run(main)
    # Ended: out now, without the interpreter's teardown of the SDK's modules (~0.13 s of
    # CPU and up to 0.5 s a stop, for each of the many starts of the e2e tests).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
