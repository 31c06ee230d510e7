"""A cookie header's reading with its shortcuts against the reading without them."""

from __future__ import annotations

import pytest

from elision.redact import generic, redact_text


def assert_read_once_as_to_each_end(text: str) -> None:
    """``text`` redacted with the shortcuts (a reading stops where an earlier one read on, a
    run of plain members passed in one match) as with each name's reading read to its line's
    end: the same text shown, the same entries."""
    fast = redact_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "_COOKIES_ONCE", False)
        slow = redact_text(text)
    assert (fast.value, list(fast.withheld)) == (slow.value, list(slow.withheld)), text
