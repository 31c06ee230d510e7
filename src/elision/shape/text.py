"""Text shaping: whole lines from the head and the tail, a header line first.

A shaped text reads::

    [elision] partial: lines 1-61 and 5941-6001 of 6,001 shown; 8,102 of 586,661 bytes; sha256=…
    <head lines, byte for byte>
    [… 5,879 lines elided (578,559 bytes): elision_fetch(ref="el_…", lines="62-5940") …]
    <tail lines, byte for byte>

Lines end with ``\\n``, ``\\r\\n`` or ``\\r`` and keep the ending the body gave them; the header
and marker use the body's first line ending. Invalid UTF-8 is replaced with U+FFFD and the header
counts the bad bytes, so the result is honest rather than an error. Only when neither the first
nor the last line fits is a line cut, at a character boundary, and the header says where. A
byte-order mark is part of line 1, like any other byte of it.

Byte counts are the original body's, as the header's total is: the marker counts the
original's bytes of the lines it stands for, though the text shaped may be a redacted view of
them (the same lines, stubs in place of values) or their decoding, so the shown lines and the
elided add up to the total however redaction changed the sizes.

A page (``ctx.page`` set; ``root_offset`` lines of the original before it, ``root_total`` in all)
states the original's line numbers and total, and always carries a header, even when all of it
fits: a page is never the complete body.

Which lines are kept: the head and tail grow along one fixed path that keeps the head near 60% of
the shown bytes; where the path stops on a line that does not fit, the other side takes whatever
still fits. A larger limit therefore never shows fewer bytes of the original, and a long line on
one side does not starve the other. Sizes are in UTF-8 bytes; the fixed costs (header, marker)
are reserved at their largest possible width, so the choice never depends on digit counts.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from elision.budget import utf8_len
from elision.envelope import elided_entry, format_next, make_envelope, text_header
from elision.shape.lines import (
    LineIndex,
    decode,
    first_eol,
    line_start,
    missing_how,
    range_text,
    select_lines,
    settle,
    widest,
)
from elision.shape.redactedbody import RedactedBody

if TYPE_CHECKING:
    from elision.shape import ShapeContext, Shaped

@dataclass(frozen=True)
class _Cut:
    line: int
    shown_bytes: int
    shown_chars: int
    total_chars: int


class _TextShaper:
    def __init__(self, body: bytes | RedactedBody, ctx: ShapeContext) -> None:
        self.ctx = ctx
        self.data: bytes | RedactedBody
        note = None
        if isinstance(body, RedactedBody):
            self.data = body  # read in place: stubs in a UTF-8 body, at its chars' bounds
        else:
            decoded = decode(body)
            self.data, note = decoded.data, decoded.note
        self.bad_note = "; ".join(n for n in (ctx.reencoded, note) if n) or None
        self.lines = LineIndex(self.data)
        self._given = body
        self._original: LineIndex | None = None
        self.eol = first_eol(self.data)
        self.offset = ctx.root_offset
        n = len(self.lines)
        self.total_lines = ctx.root_total if ctx.root_total is not None else self.offset + n
        self._reserve: tuple[int, int] | None = None
        self._ref: str | None = None
        self._line1_chars: int | None = None

    def __call__(self, limit: int) -> Shaped:
        from elision.shape import Shaped

        ctx = self.ctx
        # A page is part of a larger original: even when all of it fits, its header says which
        # lines of how many it is.
        if not self.bad_note and ctx.page is None and len(self.data) <= limit:
            # Withheld values already show as stubs in the text; the envelope lists them.
            env = None
            if ctx.withheld:
                env = make_envelope(sha256=ctx.sha256, shown_bytes=len(self.data),
                                    total_bytes=ctx.total_bytes, withheld=ctx.withheld)
            return Shaped(self.data.decode(), env is None, env, ctx.format, ctx.sha256,
                          ctx.total_bytes)
        whole, with_cut = self._reserves()
        budget = max(0, limit - whole)
        head, tail = select_lines(self.lines, budget)
        cut = None
        if head == tail == 0 and len(self.lines) and limit > with_cut:
            # Neither end line fits whole; a cut shows less than any whole line would at a
            # larger limit, so shown bytes still grow with the limit.
            cut = self._cut(limit - with_cut)
        return self._build(head, tail, cut, limit)

    def _reserves(self) -> tuple[int, int]:
        """The fixed costs at their widest, without and with a cut line: computed once."""
        if self._reserve is None:
            self._ref = self.ctx.keep()
            n = len(self.lines)
            big_line = widest(max(self.total_lines, self.offset + n))
            chars = widest(len(self.data))
            ranges = [(big_line - 1, big_line)] * 2  # "a-b": a range with two ends
            shown, lines = widest(len(self.data) + 4096), widest(n)
            nbytes = widest(max(len(self.data), self._original_lines().size))
            sizes = []
            for cut in (None, _Cut(big_line, 0, chars, chars)):
                sizes.append(utf8_len(self._header(ranges, shown, cut))
                             + utf8_len(self._marker(lines, nbytes, big_line, big_line, cut))
                             + (3 if cut else 2) * len(self.eol))
            self._reserve = (sizes[0], sizes[1])
        return self._reserve

    def _cut(self, budget: int) -> _Cut | None:
        end = self.lines.head_end(1)
        end -= len(_line_ending(self.data[max(0, end - 2):end]))
        # Backing off continuation bytes (10xxxxxx) means the cut never splits a character.
        room = min(budget, end)
        while 0 < room < end and (self.data[room] & 0xC0) == 0x80:
            room -= 1
        if room <= 0:
            return None
        if self._line1_chars is None:
            self._line1_chars = _chars(self.data, end)
        return _Cut(self.offset + 1, room, _chars(self.data, room), self._line1_chars)

    def _header(self, ranges: list[tuple[int, int]], shown: int, cut: _Cut | None) -> str:
        extra = []
        if cut is not None:
            extra.append(f"line {cut.line} cut at char {cut.shown_chars:,} of {cut.total_chars:,}")
        if self.bad_note:
            extra.append(self.bad_note)
        if self.ctx.stored is False:
            extra.append("body not kept")
        return text_header(
            shown_ranges=ranges, total_lines=self.total_lines, shown_bytes=shown,
            total_bytes=self.ctx.total_bytes, sha256=self.ctx.sha256, ref=self._ref, extra=extra,
        )

    def _marker(self, lines: int, nbytes: int, first: int, last: int, cut: _Cut | None) -> str:
        noun = "line" if lines == 1 else "lines"
        if cut is not None:
            what = f"rest of line {cut.line} and {lines:,} more {noun}"
        else:
            what = f"{lines:,} {noun}"
        rest = self._rest_of_cut(cut)
        if rest is not None and self._ref is not None:
            how = format_next(self._ref, byte_range=rest)
        else:
            how = missing_how(self._ref, self.ctx.stored, first, last)
        return f"[… {what} elided ({nbytes:,} bytes): {how} …]"

    def _original_lines(self) -> LineIndex:
        """The lines of what this text stands for in the original body, whose bytes the
        header's total counts: the text itself, unless it is a redacted view (stubs in place
        of values) or a decoding (U+FFFD, 3 bytes, for each bad byte)."""
        if self._original is None:
            ctx, index = self.ctx, self.lines
            if ctx.original_start is not None:
                start = ctx.original_start
                index = LineIndex(ctx.body, start, line_start(ctx.body, len(index), start))
            elif ctx.page is None and ctx.body is not self._given:
                index = LineIndex(ctx.body)
            elif self.data is not self._given:
                index = LineIndex(self._given)
            # A view keeps the original's lines (each withheld value's line breaks follow its
            # stub); one that did not could not be counted line for line.
            self._original = index if len(index) == len(self.lines) else self.lines
        return self._original

    def _original_bytes(self, head: int, tail: int, cut: _Cut | None) -> int:
        """The original's bytes in the lines between the ``head`` and the ``tail``, less
        what a cut showed of the first: one unit with the header's total, so what is shown and
        what is elided add up to it (a ``lines=`` fetch of them returns the view's bytes)."""
        original = self._original_lines()
        elided = original.tail_start(tail) - original.head_end(head)
        return max(0, elided - cut.shown_bytes) if cut is not None else elided

    def _rest_of_cut(self, cut: _Cut | None) -> str | None:
        """The byte range, in the original, of what a cut line did not show.

        A cut line is one line, so pointing at it by lines would serve the same page again;
        by bytes, every page shows at least one more character. Not when invalid UTF-8 was
        replaced: then offsets in the decoded text are not the original's.
        """
        if cut is None or self.bad_note:
            return None
        start = self.ctx.root_byte_offset + cut.shown_bytes
        end = self.ctx.root_byte_offset + self.lines.head_end(1) - 1
        return f"{start}-{end}"

    def _build(self, head: int, tail: int, cut: _Cut | None, limit: int) -> Shaped:
        from elision.shape import Shaped

        n, off, eol = len(self.lines), self.offset, self.eol
        head_end = self.lines.head_end(head)
        tail_start = self.lines.tail_start(tail)
        parts: list[bytes] = [self.data[:head_end]]
        ranges: list[tuple[int, int]] = []
        if head:
            ranges.append((off + 1, off + head))
        if cut is not None:
            parts = [self.data[: cut.shown_bytes], eol.encode()]
            ranges.append((off + 1, off + 1))
            head_end = cut.shown_bytes
        marker = ""
        if head + tail < n:
            first = off + head + 1
            last = off + n - tail
            whole = n - tail - head - (1 if cut is not None else 0)
            marker = self._marker(whole, self._original_bytes(head, tail, cut), first, last,
                                  cut) + eol
        if tail and head + tail == n:
            ranges = [(off + 1, off + n)]  # everything shown: one range, not two that touch
        elif tail:
            ranges.append((off + n - tail + 1, off + n))
        body = b"".join(parts).decode() + marker + self.data[tail_start:].decode()
        shown = settle(lambda s: utf8_len(self._header(ranges, s, cut)) + len(eol)
                       + utf8_len(body), utf8_len(body))
        text = self._header(ranges, shown, cut) + eol + body
        if utf8_len(text) > limit:
            # Only at the smallest limits with enormous counts: the header alone still says it.
            ranges, cut = [], None
            text = self._header(ranges, settle(lambda s: utf8_len(self._header([], s, None)), 0),
                                None)
            head = tail = 0
        return Shaped(text, False, self._envelope(head, tail, ranges, cut, utf8_len(text)),
                      self.ctx.format, self.ctx.sha256, self.ctx.total_bytes, self._ref)

    def _envelope(self, head: int, tail: int, ranges: list[tuple[int, int]], cut: _Cut | None,
                  shown_bytes: int) -> dict[str, Any]:
        ctx, n = self.ctx, len(self.lines)
        entry = elided_entry("lines", "lines", head + tail, self.total_lines, self.offset)
        entry["ranges"] = [list(r) for r in ranges]
        notes = list(ctx.notes)
        if cut is not None:
            notes.append(f"line {cut.line} cut at char {cut.shown_chars} of {cut.total_chars}")
        if self.bad_note:
            notes.append(self.bad_note)
        elided = [entry] if head + tail < n or self.total_lines > n else []
        next_call = None
        rest = self._rest_of_cut(cut)
        if self._ref is not None and rest is not None:
            next_call = format_next(self._ref, byte_range=rest)
        elif self._ref is not None and head + tail < n:
            next_call = format_next(self._ref, lines=range_text(
                self.offset + head + 1, self.offset + n - tail))
        elif self._ref is not None and self.total_lines > self.offset + n:
            # All of this page is shown: the next page is what follows it.
            next_call = format_next(self._ref, lines=f"{self.offset + n + 1}-{self.total_lines}")
        env = make_envelope(
            sha256=ctx.sha256, shown_bytes=shown_bytes, total_bytes=ctx.total_bytes,
            elided=elided, withheld=ctx.withheld, ref=self._ref, next_call=next_call,
            page=ctx.page, stored=ctx.stored, notes=notes,
        )
        env["complete"] = False
        return env


#: Bytes decoded at a time to count chars: each piece is decoded and dropped, so a smaller
#: piece than the line index's chunk keeps a 1 MB line from costing 2 MB more to count.
_COUNT_CHUNK = 64 << 10


def _chars(data: bytes | RedactedBody, end: int) -> int:
    """Characters in ``data[:end]`` (valid UTF-8), counted a chunk at a time without a copy."""
    if isinstance(data, RedactedBody) and data.ascii:
        return end  # its stubs are ASCII too: not written to be counted
    # A redacted view (elision.shape.redactedbody) is written a chunk at a time as well.
    view = memoryview(data)[:end] if isinstance(data, bytes) else data
    decoder, count = codecs.getincrementaldecoder("utf-8")(), 0
    for start in range(0, end, _COUNT_CHUNK):
        count += len(decoder.decode(view[start:min(end, start + _COUNT_CHUNK)]))
    return count + len(decoder.decode(b"", final=True))


def _line_ending(line: bytes) -> bytes:
    if line.endswith(b"\r\n"):
        return b"\r\n"
    if line.endswith((b"\n", b"\r")):
        return line[-1:]
    return b""


def text_shaper(body: bytes | RedactedBody, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """One pass over ``body`` now; the returned function fits it to any byte limit >= 512."""
    ctx.format = "text"  # also what the store records, should the body be kept
    return _TextShaper(body, ctx)
