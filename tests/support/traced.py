"""Memory as traced allocations (tracemalloc): what a call holds does not depend on the load."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak(call: Callable[[], Any]) -> int:
    """Bytes ``call`` allocated at its peak, beyond what was held before it."""
    return _traced(call)[0]


def held(call: Callable[[], Any]) -> int:
    """Bytes ``call``'s result still holds once it returns, beyond what was held before it."""
    return _traced(call)[1]


def _traced(call: Callable[[], Any]) -> tuple[int, int]:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = call()
        now, most = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return most - before, now - before
