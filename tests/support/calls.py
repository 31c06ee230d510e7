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
