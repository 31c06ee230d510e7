"""How many Python calls a redaction makes: a bounded-work test counts them instead of a clock
(a count does not move with the machine's load)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

from elision.redact import Redaction, redact_text

T = TypeVar("T")


def redaction_calls(text: str) -> tuple[int, Redaction]:
    """The Python function calls ``redact_text(text)`` makes, and what it returns."""
    return python_calls(lambda: redact_text(text))


def python_calls(run: Callable[[], T]) -> tuple[int, T]:
    """The Python function calls ``run()`` makes, and what it returns."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        done = run()
    finally:
        sys.setprofile(None)
    return calls, done


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
    lines = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def start(frame: Any, event: str, arg: Any) -> Any:
        return local

    sys.settrace(start)
    try:
        done = run()
    finally:
        sys.settrace(None)
    return lines, done
