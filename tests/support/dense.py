"""Texts over the density bound's allowance, and what a test asks of them: shown whole (none
of it dense, nothing withheld) or dense with its secret withheld."""

from __future__ import annotations

from elision.redact import redact_text, triggers


def over_windows(unit: str, windows: int = 8) -> str:
    """``unit`` repeated over ``windows`` density windows: twice the bound's allowance (four
    windows) by default, were its triggers counted."""
    return unit * (windows * triggers.DENSE_WINDOW // len(unit))


def assert_shown_whole(text: str) -> None:
    """No stretch of ``text`` is credential-dense and nothing of it is withheld."""
    _, dense = triggers.dense_text_triggers(text)
    assert dense == []
    done = redact_text(text)
    assert done.withheld == ()
    assert done.value == text


def assert_dense_hiding(text: str, secret: str) -> None:
    """``text`` has a credential-dense stretch and ``secret`` is shown nowhere in it."""
    _, dense = triggers.dense_text_triggers(text)
    assert dense
    assert secret not in str(redact_text(text).value)
