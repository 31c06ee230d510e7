"""The bounded size walk agrees with the writer, byte for byte, and stops where it should."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.shape.jsondump import dumps_value
from elision.shape.sizes import bounded_size

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=6),
    max_leaves=60,
)


@given(values, st.integers(-2, 40))
def test_bounded_size_is_the_compact_size_or_none(value: Any, slack: int) -> None:
    size = len(dumps_value(value))
    limit = max(0, size + slack - 20)
    assert bounded_size(value, limit, 1000) == (size if size <= limit else None)


def _nest(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("depth", "room", "expected"),
    [
        (3, 3, 6),  # exactly as deep as allowed: measured
        (4, 3, None),  # one level deeper: refused
        (1, 1, 2),  # an empty array
    ],
)
def test_depth_room(depth: int, room: int, expected: int | None) -> None:
    assert bounded_size(_nest(depth), 1000, room) == expected


def test_a_long_array_is_not_walked_past_the_limit() -> None:
    class Counting(list[Any]):
        seen = 0

        def __iter__(self) -> Any:
            for item in super().__iter__():
                Counting.seen += 1
                yield item

    rows = Counting({"id": i} for i in range(100_000))
    # A limit above the commas alone, so the walk has to look at elements to refuse.
    assert bounded_size({"rows": rows}, 150_000, 10) is None
    assert Counting.seen < 20_000  # about limit / element size, not the array's length


@given(values, st.lists(st.integers(0, 300), min_size=1, max_size=8))
def test_what_a_walk_learns_never_changes_a_later_answer(value: Any, limits: list[int]) -> None:
    # Walks that give up record what they proved; later walks, of the value or of any of its
    # subtrees, at any limit, must answer exactly as a walk that knew nothing.
    known: dict[int, int] = {}
    subtrees: list[Any] = [value]
    for item in subtrees:
        if isinstance(item, dict):
            subtrees.extend(item.values())
        elif isinstance(item, list):
            subtrees.extend(item)
    for limit in limits:
        for subtree in subtrees:
            assert bounded_size(subtree, limit, 1000, known) == bounded_size(subtree, limit, 1000)
