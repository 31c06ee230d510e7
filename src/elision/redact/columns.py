"""CSV and TSV columns named like credentials: the cells under them withheld.

A JSON member ``"password": "hunter2"`` is withheld by its name
(:func:`elision.redact.secrets.is_credential_field`); a table's header names its columns the
same way. A text that reads as a table (:func:`elision.shape.table.table_header`: comma or
tab separated, a header row and one row at least, within its first
:data:`~elision.shape.table.SNIFF_BYTES`) has each name of its header judged once
(:func:`~elision.redact.generic.name_strength`, affixes read past: ``api_key_2``), and each
cell under a credential name judged as that member's value would be
(:func:`~elision.redact.generic.is_credential_value`: an empty, masked or placeholder cell, a
message or a path is shown). A withheld cell's text becomes a ``credential-field`` stub: inside
the quotes of a quoted cell (one that spans lines stays one quoted field, its line breaks kept
after the stub), the whole cell otherwise. The stub holds no delimiter, quote or line break,
so the table still reads with the same rows and columns, and a page of it (``lines=``, cut
from the redacted whole) shows the stubs though the header is not in it.

A table with no header row is not read so: nothing names its columns. A cell that reopens
after its closing quote (``"a"b``, which the csv module reads as ``ab``) is withheld whole,
quotes and all, by a bare stub (a line break inside it would then end the row).

A text whose first line holds no delimiter, or no name's core (:func:`names_nothing`), costs
one search of that line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import cache
from operator import itemgetter
from typing import Protocol, TypeVar

from elision.redact.generic import is_credential_value, name_strength, names_nothing
from elision.redact.kept import keep
from elision.redact.rules import Span, make_span

#: The reason a withheld cell gives: the JSON member rule's, whose judgement it is.
CREDENTIAL_FIELD = "credential-field"
#: Tab first: a TSV's names may hold commas; a CSV's hold no tab where it sniffs as a table.
DELIMITERS = ("\t", ",")
#: The most of a first line read for a header: :data:`elision.shape.table.SNIFF_BYTES`, the
#: head a table is sniffed in (the module, and the csv module, are imported only for a text
#: whose first line may name a column: not on every text's path).
HEADER_MOST = 64 * 1024
_EOL = re.compile(r"\r\n?|\n")
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')


class SpanSink(Protocol):
    """Where spans go: a list, or :class:`elision.redact.scan.SpanArrays` (a span a cell of
    a 1 MB table was 4x the text as a list of spans)."""

    def append(self, span: Span, /) -> None: ...


Sink = TypeVar("Sink", bound=SpanSink)
T = TypeVar("T", str, bytes)


@cache
def _unquoted(delimiter: str) -> re.Pattern[str]:
    return re.compile(f"[^{re.escape(delimiter)}\\r\\n]*")


def may_name_columns(first_line: str) -> bool:
    """Whether a text's ``first_line`` may be a header that names a credential column: it
    holds a delimiter and a name's core, and is no JSON object or array (an NDJSON record:
    compact, ``{"m":"password","msg":"password"}`` split at its commas named a ``password``
    column, and every line under it was withheld). ``False`` is certain."""
    return (("," in first_line or "\t" in first_line) and not _json_record(first_line)
            and not names_nothing(first_line))


def _json_record(line: str) -> bool:
    """Whether ``line`` opens and closes as a JSON object or array does (white space around):
    a CSV's header cell opens with neither brace nor bracket, a record of NDJSON always."""
    opening, closing = line.lstrip()[:1], line.rstrip()[-1:]
    return (opening, closing) in (("{", "}"), ("[", "]"))


def _first_line(text: T) -> T:
    """The first line of ``text`` (``str`` or ``bytes``), no line break, no longer than
    :data:`HEADER_MOST`: found by a search for each break, in C at memchr speed, where a regex
    of the chars no line break is read a char at a time (0.8 ms of a 1 MB line of base64, a
    quarter of its redaction: issue 23)."""
    end = min(len(text), HEADER_MOST)
    for brk in ("\n", "\r") if isinstance(text, str) else (b"\n", b"\r"):
        at = text.find(brk, 0, end)
        if at >= 0:
            end = at
    return text[:end]


