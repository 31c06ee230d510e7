"""Redaction's cost grows with the input, not with how often a trigger repeats in it.

Found by an attacker's probe (issue 23): a run of one base64 digit (``AAAA…``, the base64 of
zeros) holds the Twitter family's keyword (twenty ``A``) at every offset, so the trigger search
handed Python one match per char: 12 MiB of ``A`` took 13-31 s and 46x its size in memory
(a list of twelve million positions), where prose of the same size took a fraction of a
second. Every caller only asks whether a line (a text) or a string (a JSON serialization)
holds a trigger, so one position per such stretch is all the search may keep, and a stretch
already known to hold one is not searched further.

No clock here: the tests count the work units instead (positions kept, matches handed to
Python), for N and 2N chars. ``bench/fuzz_linear.py`` measures the time and memory growth.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import keywords, redact_text, redact_value, triggers
from elision.redact.scan import _merge, _precise, find_spans
from redact.test_redact_prefilter_differential import _no_prefilter, _normalized, seeded_texts
from support.engines import trigger_engines, using_engine

ENGINES = trigger_engines()
ENGINE_IDS = [type(e).__name__.strip("_").lower() for e in ENGINES]
HYPERSCAN = [e for e in ENGINES if not isinstance(e, triggers._Regex)]

#: Each repeated with no separator: a trigger (or a base64 head) at every period.
UNITS = [
    "A",  # the Twitter family's keyword is twenty of them: a match at every offset
    "QUFB",  # base64 of "AAA": that keyword's base64 form and head, again and again
    "sk-",  # a prefix repeated: one match per three chars
    "ghp_",
    "AKIA",
    "eyJ",
    "password=",  # an assignment repeated
    "token:",
    "%41",  # a percent-encoded letter repeated
    "\\u0041",  # a \u escape repeated
    "-----BEGIN",  # PEM armour repeated
]
#: Positions a stretch may keep: one per pattern the regex passes run, at most.
PER_STRETCH = 64
N = 1 << 15


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@pytest.mark.parametrize("unit", UNITS)
def test_a_repeated_trigger_keeps_a_few_positions_per_line(engine: Any, unit: str) -> None:
    text = unit * (N // len(unit))
    with using_engine(engine):
        one_line = triggers.text_triggers(text)
        as_json = triggers.json_triggers(orjson.dumps({"note": text})).secrets
    assert one_line, "the run holds a trigger: the search must still say so"
    assert len(one_line) <= PER_STRETCH
    assert as_json and len(as_json) <= PER_STRETCH


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
def test_each_line_that_holds_a_trigger_keeps_one(engine: Any) -> None:
    # Many short lines, each a run: the positions grow with the lines, never with the matches.
    lines = ["A" * 200] * 300
    with using_engine(engine):
        found = triggers.text_triggers("\n".join(lines))
        lines_hit = {"\n".join(lines)[:p].count("\n") for p in found}
    assert lines_hit == set(range(300))  # every line is still flagged
    assert len(found) <= 300 * PER_STRETCH // 8


class _Counting:
    """A hyperscan database whose scans count the matches they hand to Python."""

    def __init__(self, db: Any, counts: list[int]) -> None:
        self.db, self.counts = db, counts

    def scan(self, data: Any, match_event_handler: Any = None, **kw: Any) -> Any:
        def counted(*args: Any) -> Any:
            self.counts[0] += 1
            return match_event_handler(*args)

        return self.db.scan(data, match_event_handler=counted, **kw)


@contextmanager
def _counting(engine: Any) -> Iterator[list[int]]:
    counts = [0]
    with pytest.MonkeyPatch.context() as mp, using_engine(engine):
        for name in ("literals", "text_literals", "windows"):
            mp.setattr(engine, name, _Counting(getattr(engine, name), counts))
        yield counts


def _matches(engine: Any, call: Any, n: int) -> int:
    with _counting(engine) as counts:
        call("A" * n)
    return counts[0]


@pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")
@pytest.mark.parametrize("call", [redact_text, redact_value], ids=["text", "json"])
def test_a_run_of_A_hands_python_a_bounded_number_of_matches(call: Any) -> None:
    """The issue's repro, counted: 12 MiB of ``A`` was twelve million callbacks a scan."""
    engine = HYPERSCAN[0]
    small, large = _matches(engine, call, N), _matches(engine, call, 2 * N)
    assert small <= 4 * PER_STRETCH
    assert large <= small + 8  # not twice as many: the run is one stretch


LINES = st.lists(
    st.tuples(st.sampled_from(UNITS), st.integers(1, 400)).map(lambda p: p[0] * p[1]),
    min_size=1, max_size=30,
)


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@given(lines=LINES)
def test_positions_grow_with_lines_not_with_matches(engine: Any, lines: list[str]) -> None:
    text = "\n".join(lines)
    with using_engine(engine):
        found = triggers.text_triggers(text)
        secrets = triggers.json_triggers(orjson.dumps(lines)).secrets
    assert len(found) <= PER_STRETCH * len(lines)
    assert len(secrets) <= PER_STRETCH * len(lines)


# Built once: built on every draw, they were most of drawing's strategies.
_SEEDED_TEXTS = seeded_texts()
_UNIT_DRAWS = st.sampled_from(UNITS)


