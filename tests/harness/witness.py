"""An MCP server with no tools that writes down how the harness names itself.

    python witness.py RECORD

The harness starts it beside the fixture server, directly (``elision install --servers
fixture`` leaves it alone), so it sees what the proxy sees: the ``clientInfo`` the harness
sends in ``initialize``, or in a request's ``_meta`` in the newest protocol era. One JSON line
per request goes to RECORD. It offers no tools, so the model's view is unchanged, and it
answers the newest era's ``server/discover`` as an older server would (method not found), so
the harness falls back to ``initialize``. Stdlib only: it starts in milliseconds.
"""

from __future__ import annotations

import json
import sys
from typing import Any

META_KEY = "io.modelcontextprotocol/clientInfo"
#: the instructions it gives, straight to the harness: whether they reach the model tells
#: whether this harness passes a server's instructions on at all
INSTRUCTIONS = "The witness keeps its clock in UTC."
#: the versions it speaks (the 2025 era); any other request gets the newest of them
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: the lists it answers, empty: Qwen Code 0.24 asks for prompts and resources too, whatever the
#: capabilities say, and calls a server that refuses them failed
EMPTY_LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
               "resources/templates/list": "resourceTemplates"}


def client_info(params: Any) -> dict[str, Any] | None:
    """The clientInfo a request carries: ``initialize``'s, else its ``_meta``'s."""
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    info = params.get("clientInfo") or (meta.get(META_KEY) if isinstance(meta, dict) else None)
    return info if isinstance(info, dict) else None


def answer(method: str, params: Any) -> dict[str, Any]:
    """The ``result`` or ``error`` member of the answer to one request."""
    if method == "initialize":
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        return {"result": {"protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                           "capabilities": {"tools": {"listChanged": False}},
                           "instructions": INSTRUCTIONS,
                           "serverInfo": {"name": "harness-witness", "version": "1"}}}
    if method in EMPTY_LISTS:
        return {"result": {EMPTY_LISTS[method]: []}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


def main(record: str) -> int:
    with open(record, "a", encoding="utf-8") as out:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "method" not in message:
                continue
            method, params = str(message["method"]), message.get("params")
            out.write(json.dumps({"method": method, "clientInfo": client_info(params)}) + "\n")
            out.flush()
            if "id" in message:
                reply = {"jsonrpc": "2.0", "id": message["id"], **answer(method, params)}
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
