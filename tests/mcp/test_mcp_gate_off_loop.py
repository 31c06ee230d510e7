"""The egress gate off the event loop: a large message is gated on a worker thread, a small one
inline, with the same bytes out; no transport lets a later message overtake an earlier one to
the same client while it waits; at most ``GATES_AT_ONCE`` messages are held parsed at once.

The end-to-end case (another client's calls answered while an 8 MB message is gated) is
test_mcp_gate_off_loop_e2e.py; here each transport's ordering is pinned down by a gate that
waits for the test to let it go, so no timing decides anything.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import mcp_types as types
import orjson
import pytest
from mcp.shared.message import SessionMessage

from elision.mcp.gate.egress import GATES_AT_ONCE, OFF_LOOP_BYTES, Egress, gated_app
from elision.mcp.gate.transports import GatedStream
from elision.mcp.upstream.stdio import LineWriter

TOKEN = "ghp_0ffL00pT0k3nXyZ0123456789abcdEFGH"


def note(data: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                         "params": {"level": "info", "data": data}})


def answer(result: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": 7, "result": result})


def prose(size: int, every: int | None = None) -> list[str]:
    """About ``size`` bytes of short strings; a token in one of each ``every``."""
    line = "lorem ipsum dolor sit amet " * 3
    count = size // (len(line) + 3)
    return [line + (TOKEN if every and i % every == 0 else "") for i in range(count)]


MESSAGES = [
    # small and clean: the same object back, never parsed
    pytest.param(note("plain"), "notification", id="small-clean"),
    # small with a token: governed inline
    pytest.param(note(TOKEN), "notification", id="small-token"),
    # under the threshold, with tokens: inline
    pytest.param(answer({"completion": {"values": prose(OFF_LOOP_BYTES // 2, 7)}}), "result",
                 id="under-threshold"),
    # large and clean, within no bound (a listing over 1 MiB): cut on a thread
    pytest.param(answer({"completion": {"values": prose(2 << 20)}}), "result",
                 id="large-clean-over-bound"),
    # large with tokens among prose: every one withheld, then cut
    pytest.param(note(prose(1 << 20, 3)), "notification", id="large-tokens"),
    # large and unreadable: withheld whole, on a thread as inline
    pytest.param(b'{"jsonrpc": "2.0", "id": 1, "result": "' + b"x" * OFF_LOOP_BYTES, None,
                 id="large-unreadable"),
]


@pytest.mark.parametrize(("raw", "kind"), MESSAGES)
def test_off_the_loop_the_gate_sends_the_same_bytes(raw: bytes, kind: str | None) -> None:
    gate = Egress()
    threads: list[bool] = []
    inline = gate.gate_bytes

    def recorded(*args: Any) -> bytes:
        threads.append(threading.current_thread() is not threading.main_thread())
        return inline(*args)

    gate.gate_bytes = recorded  # type: ignore[method-assign]
    out = anyio.run(gate.gate_bytes_off_loop, raw, kind, "scope")
    assert out == Egress().gate_bytes(raw, kind, "scope")
    assert TOKEN[4:16].encode() not in out
    assert threads == [len(raw) >= OFF_LOOP_BYTES], "gated on the wrong side of the threshold"


def test_no_more_than_gates_at_once_messages_are_gated_together() -> None:
    """Each message gated holds its parse tree: the peak is bounded by how many at once."""
    gate = Egress()
    held = {"now": 0, "most": 0}
    lock = threading.Lock()
    inline = gate.gate_bytes

    def slow(*args: Any) -> bytes:
        with lock:
            held["now"] += 1
            held["most"] = max(held["most"], held["now"])
        time.sleep(0.05)  # long enough for every other thread to have started
        with lock:
            held["now"] -= 1
        return inline(*args)

    gate.gate_bytes = slow  # type: ignore[method-assign]
    raw = note(prose(OFF_LOOP_BYTES, 5))

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(3 * GATES_AT_ONCE):
                tg.start_soon(gate.gate_bytes_off_loop, raw, "notification", "scope")

    anyio.run(main)
    assert held["most"] == GATES_AT_ONCE


class _Held(Egress):
    """A gate that holds each message of :data:`OFF_LOOP_BYTES` or more (one the real gate
    sends to a thread) until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.holding = anyio.Event()
        self.release = anyio.Event()

    async def gate_bytes_off_loop(
        self, raw: bytes, kind: str | None = None, scope: str | None = None,
    ) -> bytes:
        if len(raw) >= OFF_LOOP_BYTES:
            self.holding.set()
            await self.release.wait()
        return self.gate_bytes(raw, kind, scope)


