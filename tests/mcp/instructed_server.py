"""A raw stdio MCP server whose ``initialize`` answer carries the instructions read from the file
named by its first argument (any text: long, hostile, holding a credential). One tool, ``ping``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.rawserver import initialized, not_found, serve

INSTRUCTIONS = Path(sys.argv[1]).read_text("utf-8")
TOOLS = [{"name": "ping", "description": "Answers pong.", "inputSchema": {"type": "object"}}]


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, "instructed", {"tools": {"listChanged": False}},
                           instructions=INSTRUCTIONS)
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return {"result": {"content": [{"type": "text", "text": "pong"}], "isError": False}}
    if method == "ping":
        return {"result": {}}
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
