"""The redacted body read in place (:class:`elision.shape.redactedbody.RedactedBody`) is
:func:`elision.redact.bodyview.redact_body`'s bytes, however it is read: its length, every
slice, an index, line breaks found and counted from either end, its chunks, its sniffs.

The spans are drawn at random (short, touching, over line breaks and multi-byte chars, at the
edges), in place of the rules' own, so the view's offset arithmetic meets every layout.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import bodyview
from elision.redact.bodyview import redact_body, redacted_body
from elision.redact.rules import Span
from elision.redact.scan import DENSE, SpanArrays
from elision.shape import may_be_json
from elision.shape.lines import LineIndex, _offsets
from elision.shape.records import looks_like_ndjson
from elision.shape.redactedbody import RedactedBody
from elision.shape.table import looks_like_csv
from elision.shape.text import _chars

_CHARS = ["a", "b", "\n", "\r", "\r\n", "é", "{", " ", ",", "€"]
_RULES = ["credential-assignment", DENSE, "jwt"]
# b"": an empty search is found as bytes finds it, start past end too (the merge's review)
_NEEDLES = [b"", b"\n", b"\r", b"\r\n", b"a", b"[", b"\n\n", b"aa", b"withheld"]


@st.composite
def _texts_and_spans(draw: st.DrawFn) -> tuple[str, list[Span]]:
    text = "".join(draw(st.lists(st.sampled_from(_CHARS), min_size=1, max_size=40)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), min_size=2, max_size=12)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if text[start:end] and not (start and text[start - 1:start + 1] == "\r\n"):
            spans.append(Span(start, end, draw(st.sampled_from(_RULES))))
    return text, spans or [Span(0, len(text), "jwt")]


def _both(text: str, spans: list[Span]) -> tuple[bytes, RedactedBody]:
    body = text.encode()

    def given_spans(*_: object, **__: object) -> SpanArrays:
        found = SpanArrays()
        found.extend(spans)
        return found

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bodyview, "find_spans", given_spans)
        want, entries = redact_body(body, text)
        view, view_entries = redacted_body(body, text)
    assert isinstance(view, RedactedBody)
    assert list(view_entries) == list(entries)
    return want, view


_bounds = st.one_of(st.none(), st.integers(-80, 80))


@settings(max_examples=400, deadline=None)
@given(_texts_and_spans(), st.lists(st.tuples(_bounds, _bounds), min_size=1, max_size=6),
       st.integers(1, 9))
def test_every_read_of_the_view_is_the_written_bodys(
    case: tuple[str, list[Span]], ranges: list[tuple[int | None, int | None]], chunk: int,
) -> None:
    want, view = _both(*case)
    assert len(view) == len(want)
    assert bytes(view) == want
    assert b"".join(view.chunks(chunk)) == want
    for at in range(-len(want), len(want)):
        assert view[at] == want[at]
    for a, b in ranges:
        assert view[a:b] == want[a:b]
        assert view[a:b:2] == want[a:b:2]
        assert view.startswith(want[a:b], a or 0) == want.startswith(want[a:b], a or 0)
        for sub in _NEEDLES:
            assert view.find(sub, a, b) == want.find(sub, a, b), (sub, a, b)
            assert view.rfind(sub, a, b) == want.rfind(sub, a, b), (sub, a, b)
            assert view.count(sub, a, b) == want.count(sub, a, b), (sub, a, b)
    for sub in _NEEDLES:
        assert view.find(sub) == want.find(sub)
        assert view.rfind(sub) == want.rfind(sub)
        assert view.count(sub) == want.count(sub)


@settings(max_examples=200, deadline=None)
@given(_texts_and_spans())
def test_the_format_sniffs_read_the_view_as_the_written_body(
    case: tuple[str, list[Span]],
) -> None:
    want, view = _both(*case)
    assert may_be_json(view) == may_be_json(want)
    assert looks_like_ndjson(view) == looks_like_ndjson(want)
    assert looks_like_csv(view) == looks_like_csv(want)
    assert view.decode() == want.decode()


@settings(max_examples=200, deadline=None)
@given(_texts_and_spans())
def test_the_views_lines_are_the_written_bodys(case: tuple[str, list[Span]]) -> None:
    """The text shaper's reading: its line index from either end, each line's bounds (found
    in the body where a piece has few breaks), and chars counted up to a line's end."""
    want, view = _both(*case)
    lines, written = LineIndex(view), LineIndex(want)
    assert len(lines) == len(written)
    for k in range(len(written) + 1):
        assert lines.head_end(k) == written.head_end(k)
    ends = [written.head_end(k) for k in range(len(written) + 1)]
    fresh = LineIndex(view)
    for k in range(len(written) + 1):
        assert fresh.tail_start(k) == written.tail_start(k)
    assert _offsets(view, 0, len(want)) == _offsets(want, 0, len(want))
    for a, b in pairwise(ends):
        assert _offsets(view, a, b) == _offsets(want, a, b)
        assert _chars(view, b) == _chars(want, b)
