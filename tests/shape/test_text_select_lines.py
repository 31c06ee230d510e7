"""The text shaper's line selection (issue 23): a bisection over the lines' running totals
gives the same head and tail as the walk a line at a time, and the same shaped text.

Found by the authb64 helper: a text whose every line is withheld comes back from redaction as
one stub and a run of kept line breaks (line numbers are kept), and ``shape()`` then walked its
budget a line at a time, 3.1x prose. Each check below has the walk (:func:`select`) as the
reference in process, and the code before under ``ELISION_BEFORE_SRC`` in a child.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.budget import Budget
from elision.shape import text as text_module
from elision.shape.lines import LineIndex, line_ends, select, select_lines
from elision.store import MemoryStore
from support.before import child_before
from support.calls import python_calls
from support.traced import peak

STUB = "[credential-dense text withheld: 1,048,575 bytes]"
# Runs of every ending, stubs, the case folds whose UTF-8 widths differ from their folds
# (U+0130, U+0131, U+212A, U+017F), credentials of several families (each becomes a stub when
# redaction is on), an escape, and a long line.
_PIECES = [
    "a", "\n", "\r", "\r\n", "\n" * 40, "\r\n" * 17, "\r" * 9, "\n\r", STUB,
    "\u0130", "\u0131", "\u212a", "\u017f", "é", "x" * 300,
    "api_key=abc\n", "password=hunter2\n", "Authorization: Basic QWxhZGRpbjpPcGVuU2VzYW1l\n",
    "AKIAIOSFODNN7EXAMPLE\n", "ghp_" + "A" * 36 + "\n", "sk-" + "B" * 48 + "\n",
    "QXV0aG9yaXphdGlvbjogQmFzaWMg \n\n", "\\u0041\\n", "%41%0A",
]
TEXTS = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)
_BODIES = TEXTS.map(lambda t: t.encode())


def _fresh(body: bytes, chunk: int) -> LineIndex:
    index = LineIndex(body)
    index._head_chunk = index._tail_chunk = chunk
    return index


@settings(max_examples=400)
@given(_BODIES, st.lists(st.integers(-3, 2_000), min_size=1, max_size=6), st.integers(1, 64))
@example(b"", [0], 1)
@example(b"\n" * 5_000, [4096, 0, 48_000], 16384)
@example((b"x" * 100 + b"\r\n") * 80, [4096, 3, 7], 5)
def test_bisection_agrees_with_the_walk(body: bytes, budgets: list[int], chunk: int) -> None:
    """Any budgets, asked one after another of one index (as ``fit`` asks a shaper), with chunk
    edges anywhere: the same head and tail as the walk over a fresh index, and the index still
    gives every line's bounds."""
    index = _fresh(body, chunk)
    for budget in budgets:
        assert select_lines(index, budget) == select(_fresh(body, chunk), budget), budget
    ends = line_ends(body)  # checked against a plain splitter in test_text_index.py
    starts = [0, *ends[:-1]]
    for t in range(len(ends) + 1):
        assert index.tail_start(t) == (starts[len(ends) - t] if t else len(body))
        assert index.head_end(t) == (ends[t - 1] if t else 0)


@pytest.mark.parametrize("budget", [4096, 48_000])
@pytest.mark.parametrize(
    "text",
    [
        # what redaction leaves of a text whose every line was withheld: one stub, then the
        # withheld lines' breaks (b64-auth-basic-lines, assign-eq-lines)
        STUB + "\n" * 60_000,
        "\r\n" * 60_000,  # blank CRLF lines
        "\n".join("x" * (i % 7) for i in range(60_000)),  # short lines of varied sizes
    ],
)
def test_a_text_of_kept_line_breaks_is_not_walked_a_line_at_a_time(text: str,
                                                                   budget: int) -> None:
    """Red on the code before: shaping took 14,000-384,000 Python calls here (a few per line
    the budget holds); now about a thousand, whatever the budget."""
    shape(text, budget=budget, redactor=None)  # first use: imports and compiled patterns
    calls, _ = python_calls(lambda: shape(text, budget=budget, redactor=None))
    assert calls < 2_500, calls


