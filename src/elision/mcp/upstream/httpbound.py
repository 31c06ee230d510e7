"""The message ceiling for an HTTP upstream that answers a call with one JSON body.

A streamable-HTTP server answers a request with an SSE event (the SDK caps one at
``max_sse_event_size``) or with one ``application/json`` body, which the SDK reads whole
(``response.aread()``) before the proxy sees a byte of it. This hook, run by httpx2 on each
response before its body is read, puts the proxy's ``--max-message-bytes`` on such a body: one
whose ``Content-Length`` is over the ceiling is dropped unread, and one sent without a length
is counted as it streams in and dropped at the ceiling; a compressed one is counted again as it
is inflated. Either way the SDK's JSON reader gets a
``httpx2.StreamError``, which it turns into a JSON-RPC error for that request alone; the
session, and every other client's call on it, go on. :func:`refusal_in` finds the refusal in
that error so the proxy can name the size, the ceiling and the flag, as it does for stdio.

A hook rather than a transport of the proxy's own: an ``httpx2.AsyncClient`` given a transport
no longer reads ``HTTPS_PROXY`` and the rest from the environment.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from elision.mcp.upstream.inflight import HELD, ByteRoom, Reading

_FLAG = "(--max-message-bytes)"
#: How every refusal of this module opens: what :func:`refusal_in` looks for.
_OPENING = "a message of "


class MessageOverCeiling(httpx2.StreamError):
    """A JSON body over the message ceiling; its text is what the agent is told."""


@asynccontextmanager
async def http_transport(
    url: str, limit: int | None, room: ByteRoom | None = None
) -> AsyncIterator[TransportStreams]:
    """The SDK's streamable-HTTP transport to ``url``, every message held to ``limit`` bytes
    (SSE events by the SDK's cap, JSON bodies by :func:`ceiling_hook`); ``None``: unbounded.
    With a ``room``, each answer's body takes room in it as it is read (:func:`room_hook`)."""
    client = create_mcp_http_client()
    hooks = [] if limit is None else [ceiling_hook(limit)]
    if room is not None:
        hooks.append(room_hook(room))
    if hooks:
        client.event_hooks = {"request": [], "response": hooks}
    # The SDK closes only a client it made itself: this one is closed after its session.
    async with client, streamable_http_client(
        url, http_client=client, max_sse_event_size=limit
    ) as streams:
        yield streams


def ceiling_hook(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx2 response hook that holds ``application/json`` bodies to ``limit`` bytes."""

    async def hook(response: httpx2.Response) -> None:
        kind = response.headers.get("content-type", "").lower()
        if not kind.startswith("application/json"):
            return  # SSE events have the SDK's own cap; other bodies are not messages
        declared = _length(response.headers.get("content-length"))
        response.stream = _Counted(response.stream, limit, declared)
        encodings = response.headers.get_list("content-encoding", split_commas=True)
        if any(value.strip().lower() not in ("", "identity") for value in encodings):
            # The count above is of the bytes on the wire: a few KB of gzip may inflate to
            # any size. httpx2 inflates in pieces of at most 1 MiB; those are counted too.
            _count_inflated(response, limit)

    return hook


def room_hook(room: ByteRoom) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx2 response hook by which an answer's body takes room in ``room`` as it is read
    (back-pressure, :class:`elision.mcp.upstream.inflight.Reading`): past the room the body is
    read no further until an answer before it has passed the egress gate, so the server's bytes
    wait on the connection, not in the proxy. Run in the task that posted the request, which
    the SDK runs in its sender's context: :data:`HELD` there is the agent request it serves.
    The GET stream (the server's own messages, open for the session) takes none."""

    async def hook(response: httpx2.Response) -> None:
        if response.request.method != "POST":
            return
        events = response.headers.get("content-type", "").lower().startswith(
            "text/event-stream")
        response.stream = _Roomed(response.stream, Reading(room, HELD.get()), events)

    return hook


def _count_inflated(response: httpx2.Response, limit: int) -> None:
    inflate = response.aiter_bytes

    async def counted(chunk_size: int | None = None) -> AsyncGenerator[bytes, None]:
        seen = 0
        async for part in inflate(chunk_size):
            seen += len(part)
            if seen > limit:
                await response.aclose()
                raise MessageOverCeiling(refusal(seen, limit, whole=False))
            yield part

    # aread() reads through the instance's aiter_bytes: this one stops at the ceiling.
    response.aiter_bytes = counted  # type: ignore[method-assign]


def refusal(size: int, limit: int, *, whole: bool) -> str:
    """The words for a body of ``size`` bytes (at least, unless ``whole``) over ``limit``."""
    many = f"{size:,} bytes" if whole else f"more than {limit:,} bytes"
    how = "dropped unread" if whole else f"dropped once {size:,} bytes had arrived"
    return (
        f"{_OPENING}{many}, over the proxy's {limit:,}-byte ceiling {_FLAG}; it was {how}, "
        "so nothing of it reached the agent. Ask the tool for less (a filter, a smaller "
        "page), or raise --max-message-bytes"
    )


def refusal_in(message: str) -> str | None:
    """The refusal quoted in the SDK's error for a JSON body it could not read, if any."""
    start = message.find(_OPENING)
    if start < 0 or _FLAG not in message[start:]:
        return None
    return message[start:]


def _length(value: str | None) -> int | None:
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


class _Counted(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int, declared: int | None) -> None:
        self.inner, self.limit, self.declared = inner, limit, declared

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.declared is not None and self.declared > self.limit:
            await self.aclose()
            raise MessageOverCeiling(refusal(self.declared, self.limit, whole=True))
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                await self.aclose()
                raise MessageOverCeiling(refusal(seen, self.limit, whole=False))
            yield chunk

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


#: What ends an SSE event: a blank line, in any of the three line ends.
_EVENT_ENDS = (b"\n\n", b"\r\r", b"\r\n\r\n")


class _Roomed(httpx2.AsyncByteStream):
    """A body whose bytes take room as they are read: the next piece is not read until this
    one has room. An SSE stream's (``events``) ends of events are told as they are read."""

    def __init__(self, inner: Any, reading: Reading, events: bool = False) -> None:
        self.inner, self.reading, self.events = inner, reading, events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        tail = b""  # an event's end may be split between two pieces
        try:
            async for chunk in self.inner:
                await self.reading.grew(len(chunk))
                if self.events:
                    data = tail + chunk
                    end = max(data.rfind(sep) + len(sep) if sep in data else 0
                              for sep in _EVENT_ENDS)
                    if end > len(tail):
                        self.reading.event_ended(len(data) - end)
                    tail = data[-3:]
                yield chunk
        finally:
            self.reading.ended()

    async def aclose(self) -> None:
        self.reading.ended()
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