def _message(text: str) -> SessionMessage:
    return SessionMessage(types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/message",
        params={"level": "info", "data": text},
    ))


BIG = "big " + "x" * OFF_LOOP_BYTES


def _named(data: str) -> str:
    """Which message ``data`` is (the big one is cut to its bound on the way)."""
    return data.split(" ", 1)[0]


async def _in_order(send: Any, gate: _Held) -> None:
    """Send a big message, and a small one while the big one is being gated."""
    async with anyio.create_task_group() as tg:
        tg.start_soon(send, _message(BIG))
        await gate.holding.wait()
        tg.start_soon(send, _message("small"))
        await anyio.wait_all_tasks_blocked()  # the small one is as far as it can get
        gate.release.set()


def test_stdio_a_small_message_never_overtakes_a_big_one_being_gated() -> None:
    written: list[bytes] = []

    async def write(data: bytes) -> None:
        written.append(data)

    gate = _Held()

    async def egress(message: Any, data: bytes) -> bytes:
        return await gate.gate_bytes_off_loop(data, "notification", "scope")

    anyio.run(_in_order, LineWriter(write, egress, OFF_LOOP_BYTES).send, gate)
    assert [_named(orjson.loads(line)["params"]["data"]) for line in written] == ["big", "small"]


def test_sdk_stdio_a_small_message_never_overtakes_a_big_one_being_gated() -> None:
    sent: list[SessionMessage] = []

    class Inner:
        async def send(self, item: SessionMessage) -> None:
            sent.append(item)

        async def aclose(self) -> None:
            pass

    gate = _Held()
    anyio.run(_in_order, GatedStream(Inner(), gate, "scope").send, gate)
    data = [item.message.params["data"] for item in sent]  # type: ignore[union-attr]
    assert [_named(text) for text in data] == ["big", "small"]


def _big_event() -> bytes:
    """An SSE event over the off-loop threshold: gated on a thread."""
    return b"event: message\r\ndata: " + note(prose(OFF_LOOP_BYTES * 2, 5)) + b"\r\n\r\n"


def _held_gate(
    release: threading.Event, *, timeout: float, pause: float = 0.0,
) -> tuple[Egress, threading.Event]:
    """A gate whose gating, once on its thread (the event it returns is set), waits for
    ``release`` and then ``pause`` seconds before it governs as the real gate does."""
    gate = Egress()
    inline = gate.gate_bytes
    on_thread = threading.Event()

    def held(*args: Any) -> bytes:
        on_thread.set()
        release.wait(timeout=timeout)
        time.sleep(pause)
        return inline(*args)

    gate.gate_bytes = held  # type: ignore[method-assign]
    return gate, on_thread


