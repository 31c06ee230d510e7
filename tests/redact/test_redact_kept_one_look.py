"""A kept answer is looked up once: the proxy redacts in more than one thread, and a module's
table of kept answers is emptied by whichever thread fills it past its bound.

Found by the review of the sixth session's merged head: ``elements.find_elements`` asked
``member in kept`` and then ``kept[member]``; another thread's ``clear()`` between the two
raised KeyError in the middle of a redaction. A table that says it holds a member and has
emptied itself by the time it is read stands for that thread.
"""

from __future__ import annotations

import pytest

from elision.redact import elements, redact_text


class _EmptiedBetween(dict):  # type: ignore[type-arg]
    """Holds every member when asked, and none when read: emptied in between."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: object) -> object:
        raise KeyError(key)


def test_a_property_list_member_is_judged_when_its_kept_answer_is_gone() -> None:
    text = "<key>password</key>\n<string>hunter2x</string>\n" * 3
    want = redact_text(text).value
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(elements, "_MEMBERS_KEPT", _EmptiedBetween())
        got = redact_text(text).value
    assert got == want
    assert "hunter2x" not in got
