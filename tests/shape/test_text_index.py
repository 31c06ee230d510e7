"""The line index: lines found from either end, in chunks, agree with a plain splitter."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.shape.lines import LineIndex, decode, iter_lines, line_ends, line_start

# Bytes that make line endings interesting, plus a multi-byte character.
_BODIES = st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", "é".encode()]), max_size=80).map(
    b"".join
)


def reference_ends(body: bytes) -> list[int]:
    ends, i = [], 0
    while i < len(body):
        if body[i : i + 2] == b"\r\n":
            i += 2
            ends.append(i)
            continue
        i += 1
        if body[i - 1 : i] in (b"\n", b"\r"):
            ends.append(i)
    if body and (not ends or ends[-1] != len(body)):
        ends.append(len(body))
    return ends


@given(_BODIES, st.integers(1, 6), st.randoms(use_true_random=False))
def test_index_agrees_whatever_the_chunk_and_order(body: bytes, chunk: int, rnd: object) -> None:
    ends = reference_ends(body)
    starts = [0, *ends[:-1]]
    index = LineIndex(body)
    # Tiny chunks put chunk edges between a \r and its \n and inside characters.
    index._head_chunk = index._tail_chunk = chunk
    assert len(index) == len(ends)
    order = list(range(len(ends)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    for i in order:
        assert index[i] == ends[i] - starts[i]
    for t in range(len(ends) + 1):
        assert index.tail_start(t) == (starts[len(ends) - t] if t else len(body))
        assert index.head_end(t) == (ends[t - 1] if t else 0)


@given(_BODIES, _BODIES, _BODIES, st.integers(1, 6))
def test_an_index_of_whole_lines_in_place_agrees_with_one_of_their_copy(
    before: bytes, lines: bytes, after: bytes, chunk: int
) -> None:
    """A page's lines in the original (``ShapeContext.original_start``) are indexed where
    they are; no window starts or ends between a \r and its \n, so none is drawn so."""
    if before.endswith(b"\r") and lines.startswith(b"\n"):
        before += b"\n"
    if lines and not lines.endswith((b"\n", b"\r")):
        lines += b"\n"
    if lines.endswith(b"\r") and after.startswith(b"\n"):
        lines += b"\n"
    body = before + lines + after
    start = len(before)
    window, copy = LineIndex(body, start, start + len(lines)), LineIndex(lines)
    window._head_chunk = window._tail_chunk = chunk
    assert len(window) == len(copy) and window.size == len(lines)
    for k in range(len(copy) + 1):
        assert window.head_end(k) == copy.head_end(k)
        assert window.tail_start(k) == copy.tail_start(k)


@given(_BODIES, st.integers(0, 40), st.integers(0, 40))
def test_line_start_is_where_the_line_ends_say(body: bytes, start_line: int, k: int) -> None:
    ends = [0, *reference_ends(body)]
    start = ends[min(start_line, len(ends) - 1)]
    after = [e for e in ends if e >= start]
    assert line_start(body, k, start) == (after[k] if k < len(after) else len(body))


@given(_BODIES, st.integers(1, 8))
def test_line_ends_agree(body: bytes, chunk: int) -> None:
    lines_module = importlib.import_module("elision.shape.lines")

    # Tiny chunks put chunk edges between \r and \n, and inside every line.
    saved, lines_module.CHUNK = lines_module.CHUNK, chunk
    try:
        ends = line_ends(body)
        lines = list(iter_lines(body))
    finally:
        lines_module.CHUNK = saved
    assert ends == reference_ends(body)
    assert [start + len(line) for start, line in lines] == ends
    assert b"".join(line for _, line in lines) == body
    assert line_ends(body, newline_only=True) == [
        i + 1 for i, byte in enumerate(body) if byte == 0x0A
    ] + ([len(body)] if body and not body.endswith(b"\n") else [])


def test_index_past_the_end_is_an_index_error() -> None:
    index = LineIndex(b"a\nb")
    with pytest.raises(IndexError):
        index.head_end(3)
    with pytest.raises(IndexError):
        index.tail_start(3)


@pytest.mark.parametrize(
    ("body", "bad"),
    [
        (b"plain ascii", 0),  # the fast path
        ("é€😀".encode() * 1000, 0),  # valid multi-byte
        (b"a" * ((1 << 20) - 1) + "é".encode(), 0),  # a character across the 1 MiB check chunk
        (b"\xff", 1),  # a byte that is never UTF-8
        (b"\xe2\x82", 2),  # a truncated sequence at the end
        (b"\xed\xa0\x80", 3),  # an encoded surrogate is not UTF-8 either
    ],
)
def test_decode_counts_bad_bytes(body: bytes, bad: int) -> None:
    decoded = decode(body)
    assert decoded.bad_bytes == bad
    decoded.data.decode("utf-8")
    assert (decoded.data == body) is (bad == 0)
