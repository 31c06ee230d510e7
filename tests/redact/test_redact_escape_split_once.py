"""A piece's escapes are split out once: for its view, and for mapping the view's spans back.

Found by a profile of ``bench/redact.py --worst cookies-json-deep`` (a cookie map two levels of
JSON-in-JSON down on each line; issue 23): ``encodings._decoded`` split each piece at its
escapes to decode it, and ``encodings._tabled_originals`` split the same piece again to map
each withheld value back, a twentieth of the row. The view now keeps the split's lengths.
The mapping must not change: the property compares it with one that splits again.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import encodings, redact_text

_LINE = (r'{\\\"cookies\\\": {\\\"sid\\\": \\\"Xq7vR2mK9pL4wT8n\\\"}} '
         "the quick brown fox jumps over the lazy dog\n")


class _CountedSplit:
    """The escape pattern, its ``split`` calls counted."""

    def __init__(self, pattern: Any) -> None:
        self.pattern, self.splits = pattern, 0

    def split(self, text: str) -> list[str]:
        self.splits += 1
        return self.pattern.split(text)  # type: ignore[no-any-return]


def test_a_cookie_maps_view_is_mapped_back_without_a_second_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: the mapping back split the piece again (one split more)."""
    counted = _CountedSplit(encodings._ESCAPE_WHOLE)
    monkeypatch.setattr(encodings, "_ESCAPE_WHOLE", counted)
    piece = _LINE * 7
    view = encodings.decode_escapes(piece)
    assert view is not None and counted.splits == 1
    value = view.text.index("Xq7v")
    (start, end), = view.originals([(value, value + 16)])
    assert piece[start:end] == "Xq7vR2mK9pL4wT8n"
    assert counted.splits == 1


def test_cookie_maps_deep_in_json_are_each_withheld() -> None:
    withheld = redact_text(_LINE * 50)
    assert len(withheld.withheld) == 50
    assert "Xq7vR2mK9pL4wT8n" not in withheld.value


# Runs of backslashes of each level's length before quotes and slashes, \u and % escapes (a
# piece with one is split again: no lengths kept), and a non-ASCII char.
_PIECES = ["\\", "\\\\", "\\" * 3, "\\" * 7, "/", '"', "u0067", "\\u0041", "%41", "%2541",
           "x", "é", " ", "\n", "sid"]


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=40).map("".join),
       cuts=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 20)), max_size=4))
def test_the_kept_split_maps_back_as_a_fresh_one(
    text: str, cuts: list[tuple[int, int]],
) -> None:
    view = encodings.decode_escapes(text)
    if view is None:
        assert re.search(r"\\|%", text) is None or encodings._ESCAPE.search(text) is None
        return
    spans = [(min(a, len(view.text)), min(a + n, len(view.text))) for a, n in cuts]
    spans = [(a, b) for a, b in spans if a < b]
    fresh = encodings.View(view.text, view.source, view.under)  # no lengths: split again
    assert view.originals(spans) == fresh.originals(spans)
