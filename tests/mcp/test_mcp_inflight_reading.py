"""Bodies read from HTTP upstreams take room as they grow (elision.mcp.upstream.inflight.Reading).

In process, no HTTP: tasks stand for the SDK's readers of several answers' bodies, each read in
pieces of random sizes, some answering the same agent request (a list gathered from several
upstreams), some no one's; a request's room is given back once all its answers are read and
a random while has passed (its answer at the egress gate). Whatever the draw: every body is
read to its end (bodies read in part never all wait for each other, a request never waits for
its own room), the room ends empty, and it never holds more than its size plus what the rules
let past it (the oldest body, and the bodies of a request that held room before them).
"""

from __future__ import annotations

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.mcp.upstream.inflight import LARGE_BYTES, ByteRoom, Held, Reading

ROOM = 4 * LARGE_BYTES

bodies = st.lists(
    st.tuples(
        st.lists(st.integers(1, 3 * LARGE_BYTES), min_size=1, max_size=6),  # its pieces
        st.integers(-1, 3),  # the request it answers (-1: no one's)
        st.integers(0, 3),  # checkpoints between its pieces
    ),
    min_size=1, max_size=8,
)


def _run(drawn: list[tuple[list[int], int, int]], delays: list[int]) -> ByteRoom:
    room = ByteRoom(ROOM)
    requests: dict[int, Held] = {}
    left: dict[int, int] = {}
    for _, request, _ in drawn:
        if request >= 0:
            requests.setdefault(request, Held())
            left[request] = left.get(request, 0) + 1
    peak_allowed = ROOM + max(sum(pieces) for pieces, _, _ in drawn)
    peak_allowed += sum(sum(pieces) for pieces, request, _ in drawn
                        if request >= 0 and left[request] > 1)

    async def release_later(request: int) -> None:
        for _ in range(delays[request % len(delays)]):
            await anyio.lowlevel.checkpoint()
        requests[request].release()

    async def read(pieces: list[int], request: int, pause: int, tg: anyio.abc.TaskGroup) -> None:
        reading = Reading(room, requests.get(request))
        try:
            for piece in pieces:
                await reading.grew(piece)
                assert room.inside <= peak_allowed
                for _ in range(pause):
                    await anyio.lowlevel.checkpoint()
        finally:
            reading.ended()
        if request >= 0:
            left[request] -= 1
            if not left[request]:
                tg.start_soon(release_later, request)

    async def main() -> None:
        with anyio.fail_after(3):  # a draw takes milliseconds: longer is a deadlock
            async with anyio.create_task_group() as tg:
                for pieces, request, pause in drawn:
                    tg.start_soon(read, pieces, request, pause, tg)

    anyio.run(main)
    return room


@given(drawn=bodies, delays=st.lists(st.integers(0, 20), min_size=1, max_size=4))
def test_every_body_is_read_and_the_room_ends_empty(
    drawn: list[tuple[list[int], int, int]], delays: list[int]
) -> None:
    room = _run(drawn, delays)
    assert (room.inside, room.partial, list(room.reading)) == (0, 0, [])


@pytest.mark.parametrize(("drawn", "why"), [
    # Three bodies of 3.5 x the threshold read a piece each in turn: each holds room and
    # waits for more, none can end; the oldest must be let in.
    ([([LARGE_BYTES] * 4, 0, 1), ([LARGE_BYTES] * 4, 1, 1), ([LARGE_BYTES] * 4, 2, 1)],
     "bodies read in part wait for each other"),
    # An answer read first fills the room; two bodies wait, are let in together when it
    # lets go, and then each holds half the room and waits for more.
    ([([ROOM], 0, 0), ([LARGE_BYTES] * 4, 1, 1), ([LARGE_BYTES] * 4, 2, 1)],
     "bodies let in together then wait for each other"),
    # One request's first answer fills the room; its second waits for room only it gives back.
    ([([ROOM + LARGE_BYTES], 0, 0), ([LARGE_BYTES] * 3, 0, 1)], "a request waits for itself"),
    # Found by the property: request 0's second answer waits in line behind its first, which
    # is let in once request 1's answer lets go and fills the room request 0 holds.
    ([([182645], 1, 0), ([103464], 0, 0), ([196568], 0, 0)], "waiting behind itself"),
    # A body larger than the room beside another.
    ([([ROOM] * 3, 0, 0), ([LARGE_BYTES * 2], 1, 0)], "larger than the room"),
    ([([LARGE_BYTES - 1], 0, 0)] * 6, "small bodies take none"),
    ([([LARGE_BYTES] * 5, -1, 1)] * 4, "no one's bodies, each held while it is read"),
])
def test_sharp_edges(drawn: list[tuple[list[int], int, int]], why: str) -> None:
    room = _run(drawn, [3])
    assert (room.inside, room.partial, list(room.reading)) == (0, 0, []), why


def test_a_body_waits_while_answers_read_before_it_hold_the_room() -> None:
    """Back-pressure itself: two answers read and not yet through the gate fill the room, so a
    third body is read no further than its threshold until one of them lets go."""

    async def main() -> None:
        room = ByteRoom(ROOM)
        first, second, third = Held(), Held(), Held()
        for held in (first, second):
            reading = Reading(room, held)
            await reading.grew(2 * LARGE_BYTES)
            reading.ended()
        assert room.inside == ROOM
        reading = Reading(room, third)
        got = anyio.Event()

        async def read_on() -> None:
            await reading.grew(LARGE_BYTES)
            got.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_on)
            for _ in range(50):
                await anyio.lowlevel.checkpoint()
            assert not got.is_set()  # waits: the room is held by answers already read
            first.release()
            with anyio.fail_after(5):
                await got.wait()
        reading.ended()
        second.release()
        third.release()
        assert room.inside == 0

    anyio.run(main)


def test_a_long_stream_of_events_holds_one_event_at_a_time() -> None:
    """An SSE answer's events before its last (a long call's progress, a server's request)
    are messages of their own: each event's room is given back once the stream is read on
    past it. A stream of 100 events of 100 KB holds about one at a time, another request's
    answer is read while it runs, and its last event (the answer) is held for its request."""
    event, events = 100_000, 100

    async def main() -> None:
        room = ByteRoom(ROOM)
        streaming, other = Held(), Held()
        most = 0
        other_done = anyio.Event()

        async def stream() -> None:
            nonlocal most
            reading = Reading(room, streaming)
            try:
                for n in range(events):
                    for _ in range(4):
                        await reading.grew(event // 4)
                        most = max(most, room.inside)
                        await anyio.lowlevel.checkpoint()
                    reading.event_ended(0)
                    if n == events // 2:
                        with anyio.fail_after(5):
                            await other_done.wait()  # read while this stream runs
            finally:
                reading.ended()

        async def answer() -> None:
            reading = Reading(room, other)
            try:
                for _ in range(3):
                    await reading.grew(50_000)
            finally:
                reading.ended()
            other.release()  # its answer passed the gate
            other_done.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(stream)
                await anyio.lowlevel.checkpoint()
                tg.start_soon(answer)
        assert most <= 2 * event + 150_000, most
        assert room.inside == event  # the last event: the answer, its request's till it passes
        streaming.release()
        assert (room.inside, room.partial) == (0, 0)

    anyio.run(main)
