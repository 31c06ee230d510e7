"""A hostile MCP server that sends whatever message a test tells it to, byte for byte.

Written as raw JSON-RPC lines on stdio (no SDK), so nothing between the test and the proxy
tidies a message up: any member, known or not, at any depth, reaches the proxy as written.

One tool, ``emit``, drives it. Its arguments:

* ``send``: messages to write before the call's answer: notifications (progress, logging,
  list-changed, resource-updated, any method at all) and requests of the client
  (elicitation, sampling, roots), each answered by the proxy before the next is written. In a
  message, the string ``"$PROGRESS"`` stands for the call's progress token;
* ``answer``: the call's answer: ``{"result": ...}`` or ``{"error": ...}``;
* ``script``: ``{method: answer}`` for the requests that come after the call
  (``resources/read``, ``prompts/get``, ``completion/complete``, the lists): each is answered
  with its scripted answer until the script changes.

Every message the proxy sent it is appended, as a line, to ``$EGRESS_SEEN`` when set.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SCRIPT: dict[str, Any] = {}
_ids = iter(range(1, 1 << 30))

TOOLS = [
    {"name": "emit", "description": "Sends the messages it is given.",
     "inputSchema": {"type": "object"}},
]
DEFAULTS: dict[str, Any] = {
    "tools/list": {"result": {"tools": TOOLS}},
    "resources/list": {"result": {"resources": [
        {"uri": "test://egress/doc", "name": "doc"}]}},
    "resources/templates/list": {"result": {"resourceTemplates": []}},
    "prompts/list": {"result": {"prompts": [{"name": "brief"}]}},
    "resources/read": {"result": {"contents": [
        {"uri": "test://egress/doc", "text": "plain"}]}},
    "prompts/get": {"result": {"messages": [
        {"role": "user", "content": {"type": "text", "text": "plain"}}]}},
    "completion/complete": {"result": {"completion": {"values": ["a"]}}},
    "resources/subscribe": {"result": {}},
    "resources/unsubscribe": {"result": {}},
    "logging/setLevel": {"result": {}},
    "ping": {"result": {}},
}


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read() -> dict[str, Any] | None:
    line = sys.stdin.readline()
    if not line:
        return None
    seen = os.environ.get("EGRESS_SEEN")
    if seen:
        with open(seen, "a") as out:
            out.write(line)
    message: dict[str, Any] = json.loads(line)
    return message


def substituted(value: Any, token: Any) -> Any:
    if value == "$PROGRESS":
        return token
    if isinstance(value, dict):
        return {k: substituted(v, token) for k, v in value.items()}
    if isinstance(value, list):
        return [substituted(v, token) for v in value]
    return value


def answer(request: dict[str, Any], reply: dict[str, Any]) -> None:
    write({"jsonrpc": "2.0", "id": request["id"], **reply})


def emit(request: dict[str, Any]) -> None:
    params = request.get("params") or {}
    args = params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    SCRIPT.update(args.get("script") or {})
    for message in args.get("send") or []:
        message = substituted(message, token)
        if "id" in message:  # a request of the client: wait for its answer
            message = {**message, "id": f"srv-{next(_ids)}"}
            write(message)
            wait_for(message["id"])
        else:
            write(message)
    answer(request, args.get("answer") or {"result": {"content": []}})


def wait_for(request_id: str) -> None:
    while True:
        message = read()
        if message is None:
            sys.exit(0)
        if message.get("id") == request_id and "method" not in message:
            return
        handle(message)


def handle(message: dict[str, Any]) -> None:
    method = message.get("method")
    if method is None or "id" not in message:
        return  # a notification, or an answer nobody waits for
    if method == "initialize":
        version = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
        answer(message, {"result": {
            "protocolVersion": version,
            "capabilities": {
                "tools": {"listChanged": True}, "prompts": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
                "completions": {}, "logging": {},
            },
            "serverInfo": {"name": "egress", "version": "1"},
        }})
    elif method == "tools/call" and (message.get("params") or {}).get("name") == "emit":
        emit(message)
    elif method in SCRIPT or method in DEFAULTS:
        answer(message, SCRIPT.get(method) or DEFAULTS[method])
    else:
        answer(message, {"error": {"code": -32601, "message": f"no {method}"}})


def main() -> None:
    while True:
        message = read()
        if message is None:
            return
        handle(message)


if __name__ == "__main__":
    main()
