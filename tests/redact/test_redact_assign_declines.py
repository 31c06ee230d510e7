"""A text that can hold no assignment is passed unread by ``find_assignments`` (issue 23).

Found by ``bench/redact.py --worst plist-keys``: a plist's ``<key>password</key>`` lines hold
a name word each, and each ~660-char piece of them was judged shape by shape for nothing,
about 30% of the row's time. ``generic._declines`` tells in C that a text holds no separator,
no flag and no command; what is withheld must be what the reading would have found: none.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import generic
from support.calls import python_calls

PLIST = "<key>password</key>\n<string>hunter2x</string>\n" * 14  # a piece of bench's row


def _read(text: str) -> list[generic.Span]:
    """What ``find_assignments`` finds in ``text`` with no text declined."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "_DECLINE", False)
        return generic.find_assignments(text)


def test_a_plist_piece_is_declined_in_a_few_calls() -> None:
    generic.find_assignments(PLIST)  # patterns compiled
    calls, found = python_calls(lambda: generic.find_assignments(PLIST))
    assert found == []
    # 7 before (its shapes split and judged in C); the lambda, the call, the decline and its
    # command check after.
    assert calls <= 4


@pytest.mark.parametrize("text", [
    "password=hunter2x",
    "password: hunter2x",
    "--password hunter2x",
    "sshpass -p hunter2x ssh host",
    "CREATE USER bob PASSWORD 'hunter2x';",  # a command's gate, no separator
    "CREATE USER bob PASSWORD\n'hunter2x';",
    "password=hunter2x\u0130",  # not ASCII: read
])
def test_a_text_that_may_hold_an_assignment_is_read(text: str) -> None:
    assert not generic._declines(text)
    assert generic.find_assignments(text) == _read(text)
    assert generic.find_assignments(text)


_PARTS = st.sampled_from([
    "password", "secret", "token", "key", "pass", "<key>", "</key>", "<string>", "</string>",
    "hunter2x", "x", " ", "  ", "\n", "\t", "'", '"', "/", "$", "{", "}", "=", ":", "-", "e'",
    "login ", "mysql", "curl", "PASSWORD", "identified", "\u0130", "\u212a", "aB3dE6gH9jK2mN5p",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=40).map("".join))
@example(PLIST)
@example("CREATE USER bob PASSWORD 'hunter2x';")
@example("--password hunter2x")
def test_a_declined_text_finds_nothing_when_read(text: str) -> None:
    if generic._declines(text):
        assert _read(text) == []
    assert generic.find_assignments(text) == _read(text)
