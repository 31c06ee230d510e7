"""An MCP server whose results page badly (issues 22 and 23), written with the SDK's MCPServer.

``big_key`` returns one JSON text whose only member has a key of ``size`` chars, ``id_map`` a
map of ``n`` small members keyed by id, and ``one_string`` a list of one long string (MCPServer
sends it as ``structuredContent: {"result": [text]}`` and one text block).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("elision-test-pages")


def long_text(chars: int) -> str:
    """Text that says at every point where it is: <0><1><2>…"""
    out, i = [], 0
    while sum(map(len, out)) < chars:
        out.append(f"<{i}>")
        i += 1
    return "".join(out)[:chars]


@server.tool()
def big_key(size: int = 16_000) -> str:
    """A JSON document with one member whose key is ``size`` chars."""
    return json.dumps({"k" * size: "the value", "total": 1})


@server.tool()
def id_map(n: int = 20_000) -> dict[str, Any]:
    """A map keyed by id, as many APIs return."""
    return {"items": {f"id{i}": i for i in range(n)}}


@server.tool()
def one_string(chars: int = 12_000) -> list[str]:
    """A list of one long string."""
    return [long_text(chars)]


if __name__ == "__main__":
    server.run()
