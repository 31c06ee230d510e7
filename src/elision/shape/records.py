"""NDJSON and CSV shaping: whole records from the head and the tail, never a torn one.

NDJSON
    Records are the non-blank lines. The notice is itself a JSON line placed **first**:
    ``{"__elision__": {…, "elided": [{"path": "records", "kind": "records", "shown": 40,
    "total": 1000, "ranges": [[1, 20], [981, 1000]]}], "next": "elision_fetch(…, lines=…)"}}``,
    so every line of the result still parses with a strict JSON parser. A record too large for
    the budget is dropped and counted, never cut. A body with a line that is not JSON is shaped
    as text instead (and a note says why).

CSV
    Records are found with the :mod:`csv` module, so a quoted field with embedded newlines stays
    one record. The result starts with the header row, byte for byte, so a CSV reader takes
    the real header; then the notice, one quoted field (``"[elision] partial: lines 1-21 and
    981-1001 of 1,001 shown; 40 of 1,000 data rows shown after the header row; …"``), a row
    of its own that no reader splits on its commas; then the kept rows byte for byte (a
    header row too long to show leaves the notice first). No marker row sits between head
    and tail, so every row after the notice is a real one. A page (``root_offset > 0``)
    starts part-way into the body; it is given the original's header row (``ctx.header_row``)
    and shows it first all the same.

In both, ``ranges`` and ``lines=`` count physical lines of the original body (a record with
embedded newlines spans several), the unit ``elision_fetch`` slices by.
"""

from __future__ import annotations

import csv
import re
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, compress, count, islice
from operator import add
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from elision.budget import utf8_len
from elision.envelope import (
    ENVELOPE_KEY,
    elided_entry,
    format_next,
    make_envelope,
    text_header,
)
from elision.shape.lines import (
    chunks,
    decode,
    first_eol,
    missing_how,
    range_text,
    select,
    settle,
    widest,
)
from elision.shape.redactedbody import RedactedBody
from elision.shape.text import text_shaper

if TYPE_CHECKING:
    from elision.shape import ShapeContext, Shaped

#: What bytes.strip() strips: JSON's whitespace, and \x0b and \x0c.
_SPACE = re.compile(rb"\s*")

Span = tuple[int, int, int, int]  # start byte, end byte, first line, last line (0-based)


class _Spans:
    """Record spans in four arrays: 32 bytes a record, not a tuple of four ints (~150)."""

    def __init__(self) -> None:
        self._cols = tuple(array("q") for _ in range(4))

    def __len__(self) -> int:
        return len(self._cols[0])

    def __getitem__(self, i: int) -> Span:
        start, end, first, last = self._cols
        return start[i], end[i], first[i], last[i]

    def append(self, start: int, end: int, first: int, last: int) -> None:
        starts, ends, firsts, lasts = self._cols
        starts.append(start)
        ends.append(end)
        firsts.append(first)
        lasts.append(last)

    def pop_first(self) -> Span:
        span = self[0]
        for col in self._cols:
            del col[0]
        return span


class _LineSpans:
    """NDJSON records as line bounds: 8 bytes a line, plus 8 a record once a blank line is seen.

    A record is one line, so its span is its line's bounds: ``bounds[k]`` is where line ``k``
    starts (its ``\\n`` ends it), the last entry is the body's length. ``lines`` maps records to
    lines; it stays ``None`` while every line is a record.
    """

    def __init__(self, bounds: array[int], lines: array[int] | None) -> None:
        self._bounds, self._lines = bounds, lines

    def __len__(self) -> int:
        return len(self._bounds) - 1 if self._lines is None else len(self._lines)

    def __getitem__(self, i: int) -> Span:
        line = i if self._lines is None else self._lines[i]
        return self._bounds[line], self._bounds[line + 1], line, line


