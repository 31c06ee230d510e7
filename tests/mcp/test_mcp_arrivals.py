"""stdin read from the proxy's start, each line stamped (elision.mcp.agent.arrivals): the rule
that tells a client's late fallback to ``initialize``, and the hand-over to the loop."""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.mcp.agent.arrivals import (
    FALLBACK_SECONDS,
    Arrivals,
    falls_back,
    unconfirmed_since,
)


def request(method: str, request_id: int = 0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method}).encode()


DISCOVER = request("server/discover")
INITIALIZE = request("initialize", 1)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # Copilot CLI: discover, then initialize ~10 s later with no answer between
        ([(0.0, DISCOVER), (9.9, INITIALIZE)], True),
        # Claude Code 2.1.332: initialize after its 3 s probe (it recovers from a refusal)
        ([(0.0, DISCOVER), (2.95, INITIALIZE)], False),
        # both at once
        ([(0.0, DISCOVER), (0.001, INITIALIZE)], False),
        # exactly the gap counts as a fallback
        ([(0.0, DISCOVER), (FALLBACK_SECONDS, INITIALIZE)], True),
        # a handshake-era client opens with initialize: its era anyway
        ([(0.0, INITIALIZE), (9.0, DISCOVER)], False),
        # no initialize at all
        ([(0.0, DISCOVER), (9.0, request("tools/list", 2))], False),
        # a notification, garbage and an answer before the opening decide nothing
        ([(0.0, INITIALIZED), (0.0, b"not json"), (0.0, b'{"id": 5, "result": {}}'),
          (3.0, DISCOVER), (4.0, INITIALIZE)], False),
        ([(0.0, INITIALIZED), (1.0, DISCOVER), (9.0, INITIALIZE)], True),
        # a notification named initialize (no id) is no request
        ([(0.0, DISCOVER), (9.0, b'{"jsonrpc":"2.0","method":"initialize"}')], False),
        ([], False),
    ],
)
def test_falls_back(lines: list[tuple[float, bytes]], expected: bool) -> None:
    assert falls_back(lines) is expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # the opening alone (a notification beside it): its era waits for the next request
        ([(1.0, INITIALIZED), (2.0, DISCOVER)], 2.0),
        # another request came: the fallback rule judged it
        ([(2.0, DISCOVER), (2.5, INITIALIZE)], None),
        ([(2.0, DISCOVER), (2.5, request("tools/list", 2))], None),
        ([(0.0, b"garbage")], None),
    ],
)
def test_unconfirmed_since(lines: list[tuple[float, bytes]], expected: float | None) -> None:
    assert unconfirmed_since(lines) == expected


noise = st.lists(st.sampled_from([INITIALIZED, b"", b"{", b'{"id":9,"result":{}}']), max_size=3)


@given(
    opened=st.floats(0, 100), gap=st.floats(0, 60), before=noise, between=noise, after=noise,
    later=st.floats(0, 60),
)
def test_a_fallback_is_an_initialize_at_least_the_gap_after_the_opening(
    opened: float, gap: float, before: list[bytes], between: list[bytes], after: list[bytes],
    later: float,
) -> None:
    """Lines that are no request never change the decision, and the first initialize after
    the opening decides by its own time (a later one does not count)."""
    lines = [
        *((opened, line) for line in before), (opened, DISCOVER),
        *((opened, line) for line in between), (opened + gap, INITIALIZE),
        *((opened + gap, line) for line in after),
        (opened + gap + later, request("initialize", 7)),
    ]
    assert falls_back(lines) is ((opened + gap) - opened >= FALLBACK_SECONDS)


def pipe_arrivals() -> tuple[Arrivals, int, int]:
    read, write = os.pipe()
    return Arrivals(read).start(), read, write


def test_each_line_is_stamped_when_it_came() -> None:
    arrivals, read, write = pipe_arrivals()
    try:
        os.write(write, DISCOVER + b"\n")
        time.sleep(0.3)
        os.write(write, INITIALIZE + b"\n" + INITIALIZED[:10])  # a line still coming
        time.sleep(0.1)
        lines = arrivals.stop()
        assert [line for _, line in lines] == [DISCOVER, INITIALIZE]
        assert lines[1][0] - lines[0][0] >= 0.25
    finally:
        os.close(read)
        os.close(write)


def test_the_loop_gets_every_byte_once_and_reads_the_pipe_only_after_stop() -> None:
    arrivals, read, write = pipe_arrivals()

    async def main() -> bytes:
        os.write(write, DISCOVER + b"\n")
        got = await arrivals.receive()  # waits for the thread
        os.write(write, INITIALIZE + b"\n")
        time.sleep(0.1)
        arrivals.stop()
        os.write(write, b"after the stop\n")  # left in the pipe, for the loop
        while (chunk := await arrivals.receive()) is not None:
            assert chunk
            got = (got or b"") + chunk
        assert got is not None
        return got + os.read(read, 1 << 16)

    try:
        assert asyncio.run(main()) == DISCOVER + b"\n" + INITIALIZE + b"\nafter the stop\n"
    finally:
        os.close(read)
        os.close(write)


def test_the_end_of_stdin_is_an_empty_chunk() -> None:
    arrivals, read, write = pipe_arrivals()
    os.write(write, b"last\n")
    os.close(write)

    async def main() -> list[bytes | None]:
        return [await arrivals.receive(), await arrivals.receive()]

    try:
        assert asyncio.run(main()) == [b"last\n", b""]
        assert arrivals.stop() == [(arrivals.stop()[0][0], b"last")]
    finally:
        os.close(read)


def test_the_thread_stops_reading_at_its_limit() -> None:
    read, write = os.pipe()
    arrivals = Arrivals(read, limit=10).start()
    try:
        os.write(write, b"0123456789abc\n")
        time.sleep(0.2)
        os.write(write, b"more\n")
        time.sleep(0.1)
        arrivals.stop()

        async def main() -> list[bytes | None]:
            return [await arrivals.receive(), await arrivals.receive()]

        assert asyncio.run(main()) == [b"0123456789abc\n", None]
        assert os.read(read, 100) == b"more\n"
    finally:
        os.close(read)
        os.close(write)


def test_stop_without_start_reads_nothing() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"x\n")
        arrivals = Arrivals(read)
        assert arrivals.stop() == []
        assert asyncio.run(arrivals.receive()) is None
        assert os.read(read, 10) == b"x\n"
    finally:
        os.close(read)
        os.close(write)
