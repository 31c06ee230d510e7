"""``may_be_json``: the cheap look that spares a text body a whole JSON parse (issue 17).

It may only say "no" where the strict parser refuses: a property holds it to ``parse_json`` on
bytes built to sit near the edge (JSON scalars, their near misses, logs), and ``shape`` gives
the same text for a body it turns away as for the body parsed the old way.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import elision
from elision.errors import InputError
from elision.shape import may_be_json
from elision.shape.jsonparse import parse_json

_PIECES = st.sampled_from([
    b"0", b"1", b"-", b"12", b".", b"5", b"e", b"E", b"+", b"true", b"false", b"null", b"nul",
    b" ", b"\t", b"\n", b"\r", b"\x0b", b"x", b"2026-11-30T12:00:00Z INFO", b"{", b"[", b'"',
    b"\xef\xbb\xbf", b"NaN", b"Infinity", b"\xe6\x9d\xb1",
])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=8).map(b"".join))
def test_a_body_turned_away_is_one_the_parser_refuses(body: bytes) -> None:
    if may_be_json(body):
        return
    with pytest.raises(InputError):
        parse_json(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"2026-11-30T12:00:00Z INFO started\n", False),  # a log: a number, then more
        (b"INFO started", False),  # a word that is no literal
        (b"  \n 12.5e+3 \r\n", True),  # a number between JSON whitespace
        (b"-0", True),  # the least number there is
        (b"01", False),  # a leading zero is no JSON number
        (b"\x0b1", False),  # vertical tab is not JSON whitespace
        (b"truex", False),  # a literal with a tail
        (b"null", True),
        (b'"a string, judged by the parser"', True),  # a string is always parsed
        (b"  [1, 2", True),  # an array head, even a broken one, is the parser's to refuse
        (b"", False),  # nothing at all
    ],
)
def test_edges(body: bytes, expected: bool) -> None:
    assert may_be_json(body) is expected


@pytest.mark.parametrize("body", [
    b"2026-11-30T12:00:00Z INFO step ok\n" * 2000,  # a long log that starts like a number
    b"12345\n" + b"x" * 50_000,  # a number, then a long text
])
def test_a_text_body_shapes_as_text(body: bytes) -> None:
    shaped = elision.shape(body, elision.Budget(4096), redactor=None)
    assert shaped.format == "text"
    assert shaped.text.startswith("[elision] partial:")
