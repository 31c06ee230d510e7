"""The stdio loop of a test MCP server written as raw JSON-RPC lines of the handshake era,
without the SDK (whose import costs a Python ~1.3 s of CPU a start).

A server gives :func:`serve` its ``answer(method, params)``, which returns the reply's
``{"result": …}`` or ``{"error": …}``; each request is answered in turn, on one line, in the
compact form the SDK's servers wrote. While answering, a server may send notifications of its
own (:func:`notify`), which go out before the reply, as the SDK's did. Notifications, and
answers to requests such a server never sends, are read and dropped. Imports nothing but the
standard library. Each server's lines are checked byte for byte against the SDK server it
replaced (tests/mcp/test_mcp_raw_servers.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def notify(method: str, params: dict[str, Any]) -> None:
    """Send a notification now (during a request, it goes before that request's reply)."""
    write({"method": method, "params": params})


def initialized(params: dict[str, Any], name: str, capabilities: dict[str, Any],
                version: str = "", instructions: str | None = None) -> dict[str, Any]:
    """The reply to ``initialize`` as the SDK's servers wrote it: the client's protocol
    version agreed to, the members in name order (pydantic's field order, which is
    alphabetical in the SDK's result and capability models)."""
    result: dict[str, Any] = {
        "capabilities": {key: capabilities[key] for key in sorted(capabilities)}}
    if instructions is not None:
        result["instructions"] = instructions
    result["protocolVersion"] = params.get("protocolVersion", "2025-11-25")
    result["serverInfo"] = {"name": name, "version": version}
    return {"result": result}


def not_found(method: str) -> dict[str, Any]:
    """The SDK's reply to a method its server does not serve."""
    return {"error": {"code": -32601, "message": "Method not found", "data": method}}


def serve(answer: Answer) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        write({"id": message["id"], **answer(message["method"], message.get("params") or {})})
