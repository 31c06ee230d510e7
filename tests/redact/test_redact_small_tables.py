"""A text of many small Markdown tables costs what it did before lines were judged once by
their text (issue 23).

Found by the review of the sixth session's merged head: ``mdtables._rows`` handed every
table's rows to ``samelines.judge_lines`` with the text's end as their bound, and
``judge_lines`` sampled the 8 KB after the table's first row and split a block of 8 KB, to
learn the table had ended one line later. A MB of ``|a|password|`` tables of one row each was
11x the CPU time of the code before (``t_tables2``: 471 ms for 128 KB against 43 ms). A
table's first :data:`~elision.redact.samelines.FEWEST` rows are now read one at a time, and
``judge_lines`` samples and splits from a small window that grows.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import mdtables, redact_text, samelines
from elision.redact.mdtables import CREDENTIAL_FIELD

#: A table that ends after its one row, then a blank line.
SMALL = "|a|password|\n|-|-|\n|x|y|\n\n"


class _Sliced(str):
    """A text that counts the chars each slice of it copies."""

    copied = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def,override]
        got = str.__getitem__(self, key)
        if isinstance(key, slice):
            _Sliced.copied += len(got)
        return got


def test_a_short_table_reads_no_lines_past_it() -> None:
    """Each small table's rows are read on their own: ``judge_lines`` is never asked."""
    text = SMALL * 400
    asked = []
    real = samelines.judge_lines
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mdtables, "judge_lines", lambda *a: asked.append(1) or real(*a))
        done = redact_text(text)
    assert not asked  # was 400: once a table
    assert len(done.withheld) == 400  # each table's one cell under `password`


def test_judge_lines_copies_little_of_a_text_that_ends_its_lines_soon() -> None:
    """The first lines are sampled from a small window, and the first block is small: a
    range that ends on its 20th line copies no 8 KB of what follows it."""
    lines = "| x | y |\n" * 20 + "\n" + "filler line of prose\n" * 2000
    text = _Sliced(lines)
    into: list[object] = []
    _Sliced.copied = 0
    ended = samelines.judge_lines(
        text, 0, len(text), lambda line: () if line.startswith("|") else None,
        CREDENTIAL_FIELD, into)  # type: ignore[arg-type]
    assert ended == lines.index("\n\n") + 1
    assert _Sliced.copied < 4096  # was 16,384: 8 KB sampled, 8 KB split


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.sampled_from(["|x|y|", "|x|hunter2x|", "| b | S3cr3t!x |", "x|y"]),
                     min_size=0, max_size=40),
       after=st.sampled_from(["", "\n", "\nprose\n", "\n|a|b|\n"]))
def test_a_table_is_read_as_its_rows_one_at_a_time_read_it(rows: list[str], after: str) -> None:
    """The first rows read alone, the rest judged once each: the same spans as every row
    read alone (``judge_lines`` made to decline)."""
    text = "|name|password|\n|-|-|\n" + "\n".join(rows) + "\n" + after
    got = redact_text(text).value
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mdtables, "judge_lines", lambda *a: None)
        want = redact_text(text).value
    assert got == want

