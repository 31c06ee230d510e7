"""End to end: the proxy reads an HTTP upstream's answers no further while they wait to be sent on.

The stdio reader took room for a large line before the session got it (test_mcp_inflight_e2e);
an HTTP upstream was read as before, each answer parsed whole in a task of the SDK's while it
waited for the egress gate, so many large answers at once were all held (design.md: "Not yet:
an HTTP upstream's messages take no room"). Here an answer's body takes room as it is read
(elision.mcp.upstream.inflight.Reading, through httpbound.room_hook). As in the stdio file, the
gate is held shut, the room set small, and what is in flight is counted from outside the
mechanism: large messages the SDK's HTTP client parsed, less large messages out of the gate.
The proxy runs in this process; the upstream is a real HTTP server in a process of its own
(inflight_http_server), answering with a JSON body with and without a length, or with SSE.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import anyio
import mcp.client.streamable_http as sdk_http
import pytest

from elision.mcp.proxy import Proxy
from elision.mcp.upstream.config import ServerSpec
from mcp import Client
from support.inflight import Completions, Count, serving, until, whole
from support.ports import free_port

try:
    from elision.mcp.upstream import inflight
except ImportError:  # the code before: no bound to set
    inflight = None  # type: ignore[assignment]

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).parent / "inflight_http_server.py"
ROOM = 250_000
SIZE = 100_000
HOWS = ["json", "chunked", "sse"]


#: The upstreams whose answers the count is of.
UPSTREAMS: set[str] = set()
#: The URL of the server a task of the SDK's HTTP client posted to: the upstream's answers are
#: counted, not the proxy's own answers to the test's client (the same SDK reads both).
POSTED_TO: ContextVar[str | None] = ContextVar("posted_to", default=None)


class _CountingAdapter:
    def __init__(self, inner: Any, count: Count) -> None:
        self._inner, self._count = inner, count

    def validate_json(self, data: Any, **kwargs: Any) -> Any:
        if POSTED_TO.get() in UPSTREAMS:
            self._count.parsed(len(data))
        return self._inner.validate_json(data, **kwargs)


@pytest.fixture
def count(monkeypatch: pytest.MonkeyPatch) -> Count:
    counted = Count()
    post = sdk_http.StreamableHTTPTransport._handle_post_request

    async def posting(self: Any, ctx: Any) -> None:
        POSTED_TO.set(self.url)
        await post(self, ctx)

    monkeypatch.setattr(sdk_http.StreamableHTTPTransport, "_handle_post_request", posting)
    monkeypatch.setattr(sdk_http, "jsonrpc_message_adapter",
                        _CountingAdapter(sdk_http.jsonrpc_message_adapter, counted))
    counted.shut_gate(monkeypatch)
    if inflight is not None:
        monkeypatch.setattr(inflight, "INFLIGHT_BYTES", ROOM)
    return counted


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    """One inflight_http_server for the module (each request is answered on its own)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), str(port)],
                               stdout=subprocess.PIPE, cwd=SERVER.parent)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, "the HTTP upstream did not start"
                assert time.monotonic() < deadline, "the HTTP upstream never listened"
                time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(10)
        assert process.stdout is not None
        process.stdout.close()


def proxy_on_http(*urls: str) -> AbstractAsyncContextManager[tuple[str, Proxy]]:
    """A proxy in this process in front of the HTTP upstreams at ``urls``; its own URL."""
    return serving([ServerSpec(f"u{n}", url=url, timeout=60) for n, url in enumerate(urls)])


