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


def counted_calls(monkeypatch: Any, owner: Any, name: str) -> list[int]:
    """A counter (``[n]``) of the calls of ``owner.name``, wrapped for the rest of the test (a
    method of a class counts the calls on every instance)."""
    count = [0]
    wrapped = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return wrapped(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return count
