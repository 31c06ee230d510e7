"""An MCP server that pages its resources, resource templates and prompts, two to a page.

``python paging_server.py NAME COUNT``: resources ``NAME://item/0`` … ``NAME://item/COUNT-1``
(each reads back as ``NAME item i``), one template ``NAME://note/{id}``, prompts
``NAME_prompt_0`` …, and the resource ``shared://both``, which every instance lists (so two
of them make it ambiguous). Completions answer with the instance's name.

Written as raw JSON-RPC lines of the handshake era, without the SDK, to control the cursors:
importing the SDK costs a Python ~1.3 s of CPU a start, and test_mcp_config_e2e.py starts
several. It writes the lines the SDK's low-level ``Server`` wrote for the same requests, byte
for byte (checked against it request by request, the unknown names included, by
test_mcp_raw_servers.py against paging_sdk_server.py). The proxy's interop with the SDK's own
servers is proven on upstream_sdk_server.py and the others.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.rawserver import initialized, not_found, serve

NAME = sys.argv[1]
COUNT = int(sys.argv[2])
PAGE = 2
URIS = [f"{NAME}://item/{i}" for i in range(COUNT)] + ["shared://both"]


def page(params: dict[str, Any], field: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """One page of ``items``; the cursor is the index of the next page's first item."""
    cursor = params.get("cursor")
    start = int(cursor) if cursor else 0
    stop = min(start + PAGE, len(items))
    got: dict[str, Any] = {field: items[start:stop]}
    return {"result": {"nextCursor": str(stop), **got} if stop < len(items) else got}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, f"paging-{NAME}", {
            "completions": {}, "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}}, version="1")
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": []}}
    if method == "resources/list":
        return page(params, "resources", [{"name": u, "uri": u} for u in URIS])
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": [
            {"name": "note", "uriTemplate": f"{NAME}://note/{{id}}"}]}}
    if method == "resources/read":
        uri = str(params.get("uri"))
        if uri in URIS or uri.startswith(f"{NAME}://note/"):
            return {"result": {"contents": [{"text": f"{NAME} {uri}", "uri": uri}]}}
        return {"error": {"code": -32602, "message": f"{NAME} has no resource {uri}"}}
    if method == "prompts/list":
        return page(params, "prompts", [{"name": f"{NAME}_prompt_{i}"} for i in range(COUNT)])
    if method == "prompts/get":
        text = f"{NAME} says {params.get('name')}"
        return {"result": {"messages": [
            {"content": {"text": text, "type": "text"}, "role": "user"}]}}
    if method == "completion/complete":
        return {"result": {"completion": {"values": [f"{NAME}-1", f"{NAME}-2"]}}}
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
