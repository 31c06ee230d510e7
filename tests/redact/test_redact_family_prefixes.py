"""A family's pattern tried where its match can open, not searched for at every char (issue 23).

Found measuring random bytes in base64 (a pasted image or archive, `bench/fuzz_linear.py`'s
``b64-random-line``): a keyword a family needs turns up by chance in such a run (``okta``,
``basic``, ``SK``), and the family's regex then searched the whole run. A pattern that opens
with a branch, or ignores case, gets no literal prefix search from the regex engine: okta's
read 1 MB in 26 ms, twilio's ``(?:SK|AC)…`` 6 ms, a text of 72 ms in all. Such a pattern is
tried at each place one of its opening literals occurs, when they are few.
"""

from __future__ import annotations

import base64
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import secrets
from elision.redact.families import PATTERN_FAMILIES, sample
from elision.redact.secrets import find_credentials
from support.regexes import CountingPattern

OPENED = [(i, f) for i, f in enumerate(PATTERN_FAMILIES)
          if f.pattern is not None and secrets.prefixes(i) is not None]


def test_the_families_that_open_with_a_branch_or_ignore_case_are_tried_at_their_openings() -> None:
    ids = {f.id for _, f in OPENED}
    assert {"okta-api-token", "square-access-token", "basic-auth"} <= ids
    # one literal that heeds case: the regex engine's own search skips to it
    assert "nuget-api-key" not in ids and "twilio-api-key-sid" not in ids and len(OPENED) >= 20


def test_random_base64_holding_a_keyword_is_not_searched_by_the_keywords_family() -> None:
    """Red before: okta's pattern searched the whole run (one ``finditer``); now it is tried
    where ``okta`` opens, once, and the result is the same (nothing)."""
    run = base64.b64encode(random.Random(3).randbytes(48_000)).decode()
    text = run[:30_000] + "okta" + run[30_000:]
    index = next(i for i, f in OPENED if f.id == "okta-api-token")
    family = PATTERN_FAMILIES[index]
    counting = CountingPattern(family.pattern)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(family.__dict__, "pattern", counting)
        found = find_credentials(text)
    assert [s for s in found if s.rule == family.id] == []
    assert counting.searches == 0 and 1 <= counting.matches <= text.lower().count("okta")


_NOISE = st.sampled_from(["A", "b", "9", "+", "/", " ", "\n", ":", "=", '"', "_", "-", "."])


@st.composite
def _texts(draw: st.DrawFn, index: int) -> str:
    family = PATTERN_FAMILIES[index]
    runs, _ = secrets.prefixes(index) or ((), False)
    fakes = [sample(family, draw(st.integers(0, len(family.shapes) - 1)), "pre")[0]] \
        if family.shapes else []
    pieces = st.one_of(
        _NOISE, st.sampled_from([*runs, *(r.upper() for r in runs), *(r.title() for r in runs)]),
        st.sampled_from(fakes or ["x"]),
        st.sampled_from(["\u212a", "\u017f", "é", "\u0130"]),  # chars (?i) folds to ASCII
        st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                max_size=12),
    )
    return "".join(draw(st.lists(pieces, max_size=40)))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([i for i, _ in OPENED]), st.data())
def test_trying_at_the_openings_finds_what_the_search_found(index: int, data: Any) -> None:
    """Over drawn texts of the family's fakes, its opening literals in every case, noise and
    chars that fold to ASCII letters: the matches are the search's, span for span."""
    pattern = PATTERN_FAMILIES[index].pattern
    assert pattern is not None
    text = data.draw(_texts(index))
    opens = secrets._opened_by(index, text, [])
    want = [m.span() for m in pattern.finditer(text)]
    if opens is not None:
        assert [m.span() for m in secrets._from(text, pattern, opens)] == want
    with pytest.MonkeyPatch.context() as mp:
        searched = None
        mp.setattr(secrets, "_opened_by", lambda *a: None)
        searched = find_credentials(text)
    assert find_credentials(text) == searched


def test_a_text_crowded_with_openings_is_searched() -> None:
    """Past one opening in 256 chars, each would be a Python call: the search reads it."""
    index = next(i for i, f in OPENED if f.id == "square-access-token")
    assert secrets._opened_by(index, "EAAA" * 1000, []) is None
    assert secrets._opened_by(index, "x" * 600 + "EAAA" + "y" * 600, []) == [600]


@pytest.mark.parametrize(("family_id", "text"), [
    ("basic-auth", "basic QUFBbasic QUFBQUFB then Basic QUJDREVGR0g="),  # one inside a match
    ("okta-api-token", "okta_token=00" + "a" * 40 + " SSWS 00" + "b" * 40),
    ("square-access-token", "EAAA" + "b" * 10 + "EAAA" + "c" * 46 + " EAAA"),
])
def test_openings_inside_a_match_are_passed_over_as_the_search_did(
    family_id: str, text: str
) -> None:
    index = next(i for i, f in OPENED if f.id == family_id)
    pattern = PATTERN_FAMILIES[index].pattern
    assert pattern is not None
    text = "x" * 1000 + text + "\n" + "y" * 1000  # openings few enough to be tried
    opens = secrets._opened_by(index, text, [])
    assert opens is not None
    got = [m.span() for m in secrets._from(text, pattern, opens)]
    assert got == [m.span() for m in pattern.finditer(text)] and got
