"""A budget's line cap: no shaped text has more lines than the harness it is for keeps.

OpenCode keeps a text's first 2,000 lines and Qwen Code 1,000 (issue 24, measured with the
harnesses): a text shaped to a bytes budget alone, in short lines, was cut again inside them and
the verdict on its last line was lost. Lines are counted as they count them: the pieces of the
text split at ``\\n``.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from elision import shape
from elision.budget import MINIMUM_LINES, Budget, line_count
from elision.errors import BudgetError
from elision.store.memory import MemoryStore

_LINES = re.compile(r'lines="(\d+)-(\d+)"')


def shaped_lines(text: str, budget: Budget) -> tuple[str, bool]:
    out = shape(text, budget, store=MemoryStore(), redactor=None)
    return out.text, out.complete


# Lines drawn short and often empty: the many-lines-few-bytes texts a line cap is for.
_line = st.one_of(
    st.just(""),
    st.text(alphabet="ab \t✓", max_size=6),
    st.text(alphabet="xyz", min_size=50, max_size=400),
)
texts = st.builds(
    lambda lines, eol, last: eol.join(lines) + (eol if last else ""),
    st.lists(_line, min_size=1, max_size=3_000),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)


@given(text=texts, cap=st.integers(MINIMUM_LINES, 2_500), limit=st.integers(512, 40_000))
@example(text="\n" * 20_000, cap=MINIMUM_LINES, limit=40_000)  # empty lines, smallest cap
@example(text="x" * 100_000, cap=MINIMUM_LINES, limit=512)  # one giant line
@example(text="ok\r\n" * 5_000, cap=1_000, limit=23_000)  # CRLF: one line each
def test_a_shaped_text_never_has_more_lines_than_the_cap(text: str, cap: int, limit: int) -> None:
    budget = Budget(limit, lines=cap)
    try:
        out, complete = shaped_lines(text, budget)
    except BudgetError as exc:  # allowed only when it says what to do
        assert "line cap" in str(exc) or "budget" in str(exc), exc
        return
    assert line_count(out) <= cap, (line_count(out), cap)
    assert len(out.encode()) <= limit
    if complete:
        assert out == text  # whole: as it came
    else:
        assert out.startswith("[elision] partial")  # cut: it says so first


@given(
    lines=st.lists(st.text(alphabet="abc", max_size=3), min_size=2, max_size=400),
    cap=st.integers(MINIMUM_LINES, 200),
)
def test_a_json_text_of_many_lines_is_shaped_to_one_compact_line(
    lines: list[str], cap: int
) -> None:
    """Pretty-printed JSON that fits the bytes but not the lines goes out compact, whole."""
    doc = {"rows": lines, "total": len(lines)}
    text = json.dumps(doc, indent=1)
    out = shape(text, Budget(64_000, lines=cap), redactor=None)
    assert line_count(out.text) <= cap
    if line_count(text) > cap:
        assert json.loads(out.text) == doc and out.complete and "\n" not in out.text


def log(n: int, line: str = "ok", eol: str = "\n") -> str:
    return eol.join([*(f"{line} {i}" for i in range(1, n)), "VERDICT: 3 failures"])


@pytest.mark.parametrize(
    ("text", "cap", "whole"),
    [
        # exactly the cap: as it came
        (log(1_000), 1_000, True),
        # one line over: cut, with its header and its last line
        (log(1_001), 1_000, False),
        # a last newline opens one more (empty) line, as split("\n") counts it
        (log(1_000) + "\n", 1_000, False),
        (log(999) + "\n", 1_000, True),
        # CRLF endings count once each
        (log(1_000, eol="\r\n"), 1_000, True),
        (log(1_001, eol="\r\n"), 1_000, False),
        # a lone \r ends no line for these harnesses: one line, however many \r
        (log(5_000, eol="\r"), 1_000, True),
        # one giant line: one line, cut by bytes alone
        ("x" * 100_000, MINIMUM_LINES, False),
        # empty lines only
        ("\n" * 5_000, MINIMUM_LINES, False),
    ],
)
def test_line_cap_edges(text: str, cap: int, whole: bool) -> None:
    out, complete = shaped_lines(text, Budget(48_000, lines=cap))
    assert line_count(out) <= cap
    assert complete is whole
    if whole:
        assert out == text
    elif text.startswith("ok"):
        assert out.startswith("[elision] partial")
        assert out.rstrip("\r\n").endswith("VERDICT: 3 failures")  # head and tail


def test_a_short_line_log_uses_the_cap_not_a_lower_byte_budget() -> None:
    """3,001 short lines at OpenCode's budget: 2,000 lines shown, head and tail, and the rest
    fetchable page by page, each page within the cap too."""
    text = log(3_001)
    store = MemoryStore()
    budget = Budget(48_000, lines=2_000)
    out = shape(text, budget, store=store, redactor=None)
    assert 1_990 <= line_count(out.text) <= 2_000  # the cap used, not a fraction of it
    assert out.text.endswith("VERDICT: 3 failures")
    assert out.envelope is not None and out.ref is not None
    first, last = map(int, _LINES.search(out.envelope["next"]).groups())  # type: ignore[union-attr]
    page = store.fetch(out.ref, lines=f"{first}-{last}", budget=Budget(512, lines=MINIMUM_LINES))
    assert line_count(page.text) <= MINIMUM_LINES
    page = store.fetch(out.ref, lines=f"{first}-{last}", budget=budget)
    assert line_count(page.text) <= 2_000 and f"ok {first}" in page.text


@pytest.mark.parametrize("lines", [0, 7, -1, True, 2.5])
def test_a_line_cap_below_the_minimum_says_what_to_give(lines: object) -> None:
    with pytest.raises(BudgetError, match=f"at least {MINIMUM_LINES} lines"):
        Budget(8192, lines=lines)  # type: ignore[arg-type]
