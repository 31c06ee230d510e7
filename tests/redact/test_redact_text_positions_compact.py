"""A long text's trigger positions are collected 8 bytes each (issue 23).

Found by ``bench/redact.py`` (issue 23's NDJSON bound, 1.5x): a MB of NDJSON whose lines name
a credential's name as a value (``{"field": "password", "n": 3}``, bench/fuzz_linear.py's
``ndjson-name-values``) through ``shape()`` peaked at 3.1x its bytes (traced), 1.7x of it the
secrets' positions the trigger search collected: 45,000 int objects in a list, 36 bytes each,
before scan.py made them an array. :func:`~elision.redact.triggers.dense_text_triggers` now has
them collected in an ``array("q")``. Peaks are counted (tracemalloc), never timed.
"""

from __future__ import annotations

from array import array

import pytest

from elision.redact import triggers
from elision.redact.triggers import dense_text_triggers, engine, text_triggers
from support.traced import peak

_UNIT = '{"m": "tokens"}\n{"field": "password", "n": 3}\n'


@pytest.mark.skipif(engine().__class__.__name__ == "_Regex",
                    reason="the regex passes count their matches (density.py), no list")
def test_the_positions_of_a_long_text_cost_8_bytes_each() -> None:
    """Red before: 1.9x the text at 300 KB (traced); now 0.5x (the positions themselves,
    one a 23 bytes)."""
    text = _UNIT * (300_000 // len(_UNIT))
    dense_text_triggers(_UNIT * 1500)  # the dense search's caches, made
    got = peak(lambda: dense_text_triggers(text))
    assert got < len(text), f"{got / len(text):.1f}x the text"


@pytest.mark.parametrize("text", [
    _UNIT * 2000,  # a position a line, past the size a text is searched whole
    "x " * 40_000 + "password=hunter2x token=abc\n" * 3,  # a few, late
    ("Authorization: Basic QWxhZGRpbjpvcGVu\npassword=x\n" * 1500),  # heads appended last
    "é password=hunter2 " * 3000,  # not ASCII: char offsets
])
def test_the_positions_are_those_the_whole_search_gives(text: str) -> None:
    """The same sorted char offsets as :func:`text_triggers` (a list, sorted in place) where
    no window is dense."""
    positions, dense = dense_text_triggers(text)
    if not dense:
        assert list(positions) == text_triggers(text)
    assert list(positions) == sorted(positions)


@pytest.mark.parametrize(("given", "want"), [
    ([], []),
    ([3], [3]),
    ([1, 2, 2, 9], [1, 2, 2, 9]),  # ascending with a repeat: itself
    ([5, 1, 4], [1, 4, 5]),
    ([1, 3, 2], [1, 2, 3]),  # one out of order at the end
])
def test_ascending(given: list[int], want: list[int]) -> None:
    positions = array("q", given)
    got = triggers._ascending(positions)
    assert list(got) == want
    assert (got is positions) == (given == want)  # sorted already: no copy
