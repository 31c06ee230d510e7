"""Where an HTTP request's room for large upstream answers is given back: once its answer has
passed the egress gate, not once the client has read it.

Found by a mutation of the end to end tests (tests/mcp/test_mcp_inflight_e2e.py): with the
release after the gate taken out, only the one at the response's end was left, and every test
there still passed, since their clients read at once. A client that reads slowly, or never,
would then hold its room, and with it the upstream everyone's answers come from. Here the
client reads nothing: its ``send`` blocks for good once the answer is on its way.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from elision.mcp.gate.egress import Egress, gated_app
from elision.mcp.upstream.inflight import HELD, ByteRoom, Held
from elision.mcp.upstream.link import Link, _WatchedReader, _WatchedWriter

ANSWER = b'{"jsonrpc":"2.0","id":7,"result":{"completion":{"values":["x"]}}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'


@pytest.mark.parametrize(("events", "given_back"), [
    # the answer alone: given back as it passes the gate
    ([ANSWER], True),
    # a notification on the request's stream first: the answer is still to come
    ([NOTE], False),
    ([NOTE, ANSWER], True),
    # an error answers too
    ([b'{"jsonrpc":"2.0","id":"a,b","error":{"code":-1,"message":"no"}}'], True),
])
def test_an_answer_past_the_gate_gives_its_room_back_though_the_client_reads_nothing(
    events: list[bytes], given_back: bool,
) -> None:
    room = ByteRoom(1000)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        held = HELD.get()
        assert held is not None, "the response set no hold for its request"
        await room.enter(600)  # the upstream answer it got, read
        held.charge(room, 600)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for event in events:
            await send({"type": "http.response.body", "body": b"event: message\ndata: "
                        + event + b"\n\n", "more_body": True})

    sent = anyio.Event()
    bodies: list[bytes] = []

    async def client_send(message: Any) -> None:
        if message["type"] == "http.response.body":
            bodies.append(message["body"])
            if len(bodies) == len(events):
                sent.set()
                await anyio.sleep_forever()  # the client reads no more

    async def main() -> None:
        gated = gated_app(app, Egress(redact=False), lambda scope: None)
        async with anyio.create_task_group() as tg:
            tg.start_soon(gated, {"type": "http", "headers": []}, None, client_send)
            with anyio.fail_after(10):
                await sent.wait()
            assert (room.inside == 0) is given_back
            tg.cancel_scope.cancel()
        assert room.inside == 0  # and whatever ended the response gave back the rest

    anyio.run(main)


class Lines:
    """A read stream of the given answers, each said to be ``size`` bytes, as LineReader
    tells; and a write stream that keeps what is sent."""

    def __init__(self, ids: list[int], size: int) -> None:
        self._ready = [SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=i, result={}))
                       for i in ids]
        self.last_size = 0
        self._size = size

    async def receive(self) -> SessionMessage:
        self.last_size = self._size
        return self._ready.pop(0)

    async def send(self, item: SessionMessage) -> None:
        pass

    async def aclose(self) -> None:
        pass


def test_a_request_that_holds_room_never_waits_for_its_own_next_answer() -> None:
    """A request that gathers two large answers (a list from several upstreams, a second
    round of a call) holds the first while the second is read: had the second waited for
    room, it would have waited for its own request to give it back, for ever. Found by
    reading the design through (no end-to-end test gathers two large answers)."""
    room = ByteRoom(1_000_000)
    link = Link(room)

    async def main() -> None:
        held = Held()
        HELD.set(held)
        for i in (1, 2):
            await _WatchedWriter(Lines([], 0), link).send(  # type: ignore[arg-type]
                SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=i, method="ping")))
        reader = _WatchedReader(Lines([1, 2], 800_000), link)  # type: ignore[arg-type]
        with anyio.fail_after(5):
            await reader.receive()
            await reader.receive()
        assert room.inside == 1_600_000  # over the room by its own request's answer
        held.release()
        assert room.inside == 0

    anyio.run(main)
