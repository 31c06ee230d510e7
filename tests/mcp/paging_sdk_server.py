"""The SDK original of paging_server.py, kept so that test_mcp_raw_servers.py checks the raw
server against it byte for byte; no other test starts it.

An MCP server that pages its resources, resource templates and prompts, two to a page.

``python paging_server.py NAME COUNT``: resources ``NAME://item/0`` … ``NAME://item/COUNT-1``
(each reads back as ``NAME item i``), one template ``NAME://note/{id}``, prompts
``NAME_prompt_0`` …, and the resource ``shared://both``, which every instance lists (so two
of them make it ambiguous). Completions answer with the instance's name. Written with the
SDK's low-level ``Server`` to control the cursors.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

NAME = sys.argv[1]
COUNT = int(sys.argv[2])
PAGE = 2
URIS = [f"{NAME}://item/{i}" for i in range(COUNT)] + ["shared://both"]


def window(params: Any, total: int) -> tuple[int, int, str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    stop = min(start + PAGE, total)
    return start, stop, str(stop) if stop < total else None


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    start, stop, cursor = window(params, len(URIS))
    return types.ListResourcesResult(
        resources=[types.Resource(uri=u, name=u) for u in URIS[start:stop]], next_cursor=cursor)


async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(uri_template=f"{NAME}://note/{{id}}", name="note")
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    uri = str(params.uri)
    if uri in URIS or uri.startswith(f"{NAME}://note/"):
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=f"{NAME} {uri}")])
    raise MCPError(types.INVALID_PARAMS, f"{NAME} has no resource {uri}")


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    start, stop, cursor = window(params, COUNT)
    return types.ListPromptsResult(
        prompts=[types.Prompt(name=f"{NAME}_prompt_{i}") for i in range(start, stop)],
        next_cursor=cursor)


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    return types.GetPromptResult(messages=[types.PromptMessage(
        role="user", content=types.TextContent(text=f"{NAME} says {params.name}"))])


async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    return types.CompleteResult(completion=types.Completion(values=[f"{NAME}-1", f"{NAME}-2"]))


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[])


server: Server[Any] = Server(
    f"paging-{NAME}", version="1", on_list_tools=list_tools,
    on_list_resources=list_resources, on_list_resource_templates=list_templates,
    on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
    on_completion=complete,
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
