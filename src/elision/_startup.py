"""A short-lived command's set-up, run with the cycle collector paused.

A hook answers one tool call and exits, and most of what it runs is its imports: they make
some 60,000 objects, none of them garbage, yet every 700 set off a collection, and the ones
that survive set off full collections over all of them (about 15 M of the hook's 446 M
instructions, issue 24). What set-up makes lives as long as the process, so after it the
collector is turned back on with those objects frozen out of its sight, as the proxy does
once it is up (:mod:`elision.mcp.serve`): the work itself runs with the collector on, and a
cycle it makes is collected as before.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused_for_set_up() -> Iterator[None]:
    """Pause the collector for the block, then freeze what exists and resume it. Inside an
    outer pause (or with the collector off) it does nothing: the outermost block resumes."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
