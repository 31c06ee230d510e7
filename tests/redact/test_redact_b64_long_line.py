"""One long line of random base64 (a pasted image, an archive a tool printed) judged as a piece.

bench/redact.py's ``b64-random-line`` cost 5.4x prose (issue 23): a chance ``eyJ`` or ``ldap``
makes its 1 MB line one piece judged, and that piece's keyword search was made a 4 KB block at
a time (256 Python calls, 1.4 ms a MB, where one pass is 0.45 ms), each multi-line rule's
keyword was searched for in all of it (0.6 ms), and its one run was ended by translating it a
block at a time (0.5 ms). Each counting test here was red on the code before; what is found is
the same: a differential against that code where ``ELISION_BEFORE_SRC`` names its ``src`` (a
development check, skipped otherwise), and against this code's own slower paths, which always
run.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import keywords, scan, triggers
from elision.redact.families import FAMILIES, sample
from elision.redact.keywords import FAMILY_ANY_CASE, FAMILY_EXACT, GENERIC
from support.before import redacted

HYPERSCAN = triggers.engine_name() == "hyperscan"
needs_hyperscan = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan's one pass")


def _random_b64(size: int, seed: int) -> str:
    return base64.b64encode(random.Random(seed).randbytes(size * 3 // 4)).decode()[:size]


FAKES = [sample(f, 0, "b64")[0] for f in FAMILIES if f.finder != "field"]
#: Keywords of each kind present() tells: families' (exact and any case), generic names,
#: escapes, base64 forms, and X's run of twenty "A" (asked with ``in``, not in the pass).
_WORDS = sorted({*list(FAMILY_EXACT)[::7], *list(FAMILY_ANY_CASE)[::5], *GENERIC[::9], "\\u",
                 "%41", "A" * 20, *sorted(keywords.BASE64)[::40], "-----BEGIN"})


def _on_and_off(call: Callable[[], Any], off: list[tuple[Any, str]],
                patches: Sequence[tuple[Any, str, Any]] = ()) -> tuple[Any, Any]:
    """``call()`` with ``patches`` made, then again with each ``off`` flag turned off too: a
    fast path's answer and its slow path's, for a differential."""
    with pytest.MonkeyPatch.context() as mp:
        for module, name, value in patches:
            mp.setattr(module, name, value)
        got = call()
        for module, name in off:
            mp.setattr(module, name, False)
        return got, call()


@st.composite
def long_lines(draw: st.DrawFn) -> str:
    """Random base64 (or prose with a char past ASCII) with keywords planted at drawn offsets,
    some just across a block's edge (blocks and the long threshold made small)."""
    size = draw(st.integers(0, 3000))
    text = _random_b64(size, draw(st.integers(0, 1 << 16)))
    if draw(st.booleans()):
        text = text.replace("x", "é")
    for _ in range(draw(st.integers(0, 6))):
        word = draw(st.sampled_from(_WORDS))
        edge = draw(st.integers(0, max(0, len(text) // 64))) * 64
        at = draw(st.one_of(st.integers(0, len(text)),
                            st.integers(max(0, edge - len(word) + 1), edge)))
        text = text[:at] + word + text[at:]
    return text


# -- the keyword search of a long piece ----------------------------------------------------------


@pytest.fixture
def engine_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text the keyword engine's one-pass ``present`` reads (a long
    piece's 4 KB blocks, or all of it in a pass of literals each reported once)."""
    engine: Any = keywords._engine()
    reads: list[int] = []
    real = engine.present

    def counting(text: str) -> Any:
        reads.append(len(text))
        return real(text)

    monkeypatch.setattr(engine, "present", counting)
    return reads


@needs_hyperscan
@settings(max_examples=300, deadline=None)
@given(long_lines(), st.sampled_from([1, 16, 1 << 10]), st.sampled_from([1, 8, 1 << 20]))
def test_a_long_piece_read_in_one_pass_holds_what_its_blocks_hold(
    text: str, spacing: int, once: int,
) -> None:
    """Differential: present() of a long piece in one pass (or, past its bound of matches,
    one pass of the literals each reported once, or a block at a time) says what reading it
    a block at a time said, for every kind of keyword, one across a block's edge too."""
    got, want = _on_and_off(lambda: keywords.present(text), [(keywords, "WHOLE_FIRST")], [
        (keywords, "_LONG", 128), (keywords, "_BLOCK", 64),
        (keywords, "_WHOLE_SPACING", spacing), (keywords, "_ONCE_SPACING", once)])
    assert got == want


@needs_hyperscan
def test_a_long_line_of_random_base64_is_searched_for_keywords_in_one_pass(
    engine_reads: list[int],
) -> None:
    """A MB of random base64 spells a few keywords by chance: one pass reports them all, where
    each 4 KB block was a pass and a Python call (256)."""
    blocks = engine_reads
    text = _random_b64(1 << 20, 5)
    holds = keywords.present(text)
    assert holds.families  # chance spells some
    assert blocks == []


@needs_hyperscan
def test_a_long_run_of_one_unit_is_read_a_block_at_a_time(engine_reads: list[int]) -> None:
    """A run of ``QUFB`` (the base64 of ``AAA…``) holds a keyword at each period: the one pass
    stops at its bound of matches, and the blocks, each read once, answer."""
    calls = engine_reads
    text = "QUFB" * (1 << 18)
    whole = keywords._engine().present_whole(text, len(text) // keywords._WHOLE_SPACING)
    assert isinstance(whole, int)  # past its bound, early
    assert keywords.present(text).base64
    assert 0 < len(calls) <= 2  # the blocks, each alike, and the last


@needs_hyperscan
def test_a_long_piece_of_numbered_keywords_is_read_in_one_pass(engine_reads: list[int]
                                                               ) -> None:
    """Strings of ``sk-N`` (a keyword every 12 bytes) are past the bound of the pass that
    reports every match, but far sparser than a run of ``QUFB``: one pass of the literals each
    reported once, where each 4 KB block was a pass and a Python call (256 a MB)."""
    calls = engine_reads
    text = "\n".join(f"sk-{i}" for i in range(1 << 17))
    assert keywords.present(text).families
    assert calls == [len(text)]


@needs_hyperscan
def test_a_long_piece_of_repeated_lines_is_still_read_a_block_at_a_time(
    engine_reads: list[int],
) -> None:
    """Lines of ``password=x`` repeat their blocks: each is told once (its period's worth of
    blocks), which costs less than one pass whose literals match unseen at every line."""
    calls = engine_reads
    text = "password=x\n" * 95_000
    assert keywords.present(text).generic
    assert 1 < len(calls) <= keywords._SEEN_MOST + 1
    assert max(calls) < len(text)


# -- the multi-line rules' keywords ---------------------------------------------------------------


def test_every_multi_line_keyword_holds_a_dash() -> None:
    """What scan._heads asks first: a piece with no "-" holds none of these keywords."""
    assert scan._KEYWORDS and all("-" in keyword for keyword in scan._KEYWORDS)


class _CountedRule:
    """A multi-line rule whose keyword is counted each time it is read."""

    def __init__(self, rule: Any, reads: list[str]) -> None:
        self._rule = rule
        self._reads = reads

    @property
    def keywords(self) -> Any:
        self._reads.append(self._rule.id)
        return self._rule.keywords

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rule, name)


def test_a_long_line_of_random_base64_is_not_searched_for_multi_line_keywords(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line of standard base64 holds no "-": none of the three keywords is searched for in
    it (each search of a MB was 0.2 ms)."""
    reads: list[str] = []
    monkeypatch.setattr(scan, "_MULTILINE",
                        tuple(_CountedRule(rule, reads) for rule in scan._MULTILINE))
    text = _random_b64(1 << 20, 5)
    assert scan.find_spans(text) == []
    assert reads == []


_KEY = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(
    _random_b64(64, n) for n in range(40)) + "\n-----END RSA PRIVATE KEY-----")
#: One whose body is letters and digits only: a piece of it holds no "+" nor "/".
_PLAIN_KEY = ("-----BEGIN PRIVATE KEY-----\n" + "\n".join(
    "".join(random.Random(n).choices("abcdefXYZ0123", k=64)) for n in range(40))
    + "\n-----END PRIVATE KEY-----")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([" ", "\n", "-", "--", "PuTTY-User-Key-File-", _KEY,
                                           _PLAIN_KEY, "the note says ",
                                           "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"]),
                          st.integers(0, 1 << 16).map(lambda n: _random_b64(300, n))),
                max_size=30).map("".join))
def test_multi_line_keys_found_after_the_dash_check_are_those_found_without(text: str) -> None:
    """Differential: the spans with the "-" check are those without it."""
    got, want = _on_and_off(lambda: scan.find_spans(text), [(scan, "HEADS_DASH")])
    assert got == want


# -- a long run's end ------------------------------------------------------------------------------


@needs_hyperscan
def test_a_long_line_of_random_base64_is_not_translated_to_end_its_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its one run reaches past the first block's marks: its end is found by one pass in C,
    where every block of it was translated to marks (0.5 ms a MB)."""
    made: list[int] = []
    real = scan._Marks

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, text: str) -> None:
            made.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(scan, "_Marks", Counted)
    text = _random_b64(1 << 20, 5) + "== tail"
    assert list(scan._runs(text)) == [(0, (1 << 20) + 2)]
    assert made == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["A", "b", "9", "+", "/", "_", "-", "=", "==", " ", "\n", "Q" * 20,
                                 "Z" * 45, ":", "Z" * 200]), max_size=60).map("".join),
       st.sampled_from([7, 20, 64]))