@pytest.mark.parametrize("how", HOWS)
def test_many_large_answers_at_once_hold_at_most_the_room(
    count: Count, upstream: str, how: str
) -> None:
    """Six answers of 100 KB at once, the gate shut: at most the room's 250 KB (two) and the
    one the reader holds waiting for room are parsed; before, all six were. (Bodies read in
    part hold room too: with SSE, often one answer is parsed and two are part-read.)"""

    async def main() -> None:
        UPSTREAMS.add(upstream)
        async with proxy_on_http(upstream) as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, f"{SIZE}/{how}", 6)
                    await until(lambda: count.read >= 1, "the first answer read")
                    await anyio.sleep(0.5)  # time to read on, had nothing stopped it
                    held = count.in_flight
                    count.open.set()
            assert held * SIZE <= ROOM + SIZE, f"{held} answers of {SIZE:,} B were in flight"
            assert count.most * SIZE <= ROOM + SIZE
            assert len(calls.values) == 6 and all(whole(v, SIZE) for v in calls.values)
            assert len({v[:12] for v in calls.values}) == 6  # each its own answer
            assert proxy.inflight.inside == 0 and proxy.inflight.partial == 0

    anyio.run(main)


def test_while_the_room_is_full_a_small_call_to_the_same_upstream_is_answered(
    count: Count, upstream: str
) -> None:
    """Each HTTP answer has a connection of its own: the room full of one client's answers, a
    small call to the same upstream from another client is answered at once."""

    async def main() -> None:
        UPSTREAMS.add(upstream)
        async with proxy_on_http(upstream) as (url, _), Client(url) as big, \
                Client(url) as other:
            calls = Completions(big, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, f"{SIZE}/sse", 5)
                    await until(lambda: count.read >= 1, "an answer read")
                    with anyio.fail_after(5):
                        result = await other.call_tool("small", {"n": 7})
                    assert result.content[0].text == "small 7"  # type: ignore[union-attr]
                    assert not calls.values  # answered while the room was full
                    count.open.set()
            assert len(calls.values) == 5 and all(whole(v, SIZE) for v in calls.values)

    anyio.run(main)


@pytest.mark.parametrize("how", ["json", "sse"])
def test_an_answer_larger_than_the_room_goes_through_alone(
    count: Count, upstream: str, how: str
) -> None:
    """Two answers of 400 KB, each over the 250 KB room: both arrive whole, one at a time."""
    count.open.set()

    async def main() -> None:
        async with proxy_on_http(upstream) as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, f"400000/{how}", 2)
            assert len(calls.values) == 2 and all(whole(v, 400_000) for v in calls.values)
            assert 400_000 < proxy.inflight.peak < 2 * 400_000  # alone
            assert (proxy.inflight.inside, proxy.inflight.partial) == (0, 0)

    anyio.run(main)


def test_a_cancelled_call_gives_its_room_back(count: Count, upstream: str) -> None:
    """A call cancelled while its answer waits at the shut gate gives its room back, and so do
    the bodies waiting behind it for room, cancelled with it."""

    async def main() -> None:
        UPSTREAMS.add(upstream)
        async with proxy_on_http(upstream) as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                with anyio.CancelScope() as waiting:
                    async with anyio.create_task_group() as tg:
                        calls.start(tg, f"{SIZE}/chunked", 4)
                        await until(lambda: count.read >= 1, "an answer read")
                        waiting.cancel()
                await until(lambda: proxy.inflight.inside == 0, "its room given back", 10)
                count.open.set()
                assert whole(await calls.one(f"{SIZE}/sse"), SIZE)  # and it reads on
            assert (proxy.inflight.inside, proxy.inflight.partial) == (0, 0)
            assert not proxy.inflight.reading

    anyio.run(main)


def test_notifications_and_pings_on_an_answers_stream_deadlock_nothing(
    count: Count, upstream: str
) -> None:
    """Each answer's SSE stream carries a log notification and a ping before it, all waiting
    for room at once: every answer arrives whole and the room empties."""

    async def main() -> None:
        UPSTREAMS.add(upstream)
        async with proxy_on_http(upstream) as (url, proxy), Client(url) as client:
            calls = Completions(client, "brief")
            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    calls.start(tg, f"{SIZE}:notify/sse", 5)
                    await until(lambda: count.read >= 1, "an answer read")
                    await anyio.sleep(0.2)
                    count.open.set()
            assert len(calls.values) == 5 and all(whole(v, SIZE) for v in calls.values)
            assert (proxy.inflight.inside, proxy.inflight.partial) == (0, 0)

    anyio.run(main)
