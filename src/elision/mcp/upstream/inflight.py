"""Back-pressure: an upstream is read no further while too many bytes wait to be sent on.

Eight 8 MB answers read at once each held their bytes and the SDK's copies while they waited
for the egress gate (278-306 MB peak, issue 23): reading was never the bound. Here it is. A
message of :data:`LARGE_BYTES` or more read from an upstream (the gate's threshold for a
worker thread: a smaller one never waits there, so it is sent on at once) takes room for its
bytes in the proxy's :class:`ByteRoom` of :data:`INFLIGHT_BYTES` before the session gets it;
until it has room the reader waits, so the session's receive loop reads that upstream's pipe
no further and the server blocks on its own write. An HTTP upstream's body takes room as it is
read (:class:`Reading`), so its connection is read no further instead. The room is given back
when the message is sent on:

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
        #: The HTTP bodies being read into this room with room taken, oldest first, and the
        #: room they took (:class:`Reading`).
        self.reading: deque[Reading] = deque()
        self.partial = 0

    async def enter(self, nbytes: int, *, entered: anyio.Event | None = None) -> None:
        """Wait for room for ``nbytes``, after every one waiting before. ``entered``, if given,
        is the event this waits on, so that :meth:`let_in` can let it in out of its turn."""
        if not self._line and self._fits(nbytes):
            self.take(nbytes)
            return
        place = (nbytes, entered or anyio.Event())
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
        self.unstick()

    def unstick(self) -> None:
        """Let the oldest body being read in, if it waits and bodies being read are all the
        room holds: each would wait for the others (:class:`Reading`)."""
        if self.reading and self.inside <= self.partial:
            waiting = self.reading[0]._waiting
            if waiting is not None:
                self.let_in(waiting)

    def let_in(self, entered: anyio.Event) -> None:
        """Let the one waiting on ``entered`` in now, room or not (a body that must be read on
        for others' room to be given back: :class:`Reading`). Nothing if it waits no more."""
        for place in self._line:
            if place[1] is entered:
                self._line.remove(place)
                self.take(place[0])
                entered.set()
                return

    def _fits(self, nbytes: int) -> bool:
        return self.inside == 0 or self.inside + nbytes <= self.size

    def _admit(self) -> None:
        while self._line and self._fits(self._line[0][0]):
            nbytes, entered = self._line.popleft()
            self.take(nbytes)
            entered.set()


class Reading:
    """One HTTP upstream's response body as it is read, taking room as it grows.

    A body's size is not known before its end (an SSE stream; a JSON body may not say), so its
    bytes take room as they arrive, once the message being read has reached
    :data:`LARGE_BYTES`: the reader waits for room before it reads on, and the server's bytes
    wait on the connection. The room is held while the body is read; at its end it is charged
    to ``held`` (the agent request the body answers: given back as the answer passes the
    gate), or, with no request waiting for it, given back. An SSE stream's events before its
    last (a long call's progress, a server's request) are each a message of its own: told by
    :meth:`event_ended`, their room is given back once the stream is read on past them (the
    answer is the last event: the SDK reads no further), so a stream of small events takes
    none however long it runs, and a stream of large ones holds one at a time.

    Bodies read in part may each hold room and wait for more, none able to end: so the oldest
    of them (``room.reading``) is let in whenever bodies being read are all the room holds, and
    a body whose request holds room already never waits (it would wait for itself: a list
    gathered from several upstreams). Otherwise a body waits as a message does, first come
    first admitted, while answers already read hold the room until they pass the egress gate.
    """

    def __init__(self, room: ByteRoom, held: Held | None) -> None:
        self.room, self.held = room, held
        #: The bytes of the message being read (an SSE stream's: since its last event).
        self.seen = 0
        #: The room this body holds while it is read (``room.partial`` counts it), and of it
        #: the room of events read whole, given back once the stream is read on.
        self.taken = 0
        self._done = 0
        self._waiting: anyio.Event | None = None
        self._lined = False

    async def grew(self, nbytes: int) -> None:
        """``nbytes`` more were read; returns once they have room."""
        if self._done:  # read on past them: they were no answer
            self._give(self._done)
        before, self.seen = self.seen, self.seen + nbytes
        if self.seen < LARGE_BYTES:
            return
        if before < LARGE_BYTES:
            nbytes = self.seen  # the bytes under the threshold take room with the first over it
        room = self.room
        if not self._lined:
            room.reading.append(self)
            self._lined = True
        if self._for_itself() or (room.reading[0] is self and room.inside <= room.partial):
            room.take(nbytes)
        else:
            self._waiting = anyio.Event()
            try:
                await room.enter(nbytes, entered=self._waiting)
            finally:
                self._waiting = None
        self.taken += nbytes
        room.partial += nbytes
        # Its bytes were let in before they were counted as a body's being read: the room
        # may hold nothing else now.
        room.unstick()

    def event_ended(self, rest: int) -> None:
        """An SSE event ended in the piece just read, ``rest`` bytes before the piece's end:
        the events before are read whole."""
        self._done = self.taken
        self.seen = rest

    def _for_itself(self) -> bool:
        return self.held is not None and self.held.total > 0

    def _give(self, nbytes: int) -> None:
        self.taken -= nbytes
        self._done = 0
        self.room.partial -= nbytes
        self.room.leave(nbytes)

    def ended(self) -> None:
        """The body was read to its end, or read no further (closed, failed, cancelled)."""
        if not self._lined:
            return
        self._lined = False
        room, taken = self.room, self.taken
        room.reading.remove(self)
        room.partial -= taken
        self.taken = self._done = 0
        if self.held is None:
            room.leave(taken)  # no one's answer: held only while it was read
        else:
            self.held.charge(room, taken)  # given back as its answer passes the gate
            room.unstick()


class Held:
    """The room one agent request holds for the large upstream answers it got, given back
    once (:meth:`release`); what is charged to it after that is given back at once."""

    def __init__(self) -> None:
        self._charges: list[tuple[ByteRoom, int]] = []
        self._released = False
        #: The bytes it holds.
        self.total = 0

    @property
    def holds(self) -> bool:
        return bool(self._charges)

    def charge(self, room: ByteRoom, nbytes: int) -> None:
        if self._released:
            room.leave(nbytes)
            return
        if self._charges and self._charges[-1][0] is room:  # a body read in pieces: one
            self._charges[-1] = (room, self._charges[-1][1] + nbytes)
        else:
            self._charges.append((room, nbytes))
        self.total += nbytes
        # A body of this request that waits for room now waits for itself: let it in (found
        # by the Hypothesis test: two answers of one request, the second waiting behind the
        # first, which took the room it waited for).
        for reading in room.reading:
            if reading.held is self and reading._waiting is not None:
                room.let_in(reading._waiting)

    def release(self) -> None:
        self._released = True
        self.total = 0
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
