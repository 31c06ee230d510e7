"""A hostile MCP server that sends whatever message a test tells it to, byte for byte.

Written as raw JSON-RPC lines on stdio (no SDK), so nothing between the test and the proxy
tidies a message up: any member, known or not, at any depth, reaches the proxy as written.

Two tools drive it. ``emit``'s arguments:

* ``send``: messages to write before the call's answer: notifications (progress, logging,
  list-changed, resource-updated, any method at all) and requests of the client
  (elicitation, sampling, roots), each answered by the proxy before the next is written. In a
  message, the string ``"$PROGRESS"`` stands for the call's progress token;
* ``answer``: the call's answer: ``{"result": ...}`` or ``{"error": ...}``;
* ``script``: ``{method: answer}`` for the requests that come after the call
  (``resources/read``, ``prompts/get``, ``completion/complete``, the lists): each is answered
  with its scripted answer until the script changes.

A ``completion/complete`` of an argument named ``big`` answers with 8 MB of records that each
hold tokens amid prose, as its 100 values: a message no shaper cuts first (a tool result is
shaped to its budget, on a thread, before the gate sees it), so the egress gate governs all
8 MB. With the argument's value ``"hold"`` it first waits for the next ``tools/call`` (another
client's, say), then writes its own answer and at once that call's: both reach the proxy back
to back, the big one first, whatever the timing.

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
#: The size of the big completion, in bytes.
BIG = 8 << 20
#: What the big completion says on stderr while it holds its answer.
HOLDING = "egress_server: big is holding its answer until the next tools/call"
#: The most values a completion may have (the protocol's bound).
VALUES = 100
#: One record of the big completion: a token of each of two families amid prose, sparse enough
#: that each is withheld where it stands (not the whole text as credential-dense).
RECORD = {"token": "ghp_B1gB0dyT0k3nXyZ0123456789abcdEFGH", "aws": "AKIAIOSFODNN7BIGBODY",
          "note": "a row of an export that holds credentials; " + "lorem ipsum dolor " * 50}
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


def big(request: dict[str, Any], hold: bool) -> None:
    """Answer the completion ``request`` with :data:`BIG` bytes of records that each hold
    credentials: as many values as the protocol allows, each a run of records."""
    record = json.dumps(RECORD)
    value = ",".join([record] * max(1, BIG // VALUES // (len(record) + 1)))
    result = {"completion": {"values": [value] * VALUES, "hasMore": False}}
    held = None
    if hold:
        # Said on stderr (the proxy's, which the upstream shares): a test starts the call
        # that releases this one once it reads it.
        print(HOLDING, file=sys.stderr, flush=True)
        held = next_call()
    answer(request, {"result": result})
    if held is not None:
        handle(held)


def next_call() -> dict[str, Any]:
    """The next ``tools/call`` to come, unanswered; what comes before it is handled."""
    while True:
        message = read()
        if message is None:
            sys.exit(0)
        if message.get("method") == "tools/call":
            return message
        handle(message)


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
    elif method == "completion/complete" and _argument(message).get("name") == "big":
        # Asked for values of an argument named "big": its value is "hold" or "".
        big(message, hold=_argument(message).get("value") == "hold")
    elif method in SCRIPT or method in DEFAULTS:
        answer(message, SCRIPT.get(method) or DEFAULTS[method])
    else:
        answer(message, {"error": {"code": -32601, "message": f"no {method}"}})


def _argument(message: dict[str, Any]) -> dict[str, Any]:
    argument = (message.get("params") or {}).get("argument")
    return argument if isinstance(argument, dict) else {}


def main() -> None:
    while True:
        message = read()
        if message is None:
            return
        handle(message)


if __name__ == "__main__":
    main()
