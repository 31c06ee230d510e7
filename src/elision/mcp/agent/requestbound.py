"""The request ceiling of the proxy's HTTP endpoint (``--max-request-bytes``).

The SDK's streamable-HTTP server reads a POST's body whole (``request.body()``) before it
looks at it, so one client could make the proxy that every other client shares hold any
number of bytes. This ASGI middleware reads the body first, counting: one whose
``Content-Length`` is over the ceiling, or that is sent without a length (or with one that
lies) and grows past it, is read to its end and dropped piece by piece, keeping nothing, and
answered ``413`` (a client sends its whole body before it reads the answer: refused mid-body
it would see a reset connection, not why); what fits is handed on to the SDK piece by piece,
as it came. The answer is a JSON-RPC error that
names the size, the ceiling and the flag; the connection and every other client's session go
on. GET (the SSE stream) and DELETE carry no body worth bounding and pass untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

#: 64 MiB: tool arguments are small, and a client's request is one message it wrote.
DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024
#: JSON-RPC's "invalid request": the request was never read, so it has no id to answer.
INVALID_REQUEST = -32600

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def request_ceiling(app: App, limit: int) -> App:
    """``app`` with every POST body held to ``limit`` bytes."""

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            if await _drained(receive):
                await _refuse(send, refusal(declared, limit, whole=True))
            return
        pieces: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before it finished sending
            seen += len(message.get("body", b""))
            if seen > limit:
                pieces.clear()
                if not message.get("more_body", False) or await _drained(receive):
                    await _refuse(send, refusal(seen, limit, whole=False))
                return
            pieces.append(message)
            if not message.get("more_body", False):
                break
        await app(scope, _replay(pieces, receive), send)

    return bounded


def refusal(size: int, limit: int, *, whole: bool) -> str:
    many = f"{size:,} bytes" if whole else f"more than {limit:,} bytes"
    return (
        f"a request of {many} is over this proxy's {limit:,}-byte ceiling "
        "(--max-request-bytes); it was dropped as it arrived, not kept or sent to any "
        "server. Send smaller arguments, or ask the proxy's operator to raise "
        "--max-request-bytes"
    )


async def _drained(receive: Receive) -> bool:
    """Read the rest of a refused body and keep none of it, so the client, which sends its
    whole body before it reads an answer, gets the 413 and not a reset connection. ``False``
    when it left meanwhile."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return False
        if not message.get("more_body", False):
            return True


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


def _replay(pieces: list[Message], receive: Receive) -> Receive:
    queue = list(reversed(pieces))

    async def replayed() -> Message:
        # The body as it came, then whatever the client sends next (its disconnect).
        return queue.pop() if queue else await receive()

    return replayed


async def _refuse(send: Send, message: str) -> None:
    body = orjson.dumps({
        "jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message},
    })
    await send({
        "type": "http.response.start", "status": 413,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()), (b"connection", b"close")],
    })
    await send({"type": "http.response.body", "body": body})