def body_may_name_columns(body: bytes) -> bool:
    """:func:`may_name_columns` of a UTF-8 ``body``'s first line, told from its bytes."""
    head = _first_line(body)
    # A byte that is not ASCII decodes to a char no core holds: names_nothing says False.
    return may_name_columns(head.decode("utf-8", "replace"))


def column_spans(text: str, into: Sink, unread: Sequence[tuple[int, int]] = ()) -> Sink:
    """``into``, with the spans of the cells of ``text`` under a credential-named column
    added in order; none where ``text`` is not a table with a header row.

    ``unread``: the stretches of whole lines withheld whole (``(start, end)``, in order, none
    overlapping: a text's credential-dense stretches). A record of one line inside one adds
    no span (the stretch's own span holds its cells, and merges them away): a MB of NDJSON
    that sniffs as a table, withheld whole as dense, made a span a line (``text-pairs``)."""
    first = _first_line(text)
    if not may_name_columns(first):
        return into
    from elision.shape.table import SNIFF_BYTES, table_header

    end = len(text) if len(text) <= SNIFF_BYTES else text.rfind("\n", 0, SNIFF_BYTES) + 1
    head = text[:end]
    for delimiter in DELIMITERS:
        if delimiter in first:
            header = table_header(head, delimiter, min_rows=2, strict=False)
            if header is not None:
                break
    else:
        return into
    del head
    named = {i: name for i, name in enumerate(header) if name_strength(name)}
    if named:
        pos = _record(text, 0, delimiter, {}, into)  # the header row
        lines: dict[str, list[tuple[int, int]]] = {}
        rows: dict[str, list[tuple[int, int]]] = {}
        while pos < len(text):
            pos = _block_records(text, pos, delimiter, named, into, lines, rows, unread)
    return into


#: The chars of a text whose lines :func:`_block_records` splits at a time: their strings
#: are a copy of that much at most.
_BLOCK = 1 << 16
_START = itemgetter(0)


def _block_records(
    text: str, pos: int, delimiter: str, named: dict[int, str], spans: SpanSink,
    lines: dict[str, list[tuple[int, int]]], rows: dict[str, list[tuple[int, int]]],
    unread: Sequence[tuple[int, int]],
) -> int:
    """The records of the lines of a block of ``text`` from ``pos`` (about :data:`_BLOCK`
    chars, to a line break) as :func:`_line_record` reads them, a line's cells looked up in
    ``rows`` by its text (no break: each row here has its ``\n`` after it) for a whole block
    in C (``str.split``, ``map``), a line at a time where the block holds a ``\r`` or no
    break. Where the next block starts: on past a quoted cell that runs over lines.

    A log of one JSON record a line that sniffs as a table (``text-pairs``) was a regex
    search, a slice and a look-up a line, 1 us each (issue 23)."""
    cut = text.find("\n", pos + _BLOCK)
    if cut < 0:
        cut = text.rfind("\n", pos)
    if cut < pos or text.find("\r", pos, cut) >= 0:
        return _line_record(text, pos, delimiter, named, spans, lines)
    block = text[pos:cut].split("\n")
    known = list(map(rows.get, block))
    # The unread stretch a row may lie in: the last to start at or before the block.
    k = max(0, bisect_right(unread, pos, key=_START) - 1)
    last = len(unread) - 1
    lo, hi = unread[k] if unread else (0, 0)
    at = pos
    for row, cells in zip(block, known, strict=True):
        after = at + len(row) + 1
        while hi < after and k < last:
            k += 1
            lo, hi = unread[k]
        if cells is None:
            cells = rows.get(row)  # read earlier in this block
        if cells is None:
            if after - at > _LINE_LONGEST + 2:  # as _line_record reads a long one: not kept
                end = _record(text, at, delimiter, named, spans)
            else:
                found: list[Span] = []
                end = _record(text, at, delimiter, named, found)
                if end == after:
                    cells = [(span.start - at, span.end - at) for span in found]
                    keep(rows, row, cells, _LINES_KEPT)
                else:
                    for span in found:
                        spans.append(span)
            if cells is None:
                if end != after:
                    return end  # a quoted cell over lines: the next block from its end
                at = after
                continue
        if cells and not lo <= at < after <= hi:
            for start, end in cells:
                spans.append(make_span((at + start, at + end, CREDENTIAL_FIELD)))
        at = after
    return at