@pytest.mark.parametrize(
    "chunk",
    [
        None,  # the event in one body message
        OFF_LOOP_BYTES // 4,  # in chunks each under the threshold: the event, whole, is not
    ],
    ids=["whole", "in-small-chunks"],
)
def test_an_sse_ping_while_an_event_is_gated_off_the_loop_follows_it_whole(
    chunk: int | None,
) -> None:
    """An SSE response's pings come from a task of their own: one sent while a large event
    is on a thread must neither overtake it nor see its bytes again (it was sent twice)."""
    event = _big_event()
    step = chunk or len(event)
    ping = b": ping\r\n\r\n"
    sent: list[dict[str, Any]] = []
    pinged = threading.Event()
    gate, on_thread = _held_gate(pinged, timeout=30)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream")]})

        async def pinger() -> None:
            await anyio.to_thread.run_sync(on_thread.wait)
            pinged.set()
            await send({"type": "http.response.body", "body": ping, "more_body": True})

        async with anyio.create_task_group() as tg:
            tg.start_soon(pinger)
            for at in range(0, len(event), step):
                await send({"type": "http.response.body", "body": event[at:at + step],
                            "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def record(message: dict[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        await gated_app(app, gate, lambda scope: None)({"type": "http"}, None, record)

    anyio.run(main)
    bodies = [m["body"] for m in sent if m["type"] == "http.response.body" and m["body"]]
    assert len(bodies) == 2 and bodies[1] == ping
    assert bodies[0].startswith(b"event: message") and TOKEN[4:16].encode() not in bodies[0]


def test_a_send_cancelled_while_gated_leaves_the_stream_whole_and_usable() -> None:
    """A cancelled sender waits for its thread (nothing half-governed goes out, nothing runs
    unseen) and gives up its turn: the next message is written, whole."""
    written: list[bytes] = []

    async def write(data: bytes) -> None:
        written.append(data)

    gate = Egress()
    started = threading.Event()
    inline = gate.gate_bytes

    def signalled(*args: Any) -> bytes:
        started.set()
        return inline(*args)

    gate.gate_bytes = signalled  # type: ignore[method-assign]

    async def egress(message: Any, data: bytes) -> bytes:
        return await gate.gate_bytes_off_loop(data, "notification", "scope")

    writer = LineWriter(write, egress, OFF_LOOP_BYTES)
    big = _message(" ".join(prose(OFF_LOOP_BYTES * 2, 5)))

    async def main() -> None:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(writer.send, big)
                await anyio.to_thread.run_sync(started.wait)
                scope.cancel()
        await writer.send(_message("after"))

    anyio.run(main)
    lines = [orjson.loads(line) for line in written]  # each a whole message
    assert lines[-1]["params"]["data"] == "after"
    assert all(TOKEN[4:16] not in str(line) for line in lines)


@pytest.mark.parametrize("session", [b"s-1", None])
def test_a_sessions_small_result_does_not_overtake_its_large_notification(
    session: bytes | None,
) -> None:
    """A large notification on a session's GET stream is gated on a thread; the small result
    the server wrote after it, on a request's own stream, went out first (the egress
    channels' 1.1 MB log message was missing from what an agent had read after its next
    call, in a full run at load 10). A session's responses take turns, as on the loop."""
    event = _big_event()
    answer = b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'
    order: list[str] = []
    answering = threading.Event()
    # The answer's sends go first while the gate pauses, unless they wait their turn.
    gate, on_thread = _held_gate(answering, timeout=5, pause=0.05)

    async def stream(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def reply(scope: Any, receive: Any, send: Any) -> None:
        await anyio.to_thread.run_sync(on_thread.wait)
        answering.set()  # its sends are on their way while the notification is gated
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": answer, "more_body": False})

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await (stream if scope["path"] == "/get" else reply)(scope, receive, send)

    def recorder(name: str) -> Any:
        async def record(message: dict[str, Any]) -> None:
            if message.get("body"):
                order.append(name)
        return record

    headers = [] if session is None else [(b"mcp-session-id", session)]
    gated = gated_app(app, gate, lambda scope: None)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(gated, {"type": "http", "path": "/get", "headers": headers}, None,
                          recorder("notification"))
            tg.start_soon(gated, {"type": "http", "path": "/post", "headers": headers}, None,
                          recorder("result"))

    anyio.run(main)
    if session is None:  # no session to share: each response its own turn, as before
        assert sorted(order) == ["notification", "result"]
    else:
        assert order == ["notification", "result"]


def _concurrency(gate: Egress, sizes: list[int]) -> tuple[int, list[int]]:
    """Gate one message of each size (bytes) off the loop, all started at once: the most
    gated together, and the order they started being gated in (by index)."""
    held = {"now": 0, "most": 0}
    started: list[int] = []
    lock = threading.Lock()

    def slow(raw: bytes, kind: str | None = None, scope: str | None = None) -> bytes:
        with lock:
            held["now"] += 1
            held["most"] = max(held["most"], held["now"])
            started.append(int(raw[:8]))
        time.sleep(0.05)  # long enough for every other thread to have started
        with lock:
            held["now"] -= 1
        return raw

    gate.gate_bytes = slow  # type: ignore[method-assign]

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i, size in enumerate(sizes):
                tg.start_soon(gate.gate_bytes_off_loop, b"%08d" % i + b" " * (size - 8),
                              "notification", "scope")
                for _ in range(3):  # it runs to its room or its place in line: in order
                    await anyio.sleep(0)

    anyio.run(main)
    return held["most"], started


def test_messages_over_the_byte_room_together_are_gated_one_at_a_time() -> None:
    """Each message gated holds several times its bytes: two that are together over
    GATE_BYTES_AT_ONCE are not gated at once (four 8 MB messages peaked at 230 MB where one at
    a time held 138 MB), and a message over it alone is still gated."""
    from elision.mcp.gate.egress import GATE_BYTES_AT_ONCE

    over = GATE_BYTES_AT_ONCE // 2 + 1
    most, started = _concurrency(Egress(), [over, over, over])
    assert most == 1 and started == [0, 1, 2]
    most, _ = _concurrency(Egress(), [GATE_BYTES_AT_ONCE * 2])
    assert most == 1
    # Small ones still share: the room bounds bytes, GATES_AT_ONCE the threads.
    most, _ = _concurrency(Egress(), [OFF_LOOP_BYTES] * (3 * GATES_AT_ONCE))
    assert most == GATES_AT_ONCE


def test_a_big_message_waiting_for_the_room_is_not_overtaken_by_small_ones() -> None:
    """First come, first gated: small messages that would fit beside the one being gated do
    not pass a big one waiting for room, so a stream of them can never starve it."""
    from elision.mcp.gate.egress import GATE_BYTES_AT_ONCE

    sizes = [GATE_BYTES_AT_ONCE // 2, GATE_BYTES_AT_ONCE, OFF_LOOP_BYTES, OFF_LOOP_BYTES]
    _, started = _concurrency(Egress(), sizes)
    assert started.index(1) < started.index(2) and started.index(1) < started.index(3)


def test_a_message_cancelled_while_waiting_for_room_gives_its_place_up() -> None:
    """A send cancelled in the line leaves it: the ones behind it are gated, and the room is
    whole afterwards (a later message is gated at once)."""
    from elision.mcp.gate.egress import GATE_BYTES_AT_ONCE

    gate = Egress()
    release = threading.Event()
    inline = gate.gate_bytes

    def held(raw: bytes, kind: str | None = None, scope: str | None = None) -> bytes:
        if raw.startswith(b"first"):
            release.wait(5)
        return inline(raw, kind, scope)

    gate.gate_bytes = held  # type: ignore[method-assign]
    big = GATE_BYTES_AT_ONCE - 16

    async def main() -> bytes:
        async with anyio.create_task_group() as tg:
            tg.start_soon(gate.gate_bytes_off_loop, b"first" + b"x" * big, None, "s")
            await anyio.wait_all_tasks_blocked()
            with anyio.CancelScope() as scope:
                scope.cancel()  # cancelled while it waits in line
                await gate.gate_bytes_off_loop(b"second" + b"x" * big, None, "s")
            release.set()
        with anyio.fail_after(5):  # the room is empty again: no wait
            return await gate.gate_bytes_off_loop(note(prose(OFF_LOOP_BYTES, 5)), None, "s")

    out = anyio.run(main)
    assert TOKEN[4:16].encode() not in out
