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
import pytest

from elision.mcp.gate.egress import Egress, gated_app
from elision.mcp.upstream.inflight import HELD, ByteRoom

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
