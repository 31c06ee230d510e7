"""Memory as traced allocations (tracemalloc): what a call holds does not depend on the load."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak(call: Callable[[], Any]) -> int:
    """Bytes ``call`` allocated at its peak, beyond what was held before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = call()
        most = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return most
