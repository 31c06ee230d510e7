"""Redacting assignments just under the density bound holds little beyond its result (issue 23).

Found by ``bench/redact.py --worst assign-under-limit``: a MB of ``password=hunter2 xxx…``
lines, each value a credential with an entry of its own, peaked at 12.8x the input. Traced
(tracemalloc) it was 11.3x, of which the result (the redacted text and 25,000 entries) is 7.5x:
the rest was a key tuple a span to sort spans already in order, a new stub string a span, and
every span still held while every entry was made.
"""

from __future__ import annotations

import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from elision import Budget
from elision.pipeline import condense_withheld
from elision.redact import redact_text
from elision.redact.rules import Span
from elision.redact.scan import _merge
from support.spans import span_lists

KB = 1 << 10


def _under_limit(size: int) -> str:
    line = "password=hunter2 " + "x" * 23 + "\n"  # bench/fuzz_linear.py: assign-under-limit
    return line * (size // len(line))


def test_judging_dense_assignments_holds_little_beyond_the_result() -> None:
    text = _under_limit(256 * KB)
    redact_text(text[:4096])  # caches and databases, made
    tracemalloc.start()
    try:
        done = redact_text(text)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(done.withheld) == text.count("\n")
    # 3.8x the input above the result before; 0.5x after.
    assert peak - held < 1.5 * len(text)
    assert peak < 9 * len(text)  # 11.3x before, 7.9x after


def _merge_as_before(spans: list[Span]) -> list[Span]:
    """What ``scan._merge`` gave before: sorted by a key tuple a span, overlaps joined."""
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.rule)
        else:
            merged.append(span)
    return merged


@given(span_lists(), st.booleans())
def test_spans_merge_as_before(spans: list[Span], in_order: bool) -> None:
    if in_order:
        spans = sorted(spans)  # the common case: found in order, the sort skipped
    assert _merge(list(spans)) == _merge_as_before(list(spans))


def test_a_long_list_of_entries_is_condensed_without_serializing_it() -> None:
    """``shape()`` of the same MB peaked at 15.9x (bench): of it, the whole list of entries
    serialized only to be found longer than a quarter of the budget."""
    entries = [{"line": n, "reason": "credential-assignment"} for n in range(1, 20_001)]
    condense_withheld(entries, Budget(4096))  # warmed
    tracemalloc.start()
    try:
        got = condense_withheld(entries, Budget(4096))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [{"lines": "1-20000", "reason": "credential-assignment", "count": 20_000}]
    assert peak < 30 * len(entries)  # 50 bytes an entry and more before (its JSON)
