"""Back-pressure: an upstream is read no further while too many bytes wait to be sent on.

Eight 8 MB answers read at once each held their bytes and the SDK's copies while they waited
for the egress gate (278-306 MB peak, issue 23): reading was never the bound. Here it is. A
message of :data:`LARGE_BYTES` or more read from an upstream (the gate's threshold for a
worker thread: a smaller one never waits there, so it is sent on at once) takes room for its
bytes in the proxy's :class:`ByteRoom` of :data:`INFLIGHT_BYTES` before the session gets it;
until it has room the reader waits, so the session's receive loop reads that upstream's pipe
no further and the server blocks on its own write. Only the stdio reader tells a message's
size: an HTTP upstream is read as before. The room is given back when the message is sent on:

* an answer to an agent's request is charged to that request's :class:`Held` (the request's
  own, in :data:`HELD`; the upstream request it caused is matched by id, :class:`Holders`),
  which lets go once the agent's answer has passed the egress gate, or when the request ends
  any other way (cancelled, failed, its answer withheld): nothing is held past its request;
* anything else (a notification, a server's own request, an answer no one waits for any more)
  is held only while the session takes it in, until its reader is asked for the next message.

No deadlock, by construction: a small message never takes room; a message larger than the
room enters alone, once it is empty; a request that holds room already never waits for more
(a list gathered from several upstreams, a second round of one call), since what it waits
for would be itself. First come, first admitted (:class:`ByteRoom`), so a large message never
starves behind a stream of smaller ones.
"""

from __future__ import annotations

import weakref
from collections import deque
from contextvars import ContextVar
from typing import Any

import anyio

#: The size from which a message read from an upstream takes room: the gate's threshold for a
#: worker thread (``OFF_LOOP_BYTES`` is this), since a smaller one never waits at the gate.
LARGE_BYTES = 64 * 1024
#: How many bytes of large messages may be read from the upstreams and not yet sent on, all
#: upstreams together: twice the gate's room (``GATE_BYTES_AT_ONCE``), so the gate always has
#: the next message ready while one is gated. One message larger than this passes alone.
INFLIGHT_BYTES = 16 * 1024 * 1024


class ByteRoom:
    """Room for ``size`` bytes, handed out in the order asked for: a message enters when its
    bytes fit beside those inside (or nothing is inside), and none passes one waiting before
    it. ``peak`` is the most bytes ever inside at once. Used from one event loop only."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.inside = 0
        self.peak = 0
        self._line: deque[tuple[int, anyio.Event]] = deque()

    async def enter(self, nbytes: int) -> None:
        if not self._line and self._fits(nbytes):
            self.take(nbytes)
            return
        place = (nbytes, anyio.Event())
        self._line.append(place)
        try:
            await place[1].wait()
        except BaseException:
            if place[1].is_set():  # let in as it was cancelled: give the room back
                self.leave(nbytes)
            else:
                self._line.remove(place)
                self._admit()  # the ones behind it may fit now
            raise

    def take(self, nbytes: int) -> None:
        """Enter without waiting (one that holds room already must not wait for itself)."""
        self.inside += nbytes
        self.peak = max(self.peak, self.inside)

    def leave(self, nbytes: int) -> None:
        self.inside -= nbytes
        self._admit()

    def _fits(self, nbytes: int) -> bool:
        return self.inside == 0 or self.inside + nbytes <= self.size

    def _admit(self) -> None:
        while self._line and self._fits(self._line[0][0]):
            nbytes, entered = self._line.popleft()
            self.take(nbytes)
            entered.set()


class Held:
    """The room one agent request holds for the large upstream answers it got, given back
    once (:meth:`release`); what is charged to it after that is given back at once."""

    def __init__(self) -> None:
        self._charges: list[tuple[ByteRoom, int]] = []
        self._released = False

    @property
    def holds(self) -> bool:
        return bool(self._charges)

    def charge(self, room: ByteRoom, nbytes: int) -> None:
        if self._released:
            room.leave(nbytes)
        else:
            self._charges.append((room, nbytes))

    def release(self) -> None:
        self._released = True
        charges, self._charges = self._charges, []
        for room, nbytes in charges:
            room.leave(nbytes)


#: The :class:`Held` of the agent request the current task serves, if any: set where a request
#: comes in (an HTTP response, ``gated_app``; a stdio request, the proxy's middleware), seen
#: where the request it causes is written to an upstream.
HELD: ContextVar[Held | None] = ContextVar("elision_held", default=None)


def release_held() -> None:
    """Give back the room of the current task's request: its answer was sent on."""
    held = HELD.get()
    if held is not None:
        held.release()


class Holders:
    """Which :class:`Held` each request written to one upstream session answers to, by id.
    Weak: a request that is never answered (a timeout) leaves nothing behind."""

    def __init__(self) -> None:
        self._by_id: weakref.WeakValueDictionary[Any, Held] = weakref.WeakValueDictionary()

    def written(self, message: Any) -> None:
        """Note ``message`` (a JSON-RPC message on its way to the upstream)."""
        held = HELD.get()
        if held is not None and type(message).__name__ == "JSONRPCRequest":
            self._by_id[_key(message.id)] = held

    def answered(self, message: Any) -> Held | None:
        """The :class:`Held` the answer ``message`` is for, if it is one somebody waits for."""
        if type(message).__name__ not in ("JSONRPCResponse", "JSONRPCError"):
            return None
        return self._by_id.pop(_key(message.id), None)


def _key(request_id: Any) -> Any:
    # The SDK matches "7" and 7 alike (coerce_request_id); so does this.
    return str(request_id) if isinstance(request_id, int) else request_id
