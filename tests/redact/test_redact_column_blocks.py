"""A table's records are read a block of lines at a time, and none inside a dense stretch.

Found by the perfpairs session (issue 23, bench class ``text-pairs``): a MB of NDJSON lines
``{"name":"api_key","value":"abc"}`` sniffs as a CSV whose header names a credential column,
and is withheld whole as credential-dense; reading it as a table still cost a regex search, a
slice, a look-up and a span a line (30,000 spans merged away by the dense stretch's span):
29 of its 35 ms. A block of lines is now split and looked up in C, and a record of one line
inside a stretch withheld whole adds no span. What is withheld is unchanged: a differential
against the line-at-a-time reading, the stretch's span merged in as the judge merges it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import columns, redact_text
from elision.redact.columns import column_spans
from elision.redact.rules import Span
from elision.redact.scan import DENSE, SpanArrays, _merge
from support.calls import counted


def _line_at_a_time(text: str) -> list[Span]:
    """The cells :func:`column_spans` withholds, read as it read them before: a line's record
    at a time (:func:`columns._line_record`), no stretch left unread."""
    first = columns._first_line(text)
    if not columns.may_name_columns(first):
        return []
    from elision.shape.table import table_header

    delimiter = next(d for d in columns.DELIMITERS if d in first)
    header = table_header(text, delimiter, min_rows=2, strict=False)
    if header is None:
        return []
    named = {i: name for i, name in enumerate(header) if columns.name_strength(name)}
    if not named:
        return []
    spans: list[Span] = []
    pos = columns._record(text, 0, delimiter, {}, spans)
    lines: dict[str, list[tuple[int, int]]] = {}
    while pos < len(text):
        pos = columns._line_record(text, pos, delimiter, named, spans, lines)
    return spans


def _whole_lines(text: str, picks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Stretches of whole lines (as ``scan._dense_stretches`` makes them) from line numbers."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    out: list[tuple[int, int]] = []
    for a, b in sorted(picks):
        lo = starts[min(a, len(starts) - 1)]
        hi = starts[b] if b < len(starts) else len(text)
        if lo < hi and (not out or lo >= out[-1][1]):
            out.append((lo, hi))
    return out


#: Plain cells mostly: a sharp one (a quoted cell over lines, one never closed, a ``\r``)
#: often makes the text sniff as no table, and then nothing is read either way.
_PLAIN = ["abc", "hunter2x", "", "s3cr3t!", "***", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"]
_SHARP = ['"q,x"', '"a\nb"', '"a""b"', '"open', "x" * 140, '"v"w', "a\rb"]
_CELL = st.sampled_from(_PLAIN * 6 + _SHARP)
#: Three cells, as the header: a row of another width makes the text no table.
_ROW = st.lists(_CELL, min_size=3, max_size=3).map(",".join)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_ROW, min_size=1, max_size=40), repeat=st.integers(1, 60),
       picks=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200)), max_size=3),
       block=st.sampled_from([8, 64, 1 << 16]), compact=st.booleans(),
       ending=st.sampled_from(["", "\n"]))
def test_block_reading_withholds_what_a_line_at_a_time_did(
    rows: list[str], repeat: int, picks: list[tuple[int, int]], block: int, compact: bool,
    ending: str, monkeypatch: Any,
) -> None:
    """The same spans once merged with the unread stretches' (the judge's merge), whatever
    the block size, quoted cells over lines, ``\\r``, long lines and repeats."""
    monkeypatch.setattr(columns, "_BLOCK", block)
    text = "id,password,api_key\n" + "\n".join(rows * repeat) + ending
    unread = _whole_lines(text, [(min(a, b), max(a, b)) for a, b in picks])
    dense = [Span(a, b, DENSE) for a, b in unread]
    into: list[Span] | SpanArrays = SpanArrays() if compact else []
    got = _merge([*dense, *column_spans(text, into, unread)])
    assert got == _merge([*dense, *_line_at_a_time(text)])


@pytest.mark.parametrize(("text", "unread"), [
    # rows before, in and after a stretch: only those inside add no span
    ("id,password,api_key\n" + "1,hunter2x,abc\n" * 30, [(200, 305)]),
    # a quoted cell opened inside the stretch runs past it: its span is kept whole
    ('id,password\n1,"hunter2x\nmore"\n2,abc\n', [(12, 24)]),
    # a line that ends the text with no break, inside a stretch
    ("id,password\n1,hunter2x\n2,s3cr3t!", [(12, 33)]),
    # a stretch that starts mid-way through a record's lines (never made so, still exact)
    ('id,password\n1,"a\nhunter2x"\n', [(17, 27)]),
    # \r\n lines: read a line at a time
    ("id,password\r\n1,hunter2x\r\n2,s3cr3t!\r\n", [(13, 25)]),
])
def test_sharp_edges_as_before(text: str, unread: list[tuple[int, int]]) -> None:
    dense = [Span(a, b, DENSE) for a, b in unread]
    got = _merge([*dense, *column_spans(text, [], unread)])
    assert got == _merge([*dense, *_line_at_a_time(text)])


def test_a_dense_table_of_ndjson_makes_no_span_a_line(monkeypatch: Any) -> None:
    """256 KB of ``text-pairs``' lines, withheld whole: was a span a line (7,900)."""
    made = counted(monkeypatch, columns, "make_span")
    text = '{"name":"api_key","value":"abc"}\n' * 7900
    withheld = redact_text(text).withheld
    assert [entry["reason"] for entry in withheld] == ["credential-dense"]
    assert len(made) < 50


def test_a_table_is_read_a_block_of_lines_at_a_time(monkeypatch: Any) -> None:
    """A CSV of 3,000 rows under a password column: was a Python call a line."""
    calls = counted(monkeypatch, columns, "_line_record")
    records = counted(monkeypatch, columns, "_record")
    text = "id,user,password\n" + "".join(f"{i % 7},bob,***\n" for i in range(3000))
    assert column_spans(text, []) == []
    assert len(calls) + len(records) < 50
