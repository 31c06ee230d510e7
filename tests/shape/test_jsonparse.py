"""parse_json / dumps_value keep every value exactly as the tool wrote it (DESIGN invariant 6).

The documents here are generated as token trees: each node carries the text fed to the parser
(with random whitespace, escaped or raw unicode, numbers in every spelling) and the compact bytes
expected back, built from the tokens themselves (strings by orjson, numbers verbatim), never by
the code under test.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.errors import InputError
from elision.shape.jsonparse import (
    MAX_DEPTH,
    RawNumber,
    dumps_value,
    parse_json,
    risky_numbers,
)
from support.built import strategies_built
from support.json_tokens import Token, json_documents

WHITESPACE = st.text(alphabet=" \t\n\r", max_size=2)
# Spellings that sit on the edges of what orjson re-spells; mixed into the generated ones.
SHARP_NUMBERS = [
    "0", "-0", "1.0", "-0.0", "1.10", "1.50", "10.0", "0.1", "1E5", "1e5", "1e-7", "2E+3",
    "0.00001", "0.000001", "0.0000012", "1e400", "-1e400", "1e-400", "5e-324",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808",
    "-9223372036854775809", "1234567890123456.0", "0.1234567890123456", "12345678901234567.0",
    "9007199254740993", "0.30000000000000004", "123456789012345678901234567890",
]


# Made once, not on every draw of number_spellings (one_of is rebuilt and validated each time
# it is called): the same draws, the same spellings, a fraction of the CPU.
_WHOLE = st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,24}", fullmatch=True))
_FRACTION = st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,20}", fullmatch=True))
_EXPONENT = st.one_of(st.just(""), st.from_regex(r"[eE][-+]?[0-9]{1,3}", fullmatch=True))
_SHARP = st.sampled_from(SHARP_NUMBERS)
_SIGN = st.sampled_from(["", "-"])


@st.composite
def number_spellings(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 4)) == 0:
        return draw(_SHARP)
    return draw(_SIGN) + draw(_WHOLE) + draw(_FRACTION) + draw(_EXPONENT)


texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)


documents = json_documents(
    number_spellings(), texts, texts, WHITESPACE, max_items=5, max_leaves=30
)


@given(documents, WHITESPACE, WHITESPACE)
def test_round_trip_is_compact_and_exact(token: Token, before: str, after: str) -> None:
    text, expected = token
    assert dumps_value(parse_json((before + text + after).encode("utf-8"))) == expected


@given(documents)
def test_round_trip_is_idempotent(token: Token) -> None:
    once = dumps_value(parse_json(token[0].encode("utf-8")))
    assert dumps_value(parse_json(once)) == once


@given(number_spellings(), st.sampled_from([b"[", b",", b":"]))
def test_scan_flags_every_number_orjson_would_respell(spelling: str, anchor: bytes) -> None:
    # The fast path is exact only if the scan never misses a number orjson changes.
    raw = spelling.encode("ascii")
    if not risky_numbers(b"[0" + anchor + raw + b"]"):
        assert orjson.dumps(orjson.loads(raw)) == raw


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(texts, children, max_size=5),
    max_leaves=30,
)


@given(json_values, st.booleans())
def test_plain_documents_parse_like_json_loads(value: Any, indent: bool) -> None:
    # orjson's own spelling of every number is exact, so no RawNumber may appear.
    body = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    parsed = parse_json(body)
    assert parsed == json.loads(body)
    assert RawNumber not in {type(node) for node in _walk(parsed)}


@given(json_values, st.integers(1025, 3000))
def test_values_deeper_than_orjson_serialize_like_orjson(value: Any, depth: int) -> None:
    deep: Any = value
    for _ in range(depth):
        deep = [deep]
    assert dumps_value(deep) == b"[" * depth + orjson.dumps(value) + b"]" * depth


def _walk(value: Any) -> list[Any]:
    nodes, stack = [], [value]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return nodes


@pytest.mark.parametrize(
    ("spelling", "kept_raw"),
    [
        (b"1E5", True),  # orjson would print 100000.0
        (b"1e5", True),  # lower-case exponent, same
        (b"1.10", True),  # orjson would print 1.1
        (b"1.50", True),  # a trailing zero after the first fraction digit
        (b"1.0", False),  # orjson prints 1.0 itself: a plain float is exact
        (b"10.0", False),  # the zero before the point is not a trailing fraction zero
        (b"-0", True),  # orjson would read 0
        (b"-0.0", False),  # orjson keeps the sign of a float zero
        (b"18446744073709551615", False),  # 2**64 - 1: still an int orjson writes
        (b"18446744073709551616", True),  # 2**64: orjson would make it a float
        (b"-9223372036854775809", True),  # below -2**63
        (b"123456789012345678901234567890", True),  # far past 64 bits
        (b"12345678901234567.0", True),  # 17 significant digits do not survive a double
        (b"0.00001", False),  # orjson's own spelling of 1e-5
        (b"0.000001", True),  # orjson would print 1e-6
        (b"1e400", True),  # overflows a double; RFC 8259 allows it, so it is kept
        (b"1e-400", True),  # underflows to 0.0; kept
        (b"12.5", False),  # the everyday case stays a float
    ],
)
@pytest.mark.parametrize("context", ["root", "array", "object", "deep"])
def test_number_spellings(spelling: bytes, kept_raw: bool, context: str) -> None:
    body = {
        "root": spelling,
        "array": b"[0, " + spelling + b"]",
        "object": b'{"a": ' + spelling + b"}",
        "deep": b"[" * 1100 + spelling + b"]" * 1100,
    }[context]
    value = parse_json(body)
    number = {"root": lambda v: v, "array": lambda v: v[1], "object": lambda v: v["a"]}.get(
        context, lambda v: _innermost(v)
    )(value)
    assert isinstance(number, RawNumber) is kept_raw
    assert dumps_value(value) == body.replace(b" ", b"")


def _innermost(value: Any) -> Any:
    while isinstance(value, list):
        value = value[0]
    return value


@pytest.mark.parametrize(
    ("depth", "risky"),
    [
        (1024, False),  # orjson's own limit: the fast path
        (1025, False),  # one past orjson's limit: the deep path
        (1025, True),  # a flagged number sends it to the stdlib, which recurses: deep path
        (MAX_DEPTH, False),  # the deepest elision walks, 10,000 levels
        (MAX_DEPTH, True),
    ],
)
@pytest.mark.parametrize("bracket", [(b"[", b"]"), (b'{"k":', b"}")])
def test_deep_nesting_parses_and_serializes(
    depth: int, risky: bool, bracket: tuple[bytes, bytes]
) -> None:
    opening, closing = bracket
    inner = b"1E5" if risky else b"7"
    body = opening * depth + inner + closing * depth
    assert dumps_value(parse_json(body)) == body


def test_raw_number_is_a_value() -> None:
    number = RawNumber(b"1E5")
    assert number == RawNumber(b"1E5") and number != RawNumber(b"1e5")
    assert number != 100000.0  # equal by spelling, not by value
    assert len({number, RawNumber(b"1E5")}) == 1
    assert repr(number) == "RawNumber(b'1E5')"
    assert len(number) == 3
    assert orjson.dumps([number.fragment]) == b"[1E5]"


@pytest.mark.parametrize(
    "raw",
    [b"", b"1E", b"01", b"+1", b"1.", b".5", b"NaN", b"1 ", "1E5"],  # not one JSON number
)
def test_raw_number_refuses_what_is_not_a_number(raw: Any) -> None:
    with pytest.raises(ValueError, match="RawNumber needs the bytes of one JSON number"):
        RawNumber(raw)


@given(documents)
def test_deep_path_is_as_exact_as_the_others(token: Token) -> None:
    # 1,100 levels is past orjson and the stdlib: the iterative parser reads the whole body.
    text, expected = token
    body = ("[" * 1100 + text + "]" * 1100).encode("utf-8")
    value = parse_json(body)
    assert dumps_value(value) == b"[" * 1100 + expected + b"]" * 1100
    for _ in range(1100):
        (value,) = value
    # repr tells 1 from 1.0 and RawNumber(b'7') from 7, and shows key order.
    assert repr(value) == repr(parse_json(text.encode("utf-8")))


@given(documents, st.data())
def test_any_cut_or_corruption_is_an_input_error(token: Token, data: st.DataObject) -> None:
    # A torn or damaged body gives a clear InputError, never another exception.
    body = token[0].encode("utf-8")
    cut = data.draw(st.integers(0, len(body)))
    damaged = bytearray(body[:cut])
    if damaged and data.draw(st.booleans()):
        damaged[data.draw(st.integers(0, len(damaged) - 1))] = data.draw(st.integers(0, 255))
    try:
        parse_json(bytes(damaged))
    except InputError as exc:
        assert "byte" in str(exc) or "empty" in str(exc) or "byte order mark" in str(exc)


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        (b'{"sha": "1e5a0c", "id": "00000000000000000001"}', False),  # ids in strings: quiet
        (b'{"price": 12.5, "qty": 3, "ok": [1, 2.25, -7]}', False),  # everyday numbers
        (b'{"v": 1E5}', True),
        (b'{"v":\n  [0,\t-0]}', True),  # any JSON whitespace after the anchor
        (b'[1.50]', True),
        (b'[12345678901234567890]', True),
        (b'{"note": "ratio:1.50"}', True),  # looks like a number after ':': only costs speed
    ],
)
def test_scan_is_anchored_to_number_context(body: bytes, flagged: bool) -> None:
    assert risky_numbers(body) is flagged


def test_drawing_a_number_spelling_builds_no_strategy() -> None:
    """Red before: each draw built its one_of strategies again (173 for 20 spellings)."""
    assert strategies_built(number_spellings()) < 20
