"""Markdown tables inside a stretch withheld whole cost no reading of their own (issue 23).

Found by the perfmd helper's profile of ``bench/redact.py --worst md-small-tables``: a MB of
``|a|password|`` tables of one row each (some 300x prose) is one credential-dense stretch,
withheld whole, yet ``mdtables.table_spans`` read every table in it: its header's cells
named, its row's cells judged, the blank line after it told from a row, some 31 Python calls
a table, for cells whose spans then merged into the stretch's. A table whose delimiter row is
in such a stretch is now read only where it may reach past the stretch's end.

What is withheld must not move: a cell outside every stretch is found as the whole scan
finds it (a table that opens inside a stretch and runs on past it; a table's header on the
line before a stretch), checked against the scan told of no stretch.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import mdtables, redact_text, scan
from elision.redact.rules import Span
from support.calls import redaction_calls

#: A table that ends after its one row, then a blank line (``bench/fuzz_linear.py``'s
#: ``md-small-tables``).
SMALL = "|a|password|\n|-|-|\n|x|y|\n\n"

#: Lines a table, a row outside one or prose is made of; each a sharp edge of the scan.
LINES = [
    "|a|password|",  # a header naming a credential
    "| name | token |",
    "|-|-|",  # a delimiter row
    "| :--- | ---: |",
    "--|--",  # a delimiter row whose table's rows need not open with a pipe
    "a | password",  # the header of such a table
    "bob | hunter2x",  # and its row
    "|x|y|",
    "| bob | S3cr3t!x9 |",  # a row whose value is withheld under a credential's column
    "| password | hunter2x |",  # a key/value row, in a table or outside one
    "",  # a blank line: the end of any table
    "prose with no pipe",
    "  |x|hunter2x|",
]


def _outside(spans: list[Span], unread: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    return [tuple(s) for s in spans  # type: ignore[misc]
            if not any(a <= s.start < b for a, b in unread)]


@st.composite
def _tables_and_stretches(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    lines = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=60))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n"]))
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n" and i + 1 < len(text)]
    cuts = sorted(set(draw(st.lists(st.sampled_from([*starts, len(text)]), max_size=6))))
    # Every other pair of line starts is a stretch: whole lines, in order, none overlapping.
    unread = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if a < b]
    return text, unread


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=_tables_and_stretches())
@example(drawn=("|a|password|\n|-|-|\n|x|y|\n|b|S3cr3t!x9|\n", [(13, 19)]))  # rows past it
@example(drawn=("|a|password|\n|-|-|\n\n|x|S3cr3t!x9|\n", [(13, 20)]))  # a header before it
@example(drawn=("a | password\n--|--\n\nbob | hunter2x\n", [(13, 19)]))
# The header before the stretch, a key/value row were it no table's.
@example(drawn=("| password | hunter2x |\n|-|-|\n|x|y|\n", [(24, 36)]))
def test_a_cell_outside_every_stretch_is_found_as_the_whole_scan_finds_it(
    drawn: tuple[str, list[tuple[int, int]]],
) -> None:
    text, unread = drawn
    told: list[Span] = []
    whole: list[Span] = []
    mdtables.table_spans(text, told, unread)
    mdtables.table_spans(text, whole)
    assert _outside(told, unread) == _outside(whole, unread)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block=st.lists(st.sampled_from(LINES), min_size=2, max_size=12),
       around=st.lists(st.sampled_from(LINES), max_size=8))
def test_a_dense_text_of_tables_redacts_as_it_did_with_every_table_read(
    block: list[str], around: list[str],
) -> None:
    """Through ``redact_text``: the same text and entries as when every table is read (the
    stretches kept from ``table_spans``). A block repeated past 24 KB, where the density
    bound may withhold stretches of it, with lines before and after it."""
    unit = "\n".join(block) + "\n"
    head = "\n".join(around) + "\n" if around else ""
    text = head + unit * (24_000 // len(unit) + 1) + head
    got = redact_text(text)
    tables, escaped = scan.table_spans, scan.escaped_table_spans
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "table_spans", lambda text, into, unread=(): tables(text, into))
        mp.setattr(scan, "escaped_table_spans",
                   lambda text, into, unread=(): escaped(text, into))
        want = redact_text(text)
    assert (got.value, got.withheld) == (want.value, want.withheld)


@pytest.mark.parametrize("tables", [1_000, 3_000])
def test_tables_withheld_as_dense_cost_few_python_calls_a_table(tables: int) -> None:
    """Red before: 31 calls a table (26 KB: one stretch to the text's end; 78 KB: one that
    stops short of it, its last tables shown). Now 1.6 and 1.2: the search's and the
    stretch's own, not a table's."""
    text = SMALL * tables
    redact_text(text)  # caches and databases, made
    calls, done = redaction_calls(text)
    assert done.withheld[0]["reason"] == "credential-dense"
    assert calls / tables < 4
