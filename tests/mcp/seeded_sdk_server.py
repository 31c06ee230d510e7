"""seeded_server.py as it was written with the SDK's low-level ``Server``: kept as the reference
the raw one is checked against, byte for byte (test_mcp_raw_servers.py); no other test starts
it. Run as a script: ``python seeded_sdk_server.py`` (stdio). What it sends the seeds on:

* ``tools/list``: each tool's title, description, input and output schemas (descriptions,
  defaults, examples), annotations and ``_meta``;
* ``text`` / ``json``: a text result, and a JSON result in text and ``structuredContent``,
  large enough to be cut (so ``elision_fetch`` pages carry them too), with ``_meta``;
* ``fails``: an ``isError`` result; ``raises``: a JSON-RPC error;
* ``logs``: log messages (a string and an object) during the call;
* ``resources/list`` and ``resources/read``, ``prompts/list`` and ``prompts/get``.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.seeded import seeded_document, seeded_log, seeds

# Logging is deprecated at 2026-07-28; this server sends log messages on purpose.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

ALL = "\n".join(s.text for s in seeds())
#: Rows enough that any budget the tests use cuts the JSON result.
ROWS = 400


def _schema() -> dict[str, Any]:
    return {
        "type": "object", "description": f"input: {ALL}",
        "properties": {
            "q": {"type": "string", "description": f"query, e.g. {ALL}",
                  "default": seeds()[0].text, "examples": [s.text for s in seeds()]},
        },
    }


def _tool(name: str) -> types.Tool:
    return types.Tool(
        name=name, title=f"{name}: {seeds()[0].text}", description=f"Returns {ALL}",
        input_schema=_schema(),
        output_schema={"type": "object", "description": f"output: {ALL}"} if name == "json"
        else None,
        annotations=types.ToolAnnotations(title=f"annotated {ALL}"),
        _meta={"example/note": ALL},
    )


TOOLS = [_tool(n) for n in ("text", "json", "fails", "raises", "logs")]


def document() -> dict[str, Any]:
    doc = seeded_document()
    return {**doc, "rows": [{"id": i, "name": f"row {i}"} for i in range(ROWS)],
            "footer": ALL}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    meta = {"example/trace": ALL, "example/nested": {"why": seeds()[1].text}}
    if params.name == "text":
        body = seeded_log() + "".join(f"line {i} ok\n" for i in range(ROWS)) + seeded_log()
        return types.CallToolResult(content=[types.TextContent(text=body)], _meta=meta)
    if params.name == "json":
        doc = document()
        return types.CallToolResult(
            content=[types.TextContent(text=orjson.dumps(doc).decode())],
            structured_content=doc, _meta=meta,
        )
    if params.name == "fails":
        return types.CallToolResult(content=[types.TextContent(text=f"failed: {ALL}")],
                                    is_error=True, _meta=meta)
    if params.name == "raises":
        raise MCPError(-32603, f"upstream broke: {ALL}")
    if params.name == "logs":
        for level, data in (("error", f"log: {ALL}"), ("warning", seeded_document())):
            await ctx.session.send_log_message(
                level, data, logger=f"seeded {seeds()[0].text}",
                related_request_id=ctx.request_id,
            )
        return types.CallToolResult(content=[types.TextContent(text="logged")])
    return types.CallToolResult(content=[types.TextContent(text="no such tool")], is_error=True)


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[types.Resource(
        uri="test://seeded/notes", name="notes", title=f"notes {seeds()[0].text}",
        description=f"notes holding {ALL}", mime_type="text/plain",
    )])


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    return types.ReadResourceResult(contents=[
        types.TextResourceContents(uri=params.uri, text=seeded_log(), mime_type="text/plain")
    ])


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(
        name="handoff", title=f"handoff {seeds()[0].text}", description=f"hands off {ALL}",
        arguments=[types.PromptArgument(name="who", description=f"who, not {ALL}")],
    )])


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    return types.GetPromptResult(description=f"a handoff with {ALL}", messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=seeded_log())),
    ])


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


server: Server[Any] = Server(
    "elision-test-seeded",
    version="1",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
)
server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)


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
