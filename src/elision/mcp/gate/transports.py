"""The gate on the wire: both transports' messages pass :class:`~elision.mcp.gate.egress.Egress`.

The SDK's stdio transport serializes what it is handed (:class:`GatedStream` wraps its write
stream); ``--listen`` answers over HTTP, a JSON body or an SSE stream (:func:`gated_app`).

A large message is gated off the event loop (:meth:`Egress.gate_bytes_off_loop`), so a sender
may wait for it: each stream here then lets one message through at a time, in the order they
came (a fair lock), so a later, smaller message never overtakes an earlier one to the same
client. A small message while none waits takes no turn: its gating never waits, so nothing
can come between it and its send (the lock's ~5 µs was most of a small response's cost here).
Over HTTP a session's responses (its GET stream and each request's) share one such turn: a
large notification on the GET stream, gated on a thread, is not overtaken by the small result
the server wrote after it on a request's stream (an agent read its log after the result, or
not at all before its next look). A response of no session yet (``initialize``) has its own.

Each agent request's room for the large upstream answers it got (back-pressure,
:mod:`elision.mcp.upstream.inflight`) is given back here, once its answer has passed the gate:
not after the client has read it, so a client that reads slowly, or never, holds up no other.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from elision.mcp.upstream.inflight import HELD, LARGE_BYTES, Held, release_held
from elision.mcp.upstream.turns import Turn

if TYPE_CHECKING:
    from elision.mcp.gate.egress import Egress

#: The size from which a message is gated on a worker thread, not on the event loop: a hop
#: costs ~0.1 ms, the gating of a clean message this size about as much (the shaper's
#: threshold too, elision.mcp.proxy). Below it the gate never waits, so a message this size
#: read from an upstream takes room until it is sent on (the same measure, defined there).
OFF_LOOP_BYTES = LARGE_BYTES


def kind_of_model(message: Any) -> str | None:
    """The kind of a typed JSON-RPC message (its class), without serializing it."""
    name = type(message).__name__
    return {
        "JSONRPCResponse": "result", "JSONRPCError": "error",
        "JSONRPCNotification": "notification", "JSONRPCRequest": "request",
    }.get(name)


class GatedStream:
    """A write stream of the SDK's (``SessionMessage`` in) whose messages pass the gate: for
    the SDK's own stdio transport, which serializes them itself."""

    def __init__(self, inner: Any, gate: Egress, scope: str | None) -> None:
        self._inner = inner
        self._gate = gate
        self._scope = scope
        self._turn = Turn(OFF_LOOP_BYTES)

    async def send(self, item: Any, /) -> None:
        message = item.message
        data = message.model_dump_json(by_alias=True, exclude_unset=True).encode(
            "utf-8", "replace"
        )
        try:
            await self._turn.run(len(data), self._gated, item, data)
        finally:
            if kind_of_model(item.message) in ("result", "error"):
                release_held()  # sent on, or never will be: the request's room is given back

    async def _gated(self, item: Any, data: bytes) -> None:
        from mcp.shared.message import SessionMessage
        from mcp_types.jsonrpc import jsonrpc_message_adapter

        gated = await self._gate.gate_bytes_off_loop(data, kind_of_model(item.message),
                                                     self._scope)
        if not gated:
            return  # withheld whole
        if gated is not data:
            item = SessionMessage(
                message=jsonrpc_message_adapter.validate_json(gated), metadata=item.metadata
            )
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> GatedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


Scope = Callable[[MutableMapping[str, Any]], str | None]
ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]


