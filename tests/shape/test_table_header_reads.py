"""A text's first line that is no table header is read alone, not with its 49 next rows.

Found profiling issue 23's NDJSON worst case (the ndjcost session): each record's first line
holds a comma and a key named like a credential (``"key":"sk-…"``), so the redaction asked
:func:`~elision.shape.table.table_header` whether the text is a table, and it parsed 50 rows
(64 KB) before it read that the first is no header: 0.5 ms a text, a tenth of its redaction.
"""

from __future__ import annotations

import csv
import re
from itertools import islice
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.shape import table
from elision.shape.table import MAX_NAME, MAX_ROWS, table_header


def _every_row_first(
    head: str,
    delimiter: str,
    min_rows: int,
    strict: bool,
) -> list[str] | None:
    """What ``table_header`` said when it read all of its rows before it judged them."""
    try:
        lines = (m.group() for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+", head))
        rows = list(islice(csv.reader(lines, delimiter=delimiter, strict=strict), MAX_ROWS))
    except csv.Error:
        return None
    while rows and not rows[-1]:
        rows.pop()
    if len(rows) < min_rows:
        return None
    header, width = rows[0], len(rows[0])
    if width < 2 or any(len(row) != width for row in rows):
        return None
    names = [n for n in header if n and n == n.strip() and len(n) <= MAX_NAME]
    if len(names) != width or len(set(names)) != width:
        return None
    return None if all(table._is_number(n) for n in names) else header


_CELLS = st.sampled_from(["a", "b", "id", "1", "2.5", '"', '""', " ", "x" * 70, "\t", ";"])
_ROW = st.lists(_CELLS, min_size=0, max_size=4).map(",".join)
_HEAD = st.lists(
    st.one_of(_ROW, st.sampled_from(['"a,\nb"', "a,b", "a,a", ""])), min_size=0, max_size=60
)
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=300, deadline=None)
@given(_HEAD, _ENDS, st.sampled_from([",", "\t"]), st.integers(1, 4), st.booleans())
@example(["a,b", "1,2", "", "3,4"], "\n", ",", 2, True)  # a blank row, then a row
@example(["a,b", "1,2", "", ""], "\n", ",", 2, True)  # blank rows at the end
@example(["a,b", '"1,2'], "\n", ",", 2, True)  # a quote never closed
@example(["a,b"] + ["1,2"] * 60, "\n", ",", 3, True)  # past MAX_ROWS
def test_a_header_read_a_row_at_a_time_is_the_one_read_whole(
    rows: list[str],
    end: str,
    delimiter: str,
    min_rows: int,
    strict: bool,
) -> None:
    head = "".join(row.replace(",", delimiter) + end for row in rows)
    assert table_header(head, delimiter, min_rows=min_rows, strict=strict) == (
        _every_row_first(head, delimiter, min_rows, strict)
    )


class _Counted:
    """``table._LINE``, counting the lines its ``finditer`` gives."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.read = pattern, 0

    def finditer(self, text: str) -> Any:
        for match in self.pattern.finditer(text):
            self.read += 1
            yield match


@pytest.mark.parametrize(
    ("head", "most"),
    [
        # NDJSON records with a credential-named key: a long first "name" is no header
        ('{"id":1,"note":"' + "word " * 40 + '","key":"sk-abc"}\n', 2),
        ("a,b\n1,2,3\n", 2),  # the second row's width differs: no third row is read
        ("1,2\n3,4\n", 1),  # a header of numbers
    ],
)
def test_a_head_that_is_no_table_is_read_no_further_than_it_says_so(
    head: str,
    most: int,
) -> None:
    counted = _Counted(table._LINE)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(table, "_LINE", counted)
        assert table_header(head * 50, ",", min_rows=2, strict=False) is None
    assert counted.read <= most
