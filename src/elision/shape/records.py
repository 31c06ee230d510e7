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
    one record. The result starts with one notice line, ``# [elision] partial: lines 1-21 and
    981-1001 of 1,001 shown; 40 of 1,000 data rows shown after the header row; …``, which
    readers told to skip ``#`` comment lines skip (``pandas.read_csv(comment="#")``, R's
    ``comment.char``) and which the :mod:`csv` module reads as one row of its own; then the
    header row, then the kept rows byte for byte.
    No marker row sits between head and tail, so every row after the notice is a real one. A
    page (``root_offset > 0``) starts part-way into the body, so it has no header row of its own.

In both, ``ranges`` and ``lines=`` count physical lines of the original body (a record with
embedded newlines spans several), the unit ``elision_fetch`` slices by.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from elision.budget import utf8_len
from elision.envelope import (
    ENVELOPE_KEY,
    elided_entry,
    format_next,
    make_envelope,
    text_header,
)
from elision.shape.text import (
    decode,
    first_eol,
    line_ends,
    missing_how,
    range_text,
    select,
    settle,
    text_shaper,
    widest,
)

if TYPE_CHECKING:
    from elision.shape import ShapeContext, Shaped

Span = tuple[int, int, int, int]  # start byte, end byte, first line, last line (0-based)


class _RecordShaper:
    """Shared by NDJSON and CSV: a notice line, an optional lead record, head and tail records."""

    kind = "records"

    def __init__(self, data: bytes, spans: list[Span], lead: Span | None, eol: str,
                 ctx: ShapeContext, n_lines: int, bad_note: str | None) -> None:
        self.ctx, self.data, self.spans, self.lead, self.eol = ctx, data, spans, lead, eol
        self.sizes = [end - start for start, end, _, _ in spans]
        self.bad_note = bad_note
        self.offset = ctx.root_offset
        self.n_lines = n_lines
        self.total_lines = ctx.root_total if ctx.root_total is not None else self.offset + n_lines
        self._ref: str | None = None
        self._reserve: int | None = None

    def __call__(self, limit: int) -> Shaped:
        from elision.shape import Shaped

        ctx = self.ctx
        if not self.bad_note and len(self.data) <= limit and not ctx.withheld:
            return Shaped(self.data.decode(), True, None, ctx.format, ctx.sha256, ctx.total_bytes)
        if self._reserve is None:
            self._ref = ctx.keep()
            self._reserve = self._widest_notice()
        budget = max(0, limit - self._reserve)
        lead = b""
        if self.lead is not None and self.lead[1] - self.lead[0] <= budget:
            lead = self.data[self.lead[0]:self.lead[1]]
        head, tail = select(self.sizes, budget - len(lead))
        kept = self.spans[:head] + self.spans[len(self.spans) - tail:]
        parts = [lead, *(self.data[s:e] for s, e, _, _ in kept)]
        body = b"".join(parts).decode()
        ranges = self._ranges(bool(lead), head, tail)
        gap = self._gap(head, tail)
        shown = settle(lambda s: utf8_len(self._notice(ranges, s, head + tail, gap, bool(lead)))
                       + len(self.eol) + utf8_len(body), utf8_len(body))
        notice = self._notice(ranges, shown, head + tail, gap, bool(lead))
        text = notice + self.eol + body
        env = self._envelope(ranges, head + tail, gap, shown)
        return Shaped(text, False, env, ctx.format, ctx.sha256, ctx.total_bytes, self._ref)

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
        # At most two: the header row merges with the head block, else it starts a range of its own
        # and the head is empty.
        ranges = [(big - 1, big)] * 2
        return utf8_len(self._notice(ranges, widest(len(self.data) + 4096), n, (big, big),
                                     lead=False)) + len(self.eol)

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
        return "# " + header


def _as_text(body: bytes, ctx: ShapeContext, why: str) -> Callable[[int], Shaped]:
    ctx.format = "text"
    ctx.notes.append(why)
    return text_shaper(body, ctx)


def ndjson_shaper(body: bytes, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """Keep whole records (lines), head and tail, under a first line that is the envelope."""
    ctx.format = "ndjson"
    ends = line_ends(body, newline_only=True)
    spans: list[Span] = []
    start = 0
    for i, end in enumerate(ends):
        line = body[start:end]
        if line.strip():
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                return _as_text(body, ctx, f"line {ctx.root_offset + i + 1} is not JSON ({exc}); "
                                           "shaped as text")
            spans.append((start, end, i, i))
        start = end
    eol = first_eol(body, newline_only=True)
    return _NdjsonShaper(body, spans, None, eol, ctx, len(ends), None)


def csv_shaper(body: bytes, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """Keep the header row and whole rows, head and tail, under a ``# [elision]`` notice line."""
    ctx.format = "csv"
    decoded = decode(body)
    data = decoded.data
    ends = line_ends(data)
    consumed = 0

    def lines() -> Iterator[str]:
        nonlocal consumed
        start = 0
        for end in ends:
            consumed += 1
            yield data[start:end].decode()
            start = end

    spans: list[Span] = []
    reader = csv.reader(lines())
    first_line = 0
    try:
        for _ in reader:
            # The reader pulls exactly the physical lines of one record before yielding it.
            start = ends[first_line - 1] if first_line else 0
            spans.append((start, ends[consumed - 1], first_line, consumed - 1))
            first_line = consumed
    except csv.Error as exc:
        return _as_text(body, ctx, f"not readable as CSV ({exc}); shaped as text")
    lead = spans.pop(0) if spans and ctx.root_offset == 0 else None
    return _CsvShaper(data, spans, lead, first_eol(data), ctx, len(ends), decoded.note)
