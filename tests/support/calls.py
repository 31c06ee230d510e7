"""How many Python calls a redaction makes: a bounded-work test counts them instead of a clock
(a count does not move with the machine's load)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from elision.redact import Redaction, redact_text

T = TypeVar("T")


def redaction_calls(text: str) -> tuple[int, Redaction]:
    """The Python function calls ``redact_text(text)`` makes, and what it returns."""
    return python_calls(lambda: redact_text(text))


def python_calls(run: Callable[[], T]) -> tuple[int, T]:
    """The Python function calls ``run()`` makes, and what it returns."""
    return _events(run, "call", sys.setprofile)


def _events(run: Callable[[], T], event: str, hook: Callable[[Any], object]) -> tuple[int, T]:
    seen = 0

    def count(frame: Any, kind: str, arg: Any) -> Any:
        nonlocal seen
        if kind == event:
            seen += 1
        return count  # as a tracer's: the frame's own events come here too

    hook(count)
    try:
        done = run()
    finally:
        hook(None)
    return seen, done


def window_searches(monkeypatch: Any, module: Any) -> list[int]:
    """The chars each search of ``module.B64_WINDOW`` (the base64 windows' regex) reads, from
    its ``pos`` on, in the order they are asked: the regex is wrapped for the rest of the test,
    its ``pattern`` kept (``scan._window_local`` reads it)."""
    searched: list[int] = []
    window = module.B64_WINDOW

    class Counted:
        pattern = window.pattern

        def search(self, text: str, *args: Any) -> Any:
            searched.append(len(text) - (args[0] if args else 0))
            return window.search(text, *args)

    monkeypatch.setattr(module, "B64_WINDOW", Counted())
    return searched


def python_lines(run: Callable[[], T]) -> tuple[int, T]:
    """The Python lines ``run()`` executes, and what it returns: a loop inside one call, which
    :func:`python_calls` cannot see, counted a step at a time."""
    return _events(run, "line", sys.settrace)


def counted(mp: Any, owner: Any, name: str) -> list[Any]:
    """The first argument of each call of ``owner.name`` for the rest of ``mp``'s context
    (the function is wrapped; what it returns is unchanged)."""
    real = getattr(owner, name)
    calls: list[Any] = []

    def counting(first: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(first)
        return real(first, *args, **kwargs)

    mp.setattr(owner, name, counting)
    return calls


def builtin_calls(run: Callable[[], T]) -> tuple[Counter[str], T]:
    """The calls of builtins (``isinstance``, ``str.join``, …) made from Python code as
    ``run()`` runs, by name; a builtin that C code calls (``map(isinstance, …)``) is one call
    of ``map``."""
    seen: Counter[str] = Counter()

    def count(frame: Any, kind: str, arg: Any) -> None:
        if kind == "c_call":
            seen[getattr(arg, "__qualname__", repr(arg))] += 1

    sys.setprofile(count)
    try:
        done = run()
    finally:
        sys.setprofile(None)
    return seen, done
