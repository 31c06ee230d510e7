"""The fold of full-width forms and invisible chars (elision.redact.compat): its table, its
copy's way back to the text's offsets, and the byte searches that tell a body needs it."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import compat, triggers
from elision.redact.rules import Span

# ASCII, chars of the table (each kind: a letter, a digit, punctuation, a space, invisible, an
# expansion, astral), and chars past ASCII that fold to nothing (CJK, an emoji, Latin).
ALPHABET = ("ab_=: \n-"
            "\uff41\uff12\uff1d\uff0c\u3000\u00a0\u200b\u00ad\ufeff\ufe0f\ufb01\u2474\u2026"
            "\U0001d41a\U000e0041\u212a\u0131"
            "\u6f22\u3002\U0001f642\u00e9")
texts = st.text(alphabet=ALPHABET, max_size=40)


def test_the_table_is_the_running_pythons_nfkc() -> None:
    """Each char of COMPAT folds by NFKC to ASCII, and where the running Python's Unicode is
    the one the table was drawn from, each such char is in it."""
    table = compat._tables().table
    listed = {code for lo, hi in compat.COMPAT for code in range(lo, hi + 1)}
    for code in listed:
        folded = unicodedata.normalize("NFKC", chr(code))
        assert folded.isascii() and folded != chr(code) and table[code] in (folded, "i", "k")
    if unicodedata.unidata_version == "14.0.0":
        found = {code for code in range(0x80, 0x30000)
                 if (f := unicodedata.normalize("NFKC", chr(code))) != chr(code)
                 and f.isascii()}
        assert found == listed


# (text, its folded copy, the text's offset of each folded char, and of the end of a span
# that ends after it: past the char it came from and the chars dropped right after that)
MAPS = [
    pytest.param("\uff50w=1", "pw=1", [0, 1, 2, 3], [1, 2, 3, 4], id="one-for-one"),
    pytest.param("a\u200bb", "ab", [0, 2], [2, 3], id="one-dropped"),
    pytest.param("a\u200b\u00ad\u200bb", "ab", [0, 4], [4, 5], id="three-dropped"),
    pytest.param("a\ufb01b", "afib", [0, 1, 1, 2], [1, 2, 2, 3], id="an-expansion"),
    pytest.param("a\ufb01\u200bb", "afib", [0, 1, 1, 3], [1, 2, 3, 4],
                 id="expansion-then-dropped"),
    pytest.param("a\u200b\ufb01b", "afib", [0, 2, 2, 3], [2, 3, 3, 4],
                 id="dropped-then-expansion"),
    pytest.param("\u2474\ufb01", "(1)fi", [0, 0, 0, 1, 1], [1, 1, 1, 2, 2],
                 id="two-expansions"),
    pytest.param("\u200bab", "ab", [1, 2], [2, 3], id="dropped-first"),
    pytest.param("ab\u200b", "ab", [0, 1], [1, 3], id="dropped-last"),
    pytest.param("x\U0001d41a\u200by", "xay", [0, 1, 3], [1, 3, 4], id="astral-letter"),
]


@pytest.mark.parametrize(("text", "want", "came", "ends"), MAPS)
def test_a_folded_copy_maps_back_char_by_char(
    text: str, want: str, came: list[int], ends: list[int],
) -> None:
    view = compat.folded(text)
    assert view is not None
    assert view.text == want
    assert [view.start(i) for i in range(len(want))] == came
    assert [view.end(i + 1) for i in range(len(want))] == ends


@pytest.mark.parametrize("text", [
    "plain ascii",
    "\u6f22\uff0c\u5b57",  # a full-width comma between CJK: no ASCII beside it
    "ok \u2764\ufe0f \U0001f642",  # a variation selector after an emoji, a space after it
    "\U0001f468\u200d\U0001f469",  # a joiner between two emoji
    "caf\u00e9",
])
def test_what_cannot_spell_a_name_is_not_folded(text: str) -> None:
    assert compat.folded(text) is None
    assert not compat.holds_wide(text.encode())


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_the_copy_is_a_partial_fold_of_the_text(text: str) -> None:
    view = compat.folded(text)
    copy = text if view is None else view.text
    assert compat.fold_name(copy) == compat.fold_name(text)
    if view is None:
        return
    table = compat._tables().table
    starts = [view.start(i) for i in range(len(copy))]
    assert starts == sorted(starts)
    for i, at in enumerate(starts):
        char = text[at]
        assert copy[i] == char or copy[i] in (table.get(ord(char)) or "")


@settings(max_examples=300, deadline=None)
@given(text=texts, cut=st.tuples(st.integers(0, 60), st.integers(1, 60)))
def test_a_span_maps_over_every_char_its_chars_came_from(
    text: str, cut: tuple[int, int],
) -> None:
    view = compat.folded(text)
    if view is None or not view.text:
        return
    a = min(cut[0], len(view.text) - 1)
    b = min(len(view.text), a + cut[1])
    (back,) = view.spans([Span(a, b, "r")])
    assert back.rule == "r"
    assert compat.fold_name(view.text[a:b]) in compat.fold_name(text[back.start:back.end])
    # No wider than that: its first and last chars each gave a char of the span.
    assert back.start == view.start(a)
    assert back.end == view.end(b)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_the_byte_searches_tell_what_the_fold_folds(text: str) -> None:
    """A body's search (hyperscan's and the regex engine's) says a text needs the fold
    exactly where the text's own search folds something: neither skips a text it folds."""
    data = text.encode()
    wants = compat.folded(text) is not None
    assert compat.holds_wide(data) is wants
    for engine in triggers.engines():
        if isinstance(engine, triggers._Hyperscan):
            assert (not data.isascii() and engine.holds_wide(data)) is wants


def test_a_name_is_folded_whole() -> None:
    assert compat.fold_name("\uff50\uff41\uff53\uff53\u200bword") == "password"
    assert compat.fold_name("api_\u212aey") == "api_key"
    assert compat.fold_name("ascii") == "ascii"
