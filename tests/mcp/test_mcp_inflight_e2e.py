"""End to end: the proxy reads an upstream no further while its large messages wait to be sent on.

Found by measuring (issue 23, bench/proxy.py --beside-big 1 --at-once 8): eight 8 MB answers
at once peaked at 278-306 MB, because each one read from the upstream held its bytes and the
SDK's copies while it waited for the egress gate, which gates 8 MiB at a time; nothing bounded
how many were read. Here the gate is held shut (every large message waits at it until a test
opens it), the room for messages in flight is set small, and what is in flight is counted
from outside the mechanism: lines of 64 KiB or more parsed from the upstream, less large
messages that came out of the gate. The proxy runs in this process (so it can be counted and
its gate held), on HTTP, with a real upstream process and the official client.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.mcp.proxy import Proxy
from elision.mcp.upstream import stdio
from elision.mcp.upstream.config import ServerSpec
from mcp import Client, StdioServerParameters
from support.inflight import Completions, Count, serving, until, whole

try:
    from elision.mcp.upstream import inflight
except ImportError:  # the code before: no bound to set
    inflight = None  # type: ignore[assignment]

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).parent / "inflight_server.py"
#: The room for messages in flight in these tests, and the size of each large answer: two fit.
ROOM = 250_000
SIZE = 100_000


@pytest.fixture
def count(monkeypatch: pytest.MonkeyPatch) -> Count:
    counted = Count()
    parse = stdio._parse

    def parsed(line: bytes | bytearray) -> Any:
        counted.parsed(len(line))
        return parse(line)

    monkeypatch.setattr(stdio, "_parse", parsed)
    counted.shut_gate(monkeypatch)
    if inflight is not None:
        monkeypatch.setattr(inflight, "INFLIGHT_BYTES", ROOM)
    return counted


@asynccontextmanager
async def proxy_on_http(*names: str, env: dict[str, str] | None = None,
                        ) -> AsyncIterator[tuple[str, Proxy]]:
    """A proxy in this process in front of one inflight_server per name; its URL."""
    specs = [ServerSpec(name, command=sys.executable, args=(str(SERVER),), timeout=60,
                        env=env) for name in names]
    async with serving(specs) as served:
        yield served


def test_many_large_answers_at_once_hold_at_most_the_room(count: Count) -> None:
    """Six answers of 100 KB at once, the gate shut: at most the room's 250 KB (two) and the
    one the reader holds waiting for room are in flight; before, all six were read."""

    async def main() -> None:
        async with proxy_on_http("a") as (url, _), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, str(SIZE), 6)
                    await until(lambda: count.read >= 3, "the first answers read")
                    await anyio.sleep(0.3)  # time to read on, had nothing stopped it
                    held = count.in_flight
                    count.open.set()
            assert held * SIZE <= ROOM + SIZE, f"{held} answers of {SIZE:,} B were in flight"
            assert count.most * SIZE <= ROOM + SIZE
            assert len(calls.values) == 6 and all(whole(v, SIZE) for v in calls.values)
            assert len({v[:12] for v in calls.values}) == 6  # each its own answer

    anyio.run(main)


def test_while_the_room_is_full_another_clients_call_is_answered(count: Count) -> None:
    """The room full and upstream ``a`` read no further: another client's call to ``b`` is
    answered at once, and ``a``'s answers all arrive once the gate opens."""

    async def main() -> None:
        async with proxy_on_http("a", "b") as (url, _), Client(url) as big, \
                Client(url) as other:
            prompts = [p.name for p in (await big.list_prompts()).prompts]
            prompt = next(p for p in prompts if p.startswith("a"))
            calls = Completions(big, prompt)
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, str(SIZE), 5)
                    await until(lambda: count.read >= 3, "the room full")
                    tools = [t.name for t in (await other.list_tools()).tools]
                    small = next(t for t in tools if t.startswith("b") and "small" in t)
                    with anyio.fail_after(5):
                        result = await other.call_tool(small, {"n": 7})
                    block = result.content[0]
                    assert isinstance(block, types.TextContent) and block.text == "small 7"
                    assert not calls.values  # it was answered while the room was full
                    count.open.set()
            assert len(calls.values) == 5 and all(whole(v, SIZE) for v in calls.values)

    anyio.run(main)


