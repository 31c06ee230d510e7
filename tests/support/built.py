"""How many strategies drawing a strategy's examples builds: a composite that makes its parts
on every draw (instead of once, at import) builds thousands, and most of a test's CPU goes to
building them rather than testing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies._internal.strategies import SearchStrategy


def strategies_built(strategy: st.SearchStrategy[Any], examples: int = 20) -> int:
    """The strategies built while ``examples`` examples of ``strategy`` are drawn, after a
    first run of the same draws has made what any first draw makes (caches, the data tree)."""
    drawn = 0

    @settings(max_examples=examples, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(example: Any) -> None:
        nonlocal drawn
        drawn += 1

    draw()
    built = 0
    init = SearchStrategy.__init__

    def counted(self: SearchStrategy[Any]) -> None:
        nonlocal built
        built += 1
        init(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SearchStrategy, "__init__", counted)
        draw()
    assert drawn >= 2, "no example was drawn"
    return built
