"""What a failing property test reports: its assertion, whatever size its example."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def test_a_property_that_fails_on_a_large_example_reports_its_assertion() -> None:
    """Found chasing a density-bound failure seen across sessions and never explained: a
    falsifying text past 30 kB made Hypothesis warn that its repr was large, and under
    ``filterwarnings = error`` that warning was the test's error, the assertion gone."""

    @settings(max_examples=1, deadline=None, database=None)
    @given(text=st.just("password=x " * 3000))
    def holds(text: str) -> None:
        assert len(text) < 100, "the property's own message"

    with pytest.raises(AssertionError, match="the property's own message"):
        holds()