class _SpanTable(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> Span: ...


class _Sizes:
    def __init__(self, spans: _SpanTable) -> None:
        self._spans = spans

    def __len__(self) -> int:
        return len(self._spans)

    def __getitem__(self, i: int) -> int:
        start, end, _, _ = self._spans[i]
        return end - start


class _RecordShaper:
    """Shared by NDJSON and CSV: a notice line, an optional lead record, head and tail records."""

    kind = "records"

    def __init__(self, data: bytes, spans: _SpanTable, lead: Span | None, eol: str,
                 ctx: ShapeContext, n_lines: int, bad_note: str | None) -> None:
        self.ctx, self.data, self.spans, self.lead, self.eol = ctx, data, spans, lead, eol
        self.sizes = _Sizes(spans)
        self.bad_note = "; ".join(n for n in (ctx.reencoded, bad_note) if n) or None
        self.offset = ctx.root_offset
        self.n_lines = n_lines
        self.total_lines = ctx.root_total if ctx.root_total is not None else self.offset + n_lines
        self._ref: str | None = None
        self._reserve: int | None = None

    def __call__(self, limit: int) -> Shaped:
        from elision.shape import Shaped

        ctx = self.ctx
        # A page is part of a larger original: its notice says which lines of how many.
        if not self.bad_note and len(self.data) <= limit and not ctx.withheld and not ctx.page:
            return Shaped(self.data.decode(), True, None, ctx.format, ctx.sha256, ctx.total_bytes)
        if self._reserve is None:
            self._ref = ctx.keep()
            self._reserve = self._widest_notice()
        budget = max(0, limit - self._reserve)
        lead = b""
        given = ctx.header_row if self.offset else None  # a page: the original's header row
        if self.lead is not None and self.lead[1] - self.lead[0] <= budget:
            lead = self.data[self.lead[0]:self.lead[1]]
        elif given is not None and len(given) <= budget:
            lead = given
        head, tail = select(self.sizes, budget - len(lead))
        n = len(self.spans)
        kept = [self.spans[i] for i in (*range(head), *range(n - tail, n))]
        rows = b"".join(self.data[s:e] for s, e, _, _ in kept).decode()
        ranges = self._ranges(bool(lead) and given is None, head, tail)
        if lead and given is not None:
            ranges.insert(0, (1, lead.count(b"\n") or 1))
        gap = self._gap(head, tail)
        size = len(lead) + utf8_len(rows)
        shown = settle(lambda s: utf8_len(self._notice(ranges, s, head + tail, gap, bool(lead)))
                       + len(self.eol) + size, size)
        notice = self._notice(ranges, shown, head + tail, gap, bool(lead))
        text = self._compose(notice, lead.decode(), rows)
        env = self._envelope(ranges, head + tail, gap, shown)
        return Shaped(text, False, env, ctx.format, ctx.sha256, ctx.total_bytes, self._ref)

    def _compose(self, notice: str, lead: str, rows: str) -> str:
        """The notice line first, then the lead record and the rows."""
        return notice + self.eol + lead + rows

    def _ranges(self, lead: bool, head: int, tail: int) -> list[tuple[int, int]]:
        """Shown physical lines of the original, 1-based: lead, head block, tail block.

        A block runs from its first record's first line to its last record's last line, so the
        blank lines NDJSON drops inside it do not split it into many ranges.
        """
        n = len(self.spans)
        blocks = [(self.lead[2], self.lead[3])] if lead and self.lead else []
        if head:
            blocks.append((self.spans[0][2], self.spans[head - 1][3]))
        if tail:
            blocks.append((self.spans[n - tail][2], self.spans[n - 1][3]))
        ranges: list[tuple[int, int]] = []
        for first, last in blocks:
            a, b = self.offset + first + 1, self.offset + last + 1
            if ranges and ranges[-1][1] + 1 >= a:
                ranges[-1] = (ranges[-1][0], b)
            else:
                ranges.append((a, b))
        return ranges

    def _gap(self, head: int, tail: int) -> tuple[int, int] | None:
        """The original lines between the kept head and tail, or None when nothing is missing."""
        n = len(self.spans)
        if head + tail >= n:
            return None
        first = self.spans[head][2]
        last = self.spans[n - tail - 1][3]
        return self.offset + first + 1, self.offset + last + 1

    def _entry(self, ranges: list[tuple[int, int]], shown: int) -> dict[str, Any]:
        entry = elided_entry(self.kind, self.kind, shown, len(self.spans))
        entry["ranges"] = [list(r) for r in ranges]
        return entry

    def _notes(self) -> list[str]:
        return [*self.ctx.notes, *([self.bad_note] if self.bad_note else [])]

    def _envelope(self, ranges: list[tuple[int, int]], shown: int,
                  gap: tuple[int, int] | None, shown_bytes: int) -> dict[str, Any]:
        ctx = self.ctx
        next_call, notes = None, self._notes()
        if gap is not None and self._ref is not None:
            next_call = format_next(self._ref, lines=range_text(*gap))
        elif gap is not None:
            notes.append(missing_how(None, ctx.stored, *gap))
        env = make_envelope(
            sha256=ctx.sha256, shown_bytes=shown_bytes, total_bytes=ctx.total_bytes,
            elided=[self._entry(ranges, shown)] if gap is not None else [],
            withheld=ctx.withheld, ref=self._ref, next_call=next_call, page=ctx.page,
            stored=ctx.stored, notes=notes,
        )
        # Invalid UTF-8 replaced, or a header row that did not fit: not the original either way.
        env["complete"] = False
        return env

    def _widest_notice(self) -> int:
        big = widest(max(self.total_lines, self.offset + self.n_lines))
        n = widest(len(self.spans))
        # At most three: the header row (a page's is given, from line 1), the head, the tail.
        ranges = [(big - 1, big)] * 3
        # With a lead row the CSV notice says "after the header row"; without one it may say
        # the header row was too long to show: reserve the wider of the two.
        return max(utf8_len(self._notice(ranges, widest(len(self.data) + 4096), n, (big, big),
                                         lead=lead)) for lead in (False, True)) + len(self.eol)

    def _notice(self, ranges: list[tuple[int, int]], shown_bytes: int, shown: int,
                gap: tuple[int, int] | None, lead: bool) -> str:
        raise NotImplementedError


class _NdjsonShaper(_RecordShaper):
    def _notice(self, ranges: list[tuple[int, int]], shown_bytes: int, shown: int,
                gap: tuple[int, int] | None, lead: bool) -> str:
        env = self._envelope(ranges, shown, gap, shown_bytes)
        return orjson.dumps({ENVELOPE_KEY: env}).decode()


class _CsvShaper(_RecordShaper):
    kind = "rows"

    def _notice(self, ranges: list[tuple[int, int]], shown_bytes: int, shown: int,
                gap: tuple[int, int] | None, lead: bool) -> str:
        extra = [f"{shown:,} of {len(self.spans):,} data rows shown"
                 + (" after the header row" if lead else "")]
        if self.lead is not None and not lead:
            extra.append("header row too long to show")
        if self.bad_note:
            extra.append(self.bad_note)
        if gap is not None:
            extra.append("next: " + missing_how(self._ref, self.ctx.stored, *gap))
        header = text_header(
            shown_ranges=ranges, total_lines=self.total_lines, shown_bytes=shown_bytes,
            total_bytes=self.ctx.total_bytes, sha256=self.ctx.sha256, ref=self._ref, extra=extra,
        )
        return '"' + header.replace('"', '""') + '"'  # one field: its commas split nothing

    def _compose(self, notice: str, lead: str, rows: str) -> str:
        """The header row first (a reader takes the first row as the header), then the notice."""
        return lead + notice + self.eol + rows


def _as_text(body: bytes, ctx: ShapeContext, why: str) -> Callable[[int], Shaped]:
    ctx.format = "text"
    ctx.notes.append(why)
    return text_shaper(body, ctx)


def looks_like_ndjson(body: bytes | RedactedBody) -> bool:
    """Whether ``body`` starts with two lines that are JSON, the first an object.

    Then it is not one JSON document: the first line's value ends before the second line. Only
    the two lines are copied, never the rest of the body.
    """
    if isinstance(body, RedactedBody):
        body = _two_lines(body)
    start = _SPACE.match(body).end()  # type: ignore[union-attr]
    end = body.find(b"\n", start)
    if end < 0 or not body.startswith(b"{", start):
        return False
    second = _SPACE.match(body, end + 1).end()  # type: ignore[union-attr]
    if second == len(body):
        return False
    second_end = body.find(b"\n", second)
    try:
        orjson.loads(body[start:end])
        orjson.loads(body[second:second_end if second_end >= 0 else len(body)])
    except orjson.JSONDecodeError:
        return False
    return True


def _two_lines(view: RedactedBody) -> bytes:
    """As much of ``view``'s head as :func:`looks_like_ndjson` reads: its first two lines,
    or less where the first does not open an object (a text's view, written as far as that)."""
    size = 1 << 12
    while size < len(view):
        head = view[:size]
        start = _SPACE.match(head).end()  # type: ignore[union-attr]
        if start < len(head) and not head.startswith(b"{", start):
            return head
        end = head.find(b"\n", start)
        if end >= 0:
            second = _SPACE.match(head, end + 1).end()  # type: ignore[union-attr]
            if second < len(head) and head.find(b"\n", second) >= 0:
                return head
        size *= 4
    return bytes(view)


def ndjson_shaper(body: bytes, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """Keep whole records (lines), head and tail, under a first line that is the envelope."""
    ctx.format = "ndjson"
    bounds: array[int] = array("q")
    lines: array[int] | None = None
    line = 0  # lines before the chunk
    for start, chunk in chunks(body):
        pieces = chunk.split(b"\n")
        if not pieces[-1]:
            pieces.pop()  # the chunk ends with a \n: nothing follows it
        # Where each piece starts: the lengths before it, plus one \n for each.
        bounds.extend(islice(map(add, accumulate(map(len, pieces), initial=start), count()),
                             len(pieces)))
        try:
            # Every line orjson reads is a record; the parsed values are dropped at once.
            deque(map(orjson.loads, filter(None, pieces)), maxlen=0)
            # An empty piece is a blank line; any other is a record.
            mask: Sequence[object] | None = None if all(pieces) else pieces
        except orjson.JSONDecodeError:
            # A line of whitespace, or one that is not JSON: find which, one line at a time.
            found = _records_in(pieces, ctx.root_offset + line)
            if isinstance(found, str):
                return _as_text(body, ctx, found)
            mask = found
        if mask is not None and lines is None:
            lines = array("q", range(line))  # every line so far was a record
        if lines is not None:
            lines.extend(range(line, line + len(pieces)) if mask is None
                         else compress(count(line), mask))
        line += len(pieces)
    bounds.append(len(body))
    eol = first_eol(body, newline_only=True)
    return _NdjsonShaper(body, _LineSpans(bounds, lines), None, eol, ctx, line, None)


def _records_in(pieces: list[bytes], lines_before: int) -> list[bool] | str:
    """Which of ``pieces`` (lines) are records, not blank; or why one is not JSON."""
    records = []
    for i, piece in enumerate(pieces):
        if not piece or piece.isspace():
            records.append(False)  # a blank line is no record
            continue
        try:
            orjson.loads(piece)
        except orjson.JSONDecodeError as exc:
            return f"line {lines_before + i + 1} is not JSON ({exc}); shaped as text"
        records.append(True)
    return records


def csv_shaper(body: bytes, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """Keep the header row and whole rows, head and tail, with a quoted notice row after the
    header row."""
    ctx.format = "csv"
    decoded = decode(body)
    data = decoded.data
    consumed, consumed_end = 0, 0

    def lines() -> Iterator[str]:
        nonlocal consumed, consumed_end
        for start, chunk in chunks(data):
            for line in chunk.splitlines(keepends=True):
                consumed += 1
                start += len(line)
                consumed_end = start
                yield line.decode()

    spans = _Spans()
    first_line, record_start = 0, 0
    try:
        for _ in csv.reader(lines()):
            # The reader pulls exactly the physical lines of one record before yielding it.
            spans.append(record_start, consumed_end, first_line, consumed - 1)
            first_line, record_start = consumed, consumed_end
    except csv.Error as exc:
        return _as_text(body, ctx, f"not readable as CSV ({exc}); shaped as text")
    lead = spans.pop_first() if len(spans) and ctx.root_offset == 0 else None
    return _CsvShaper(data, spans, lead, first_eol(data), ctx, consumed, decoded.note)
