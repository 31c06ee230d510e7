"""A family's keyword counts only near the value it names: in the match, or on its line a short
way before it. Some rows' patterns do not hold their keyword (Asana's ``1/<digits>:<hex>``
needs ``asana``), and others take spellings their keywords do not list (``co_apikey``); the
pre-filtered search read such a keyword from the piece around the value, the precise rules
over a whole text from anywhere in it, so a bare value far from its keyword was withheld by
one and not the other. Found by a dev-profile run of the prefilter differential property
(tests/redact/test_redact_prefilter_differential.py), which now seeds these bare values too.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact.families import BY_ID, KEYWORD_REACH
from elision.redact.folding import fold
from elision.redact.scan import _merge, _precise, find_spans
from redact.test_redact_prefilter_differential import BARE, ENGINE_IDS, ENGINES, _small_pieces
from support.built import strategies_built
from support.engines import using_engine

FAMILIES = sorted(BARE)


def _agree(text: str) -> list[str]:
    """The rules that withhold spans of ``text``, the same whether the whole text is read at
    once or in pre-filtered pieces, with each engine and piece size."""
    whole = _merge(_precise(fold(text), 0))
    for engine in ENGINES:
        for chunk, piece in [(64, 16), (200, 48), (1 << 16, 1 << 10)]:
            with using_engine(engine), _small_pieces(chunk, piece):
                assert find_spans(text) == whole, (type(engine).__name__, chunk, piece)
    return [s.rule for s in whole]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_bare_value_lacks_its_keyword_and_the_pattern_takes_it(family: str) -> None:
    # The values this file (and the differential property's seeds) rely on: each must be its
    # family's with a keyword beside it, and hold none of its own.
    row = BY_ID[family]
    value = BARE[family]
    held = value.lower() if row.any_case else value
    assert not any((k.lower() if row.any_case else k) in held for k in row.keywords)
    assert row.pattern is not None and row.pattern.search(value) is not None


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("where", "near"), [
    # on the value's line, just before it: the family's
    ("{kw} {value}", True),
    ("see {kw} and {value} here", True),
    # as far before it as the reach allows
    ("{kw}{pad} {value}", True),
    # one char past the reach
    ("{kw}{pad}- {value}", False),
    # on the line before, however close
    ("{kw}\n{value}", False),
    ("{kw}\r\n{value}", False),
    ("{kw}\r{value}", False),  # a lone carriage return ends a line too (Family.accepted)
    # after it on its line
    ("{value} {kw}", False),
    # far off in a long text: past every piece read around the value
    ("{kw}\n" + "filler line of text\n" * 200 + "{value}\n", False),
    ("{value}\n" + "filler line of text\n" * 200 + "{kw}\n", False),
])
def test_a_keyword_counts_only_near_the_value(family: str, where: str, near: bool) -> None:
    keyword = BY_ID[family].keywords[0]
    pad = "_" * (KEYWORD_REACH - len(keyword) - 1)
    text = where.format(kw=keyword, value=BARE[family], pad=pad)
    assert (family in _agree(text)) is near


def test_a_keyword_lines_below_two_bare_values_names_neither() -> None:
    # The differential property's dev-profile counterexample (pinned there too): the whole
    # text said mailgun-sending-key twice, the pieces said nothing.
    text = ("ghp_K0000000000000000011123456789ABCDEFG\n" + BARE["mailgun-sending-key"] + "\n "
            + BARE["mailgun-sending-key"] + " \n\n\n\n\n\n\nmailgun")
    assert _agree(text) == ["github-token"]


LINE = st.text(alphabet="abcdfhijlmnoqruvwz0123456789 .,:/-_=", max_size=30)


# Built once (per family, for its keywords): built on every draw they were most of drawing's
# CPU (737 strategies for 20 texts).
_LINE_COUNTS = st.integers(1, 30)
_LINE_KINDS = st.sampled_from(["filler", "keyword", "value", "both"])
_FAMILY_DRAWS = st.sampled_from(FAMILIES)
_KEYWORDS = {family: st.sampled_from(BY_ID[family].keywords) for family in FAMILIES}
_NEWLINES = st.sampled_from(["\n", "\r\n"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Lines of filler, family keywords and bare values, mixed on lines and across them."""
    parts: list[str] = []
    for _ in range(draw(_LINE_COUNTS)):
        kind = draw(_LINE_KINDS)
        family = draw(_FAMILY_DRAWS)
        keyword = draw(_KEYWORDS[family])
        if kind == "filler":
            parts.append(draw(LINE))
        elif kind == "keyword":
            parts.append(f"{draw(LINE)} {keyword} {draw(LINE)}")
        elif kind == "value":
            parts.append(f"{draw(LINE)} {BARE[family]}")
        else:
            parts.append(f"{keyword}{draw(LINE)} {BARE[family]}")
    return draw(_NEWLINES).join(parts)


@settings(max_examples=150, deadline=None)
@given(text=texts())
@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
def test_pieces_and_the_whole_text_judge_a_keyword_alike(engine: Any, text: str) -> None:
    whole = _merge(_precise(fold(text), 0))
    for chunk, piece in [(64, 16), (1 << 16, 1 << 10)]:
        with using_engine(engine), _small_pieces(chunk, piece):
            assert find_spans(text) == whole


def test_drawing_texts_builds_no_strategy() -> None:
    """Red before: each draw built its parts again (737 strategies for 20 texts)."""
    assert strategies_built(texts(), examples=5) < 5