#: The longest line whose record's cells :func:`_line_record` keeps, and how many it keeps.
_LINE_LONGEST = 128
_LINES_KEPT = 1024


def _line_record(
    text: str, pos: int, delimiter: str, named: dict[int, str], spans: SpanSink,
    lines: dict[str, list[tuple[int, int]]],
) -> int:
    """:func:`_record`, its answer for a short line that is its record (no quoted cell
    runs past it) kept in ``lines`` by the line's text and its line break: the record is
    read from those chars alone, so the same line withholds the same cells. A log of one
    JSON record a line that sniffs as a table (``{"name":"api_key","value":"abc"}``, bench
    class ``text-pairs``) read each line a cell at a time, 5 us a line (issue 23)."""
    # Searched a char past the longest line and its break: a ``\r`` there may open a ``\r\n``.
    eol = _EOL.search(text, pos, pos + _LINE_LONGEST + 3)
    after = eol.end() if eol else len(text)
    if after - pos > _LINE_LONGEST + 2:
        return _record(text, pos, delimiter, named, spans)
    line = text[pos:after]
    cells = lines.get(line)
    if cells is None:
        found: list[Span] = []
        end = _record(text, pos, delimiter, named, found)
        if end != after:  # a quoted cell over lines: read past this line, not kept
            for span in found:
                spans.append(span)
            return end
        cells = [(span.start - pos, span.end - pos) for span in found]
        keep(lines, line, cells, _LINES_KEPT)
    for start, end in cells:
        spans.append(make_span((pos + start, pos + end, CREDENTIAL_FIELD)))
    return after


def _record(
    text: str, pos: int, delimiter: str, named: dict[int, str], spans: SpanSink,
) -> int:
    """Judge the record at ``pos`` (its withheld cells added to ``spans``); where the next
    record starts."""
    eol = _EOL.search(text, pos)
    stop, after = (eol.start(), eol.end()) if eol else (len(text), len(text))
    if text.find('"', pos, stop) < 0:
        # No quote: the line is the record, its cells split in C.
        cells = text[pos:stop].split(delimiter)
        if named:
            at = pos
            for i, cell in enumerate(cells):
                name = named.get(i)
                if name is not None and is_credential_value(name, cell):
                    spans.append(make_span((at, at + len(cell), CREDENTIAL_FIELD)))
                at += len(cell) + 1
        return after
    return _quoted_record(text, pos, delimiter, named, spans)


def _quoted_record(
    text: str, pos: int, delimiter: str, named: dict[int, str], spans: SpanSink,
) -> int:
    """:func:`_record` of a record with a quote in it: read a cell at a time, as the csv
    module reads it (a quoted cell may hold delimiters, line breaks and doubled quotes)."""
    size = len(text)
    bare = _unquoted(delimiter)
    i = 0
    while True:
        start = pos
        quoted = _QUOTED.match(text, pos) if pos < size and text[pos] == '"' else None
        if quoted is None:
            # An unquoted cell, or an opening quote never closed (read to the line's end).
            opened = pos < size and text[pos] == '"'
            cell = bare.match(text, pos + opened)
            assert cell is not None  # a pattern of * always matches
            pos = cell.end()
            value, inner = text[start + opened:pos], (start, pos)
        else:
            pos = quoted.end()
            value, inner = quoted.group(1).replace('""', '"'), (start + 1, pos - 1)
            if pos < size and text[pos] not in (delimiter, "\r", "\n"):
                rest = bare.match(text, pos)
                assert rest is not None
                value += rest.group()
                pos = rest.end()
                inner = (start, pos)  # "a"b: the whole of it, quotes and all
        name = named.get(i)
        if name is not None and is_credential_value(name, value):
            spans.append(make_span((*inner, CREDENTIAL_FIELD)))
        i += 1
        if pos < size and text[pos] == delimiter:
            pos += 1
            continue
        eol = _EOL.match(text, pos)
        return eol.end() if eol else pos
