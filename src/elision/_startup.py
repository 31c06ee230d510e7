"""Pausing the cycle collector: while a large value is built, and for a short-lived
command's set-up.

A hook answers one tool call and exits, and most of what it runs is its imports: they make
some 20,000 lasting objects and next to no garbage, yet every 700 allocations set off a
collection, and the survivors set off older-generation ones over them (about 30 M of the
hook's 446 M instructions, callgrind, issue 24). What set-up makes lives as long as the
process, so after it the collector is turned back on with those objects frozen out of its
sight, as the proxy does once it is up (:mod:`elision.mcp.serve`): the work itself runs with
the collector on, and a cycle it makes is collected as before.
"""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager


@contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """Pause the cycle collector for the block: while a large value is built (a parse), or
    with ``freeze``, while a short-lived command sets up.

    A parse makes one container per JSON object and array; none of them is garbage while it
    runs, nor part of a cycle, yet every few hundred set off a collection, and the many that
    survive set off full ones over every object the process holds. On a 300 KB document that
    is most of the parse (7 ms with collections, 2.5 ms without, and a full one now and then
    takes 100 ms). With ``freeze``, what exists is frozen out of the collector's sight before
    it resumes. Collection is resumed, never turned on if it was off (an outer pause resumes
    it); the switch is the process's, so a ``gc.disable()`` another thread makes during the
    pause is undone by it.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        gc.enable()


def collector_paused_for_set_up() -> AbstractContextManager[None]:
    """:func:`collector_paused` with ``freeze``: what set-up makes lives as long as the
    process."""
    return collector_paused(freeze=True)


class _Deferred(types.ModuleType):
    """A module's stand-in in ``sys.modules``: the first attribute read imports the module,
    takes its place there and copies its namespace in, so a holder of the stand-in sees it
    whole from then on."""

    def __getattr__(self, name: str) -> object:
        import importlib

        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


def defer_import(name: str) -> None:
    """Hold ``name`` in ``sys.modules`` by a stand-in that imports it on first use.

    For the executable's set-up only (issue 24): orjson imports ``dataclasses`` as it loads,
    which imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``, whose regexes are
    compiled as it loads) for one call made while a dataclass is built; a hook builds none.
    That chain was 20.6 M of the hook's 326.4 M instructions (callgrind). An ``import`` of the
    name binds the stand-in; reading anything from it (``inspect.signature``) loads the module.
    """
    if name not in sys.modules:
        stand_in = _Deferred(name)
        stand_in.__spec__ = None  # what ``import`` reads of a module in sys.modules
        sys.modules[name] = stand_in
