"""The proof that no key is in two runs of a dense object (elision.shape.repeats), held to the
plain answer: a key in two runs raises, and nothing else does, whichever way it is proven."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.shape.repeats import Repeated, RunKeys


@st.composite
def _runs(draw: st.DrawFn) -> list[list[str]]:
    """Runs of keys, each free of repeats within itself (a run's own parse proves that), from a
    few letters so that keys meet across runs; sorted (ranges apart), or not, or sorted with a
    run of stragglers after (the caveat keys a tool writes last)."""
    keys = draw(st.lists(st.text("abcé", min_size=1, max_size=3), max_size=60))
    if draw(st.booleans()):
        keys.sort()
    cuts = sorted(draw(st.lists(st.integers(0, len(keys)), max_size=8)))
    runs = [list(dict.fromkeys(keys[a:b])) for a, b in zip([0, *cuts], [*cuts, len(keys)],
                                                           strict=True)]
    runs.append(draw(st.lists(st.text("abcé", min_size=1, max_size=3), unique=True,
                              max_size=3)))
    return [run for run in runs if run or draw(st.booleans())]


def _proven(runs: list[list[str]], bitmap_bytes: int) -> bool:
    check = RunKeys(bitmap_bytes, lambda number: runs[number])
    try:
        for run in runs:
            check.add(run)
        check.finish()
    except Repeated:
        return False
    return True


@given(_runs(), st.sampled_from([1, 2, 64, 1 << 12]))
def test_a_key_in_two_runs_is_found_and_nothing_else_is(
    runs: list[list[str]], bitmap_bytes: int
) -> None:
    """A one-byte bitmap makes every key a suspect of every later run (the second look decides
    all); a larger one leaves a few."""
    keys = [key for run in runs for key in run]
    assert _proven(runs, bitmap_bytes) == (len(keys) == len(set(keys)))


@pytest.mark.parametrize(("runs", "proven"), [
    ([["a", "b"], ["c", "d"], ["e"]], True),  # sorted: the ranges alone
    ([["c", "d"], ["a", "b"]], True),  # apart, in no order
    ([["a", "c"], ["b"]], True),  # ranges meet, no key shared (one run read again)
    ([["a", "c"], ["c", "d"]], False),  # ranges touch at the repeated key
    ([["b", "x"], ["a", "c", "y"], ["d", "z"], ["x"]], False),  # the filter's second look
    ([["x"], ["a", "x"], ["b", "x"]], False),  # a key suspected in two runs
    ([["k1", "k2"], ["k3", "k4"], ["count", "k2"]], False),  # a caveat run repeats a key
    ([["k1", "k2"], ["k3", "k4"], ["count", "total"]], True),  # and one that does not
])
@pytest.mark.parametrize("bitmap_bytes", [1, 1 << 12])
def test_sharp_edges(runs: list[list[str]], proven: bool, bitmap_bytes: int) -> None:
    assert _proven(runs, bitmap_bytes) is proven


def test_keys_in_no_order_are_handed_to_the_filter() -> None:
    """The cases above would pass with the ranges alone: runs whose ranges all meet take the
    filter, and its bits are set."""
    runs = [["a", "z"], ["b", "y"], ["c", "x"], ["d", "w"]]
    check = RunKeys(1 << 8, lambda number: runs[number])
    for run in runs:
        check.add(run)
    check.finish()
    assert check._bits is not None and any(check._bits)


def _bit(top: int) -> int:
    """A hash whose key marks bit ``top`` of the filter's byte (a one-byte filter: one byte)."""
    return top << 56


@pytest.mark.parametrize(("runs", "hashes", "proven"), [
    # Two keys of one run on one byte: the later write must not drop the earlier's bit, or the
    # "k" of the last run is no suspect and its repeat goes through.
    ([["a", "z"], ["b", "y"], ["k", "m", "c"], ["k"]], {"k": _bit(0), "m": _bit(1)}, False),
    # "m" is a suspect where it first appears (its bit was set by others) and again where it
    # repeats: suspected twice is a repeat, the second look would not see it.
    ([["a", "z"], ["b", "y"], ["m", "c"], ["m"]], {}, False),
    # Every key on one bit, distinct keys only: all suspects, the second look clears them.
    ([["a", "z"], ["b", "y"], ["m", "c"], ["n"]], {}, True),
], ids=["bits of one byte in one run", "suspected twice", "equal hashes, distinct keys"])
def test_the_filter_with_hashes_chosen(
    runs: list[list[str]], hashes: dict[str, int], proven: bool
) -> None:
    check = RunKeys(1, lambda number: runs[number], hasher=lambda key: hashes.get(key, _bit(7)))
    try:
        for run in runs:
            check.add(run)
        check.finish()
    except Repeated:
        assert not proven
    else:
        assert proven
    assert check._bits is not None  # the ranges meet: these cases are the filter's