@pytest.mark.parametrize(("budget", "most"), [(4096, 800_000), (48_000, 1_500_000)])
def test_the_line_index_of_blank_lines_holds_little(budget: int, most: int) -> None:
    """Red on the code before: shaping 200 KB of one stub and its kept line breaks peaked at
    1.45 MB (4 KB) and 4.29 MB (48 KB), traced: 16,384 lines a chunk read before the budget
    was known, and every line's end a Python int (36 bytes a line); now 0.41 and 0.75 MB (the
    CSV sniff of the first 64 KB is about 0.3 MB of that)."""
    body = (STUB + "\n" * 200_000).encode()
    shape(body, budget=budget, redactor=None)  # first use: imports and compiled patterns
    assert peak(lambda: shape(body, budget=budget, redactor=None)) < most


_REF = re.compile(r"el_[A-Za-z0-9_-]+")


def _answers(text: str, budget: int, pages: list[str], redact: bool) -> list[Any]:
    """What this code shapes: the text, then each ``lines=`` page of it, refs made alike."""
    store = MemoryStore()
    kwargs: dict[str, Any] = {} if redact else {"redactor": None}
    first = shape(text, budget=budget, store=store, **kwargs)
    out = [[first.text, first.envelope]]
    ref = first.ref
    for spec in pages if ref is not None else []:
        page = store.fetch(ref, lines=spec, budget=Budget(budget))
        out.append([page.text, page.envelope])
    return orjson.loads(_REF.sub("el_REF", orjson.dumps(out).decode()))


_PAGES = st.lists(
    st.tuples(st.integers(1, 400), st.integers(0, 400)).map(lambda p: f"{p[0]}-{p[0] + p[1]}"),
    max_size=3,
)
_BUDGETS = st.integers(512, 6_000)
# Texts longer than most budgets: a drawn text repeated.
_LONG = st.tuples(TEXTS, st.integers(1, 40)).map(lambda p: p[0] * p[1])


@settings(max_examples=120, deadline=None)
@given(_LONG, _BUDGETS, _PAGES, st.booleans())
@example(STUB + "\n" * 9_000, 4096, ["2-8000", "4000-4100"], False)
@example("api_key=abc\n" * 3_000, 4096, ["1-2999"], True)
@example("\r\n" * 3_000 + "x" * 900 + "\r" * 500, 700, ["100-3400"], False)
def test_shaped_text_is_the_walks(text: str, budget: int, pages: list[str],
                                  redact: bool) -> None:
    """In process, always: the same text and envelope, first shape and pages, with the walk
    put back in the shaper."""
    got = _answers(text, budget, pages, redact)
    saved = text_module.select_lines
    text_module.select_lines = select  # type: ignore[assignment]
    try:
        walked = _answers(text, budget, pages, redact)
    finally:
        text_module.select_lines = saved
    assert got == walked


_CHILD = r"""
import re, sys, orjson
from elision import shape
from elision.budget import Budget
from elision.store import MemoryStore
REF = re.compile(r"el_[A-Za-z0-9_-]+")
for line in sys.stdin.buffer:
    text, budget, pages, redact = orjson.loads(line)
    store = MemoryStore()
    kwargs = {} if redact else {"redactor": None}
    first = shape(text, budget=budget, store=store, **kwargs)
    out = [[first.text, first.envelope]]
    for spec in pages if first.ref is not None else []:
        page = store.fetch(first.ref, lines=spec, budget=Budget(budget))
        out.append([page.text, page.envelope])
    sys.stdout.buffer.write(REF.sub("el_REF", orjson.dumps(out).decode()).encode() + b"\n")
    sys.stdout.flush()
"""


@pytest.fixture(scope="module")
def shaped_before() -> Iterator[Callable[[str, int, list[str], bool], Any]]:
    with child_before(_CHILD) as ask:
        yield lambda text, budget, pages, redact: ask([text, budget, pages, redact])


@settings(max_examples=120, deadline=None)
@given(_LONG, _BUDGETS, _PAGES, st.booleans())
@example(STUB + "\n" * 9_000, 4096, ["2-8000", "4000-4100"], False)
@example("api_key=abc\n" * 3_000, 4096, ["1-2999"], True)
@example("QXV0aG9yaXphdGlvbjogQmFzaWMg \n\n" * 2_000, 4096, ["3-3900"], True)
def test_shaped_text_is_the_code_befores(
    shaped_before: Callable[[str, int, list[str], bool], Any], text: str, budget: int,
    pages: list[str], redact: bool,
) -> None:
    assert _answers(text, budget, pages, redact) == shaped_before(text, budget, pages, redact)

