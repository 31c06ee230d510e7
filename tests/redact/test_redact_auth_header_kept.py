"""A log's ``Authorization:`` headers repeat, and each was read again: a MB of
``authorization: qwertyuiopasdfgh 2024-01-01`` headers (bench ``auth-header-letters``, 226x
prose, issue 23) spent most of its time in ``authheader.credential``, six regex calls and five
Python calls a header. Its answer is now kept by the value's first chars where its reading lay
inside them (``authheader._READ_PAST``); these tests say the kept answer is the one read, and
that a run of the same header is read once (the call count is red on the code before).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import authheader, redact_text
from elision.redact.kept import LONGEST

#: The chars a header's reading turns on: a scheme's and a token's letters and digits,
#: spacing, a list's comma, quotes and backslashes, an auth-param's ``=``, closers and a path's.
_CHARS = st.sampled_from([
    *"aAqZk9 0 \t,\"'\\=/);(]:.-_\n", "bearer", "Digest ", "realm=", "2024-01-01", "12:00:0",
    "qwertyuiopasdfgh ", "\\/",
])
_TEXTS = st.lists(_CHARS, max_size=40).map("".join)


@pytest.fixture(autouse=True)
def _fresh() -> None:
    authheader._READ.clear()


@settings(max_examples=300, deadline=None)
@given(head=_TEXTS, filler=st.sampled_from(["x", " ", "a,", "a:", "\\/", "a=b, ", "Q9"]),
       short=st.integers(-6, 12), tails=st.lists(_TEXTS, min_size=2, max_size=4),
       cut=st.integers(0, 80))
def test_a_kept_answer_is_the_one_read(
        head: str, filler: str, short: int, tails: list[str], cut: int) -> None:
    """Values that share their first chars up to about the kept window's end (``short`` chars
    before it), then go on each their own way (``tails``), each read no further than a limit
    of its own (``cut`` chars past the window, or the text's end): each answer is what the
    value's reading says."""
    authheader._READ.clear()
    middle = filler * max(0, (LONGEST - short - len(head)) // len(filler))
    for tail in tails:
        text = "Authorization: " + head + middle + tail
        at, limit = 15, min(len(text), 15 + LONGEST + cut) if cut else len(text)
        assert authheader.credential(text, at, limit) == authheader.credential_now(
            text, at, limit), (text, limit)


@pytest.mark.parametrize("unit", [
    # a generated run, then a date: the run is the credential, the date shown
    "authorization: qwertyuiopasdfgh 2024-01-01 ",
    # a raw token, then words
    "authorization: Xq7vR2mK9pL4wT8n more ",
    # auth-params
    'authorization: Digest a="b", c=d8 x ',
])
def test_a_run_of_the_same_header_is_read_once(
        unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """200 headers on one line: their values read a few times, not 200 (the scheme's word,
    each reading's first step)."""
    calls = 0
    word = authheader._WORD

    class Counted:
        def match(self, text: str, at: int, limit: int) -> re.Match[str] | None:
            nonlocal calls
            calls += 1
            return word.match(text, at, limit)

    monkeypatch.setattr(authheader, "_WORD", Counted())
    text = unit * 200
    withheld = redact_text(text).withheld
    assert withheld
    assert calls <= 10, calls


@pytest.mark.parametrize(("head", "tails"), [
    # a generated run and the run after it, judged with it past the window: a digit in it
    # makes it a credential too
    ("qwertyuiopasdfgh " + "a:" * 60, ("", "9", "")),
    # a run that stops at a backslash at the window's last char: a "/" after it goes on
    ("Token " + "a" * 121 + "\\", ("xb", "/b", "xb")),
    # a list's last param at the window's end: another after it
    ('Digest realm="a", ' + "n" * 101 + "=", ("", "b, c=d", "")),
])
def test_a_kept_answer_does_not_reach_another_tail(head: str, tails: tuple[str, ...]) -> None:
    """Values the same up to the kept window's end, then each its own: read as written."""
    for tail in tails:
        text = "Authorization: " + head + tail
        assert authheader.credential(text, 15, len(text)) == authheader.credential_now(
            text, 15, len(text)), text


@settings(max_examples=300, deadline=None)
@example(value="passb= ", ends=["\n", '\\"'])  # the review's draws: (6, 12) kept, (6, 13) read
@example(value="9\t = \t", ends=['\\"', ""])
@example(value="a=b, c= ", ends=["\n", '"'])
@given(value=_TEXTS, ends=st.lists(st.sampled_from(["\n", '"', '\\"', "", "'", " x", "=",
                                                     ", a=", "\\/"]),
                                   min_size=2, max_size=4, unique=True))
def test_a_short_value_read_before_other_chars_past_its_limit_is_read_again(
        value: str, ends: list[str]) -> None:
    """A value shorter than the kept window, its limit at its end (a line's end, a JSON
    string's closing quote), and other chars after that limit each time: the reading looks a
    few chars past the limit (a quote after an auth-param's name there), so each answer is
    what its own reading says. Red on the merged head of the sixth session, whose key was the
    chars up to the limit alone (the review: 9 kinds of difference in 30,000 draws)."""
    authheader._READ.clear()
    for end in ends:
        text = "Authorization: Token " + value + end + "zz"
        at, limit = 21, 21 + len(value)
        assert authheader.credential(text, at, limit) == authheader.credential_now(
            text, at, limit), (text, limit)


def test_a_header_read_on_a_line_first_keeps_no_answer_for_a_json_string() -> None:
    """The review's case: read first on a line, then as a JSON member's value, `a=b, c= `
    was shown where the code before withheld it."""
    alone = redact_text('{"Authorization": "Token a=b, c= "}').value
    authheader._READ.clear()
    redact_text("Authorization: Token a=b, c= \n")
    assert redact_text('{"Authorization": "Token a=b, c= "}').value == alone
    assert "a=b" not in alone