def gated_app(app: ASGIApp, gate: Egress, scope_of: Scope) -> ASGIApp:
    """An ASGI app that sends every JSON-RPC message ``app`` answers with through ``gate``:
    a JSON body whole, an SSE stream event by event (both protocol eras' forms)."""

    # One turn a session, shared by its responses (its GET stream and each POST's): a message
    # the server sent before another reaches the client first, whichever stream each takes.
    # A turn lives while a response of its session does.
    turns: weakref.WeakValueDictionary[bytes, Turn] = weakref.WeakValueDictionary()

    async def gated(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        client = scope_of(scope)
        session = next((v for k, v in scope.get("headers") or () if k == b"mcp-session-id"),
                       None)
        turn = None
        if session is not None:
            turn = turns.get(session)
            if turn is None:
                turn = turns[session] = Turn(OFF_LOOP_BYTES)
        # The request this response answers: the SDK runs its handler in a copy of this
        # context, so the upstream requests it writes are charged to ``held``.
        held = Held()
        token = HELD.set(held)
        sender = _GatedSend(send, gate, client, turn, held)
        try:
            await app(scope, receive, sender)
            await sender.flush()
        finally:
            HELD.reset(token)
            held.release()  # whatever ended the response (a cancel, a failure) ends its hold

    return gated


class _GatedSend:
    """One HTTP response, its messages gated on their way out."""

    def __init__(self, send: Any, gate: Egress, scope: str | None,
                 turn: Turn | None = None, held: Held | None = None) -> None:
        self._send = send
        self._held = held
        self._gate = gate
        self._scope = scope
        self._start: dict[str, Any] | None = None
        self._mode = "pass"
        self._body = bytearray()
        # An SSE response's pings come from a task of their own: one message at a time; and
        # a session's responses take turns (``turn``, shared), as the loop made them when
        # every message was gated on it.
        self._turn = Turn(OFF_LOOP_BYTES) if turn is None else turn

    async def __call__(self, message: MutableMapping[str, Any]) -> None:
        # What may be gated is the body held so far and this chunk (an event may span many).
        size = len(self._body) + len(message.get("body", b""))
        await self._turn.run(size, self._forward, message)

    async def _forward(self, message: MutableMapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "http.response.start":
            headers = list(message.get("headers") or [])
            ctype = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            if ctype.startswith(b"application/json"):
                self._mode, self._start = "json", dict(message)
                return
            if ctype.startswith(b"text/event-stream"):
                self._mode = "sse"
            await self._send(message)
            return
        if kind != "http.response.body" or self._mode == "pass":
            await self._send(message)
            return
        self._body += message.get("body", b"")
        more = bool(message.get("more_body", False))
        if self._mode == "json":
            if more:
                return
            await self._send_json()
            return
        out = await self._sse_events(final=not more)
        if out or not more:
            await self._send({"type": "http.response.body", "body": out, "more_body": more})

    async def _send_json(self) -> None:
        body = bytes(self._body)
        self._body.clear()
        gated = (
            await self._gate.gate_bytes_off_loop(body, None, self._scope) if body.strip()
            else body
        )
        self._passed(body)
        start = self._start or {"type": "http.response.start", "status": 200, "headers": []}
        self._start = None
        headers = [
            (k, str(len(gated)).encode() if k.lower() == b"content-length" else v)
            for k, v in start.get("headers") or []
        ]
        await self._send({**start, "headers": headers})
        await self._send({"type": "http.response.body", "body": gated, "more_body": False})

    async def _sse_events(self, *, final: bool) -> bytes:
        data = bytes(self._body)
        # Not held twice while an event waits for its turn at the gate (each large message
        # waiting holds its copies: less of them, less peak with many clients).
        self._body = bytearray()
        out = bytearray()
        pos = 0
        while True:
            end, sep = _event_end(data, pos)
            if end < 0:
                break
            out += await self._event(data[pos:end]) + sep
            pos = end + len(sep)
        rest = data[pos:]
        self._body = bytearray(rest)
        if final and rest:
            out += await self._event(rest)
            self._body.clear()
        return bytes(out)

    async def _event(self, event: bytes) -> bytes:
        lines = event.splitlines()
        data = [line[5:].removeprefix(b" ") for line in lines if line.startswith(b"data:")]
        if not data:
            return event
        payload = b"\n".join(data)
        kept = [line for line in lines if not line.startswith(b"data:")]
        del lines, data  # the event's data lines: copies no longer needed while it waits
        gated = await self._gate.gate_bytes_off_loop(payload, None, self._scope)
        self._passed(payload)
        if gated is payload:
            return event
        if not gated:
            return b": withheld"  # an SSE comment: the event is withheld whole
        newline = b"\r\n" if b"\r\n" in event else b"\n"
        return newline.join([*kept, b"data: " + gated])

    def _passed(self, payload: bytes) -> None:
        """``payload`` passed the gate: when it is the request's answer, its room is given
        back (a notification on the request's stream before it is not)."""
        if self._held is not None and _ANSWER.match(payload):
            self._held.release()

    async def flush(self) -> None:
        if self._mode == "json" and self._start is not None:
            await self._turn.run(len(self._body), self._send_json)


#: The head of a JSON-RPC answer as the SDK writes one: its id, then its result or error.
_ANSWER = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*,'
    rb'\s*"(?:result|error)"'
)


def _event_end(data: bytes, pos: int) -> tuple[int, bytes]:
    found = [(i, sep) for sep in (b"\r\n\r\n", b"\n\n") if (i := data.find(sep, pos)) >= 0]
    return min(found) if found else (-1, b"")

