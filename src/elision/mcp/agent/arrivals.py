"""The agent's first lines, read from the proxy's first moments, each with when it came.

A client that speaks both protocol eras opens a stdio connection with ``server/discover``
(2026-07-28) and, when no answer comes in time, falls back to ``initialize`` on the same
connection, as the spec's stdio binding asks of it. Copilot CLI 1.0.102 waits 8-11 s and has
no way back: an ``initialize`` refused with -32022 (the SDK's rule once a connection opened in
2026-07-28) leaves it without the server's tools. Claude Code 2.1.332 waits 3 s and, refused,
asks ``server/discover`` again and stays in 2026-07-28, the era it prefers. A proxy that starts
slower than either (issue 24: six harnesses starting on two cores) finds the lines in the pipe
at its first read; only when each came tells the two apart.

So a thread reads stdin from before the proxy's heavy imports until the era is chosen, and
stamps each line with the time it was read (:class:`Arrivals`). An ``initialize`` that came
:data:`FALLBACK_SECONDS` or more after an opening request the proxy had not answered (none is
answered before the era is chosen) is a fallback (:func:`falls_back`), served in the handshake
era. Then the event loop takes what the thread read, and reads the pipe itself: no thread hop
per message after that.

Standard library only: it starts before anything else is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

#: How long after an unanswered opening request an ``initialize`` must come to be a fallback
#: served in the handshake era: past Claude Code's 3 s (it recovers from a refusal and prefers
#: 2026-07-28), under Copilot CLI's 8-11 s (it cannot recover). Times are read times: a thread
#: that starts late on a loaded machine stamps the opening late (the gap seen shrinks by that),
#: one kept off the CPU stamps the initialize late (it grows): 5 s leaves 2-3 s either way.
FALLBACK_SECONDS = 5.0
#: Bytes the thread reads before the loop takes over: past this, it reads no more (the lines
#: after it have no time, and the loop reads them as ever). Requests before an answer are few
#: and small; this bounds what an agent can make the proxy hold early.
HELD_LIMIT = 1 << 20
_CHUNK = 1 << 16

Stamped = tuple[float, bytes]


class Arrivals:
    """stdin, read by a thread until :meth:`stop`: the chunks for the event loop
    (:meth:`receive`), and each whole line with the time it was read (:meth:`stop`)."""

    def __init__(
        self, fd: int = 0, *, limit: int = HELD_LIMIT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._fd = fd
        self._limit = limit
        self._clock = clock
        self._lock = threading.Lock()
        self._chunks: deque[bytes] = deque()
        self._lines: list[Stamped] = []
        self._partial = bytearray()
        self._read = 0
        self._eof = False
        #: The thread reads no more: the loop may read the pipe once the chunks are taken.
        self._done = False
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="elision-arrivals", daemon=True)

    @classmethod
    def of_stdin(cls) -> Arrivals | None:
        """Reading stdin already, when it is a pipe or a socket (an agent's); else None (a
        terminal or a file: nothing races there)."""
        try:
            mode = os.fstat(0).st_mode
        except OSError:
            return None
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return None
        return cls(0).start()

    def start(self) -> Arrivals:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                ready, _, _ = select.select([self._wake_r, self._fd], [], [])
                if self._wake_r in ready:
                    return  # stopped: not one read more, the loop reads from here on
                chunk = os.read(self._fd, _CHUNK)
                at = self._clock()
                with self._lock:
                    if not chunk:
                        self._eof = True
                        return
                    self._chunks.append(chunk)
                    self._stamp(chunk, at)
                    self._read += len(chunk)
                    self._notify()
                    if self._read >= self._limit:
                        return
        except OSError:
            return  # the loop's own read meets the same error and ends the connection
        finally:
            with self._lock:
                self._done = True
                self._notify()

    def _stamp(self, chunk: bytes, at: float) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._partial += chunk[start:end]
            self._lines.append((at, bytes(self._partial)))
            self._partial.clear()
            start = end + 1
        self._partial += chunk[start:]

    def _notify(self) -> None:
        if self._waiter is None:
            return
        loop, future = self._waiter
        self._waiter = None
        with contextlib.suppress(RuntimeError):  # a loop already closed waits for nothing
            loop.call_soon_threadsafe(_wake, future)

    async def receive(self) -> bytes | None:
        """The next chunk the thread read (``b""`` at the end of stdin), or None once it
        reads no more and every chunk was taken: the caller reads stdin itself from then."""
        while True:
            with self._lock:
                if self._chunks:
                    return self._chunks.popleft()
                if self._eof:
                    return b""
                if self._done:
                    return None
                # Imported here: the thread starts before asyncio is (tens of ms on a loaded
                # machine), and the loop that calls this has imported it long since.
                import asyncio

                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                self._waiter = (loop, future)
            await future

    def stop(self) -> list[Stamped]:
        """Stop reading (what was read stays to :meth:`receive`) and give every whole line
        read, with the time it was read, in order."""
        if not self._stopped:
            self._stopped = True
            if self._thread.ident is not None:
                os.write(self._wake_w, b"!")
                self._thread.join()
            else:
                with self._lock:
                    self._done = True
            os.close(self._wake_r)
            os.close(self._wake_w)
        with self._lock:
            return list(self._lines)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def falls_back(lines: Sequence[Stamped], gap: float = FALLBACK_SECONDS) -> bool:
    """Whether the agent fell back to the ``initialize`` handshake: its first request was
    another (``server/discover``, say), and an ``initialize`` came ``gap`` seconds or more
    after it. Lines that are not a request (notifications, answers, anything unparsable)
    decide nothing."""
    opened: float | None = None
    for at, line in lines:
        method = _request_method(line)
        if method is None:
            continue
        if opened is None:
            if method == "initialize":
                return False  # a handshake-era agent: the era is the handshake's anyway
            opened = at
        elif method == "initialize":
            return at - opened >= gap
    return False


def unconfirmed_since(lines: Sequence[Stamped]) -> float | None:
    """When the opening request came, while it is the only request read: the era it opens
    is not confirmed yet, and an ``initialize`` that comes :data:`FALLBACK_SECONDS` or more
    after it, before any other request, is a fallback that crossed the answer (the client
    gave up as the answer was on its way). None once another request was read: the rule of
    :func:`falls_back` has judged it."""
    opened: float | None = None
    for at, line in lines:
        if _request_method(line) is None:
            continue
        if opened is not None:
            return None
        opened = at
    return opened


def _request_method(line: bytes) -> str | None:
    """The method of a JSON-RPC request (one with an ``id``), else None."""
    if b'"method"' not in line:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "id" not in message:
        return None
    method = message.get("method")
    return method if isinstance(method, str) else None
