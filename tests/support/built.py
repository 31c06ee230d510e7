"""How many strategies drawing a strategy's examples builds: a composite that makes its parts
on every draw (instead of once, at import) builds thousands, and most of a test's CPU goes to
building them rather than testing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies._internal.strategies import SearchStrategy
from hypothesis.strategies._internal.utils import clear_strategy_cache


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

    # Hypothesis keeps the strategies a call such as st.integers(0, n) made in a cache of
    # 1,024; full of an earlier test's (the same worker's), the first run's were let go
    # before the second asked for them again, which built them: 12-35 where a worker ran
    # alone built none (test_drawing_ndjson_lines_builds_no_strategy, red in a full run only).
    clear_strategy_cache()
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
