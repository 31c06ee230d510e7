"""A shaped text counts bytes in one unit: the original body's, which the header names.

Found reading a text whose redaction grows it (stubs longer than the values they stand for):
the header said ``1,485 of 601,890 bytes`` (the original's) while the marker said ``19,963
lines elided (661,711 bytes)``, the redacted view's; more elided than the whole. A
credential-dense stretch shrinks it the other way (its stub stands for thousands of bytes).
Now the marker counts the original's bytes of the lines it stands for, in a first result
and in a page, so the original's bytes of the shown lines and the marker's add up to the
total (for a page: to its selection's).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.shape import shape
from elision.shape.lines import line_ends
from elision.store import MemoryStore
from elision.store.fetch import parse_next

_HEADER = re.compile(r"partial: lines (.*?) of ([\d,]+) shown; [\d,]+ of ([\d,]+) bytes")
_MARKER = re.compile(r"^\[… .* elided \(([\d,]+) bytes\): (elision_fetch\(.*\)) …\]$", re.M)
#: A short value whose stub, ``[credential withheld: credential-assignment]``, is longer.
_WITHHELD = "row {i} password=hunter{i:04d}xyz ok\n"
_PLAIN = "row {i} nothing to see here\n"


def _numbers(text: str) -> tuple[list[tuple[int, int]], int, int, str]:
    """The header's shown line ranges and byte total, the marker's bytes and its call."""
    header = _HEADER.search(text.splitlines()[0])
    assert header is not None, text[:300]
    marker = _MARKER.search(text)  # a page may show all its lines: then it has none
    ranges = [tuple(int(n) for n in r.split("-")) if "-" in r else (int(r), int(r))
              for r in header.group(1).split(" and ")]
    if marker is None:
        return [(a, b) for a, b in ranges], int(header.group(3).replace(",", "")), 0, ""
    return ([(a, b) for a, b in ranges], int(header.group(3).replace(",", "")),
            int(marker.group(1).replace(",", "")), marker.group(2))


def _bytes_of(ends: list[int], first: int, last: int) -> int:
    """The original's bytes in lines ``first``-``last`` (1-based, inclusive)."""
    return ends[last - 1] - (ends[first - 2] if first > 1 else 0)


def _body(pattern: list[bool]) -> bytes:
    return "".join((_WITHHELD if secret else _PLAIN).format(i=i)
                   for i, secret in enumerate(pattern)).encode()


def _adds_up(body: bytes, limit: int) -> None:
    store = MemoryStore()
    shaped = shape(body, Budget(limit), store=store)
    ends = line_ends(body)
    ranges, total, elided, call = _numbers(shaped.text)
    assert total == len(body)
    shown = sum(_bytes_of(ends, a, b) for a, b in ranges)
    assert shown + elided == total, (shown, elided, total)
    # The page the marker points at: what it shows and elides of its selection adds up too.
    assert shaped.ref is not None
    lines = parse_next(call)["lines"]
    page = store.fetch(shaped.ref, lines=lines, budget=Budget(limit))
    first, last = (int(n) for n in lines.split("-"))
    ranges, total, elided, _ = _numbers(page.text)
    assert total == len(body)
    shown = sum(_bytes_of(ends, a, b) for a, b in ranges)
    assert shown + elided == _bytes_of(ends, first, last), (shown, elided)


def test_a_text_whose_stubs_are_longer_than_its_values_counts_the_originals_bytes() -> None:
    _adds_up(_body([i % 10 == 0 for i in range(2000)]), 1500)


def test_a_credential_dense_text_counts_the_originals_bytes() -> None:
    # Every line a value: the stretch is withheld whole, its stub far shorter than it.
    _adds_up(_body([True] * 2000), 1500)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.booleans(), min_size=40, max_size=300), st.integers(600, 3000))
def test_shown_and_elided_add_up_to_the_original(pattern: list[bool], limit: int) -> None:
    body = _body(pattern)
    if len(body) <= limit:
        body *= 1 + limit // len(body)
    _adds_up(body, limit)


def test_a_text_of_bytes_not_utf8_counts_the_originals_bytes() -> None:
    # Each bad byte shows as U+FFFD, 3 bytes: the marker counted those.
    _adds_up(b"".join(b"line %d \xff\xfe\xfd ok\n" % i for i in range(800)), 1000)
