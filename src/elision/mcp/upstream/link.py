"""Whether an upstream's transport failed, known from the transport itself, not from a code.

The MCP SDK turns a closed connection into ``MCPError(-32000, "Connection closed")``, and a
server may answer any request with that same error: -32000 is the first code JSON-RPC leaves
to servers, and the proxy once restarted an upstream that used it, failing every other call
in flight on it (issue 23). So the proxy watches the streams under the session: a
:class:`Link` is marked failed when its read stream ends or breaks, or a write to it breaks.
Only then is an error the end of the session; otherwise it is the server's answer to that
request alone, forwarded as such.

The same streams are where back-pressure lives (:mod:`elision.mcp.upstream.inflight`): the
reader takes room for a large message before the session gets it, and the writer notes which
agent request each request to the server answers to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.client._transport import Transport, TransportStreams
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from elision.mcp.upstream.inflight import LARGE_BYTES, ByteRoom, Held, Holders

# What a stream raises once the other end is gone, and `async with` closing it: the stdio
# transport's own.
from elision.mcp.upstream.stdio import _GONE, MessageReader, _ClosesOnExit


class Link:
    """One session's transport: failed once either direction is gone, for good."""

    def __init__(self, room: ByteRoom | None = None) -> None:
        self.failed = False
        #: The proxy's room for large messages read and not yet sent on, if it bounds them.
        self.room = room
        self.holders = Holders()


class _WatchedReader(MessageReader):
    def __init__(self, inner: ReadStream[SessionMessage | Exception], link: Link) -> None:
        self._inner = inner
        self._link = link
        #: Room held for the last message while the session took it in (no one's answer).
        self._passing = 0

    @property
    def last_context(self) -> Any:
        # The SDK's dispatcher runs each message in its sender's context when there is one.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        room = self._link.room
        if self._passing:
            assert room is not None
            room.leave(self._passing)
            self._passing = 0
        try:
            item = await self._inner.receive()
        except _GONE:
            self._link.failed = True
            raise
        if room is not None and isinstance(item, SessionMessage):
            held = self._link.holders.answered(item.message)
            # Only the stdio reader tells a message's size (an HTTP upstream: not yet).
            size = getattr(self._inner, "last_size", 0)
            if size >= LARGE_BYTES:
                await self._admit(room, held, size)
        return item

    async def _admit(self, room: ByteRoom, held: Held | None, size: int) -> None:
        """Take room for a large message; until there is, this upstream is read no further."""
        if held is not None and held.holds:
            room.take(size)  # its request holds room already: it must not wait for itself
        else:
            await room.enter(size)
        if held is None:
            self._passing = size
        else:
            held.charge(room, size)

    async def aclose(self) -> None:
        self._link.failed = True  # nothing more can arrive on it
        if self._passing and self._link.room is not None:
            self._link.room.leave(self._passing)
            self._passing = 0
        await self._inner.aclose()


class _WatchedWriter(_ClosesOnExit):
    def __init__(self, inner: WriteStream[SessionMessage], link: Link) -> None:
        self._inner = inner
        self._link = link

    async def send(self, item: SessionMessage, /) -> None:
        self._link.holders.written(item.message)
        try:
            await self._inner.send(item)
        except _GONE:
            self._link.failed = True
            raise

    async def aclose(self) -> None:
        self._link.failed = True
        await self._inner.aclose()


@asynccontextmanager
async def watched(transport: Transport, link: Link) -> AsyncIterator[TransportStreams]:
    """``transport``'s streams, marking ``link`` failed when either one is gone."""
    async with transport as (read, write):
        yield _WatchedReader(read, link), _WatchedWriter(write, link)