def test_a_message_larger_than_the_room_goes_through_alone(count: Count) -> None:
    """Two answers of 400 KB, each over the 250 KB room: each passes, one at a time."""
    count.open.set()

    async def main() -> None:
        async with proxy_on_http("a") as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, "400000", 2)
            assert len(calls.values) == 2 and all(whole(v, 400_000) for v in calls.values)
            assert 400_000 < proxy.inflight.peak < 2 * 400_000  # alone
            assert proxy.inflight.inside == 0

    anyio.run(main)


def test_a_cancelled_request_gives_its_room_back(count: Count, tmp_path: Path) -> None:
    """A call cancelled by its client while its answer waits at the gate gives its room back
    at once; so does one cancelled before its answer came, which is then read and dropped."""

    async def main() -> None:
        holding = tmp_path / "holding"
        async with proxy_on_http("a", env={"INFLIGHT_HOLDING": str(holding)}) as (url, proxy), \
                Client(url) as client, Client(url) as other:
            complete = Completions(client, "brief").one
            with anyio.fail_after(60):
                with anyio.CancelScope() as waiting:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(complete, str(SIZE))
                        await until(lambda: proxy.inflight.inside > 0, "its answer read")
                        waiting.cancel()
                await until(lambda: proxy.inflight.inside == 0, "its room given back", 10)
                with anyio.CancelScope() as waiting:
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(complete, f"{SIZE}:hold")
                        await until(holding.exists, "the upstream holding its answer")
                        waiting.cancel()
                count.open.set()
                await other.call_tool("small", {"n": 1})  # the held answer is written now
                await until(lambda: proxy.inflight.inside == 0, "the late answer let go", 10)
                assert whole(await complete(str(SIZE)), SIZE)  # and the upstream reads on
                assert proxy.inflight.inside == 0

    anyio.run(main)


@pytest.mark.parametrize("hows", [
    # every answer with a log notification and a ping before it
    ["notify"] * 5,
    # the notifications amid answers that come without
    ["", "notify", "", "notify", ""],
])
def test_notifications_and_pings_while_answers_wait_deadlock_nothing(
    count: Count, hows: list[str]
) -> None:
    """The upstream sends a log notification and a ping before answers that wait for room:
    every answer arrives whole, the room empties, and nothing waits for ever."""

    async def main() -> None:
        async with proxy_on_http("a") as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for how in hows:
                        calls.start(tg, f"{SIZE}:{how}" if how else str(SIZE))
                    await until(lambda: count.read >= 3, "the room full")
                    await anyio.sleep(0.2)
                    count.open.set()
            assert len(calls.values) == len(hows) and all(whole(v, SIZE) for v in calls.values)
            assert proxy.inflight.inside == 0

    anyio.run(main)


def test_a_stdio_proxy_gives_each_answers_room_back() -> None:
    """On stdio a request's room is given back where its answer is written (the proxy's
    own line writer): 17.6 MB of answers, 8 at a time, pass a room of 16 MiB. Were each
    request's room kept, the proxy would read its upstream no further after about 83 of the
    88 answers, and hang: so it did when that release was taken out (a mutation)."""
    proxy = StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", "--no-store", "--no-audit",
        "--", sys.executable, str(SERVER)])
    assert inflight is not None and inflight.INFLIGHT_BYTES < 88 * 200_000

    async def main() -> None:
        async with Client(proxy) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                for _ in range(11):
                    async with anyio.create_task_group() as tg:
                        calls.start(tg, "200000", 8)
            assert len(calls.values) == 88 and all(whole(v, 200_000) for v in calls.values)

    anyio.run(main)
