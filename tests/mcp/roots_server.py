"""An MCP server that confines itself to its client's roots, as the reference filesystem
server does. Run as a script on stdio.

Its command-line arguments are the directories it would serve on its own. Right after the
handshake it asks ``roots/list`` and, on ``notifications/roots/list_changed``, asks again; a
non-empty answer replaces the directories, an empty one or an error leaves them as they were
(the reference server does the same). The ``roots`` tool reports what it serves now, how many
times it asked, the last error it got, and the client capabilities the handshake declared to
it (``offered``), so a test sees which roots, and which capabilities, reached the server.

Written as raw JSON-RPC lines of the handshake era (what the proxy speaks to a config server
unless its entry says ``mode``), without the SDK: importing the SDK costs a Python ~1.4 s of
CPU, and every test of test_mcp_offer_e2e.py and test_mcp_roots_e2e.py starts one of these.
It writes the lines the SDK's low-level Server wrote, byte for byte, and like it asks for the
roots without waiting: a call that comes before the answer is served at once
(test_mcp_raw_servers.py holds that check, against roots_sdk_server.py). The proxy's interop
with the SDK's own servers is proven on upstream_sdk_server.py and the others.
"""

from __future__ import annotations

import json
import sys
from typing import Any

state: dict[str, Any] = {"serving": sys.argv[1:], "asked": 0, "answers": 0, "error": None}
#: The client capabilities the handshake declared, members without a value left out (as the
#: SDK's ``model_dump(exclude_none=True)`` gave them); None before the handshake.
offered: dict[str, Any] | None = None
#: The ids of this server's own ``roots/list`` requests still unanswered.
asking: set[int] = set()
_next_id = 0

TOOL = {
    "description": "What this server serves now, and how it learnt it.",
    "inputSchema": {"properties": {}, "type": "object"},
    "name": "roots",
}


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return value


def ask() -> None:
    global _next_id
    _next_id += 1
    state["asked"] += 1
    asking.add(_next_id)
    write({"id": _next_id, "method": "roots/list"})


def answered(message: dict[str, Any]) -> None:
    """The client's answer to one of this server's requests."""
    if message.get("id") not in asking:
        return
    asking.discard(message["id"])
    if "error" in message:
        state["error"] = (message["error"] or {}).get("message")
        return
    state["answers"] += 1
    state["error"] = None
    roots = (message.get("result") or {}).get("roots") or []
    if roots:
        state["serving"] = [str(root["uri"]) for root in roots]


def handle(message: dict[str, Any]) -> None:
    global offered
    method = message.get("method")
    if method is None:
        answered(message)
        return
    if "id" not in message:  # a notification
        if method in ("notifications/initialized", "notifications/roots/list_changed"):
            ask()
        return
    params = message.get("params") or {}
    if method == "initialize":
        offered = without_nulls(params.get("capabilities") or {})
        write({"id": message["id"], "result": {
            "capabilities": {"tools": {"listChanged": False}},
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "serverInfo": {"name": "elision-test-roots", "version": ""},
        }})
    elif method == "ping":
        write({"id": message["id"], "result": {}})
    elif method == "tools/list":
        write({"id": message["id"], "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        # What its client (the proxy) said it can do, as the handshake told it.
        text = json.dumps({**state, "offered": offered})
        write({"id": message["id"], "result": {
            "content": [{"text": text, "type": "text"}], "isError": False}})
    else:
        write({"id": message["id"], "error": {
            "code": -32601, "message": "Method not found", "data": method}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
