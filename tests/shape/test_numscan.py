"""The number scan: hyperscan and the regex passes flag the same bodies, and neither misses.

Bodies are generated as token trees whose numbers take every spelling orjson re-spells (and
its neighbours), whose strings hold the same spellings after ``": "``, ``", "`` and ``"["``
(where they look like numbers in context), nested, with every JSON whitespace around tokens.
Each tree carries the compact bytes expected back, built from its own tokens; the exact
parser's output is checked against them with each engine doing the scan.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from elision.shape import numscan
from elision.shape.jsonparse import dumps_value, parse_json
from support.built import strategies_built
from support.json_tokens import Token, json_documents

engine = numscan.hyperscan_engine()
needs_hyperscan = pytest.mark.skipif(engine is None, reason="hyperscan is not installed")

WHITESPACE = st.text(alphabet=" \t\n\r", max_size=3)
# Every case the scan looks for, and spellings one step away from each.
RISKY = [
    "-0", "1E5", "1e5", "2E+3", "1e-7", "0.5e3", "1.10", "1.50", "1.00", "0.10", "0.000001",
    "0.0000012", "12345678901234567", "1234567890123456.0", "0.1234567890123456",
    "18446744073709551616", "-9223372036854775809", "1e400", "-0.000001", "-.1234567890123456",
]
NEAR = [
    "0", "-0.0", "-0.5", "-01", "1.0", "10.0", "100", "0.1", "0.00001", "1234567890123456",
    "123456789012345.6", "1.05", "-1", "1.", ".5", "1e", "-", "0.0000",
]


def _is_json_number(spelling: str) -> bool:
    try:
        json.loads(spelling)
    except ValueError:
        return False
    return True


# Made once, not on every draw of number_spellings (one_of is rebuilt and validated each time
# it is called, and the risky list parsed again): the same draws, the same spellings.
_LISTED = st.sampled_from([s for s in RISKY + NEAR if _is_json_number(s)])
_SIGN = st.sampled_from(["", "-"])
_WHOLE = st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,20}", fullmatch=True))
_FRACTION = st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,18}", fullmatch=True))
_EXPONENT = st.one_of(st.just(""), st.from_regex(r"[eE][-+]?[0-9]{1,3}", fullmatch=True))


@st.composite
def number_spellings(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(_LISTED)
    return draw(_SIGN) + draw(_WHOLE) + draw(_FRACTION) + draw(_EXPONENT)


@st.composite
def number_like_texts(draw: st.DrawFn) -> str:
    # A string that reads like JSON in number context: "a: 1E5, [1.50" and the like.
    parts = draw(st.lists(
        st.tuples(st.sampled_from([":", ",", "[", "x", ""]), WHITESPACE,
                  st.sampled_from(RISKY + NEAR)),
        max_size=3,
    ))
    return "".join(anchor + space + spelling for anchor, space, spelling in parts)


documents = json_documents(
    number_spellings(), st.one_of(number_like_texts(), st.text(max_size=8)),
    st.one_of(number_like_texts(), st.text(max_size=4)), WHITESPACE,
    max_items=4, max_leaves=20, literals=("true", "null"),
).map(lambda token: (f"[{token[0]}]", b"[" + token[1] + b"]"))  # the fast path needs a container


@contextmanager
def scan_with(name: str) -> Iterator[None]:
    """Every body scanned by one engine, whatever its size."""
    saved = numscan.HYPERSCAN_FROM
    numscan.HYPERSCAN_FROM = 0 if name == "hyperscan" else 1 << 62
    try:
        yield
    finally:
        numscan.HYPERSCAN_FROM = saved


@needs_hyperscan
@given(documents)
def test_engines_flag_the_same_documents(token: Token) -> None:
    assert engine is not None
    body = token[0].encode("utf-8")
    assert engine(body) is numscan.regex_risky_numbers(body)


# Bytes that matter to the scan and little else: anything may come out, JSON or not.
noise = st.lists(st.sampled_from([":", ",", "[", " ", "\t", "\n", "\r", "-", "0", "1", "9",
                                  ".", "e", "E", "+", '"', "x", "]", "}", "0.00000"]),
                 max_size=40).map(lambda parts: "".join(parts).encode("ascii"))


@needs_hyperscan
@given(noise)
@example(b": -.1234567890123456")  # after a "-", the 17-char case takes a point first
@example(b"[-0")  # -0 at the very end of the body
@example(b"[1.50")  # a trailing fraction zero at the very end
@example(b"[1.0,1.5e")
def test_engines_flag_the_same_bytes(body: bytes) -> None:
    assert engine is not None
    assert engine(body) is numscan.regex_risky_numbers(body)


@pytest.mark.parametrize("name", [
    pytest.param("hyperscan", marks=needs_hyperscan),
    "regex",
])
@given(token=documents)
def test_no_engine_lets_a_respelled_number_through(name: str, token: Token) -> None:
    # Whichever engine scans, every number comes back as the tool wrote it.
    text, expected = token
    with scan_with(name):
        assert dumps_value(parse_json(text.encode("utf-8"))) == expected


@needs_hyperscan
@pytest.mark.parametrize("spelling", [s for s in RISKY if _is_json_number(s)])
@pytest.mark.parametrize("space", ["", " ", "\n\t "])
@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ('{"a":', "}"), ("[0,", "]")])
def test_each_risky_spelling_is_flagged_by_hyperscan(
    spelling: str, space: str, opening: str, closing: str
) -> None:
    assert engine is not None
    assert engine(f"{opening}{space}{spelling}{space}{closing}".encode("ascii"))


@needs_hyperscan
def test_large_bodies_go_to_hyperscan(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_regex(body: bytes) -> bool:
        raise AssertionError("the regex passes scanned a large body")

    body = b'{"rows": [' + b",".join(b'{"n": 12}' for _ in range(10_000)) + b'], "x": 1E5}'
    assert len(body) >= numscan.HYPERSCAN_FROM
    monkeypatch.setattr(numscan, "regex_risky_numbers", no_regex)
    assert numscan.risky_numbers(body)
    assert not numscan.risky_numbers(body.replace(b"1E5", b"5"))
    with pytest.raises(AssertionError, match="regex passes"):
        numscan.risky_numbers(b'{"x": 1E5}')  # a small body: no compile needed for it


def test_an_unusable_hyperscan_leaves_the_regex_passes(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Installed but failing (a CPU it does not support, say): the scan must still answer.
    import sys
    import types

    def broken_database() -> Any:
        raise RuntimeError("no SSSE3")

    monkeypatch.setitem(sys.modules, "hyperscan", types.SimpleNamespace(
        Database=broken_database, HS_FLAG_SOM_LEFTMOST=0, HS_FLAG_CASELESS=1,
        HS_FLAG_SINGLEMATCH=8, HS_FLAG_DOTALL=2, HS_FLAG_MULTILINE=4,
    ))
    with caplog.at_level("WARNING", logger="elision.shape"):
        assert numscan._compile() is None
    assert "hyperscan is installed but unusable here (RuntimeError)" in caplog.text
    assert numscan.risky_numbers(b'{"a": 1E5}') and not numscan.risky_numbers(b'{"a": 1.5}')


def test_drawing_a_number_spelling_builds_no_strategy() -> None:
    """Red before: each draw built its one_of strategies again (175 for 20 spellings)."""
    assert strategies_built(number_spellings()) < 20
