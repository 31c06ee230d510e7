"""Spans to merge: short, overlapping, touching, empty and repeated, of a few rules."""

from __future__ import annotations

from hypothesis import strategies as st

from elision.redact.rules import Span


def span_lists(max_size: int = 12) -> st.SearchStrategy[list[Span]]:
    return st.lists(
        st.builds(lambda a, n, rule: Span(a, a + n, rule), st.integers(0, 60),
                  st.integers(0, 12),
                  st.sampled_from(["credential-assignment", "signed-url", "jwt"])),
        max_size=max_size,
    )
