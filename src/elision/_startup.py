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
import importlib.util
import sys
import threading
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


#: Held while a deferred package's ``__init__`` runs: another thread reading a name from it
#: waits for it whole, as an ``import`` of a package being made waits for it.
_INIT_LOCK = threading.RLock()
#: The deferred packages whose ``__init__`` is running (in the thread that holds the lock).
_RUNNING: set[str] = set()


class _DeferredInit(types.ModuleType):
    """A package in ``sys.modules`` whose ``__init__`` has not run: its ``__path__`` is set, so
    its submodules import as ever; the first read of a name it lacks runs the ``__init__``
    into it (the same module object), and from then on it is a plain module."""

    def __getattr__(self, name: str) -> object:
        with _INIT_LOCK:
            if type(self) is _DeferredInit:
                if self.__name__ in _RUNNING:
                    # The __init__ reading a name it has yet to bind (``from . import sub``
                    # asks first): what a half-made module answers.
                    raise AttributeError(
                        f"partially initialized module {self.__name__!r} has no attribute "
                        f"{name!r}"
                    )
                self._run_init()
        return getattr(self, name)

    def _run_init(self) -> None:
        spec = self.__spec__
        assert spec is not None and spec.loader is not None
        _RUNNING.add(self.__name__)
        try:
            spec.loader.exec_module(self)
        except BaseException:
            # As a failed import leaves it: gone, for the next import to try again.
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            raise
        finally:
            _RUNNING.discard(self.__name__)
            self.__class__ = types.ModuleType


def defer_package_init(name: str) -> None:
    """Put the top-level package ``name`` in ``sys.modules`` without running its ``__init__``
    until a name is read from it.

    For the proxy's set-up (issue 24): ``import mcp.server.lowlevel`` runs the MCP SDK's
    ``mcp/__init__``, which imports the client's session groups and SSE transport, and the
    ``mcp.types`` aliases, for nothing the proxy uses (~6% of its start, callgrind). A
    submodule import still works; ``from mcp import Client`` or ``mcp.Client`` runs the
    ``__init__`` then and answers as before. Nothing happens when ``name`` is loaded already,
    is not a top-level package, or is not installed. For a package whose ``__init__`` binds no
    submodule's name to anything but that submodule (the SDK's binds ``types`` to itself): a
    submodule imported first would read as itself, not as the ``__init__``'s binding, until
    the ``__init__`` runs.
    """
    if name in sys.modules or "." in name:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _DeferredInit
    sys.modules[name] = module
