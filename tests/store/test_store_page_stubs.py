"""A text page's stubs are read from its bytes (issue 23): a page to the end of a kept view
held a decoded copy of itself to find them, 0.88x the body beside the view and the page
(``bench/fetch.py --view-pages``: 2.76x the body at the peak, now 2.07x)."""

from __future__ import annotations

import re
import tracemalloc
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.store import fetch

_TEXT_STUB = re.compile(
    r"\[(?:credential withheld: ([A-Za-z0-9._-]+)"
    r"|(credential-dense) text withheld: [0-9,]+ bytes)\]"
)


def _stubs_as_before(page: bytes, lines_before: int) -> list[dict[str, Any]]:
    """The reading as it was: the page decoded (bad bytes replaced), then searched."""
    text = page.decode("utf-8", errors="replace")
    return [{"line": lines_before + text.count("\n", 0, m.start()) + 1,
             "reason": m.group(1) or m.group(2)} for m in _TEXT_STUB.finditer(text)]


PIECES = st.sampled_from([
    b"[credential withheld: github-pat]", b"[credential withheld: sk.a_b-1]",
    b"[credential-dense text withheld: 1,024 bytes]", b"[credential withheld: ",
    b"]", b"[", b"\n", b"\r\n", b"word ", "é".encode(), b"\xe2\x82", b"\xff", b"\x80\n",
    b"\xf0\x9f", b"credential", b"withheld: ", b"bytes]",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map(b"".join), st.integers(min_value=0, max_value=9))
@example(b"\xe2\x82[credential withheld: x]\n\xff[credential withheld: y]", 3)
def test_stubs_are_read_from_the_bytes_as_from_their_decoding(page: bytes, before: int) -> None:
    """Differential: bytes that are not UTF-8 (a torn char before a stub, a stray byte)
    move no ASCII byte when replaced, so the bytes hold the same stubs on the same lines."""
    assert fetch._stubs_in(page, before) == _stubs_as_before(page, before)


def test_a_long_page_is_not_decoded_to_find_its_stubs() -> None:
    line = b"2026-12-04 request served in 12 ms\n" * 1000
    page = (line + b"token [credential withheld: github-pat]\n") * ((1 << 20) // len(line))
    fetch._stubs_in(page, 0)
    tracemalloc.start()
    try:
        found = fetch._stubs_in(page, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found) == (1 << 20) // len(line)
    assert peak < len(page) // 4  # the decoded copy was 1x the page


class _Counted(bytes):
    """A page that counts the bytes its line counts read."""

    read = 0

    def count(self, sub: Any, start: Any = None, end: Any = None) -> int:
        _Counted.read += (len(self) if end is None else end) - (start or 0)
        return super().count(sub, start, end)


def test_a_page_of_many_stubs_counts_its_lines_once() -> None:
    """Each stub's line was counted from the page's start: a 1 MB page of 17,000 stubs read
    it 17,000 times over (8 s, found while writing the test above). The count goes on from the
    last stub now. (Not red on the old code, which counted in its decoded copy, where this
    page cannot see: the differential test above holds the lines to what it gave.)"""
    line = b"served [credential withheld: github-pat] in 12 ms\n"
    page = _Counted(line * 2000)
    _Counted.read = 0
    found = fetch._stubs_in(page, 5)
    assert [e["line"] for e in found] == list(range(6, 2006))
    assert _Counted.read <= len(page)