def test_runs_ended_in_one_pass_are_those_ended_by_their_marks(text: str, block: int) -> None:
    """Differential: a run past its block's marks ends where the marks' search ended it."""
    got, want = _on_and_off(lambda: list(scan._runs(text)), [(scan, "_RUN_END_IN_ONE_PASS")],
                            [(scan, "CHUNK", block)])
    assert got == want


# -- the same as the code before -------------------------------------------------------------------


@st.composite
def planted(draw: st.DrawFn) -> str:
    """A long line of random base64 (or wrapped at 76) with fake credentials planted at drawn
    offsets, raw or base64-encoded at each of the three shifts."""
    text = _random_b64(draw(st.integers(17_000, 140_000)), draw(st.integers(0, 1 << 16)))
    for _ in range(draw(st.integers(0, 3))):
        fake = draw(st.sampled_from(FAKES))
        if draw(st.booleans()):
            fake = base64.b64encode((draw(st.sampled_from(["", "a", "ab"])) + fake).encode()
                                    ).decode()
        if draw(st.booleans()):
            fake = draw(st.sampled_from([" ", "\n", '"'])) + fake + " "
        at = draw(st.one_of(st.integers(0, len(text)),
                            st.integers(0, len(text) // 4096).map(lambda n: n * 4096 - 3)))
        text = text[:max(0, at)] + fake + text[max(0, at):]
    if draw(st.booleans()):
        text = "\n".join(text[at:at + 76] for at in range(0, len(text), 76))
    return text


@settings(max_examples=60, deadline=None)
@given(planted())
def test_credentials_planted_in_a_long_line_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


@settings(max_examples=40, deadline=None)
@given(planted())
def test_credentials_planted_in_a_long_line_are_withheld_as_on_the_slow_paths(text: str
                                                                              ) -> None:
    """Differential, in process: with every fast path of this file off."""
    got, want = _on_and_off(lambda: redacted("text", text), [
        (keywords, "WHOLE_FIRST"), (scan, "HEADS_DASH"), (scan, "_RUN_END_IN_ONE_PASS")])
    assert got == want


# -- wrapped base64's heads ------------------------------------------------------------------------


@needs_hyperscan
def test_the_blocks_of_wrapped_base64_are_not_asked_again_whether_they_need_translating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Wrapped random base64 holds no byte a translation changes, found once for all of it:
    no block of it is asked again (one pass each of its 16 blocks of 64 KB before)."""
    engine: Any = triggers.engine()
    asked: list[int] = []
    real = engine._holds

    def counting(db: Any, data: Any) -> Any:
        asked.append(len(data))
        return real(db, data)

    monkeypatch.setattr(engine, "_holds", counting)
    text = "\n".join(_random_b64(76, n) for n in range(14_000)) + "\n"
    triggers.dense_text_triggers(text)
    assert all(size == len(text) for size in asked)


_HEADS = sorted(keywords.B64_HEADS)[::50]


@needs_hyperscan
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["\n", " ", "\n" + "QUFB" * 5, "+/", "==\n"]),
                          st.sampled_from(_HEADS).map(lambda h: "\n" + h + "Zm9v" * 5),
                          st.integers(0, 1 << 16).map(lambda n: _random_b64(40, n))),
                max_size=40).map("".join),
       st.sampled_from([64, 256, 1 << 16]))
def test_heads_of_base64_that_is_its_own_translation_are_those_of_its_translation(
    text: str, block: int,
) -> None:
    """Differential: where the data holds only a run's chars and openers, its blocks are not
    translated; the heads found are those found with every block translated."""
    got, want = _on_and_off(lambda: triggers.dense_text_triggers(text),
                            [(triggers, "OTHERS_CHECK")], [(triggers, "_HEAD_BLOCK", block)])
    assert got == want


@needs_hyperscan
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["\n", " ", ":", ".", "{", "é", "+/", "==\n"]),
                          st.sampled_from(_HEADS).map(lambda h: h + "Zm9v" * 5),
                          st.integers(0, 1 << 16).map(lambda n: _random_b64(40, n))),
                max_size=40).map("".join),
       st.sampled_from([64, 256, 1 << 16]))
def test_heads_found_in_translated_blocks_are_those_found_at_their_own_places(
    text: str, block: int,
) -> None:
    """Differential: data with bytes a translation makes openers (``:`` before a head) has
    each block translated; the lines it finds a head in are those found from each head's own
    place (which keeps one a line, where a block keeps one a line each)."""
    got, want = _on_and_off(lambda: triggers.dense_text_triggers(text),
                            [(triggers, "FEW_HEADS_FIRST")], [(triggers, "_HEAD_BLOCK", block)])
    assert {text.count("\n", 0, at) for at in got[0]} == {
        text.count("\n", 0, at) for at in want[0]}
    assert got[1] == want[1]


# -- chance keywords at a wrapped line's edge ---------------------------------------------------


def _wrapped(text: str) -> str:
    return "".join(text[at:at + 76] + "\n" for at in range(0, len(text), 76))


@needs_hyperscan
def test_a_chance_keyword_at_a_wrapped_line_s_edge_is_no_trigger_where_no_pattern_matches(
) -> None:
    """Wrapped base64 spells a family's keyword at a line's start or end by chance: the run
    goes on across the line break, so its line is searched by the family's patterns as a
    mid-run keyword's is, and none matching, no line is judged (14 of a MB were)."""
    engine: Any = triggers.engine()
    filler = "+/+/" * 400  # no family's pattern reads on past its keyword
    chance = sorted({triggers._EXACT[expr] for expr in engine.chance_keywords()})[::25]
    assert chance
    for word in chance:
        for text in (_wrapped(filler[:152] + word + filler[:150 - len(word)]),
                     _wrapped(filler[:228 - len(word)] + word + filler[:100])):
            assert triggers.dense_text_triggers(text) == ([], []), word
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(triggers, "WRAPPED_EDGES", False)
                assert triggers.dense_text_triggers(text)[0], word  # a trigger before


@st.composite
def wrapped_with_fakes(draw: st.DrawFn) -> str:
    """Random base64 wrapped at 76 with fakes (raw, so a chance keyword's family may be
    real) and chance keywords planted at a line's start or end."""
    text = _random_b64(draw(st.integers(0, 6000)), draw(st.integers(0, 1 << 16)))
    for _ in range(draw(st.integers(0, 4))):
        word = draw(st.one_of(st.sampled_from(FAKES), st.sampled_from(["SK", "oy2", "cio",
                                                                        "EAA", "00D"])))
        line = draw(st.integers(0, len(text) // 76))
        at = line * 76 - draw(st.sampled_from([0, len(word)]))
        text = text[:max(0, at)] + word + text[max(0, at):]
    return _wrapped(text)


@settings(max_examples=150, deadline=None)
@given(wrapped_with_fakes())
def test_wrapped_lines_with_keywords_at_their_edges_are_judged_as_before(text: str) -> None:
    """Differential, in process: what is withheld with a keyword at a line's edge checked
    is what is withheld with it always a trigger."""
    got, want = _on_and_off(lambda: redacted("text", text), [(triggers, "WRAPPED_EDGES")])
    assert got == want


@settings(max_examples=60, deadline=None)
@given(wrapped_with_fakes())
def test_wrapped_lines_with_keywords_at_their_edges_are_withheld_as_by_the_code_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)