@st.composite
def runs_beside_seeds(draw: st.DrawFn) -> str:
    """Seeded texts whose lines also hold hostile runs, before and after the credentials:
    a stretch already hit must still have its credential found by the precise rules."""
    lines = draw(_SEEDED_TEXTS).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        run = draw(_UNIT_DRAWS) * draw(st.integers(1, 80))
        lines[at] = f"{run} {lines[at]}" if draw(st.booleans()) else f"{lines[at]} {run}"
    return "\n".join(lines)


#: A random draw's (a private key's seeds drawn more often): a key whose body is a run of
#: ``\u0041`` after its armour, which its pattern reads only decoded. The whole text's rules
#: withheld it to its END line; the thinned search's pieces, a few lines each, withheld it
#: to the last line of the piece that decoded it, and left the END line shown.
_KEY = ("A/LJcSu2Zf38O0kQuMVNO5OciuSJpvF6GSfo05SoosswoFQFTd/YSWeVvU4UFqUW\nc4jfaFoObFvqMhoU/SGM=="
        "\n-----END PRIVATE KEY-----\n")
_KEY_BODY_ESCAPED = (
    "-----BEGIN PRIVATE KEY----- A A\n" + _KEY + "-----BEGIN PRIVATE KEY----- " + "\\u0041" * 48
    + "\n" + _KEY + ("-----BEGIN PRIVATE KEY-----\n" + _KEY) * 3
    + "0123456789abcdef0123456789abcdef-1a2b3c4d-5e6f7a8b\n"
)


@settings(max_examples=30, deadline=None)
@given(text=runs_beside_seeds())
@example(text=_KEY_BODY_ESCAPED)
@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
def test_a_thinned_search_still_finds_every_credential(engine: Any, text: str) -> None:
    unfiltered = _merge(_precise(text, 0))
    with using_engine(engine):
        assert find_spans(text) == unfiltered
    if "\u212a" in text:
        return  # a Kelvin sign in a JSON string is missed on main too (both engines): reported
    with _no_prefilter():
        whole = _normalized(redact_value({"lines": text.split("\n")}))
    with using_engine(engine):
        assert _normalized(redact_value({"lines": text.split("\n")})) == whole


@pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")
def test_hyperscan_reports_matches_in_the_order_of_their_ends() -> None:
    """What the thinning rests on: a match ending before the stretch already hit is never
    reported after it (so skipping the rest of that stretch loses nothing)."""
    engine = HYPERSCAN[0]
    data = ("x sk-1 AAAAAAAAAAAAAAAAAAAAAAAA ghp_ password=1 %41 \\u0041 eyJ AKIA\n" * 50).encode()
    ends: list[int] = []
    db = engine.text_literals  # loaded on first use: a loaded database has no scratch of its own
    db.scan(data, match_event_handler=lambda i, s, e, f, c: ends.append(e),
            scratch=engine.hs.Scratch(db))
    assert ends and ends == sorted(ends)


def _present_engines() -> list[Any]:
    out: list[Any] = [keywords._Plain()]
    fast = keywords._engine()
    if not isinstance(fast, keywords._Plain):
        out.append(fast)
    return out


KEYWORDS = sorted({*keywords.FAMILY_EXACT, *keywords.GENERIC, *keywords.ESCAPE_ANY_CASE,
                   *keywords.BASE64})[::7]


@settings(max_examples=15, deadline=None)
@given(parts=st.lists(st.tuples(st.sampled_from([*KEYWORDS, "x", " ", "QUFB", "A"]),
                                st.integers(1, 400)), min_size=1, max_size=8),
       shift=st.integers(0, 64))
def test_a_long_piece_read_in_blocks_holds_what_it_holds_whole(
    parts: list[tuple[str, int]], shift: int
) -> None:
    """``present`` reads a long piece a block at a time and skips a block it has read: the
    keywords it finds are those of the whole piece, wherever they fall on a block's edge."""
    text = "y" * shift + "".join(unit * n for unit, n in parts)
    text = text if len(text) > keywords._LONG else text + "z" * keywords._LONG
    for engine in _present_engines():
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(keywords, "_built", [engine])
            assert keywords.present(text) == engine.present(text)


@pytest.mark.parametrize("unit", ["A", "QUFB", "sk-", "%41"])
def test_a_long_run_is_read_for_keywords_once_a_period(unit: str) -> None:
    """Found by bench/fuzz_linear.py: 4 MB of QUFB spent 1.25 s in ``present`` alone, one
    hyperscan scan of the whole line confirming a keyword's base64 form at every period.
    Counted here as the chars handed to the engine: a few blocks, not the run."""
    text = unit * ((1 << 20) // len(unit))
    engine = keywords._engine()
    read: list[int] = []

    def counted(piece: str) -> Any:
        read.append(len(piece))
        return engine.present(piece)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keywords, "_built", [type("Counted", (), {"present": staticmethod(counted)})])
        keywords.present(text)
    assert sum(read) <= 16 * 8192


@pytest.mark.parametrize("unit", ["%41", "\\u0041"])
def test_a_run_of_escapes_is_decoded_without_a_table_per_escape(unit: str) -> None:
    """Found by bench/fuzz_linear.py: 4 MB of %41 held 69x its size (three ints and a list
    entry per escape, kept with the decoded view). Counted in traced bytes, not time."""
    import tracemalloc

    from elision.redact.encodings import decode_escapes

    text = unit * ((1 << 18) // len(unit))
    tracemalloc.start()
    try:
        view = decode_escapes(text)
        assert view is not None
        assert view.original(len(view.text) - 2, len(view.text)) == (len(text) - 2 * len(unit),
                                                                     len(text))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 4 * len(text)  # the decoded text and re.sub's pieces: was 40x
