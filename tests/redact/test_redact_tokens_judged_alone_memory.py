"""Many strings of an array judged one by one are not kept past their frame.

Found by ``ELISION_REDACT_ENGINE=re``: test_redact_json_entries_compact's array of 256 KB of
distinct ``ghp_`` tokens peaked at 5.5x through ``shape()`` (its bound 3.5x; hyperscan 2.9x).
With the regex passes no block of strings is told together (``triggers.quiet_runs`` is
hyperscan's), so each token went through the walker's judge, whose cache kept 4,096 of them:
each string, a pair and a rules tuple for its answer, and the dict (tracemalloc snapshot at
the peak, by line: ``walk.py`` ``_judge``). A frame's answers are held by the frame; a text
that is one credential is answered by its rule's one pair. Peaks are counted, not timed.
"""

from __future__ import annotations

import random
import string
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.pipeline import Pipeline
from elision.redact import RedactStage, redact_value, triggers
from elision.redact.batch import BATCH
from elision.redact.scan import DENSE, redact_spans
from elision.shape import shape
from support.engines import trigger_engines, using_engine
from support.traced import peak

_ALNUM = string.ascii_letters + string.digits
_REGEX = trigger_engines()[0]
assert isinstance(_REGEX, triggers._Regex)


def _token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(_ALNUM) for _ in range(36))


def _tokens(size: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    return orjson.dumps([_token(rng) for _ in range(size // 43)])


@pytest.mark.parametrize("engine", trigger_engines(), ids=lambda e: type(e).__name__)
def test_an_array_of_distinct_tokens_is_shaped_within_its_bound(engine: Any) -> None:
    """Red before under the regex passes: 5.5x the body (traced); now 2.8x, as hyperscan."""
    body = _tokens(256 << 10)
    with using_engine(engine):
        shape(_tokens(16 << 10, seed=3), Budget(4096))  # databases and caches, made
        RedactStage().redact(Pipeline(budget=Budget(4096)).capture(body))  # and the pieces'
        assert peak(lambda: shape(body, Budget(4096))) < 3.5 * len(body)


# ------------------------------------------------- the same answers as each string's alone

_AFFIXES = ["", "", "x ", "token=", " ", "\\n"]
_CLEAN = ["ok", "ghp_short", "hunter", "sk-", "", "ghp_" + "a" * 35]


@st.composite
def _array(draw: st.DrawFn) -> list[str]:
    """Many strings (a frame of them past :data:`BATCH`, or fewer): whole tokens, tokens with
    something around them, two tokens in one, clean look-alikes, a dense line, repeats."""
    rng = random.Random(draw(st.integers(0, 1 << 30)))
    out: list[str] = []
    for _ in range(draw(st.integers(0, 3 * BATCH))):
        kind = draw(st.sampled_from(["whole", "whole", "affixed", "two", "clean", "again",
                                     "dense"]))
        if kind == "whole":
            out.append(_token(rng))
        elif kind == "affixed":
            out.append(draw(st.sampled_from(_AFFIXES)) + _token(rng)
                       + draw(st.sampled_from(_AFFIXES)))
        elif kind == "two":
            out.append(_token(rng) + " " + _token(rng))
        elif kind == "clean":
            out.append(draw(st.sampled_from(_CLEAN)))
        elif kind == "again" and out:
            out.append(draw(st.sampled_from(out)))
        elif kind == "dense":
            out.append(" ".join(_token(rng) for _ in range(8)))
    return out


def _alone(texts: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Each string redacted alone, and its entries (path, reason), in order."""
    values, entries = [], []
    for i, text in enumerate(texts):
        new, spans = redact_spans(text)
        values.append(new)
        entries.extend((f"$[{i}]", rule) for rule in dict.fromkeys(s.rule for s in spans))
    return values, entries


@settings(max_examples=40, deadline=None)
@given(_array(), st.sampled_from(trigger_engines()))
def test_an_array_is_redacted_as_each_string_alone(texts: list[str], engine: Any) -> None:
    """Whatever the frame's size, kept or not, shared pair or not: the values and entries are
    each string's own, under either engine, twice in one walk (a second frame of the same)."""
    with using_engine(engine):
        done = redact_value([texts, list(texts)])
        values, entries = _alone(texts)
    assert done.value == [values, values]
    got = [(str(e["path"]), str(e["reason"])) for e in done.withheld]
    want = [(f"$[{n}]{p[1:]}", r) for n in (0, 1) for p, r in entries]
    assert got == want


@pytest.mark.parametrize("texts", [
    [],  # nothing
    ["ghp_" + "a" * 36] * (BATCH + 1),  # one token, many times: distinct once
    [f"ghp_{i:036d}" for i in range(BATCH - 1)],  # one fewer than a batch: kept
    [f"ghp_{i:036d}" for i in range(BATCH)],  # a batch: not kept past the frame
    [f"x ghp_{i:036d}" for i in range(BATCH)],  # not whole: its own rules tuple
    [" ".join(f"ghp_{i:036d}{j}" for j in range(8)) for i in range(BATCH)],  # dense lines
])
@pytest.mark.parametrize("engine", trigger_engines(), ids=lambda e: type(e).__name__)
def test_sharp_edges_are_redacted_as_each_string_alone(texts: list[str], engine: Any) -> None:
    with using_engine(engine):
        done = redact_value(texts)
        values, entries = _alone(texts)
    assert done.value == values
    assert [(e["path"], e["reason"]) for e in done.withheld] == entries
    assert all(e["reason"] != DENSE or "bytes" in e for e in done.withheld)
