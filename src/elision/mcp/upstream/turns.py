"""A stream's messages one at a time, in the order they came, where one may wait on its way.

The proxy's egress gate governs a large message on a worker thread (elision.mcp.gate.egress),
so its sender waits, and a later message to the same client must not overtake it meanwhile.
A fair lock keeps the order; a small message while none waits takes no turn at all: it never
waits on its way, so nothing can come between it and its send, and the lock's cost (~5 µs,
most of a small HTTP response's in the gate's transport) is not paid for it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio


class Turn:
    """One message at a time, in order, for messages of ``waits_from`` bytes or more (which
    may wait on their way) and whatever comes while one is on its way; ``0``: every one."""

    def __init__(self, waits_from: int = 0) -> None:
        self._waits_from = waits_from
        self._lock: anyio.Lock | None = None  # made when first needed

    async def run(self, size: int, work: Callable[..., Awaitable[None]], *args: Any) -> None:
        """``work(*args)`` for a message of ``size`` bytes, in its turn."""
        if size < self._waits_from and (self._lock is None or not self._lock.locked()):
            await work(*args)
            return
        if self._lock is None:
            self._lock = anyio.Lock(fast_acquire=True)
        async with self._lock:
            await work(*args)
