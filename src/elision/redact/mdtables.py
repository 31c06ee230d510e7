"""Markdown tables: a column named like a credential, and a key/value table's row.

A pipe table's header names its columns as a CSV's does (:mod:`elision.redact.columns`):
``| name | password |`` over ``|---|---|`` over ``| bob | S |``. Each header cell is judged
once (:func:`~elision.redact.generic.name_strength`), and each cell under a credential name as
that JSON member's value would be (:func:`~elision.redact.generic.is_credential_value`). A
table of two columns is also read as keys and values: a row whose first cell names a
credential (``| password | S |``) has its second judged so. A withheld cell's text (its
white space kept) becomes a ``credential-field`` stub: the stub holds no ``|``, so the table
keeps its rows and columns.

A table is found by its delimiter row (``|---|``, ``| :--- |``: a ``|`` then a ``-`` or a
``:``), its header the line before it and its rows the lines after it that hold a ``|``. A
whole text is read so (as a CSV is), not a JSON string. Not read so: a table whose rows do
not open with a ``|`` and a delimiter row that does not either (``a | b`` over ``--|--``),
and a key/value row with no header and delimiter rows above it.
"""

from __future__ import annotations

from elision._lazyre import lazy_compile
from elision.redact.columns import CREDENTIAL_FIELD, SpanSink
from elision.redact.generic import is_credential_value, name_strength, names_nothing
from elision.redact.rules import make_span

#: How a delimiter row's first cell opens: a ``|``, white space, then ``-`` or ``:``.
_DELIMITER_OPENING = lazy_compile(r"\|[ \t]{0,64}[-:]")
_DELIMITER_CHARS = frozenset("|-: \t")
_DELIMITER_OPENING_BYTES = lazy_compile(rb"\|[ \t]{0,64}[-:]")


def body_may_hold_tables(body: bytes) -> bool:
    """Whether a UTF-8 ``body`` may hold a pipe table's delimiter row; ``False`` is certain
    (a ``|`` searched in C, then the opening of a delimiter's cell)."""
    return b"|" in body and _DELIMITER_OPENING_BYTES.search(body) is not None


def table_spans(text: str, into: SpanSink) -> SpanSink:
    """``into``, with the spans of the cells of ``text``'s pipe tables that a credential's
    name withholds added in order."""
    if "|" not in text or "-" not in text:
        return into  # told in C: no delimiter row
    pos = 0
    size = len(text)
    while pos < size:
        opening = _DELIMITER_OPENING.search(text, pos)
        if opening is None:
            break
        at = opening.start()
        start = text.rfind("\n", 0, at) + 1
        end = _line_end(text, at)
        row = text[start:end].strip()
        if not row.startswith("|") or not set(row) <= _DELIMITER_CHARS or start == 0:
            pos = end + 1
            continue
        head_start = text.rfind("\n", 0, start - 1) + 1
        header = _cells(text, head_start, start - 1)
        pos = _rows(text, end + 1, header, into)
    return into


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The cells of the row ``text[start:end]`` as ranges of their text (white space off),
    the outer pipes dropped; none where the line does not open with a ``|``."""
    line = text[start:end].rstrip("\r")
    stripped = line.lstrip()
    if not stripped.startswith("|"):
        return []
    at = start + len(line) - len(stripped) + 1
    stop = start + len(line.rstrip())
    cells: list[tuple[int, int]] = []
    while at < stop:
        bar = text.find("|", at, stop)
        cut = stop if bar < 0 else bar
        a, b = at, cut
        while a < b and text[a] in " \t":
            a += 1
        while b > a and text[b - 1] in " \t":
            b -= 1
        cells.append((a, b))
        if bar < 0:
            break
        at = bar + 1
    return cells


def _rows(text: str, pos: int, header: list[tuple[int, int]], into: SpanSink) -> int:
    """Judge the rows from ``pos`` under ``header``; where the table ends."""
    names = [text[a:b] for a, b in header]
    named = {
        i: name for i, name in enumerate(names) if not names_nothing(name) and name_strength(name)
    }
    pairs = len(header) == 2
    while pos < len(text):
        end = _line_end(text, pos)
        cells = _cells(text, pos, end)
        if not cells:
            return pos
        for i, (a, b) in enumerate(cells):
            name = named.get(i)
            if name is not None and a < b and is_credential_value(name, text[a:b]):
                into.append(make_span((a, b, CREDENTIAL_FIELD)))
        if pairs and len(cells) >= 2 and 1 not in named:
            key = text[cells[0][0] : cells[0][1]]
            a, b = cells[1]
            if (
                a < b
                and not names_nothing(key)
                and name_strength(key)
                and is_credential_value(key, text[a:b])
            ):
                into.append(make_span((a, b, CREDENTIAL_FIELD)))
        pos = end + 1
    return pos
