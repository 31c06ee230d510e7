"""The path a big text result takes through the proxy holds as few copies as it can (issue 17):
the reader grows one buffer per line, the JSON sniff reads no copy of the body, and a blank
line between messages is still no message. Memory itself is measured by bench/proxy.py --peak;
these tests hold the behaviour the changes must keep."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.pipeline import Pipeline, _may_be_json
from elision.shape.jsonparse import parse_json
from support.linereader import read_all


@settings(max_examples=80, deadline=None)
@given(
    blanks=st.lists(st.sampled_from(["", " ", "\t", "\r", " \x0b\x0c "]), max_size=4),
    texts=st.lists(st.text(max_size=300), min_size=1, max_size=4),
    cut=st.lists(st.integers(0, 3000), max_size=10),
)
def test_messages_read_whole_and_blank_lines_are_skipped_at_any_cut(
    blanks: list[str], texts: list[str], cut: list[int]
) -> None:
    lines = [json.dumps({"jsonrpc": "2.0", "id": i, "result": {"text": t}})
             for i, t in enumerate(texts)]
    data = "\n".join(itertools.chain(*zip(blanks, lines, strict=False),
                                     lines[len(blanks):])).encode() + b"\n"
    got = read_all(data, cut)
    assert [m.message.id for m in got] == list(range(len(texts)))  # type: ignore[attr-defined]
    assert [m.message.result["text"] for m in got] == texts  # type: ignore[attr-defined]


@pytest.mark.parametrize(("body", "sniffed"), [
    (b"2026-11-30T12:00:00Z INFO build started\n" * 3, False),  # a log of timestamps
    (b"-- a SQL comment\nSELECT 1", False),
    (b"note: the run took 3 s", False),
    (b"true story, told twice", False),
    (b"null pointer at 0x0", False),
    (b"42", True),
    (b" \n-1.5e+3\r\n", True),  # JSON whitespace around a number
    (b"\ttrue ", True),
    (b"null", True),
    (b"false", True),
    (b"  {\"a\": 1}", True),
    (b"\n\n[1, 2]", True),  # a blank line first: sniffed without a stripped copy
    (b'"a string"', True),
    (b"", False),
    (b"   ", False),
])
def test_the_json_sniff(body: bytes, sniffed: bool) -> None:
    assert _may_be_json(body) is sniffed


SCALARS = st.one_of(
    st.integers(-(10**30), 10**30), st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(), st.none(),
)


@settings(max_examples=200, deadline=None)
@given(value=SCALARS, before=st.sampled_from(["", " ", "\n", "\t\r\n "]),
       after=st.sampled_from(["", " ", "\n"]))
def test_every_json_scalar_is_sniffed_as_json(value: object, before: str, after: str) -> None:
    """The sniff may say yes to what is not JSON, never no to what is: a scalar that parses
    must still be read as JSON."""
    body = (before + json.dumps(value) + after).encode()
    parse_json(body)  # it is JSON
    assert _may_be_json(body)
    assert Pipeline(redactor=None).capture(body).is_json
