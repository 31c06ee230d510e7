"""The bounded size walk agrees with the writer, byte for byte, and stops where it should."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision import Budget, shape
from elision.shape.jsondump import dumps_value
from elision.shape.sizes import Measured, bounded_size

# elision.shape is also the function: the module itself, for its file name.
sizes = importlib.import_module("elision.shape.sizes")

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
    known = Measured()
    for limit in limits:
        for subtree in _subtrees(value):
            assert bounded_size(subtree, limit, 1000, known) == bounded_size(subtree, limit, 1000)


def _subtrees(value: Any) -> list[Any]:
    """``value`` and every container and scalar inside it, parents before their members."""
    out: list[Any] = [value]
    for item in out:
        if isinstance(item, dict):
            out.extend(item.values())
        elif isinstance(item, list):
            out.extend(item)
    return out


def _chain(inner: Any, depth: int, keyed: bool) -> Any:
    for _ in range(depth):
        inner = {"k": inner} if keyed else [inner, 1]
    return inner


chains = st.builds(_chain, values, st.integers(1, 120), st.booleans())


@given(
    st.one_of(values, chains),
    st.lists(st.tuples(st.integers(0, 400), st.integers(1, 130)), min_size=1, max_size=6),
)
def test_what_walks_learn_never_changes_an_answer_at_any_depth_room(
    value: Any, asks: list[tuple[int, int]]
) -> None:
    """Differential: subtrees asked in the shaper's order (a parent, then its members), at
    limits and depth rooms that vary, answer exactly as a walk that knew nothing. The walks that
    re-walk with twice the room remember sizes and heights; a height read back must refuse a
    subtree that nests past the room as the walk itself would."""
    known = Measured()
    for limit, room in asks:
        for subtree in _subtrees(value):
            assert bounded_size(subtree, limit, room, known) == bounded_size(subtree, limit, room)


def test_a_deep_chain_shown_level_by_level_is_not_rewalked_at_each_level() -> None:
    """shape() of 1 MB of 300-deep arrays spent half its time in bounded_size: the shaper shows
    a chain one level at a time and asks each level about the same room, and each ask walked
    ``limit`` levels below it again (quadratic in the depth). Found by profiling
    bench/hostile.py's json-deep-lists (issue 23)."""

    class Counting(list[Any]):
        opened = 0

        def __len__(self) -> int:
            Counting.opened += 1
            return super().__len__()

    depth, limit = 1000, 512
    levels: list[Any] = [Counting([1])]
    for _ in range(depth - 1):
        levels.append(Counting([levels[-1]]))
    levels.reverse()  # the outermost first, as the shaper descends
    known = Measured()
    Counting.opened = 0
    answers = [bounded_size(level, limit, 10_000, known) for level in levels]
    opened = Counting.opened
    assert answers == [bounded_size(level, limit, 10_000) for level in levels]
    # One walk of the limit, re-walks that each at least double what is known, then a walk of
    # the rest that finishes and is remembered: a few times the depth, not depth x limit / 2.
    assert opened < 4 * (depth + limit)


def test_shape_of_arrays_too_deep_to_show_whole_walks_each_about_once() -> None:
    """shape() of 300-deep arrays at a 64 KB budget took 1.4 s of CPU for 1 MB: an element
    deeper than the output may nest was walked down to the depth room again at every ask (about
    five times each), since a walk that gave up on the depth recorded nothing. Found by counting
    the size walks of bench/hostile.py's json-deep-lists at budgets of 4, 16 and 64 KB (1.76 M
    containers opened at 64 KB, for 1,742 elements)."""
    chain = b"[" * 300 + b"1" + b"]" * 300
    body = b"[" + b",".join([chain] * 200) + b"]"
    opened = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal opened
        if event == "c_call" and arg is iter and frame.f_code.co_filename == sizes.__file__:
            opened += 1

    sys.setprofile(count)
    try:
        shaped = shape(body, Budget(65536), redactor=None)
    finally:
        sys.setprofile(None)
    assert shaped.text
    # 200 elements walked to the depth room (200 levels) about once each, and the descent into
    # the ones shown in part: 65 K; re-walked at every ask, 1.76 M.
    assert opened < 150_000
