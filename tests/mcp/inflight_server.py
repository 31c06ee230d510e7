"""A raw MCP server over stdio whose completions are as large as asked, for back-pressure tests.

One thread, one message at a time, as many small servers are: while a write to its stdout
blocks (the proxy reads it no further), it reads nothing either.

* ``completion/complete`` of an argument whose value is ``"<bytes>"`` answers with about that
  many bytes of one value, the request id at both ends of it (a lost or mixed body shows). A
  value ``"<bytes>:notify"`` first sends a log notification and a ``ping`` request, the
  proxy's answer to which it does not wait for; ``"<bytes>:hold"`` answers only after the next
  ``tools/call`` (and writes ``$INFLIGHT_HOLDING`` once it holds).
* ``tools/call`` of ``small`` answers ``small <n>`` at once.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_held: list[dict[str, Any]] = []


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def big(request_id: Any, size: int) -> dict[str, Any]:
    mark = f"<{request_id}>"
    value = mark + "x" * max(0, size - 2 * len(mark)) + mark
    return {"jsonrpc": "2.0", "id": request_id,
            "result": {"completion": {"values": [value], "hasMore": False}}}


def answer(request: dict[str, Any]) -> None:
    method, request_id = request.get("method"), request.get("id")
    params = request.get("params") or {}
    if method == "initialize":
        write({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}, "prompts": {}, "completions": {}, "logging": {}},
            "serverInfo": {"name": "inflight", "version": "1"}}})
    elif method == "tools/list":
        write({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [
            {"name": "small", "inputSchema": {"type": "object"}}]}})
    elif method == "prompts/list":
        write({"jsonrpc": "2.0", "id": request_id, "result": {"prompts": [{"name": "brief"}]}})
    elif method == "tools/call":
        n = (params.get("arguments") or {}).get("n", 0)
        write({"jsonrpc": "2.0", "id": request_id,
               "result": {"content": [{"type": "text", "text": f"small {n}"}]}})
        while _held:
            write(_held.pop(0))
    elif method == "completion/complete":
        size, _, how = str((params.get("argument") or {}).get("value", "0")).partition(":")
        if how == "notify":
            write({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": f"about to answer {request_id}"}})
            write({"jsonrpc": "2.0", "id": f"ping-{request_id}", "method": "ping"})
        if how == "hold":
            _held.append(big(request_id, int(size)))
            holding = os.environ.get("INFLIGHT_HOLDING")
            if holding:
                with open(holding, "a") as out:
                    out.write(f"{request_id}\n")
            return
        write(big(request_id, int(size)))
    elif request_id is not None and method is not None:
        write({"jsonrpc": "2.0", "id": request_id, "result": {}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            answer(json.loads(line))


if __name__ == "__main__":
    main()
