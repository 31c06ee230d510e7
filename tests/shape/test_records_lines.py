"""NDJSON record finding: which lines are records, where they are, and auto-detection.

The NDJSON shaper splits a chunk of lines at a time and validates them in one C-level pass,
falling back to a line-at-a-time pass when a line is blank or not JSON. These tests hold it
to a per-line model written here, at every chunk size (a chunk of one byte puts a chunk edge
inside every line), so the fast pass and its fallback cannot drift apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision import shape
from elision.budget import Budget
from elision.errors import InputError
from elision.shape import ShapeContext, Shaped
from elision.shape import lines as line_module
from elision.shape.jsonparse import parse_json
from elision.shape.records import looks_like_ndjson, ndjson_shaper

# Lines of whitespace as bytes.isspace() sees it (\x0b and \x0c included): blank, not records.
BLANKS = [b"", b" ", b"\r", b"\t \x0c", b"\x0b", b"  \r"]
NOT_JSON = [b"not json", b'{"a":', b"\xff\xfe", b'{"a": 1} x', b"{}{}", b"\x0c{}", b"nan"]

records = st.builds(
    lambda value, pad, cr: pad + orjson.dumps(value) + pad + cr,
    st.dictionaries(st.text(max_size=6), st.integers(-(2**63), 2**63 - 1) | st.text(max_size=30),
                    max_size=3),
    st.sampled_from([b"", b" ", b"\t"]),
    st.sampled_from([b"", b"\r"]),
)


@st.composite
def ndjson_lines(draw: st.DrawFn) -> list[bytes]:
    kinds = st.sampled_from(["record"] * 8 + ["blank", "bad"])
    lines = []
    for kind in draw(st.lists(kinds, max_size=40)):
        if kind == "record":
            lines.append(draw(records))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(BLANKS)))
        elif draw(st.integers(0, 3)) == 0:  # a line that is not JSON, now and then
            lines.append(draw(st.sampled_from(NOT_JSON)))
    return lines


def join(lines: list[bytes], final_newline: bool) -> bytes:
    body = b"\n".join(lines)
    return body + b"\n" if final_newline and lines else body


def model(lines: list[bytes], final_newline: bool) -> tuple[list[tuple[int, bytes]], int | None]:
    """(1-based line number, bytes with the newline) of each record; the first bad line."""
    found = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            return found, number
        last = number == len(lines) and not final_newline
        found.append((number, line if last else line + b"\n"))
    return found, None


@contextmanager
def chunk_size(size: int) -> Iterator[None]:
    saved = line_module.CHUNK
    line_module.CHUNK = size
    try:
        yield
    finally:
        line_module.CHUNK = saved


def shape_ndjson(body: bytes, limit: int, offset: int = 0) -> Shaped:
    ctx = ShapeContext(sha256=hashlib.sha256(body).hexdigest(), total_bytes=len(body),
                       body=body, format="ndjson", root_offset=offset)
    return ndjson_shaper(body, ctx)(limit)


def expected_ranges(numbers: list[int], head: int, tail: int, offset: int) -> list[list[int]]:
    blocks = []
    if head:
        blocks.append((numbers[0], numbers[head - 1]))
    if tail:
        blocks.append((numbers[-tail], numbers[-1]))
    ranges: list[list[int]] = []
    for first, last in blocks:
        first, last = first + offset, last + offset
        if ranges and ranges[-1][1] + 1 >= first:
            ranges[-1][1] = last
        else:
            ranges.append([first, last])
    return ranges


@given(ndjson_lines(), st.booleans(), st.integers(300, 3000), st.sampled_from([0, 40]),
       st.sampled_from([1, 7, 64]))
def test_records_match_a_line_by_line_model_at_every_chunk_size(
    lines: list[bytes], final_newline: bool, limit: int, offset: int, size: int
) -> None:
    body = join(lines, final_newline)
    found, bad = model(lines, final_newline)
    shaped = shape_ndjson(body, limit, offset)
    with chunk_size(size):
        assert _comparable(shape_ndjson(body, limit, offset)) == _comparable(shaped)
    if bad is not None:
        assert shaped.format == "text"
        if shaped.complete:  # a text that fits comes back as it is, note or not
            assert shaped.body == body
            return
        assert shaped.envelope is not None
        assert any(note.startswith(f"line {offset + bad} is not JSON")
                   for note in shaped.envelope["notes"])
        return
    assert shaped.format == "ndjson"
    if shaped.complete:
        assert shaped.body == body
        return
    assert shaped.envelope is not None
    (entry,) = shaped.envelope["elided"]
    kept = shaped.body.split(b"\n", 1)[1]
    texts = [text for _, text in found]
    assert entry["total"] == len(found) and entry["shown"] < len(found)
    shown = entry["shown"]
    # The kept records are a head block and a tail block of the model's records, in order.
    head = next(h for h in range(shown + 1)
                if b"".join(texts[:h] + texts[len(texts) - shown + h:]) == kept)
    assert entry["ranges"] == expected_ranges([n for n, _ in found], head, shown - head,
                                              offset)


def _comparable(shaped: Shaped) -> tuple[Any, ...]:
    return shaped.text, shaped.format, shaped.complete, shaped.envelope


@pytest.mark.parametrize("size", [1, 2, 5, 1 << 20])
def test_blank_lines_at_chunk_edges_keep_the_numbering(size: int) -> None:
    # Records a-f on lines 1, 2 and 5-8 (3 and 4 blank); 600 bytes show the first and last.
    a, b, c, d, e, f = (orjson.dumps({key: "x" * 100}) for key in "abcdef")
    body = b"\n".join([a, b, b"", b" \r", c, d, e, f]) + b"\n"
    with chunk_size(size):
        shaped = shape_ndjson(body, 600)
        assert shaped.envelope is not None
        (entry,) = shaped.envelope["elided"]
        assert (entry["shown"], entry["total"]) == (2, 6)
        assert shaped.body.split(b"\n", 1)[1] == a + b"\n" + f + b"\n"
        assert entry["ranges"] == [[1, 1], [8, 8]]
        bad = shape_ndjson(body + b"oops\n" + body, 600)
        assert bad.envelope is not None and bad.format == "text"
        assert bad.envelope["notes"][0].startswith("line 9 is not JSON")


# ----------------------------------------------------------------------------- auto-detection


def reference_looks_like_ndjson(body: bytes) -> bool:
    # The detection as first written, copying the body; the one in records.py must agree.
    first, _, rest = body.lstrip().partition(b"\n")
    if not first.startswith(b"{") or not rest.strip():
        return False
    try:
        orjson.loads(first)
        orjson.loads(rest.lstrip().partition(b"\n")[0])
    except orjson.JSONDecodeError:
        return False
    return True


heads = st.lists(
    st.sampled_from([b"", b" ", b"\n", b"\r\n", b"\x0c", b"{}", b'{"a":[1,', b"2]}", b"[1]",
                     b'"s"', b"x", b"{", b"}", b'{"k": "v"}', b"\t"]),
    max_size=8,
).map(b"".join)


@given(heads)
def test_detection_agrees_with_the_reference(body: bytes) -> None:
    assert looks_like_ndjson(body) is reference_looks_like_ndjson(body)


@given(heads)
def test_what_looks_like_ndjson_is_never_one_json_document(body: bytes) -> None:
    # Why auto mode may try NDJSON before JSON: the JSON attempt could only have failed.
    if looks_like_ndjson(body):
        with pytest.raises(InputError):
            parse_json(body)


def test_auto_mode_shapes_ndjson_as_records() -> None:
    body = b"".join(orjson.dumps({"seq": i, "pad": "x" * 40}) + b"\n" for i in range(500))
    shaped = shape(body, Budget(2048))
    assert shaped.format == "ndjson"
    assert all(orjson.loads(line) for line in shaped.text.splitlines())
