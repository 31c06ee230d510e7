"""Lines of a text body: decoding with replacement, finding line ends from either end, and the
size arithmetic the text and record shapers share.

Lines end with ``\\n``, ``\\r\\n`` or ``\\r``. Line ends are found in chunks, from the head or the
tail, only as far as a shaper needs them, so a 100 MB log costs what is shown.
"""

from __future__ import annotations

import codecs
import re
from array import array
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING, Protocol

from elision._record import record_class
from elision.envelope import format_next

if TYPE_CHECKING:
    from elision.shape.redactedbody import RedactedBody

#: Bytes decoded or scanned at a time, so no pass copies the whole body.
CHUNK = 1 << 16
#: surrogateescape turns each undecodable byte into one of these: one per bad byte.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


@record_class(frozen=True)
class Decoded:
    """A body as valid UTF-8 bytes, with the count of bytes that were not UTF-8."""

    data: bytes
    bad_bytes: int

    @property
    def note(self) -> str | None:
        if not self.bad_bytes:
            return None
        noun = "byte" if self.bad_bytes == 1 else "bytes"
        return f"{self.bad_bytes:,} invalid UTF-8 {noun} replaced with U+FFFD"


def decode(body: bytes) -> Decoded:
    if not is_utf8(body):
        escaped = body.decode("utf-8", "surrogateescape")
        text, bad = _ESCAPED_BYTE.subn("\ufffd", escaped)
        return Decoded(text.encode("utf-8"), bad)
    return Decoded(body, 0)


def is_utf8(body: bytes) -> bool:
    # A chunk at a time, so checking a 100 MB body never holds a 100 MB str.
    if body.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(body), CHUNK):
            decoder.decode(body[start:start + CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def chunks(data: bytes) -> Iterator[tuple[int, bytes]]:
    r"""``data`` a chunk at a time, each ending just after a ``\n`` so no ``\r\n`` is torn."""
    start, total = 0, len(data)
    while start < total:
        stop = data.find(b"\n", start + CHUNK)
        stop = total if stop < 0 else stop + 1
        yield start, data[start:stop]
        start = stop


def _split(chunk: bytes, newline_only: bool) -> list[bytes]:
    if not newline_only:
        return chunk.splitlines(keepends=True)
    pieces = [p + b"\n" for p in chunk.split(b"\n")]
    pieces[-1] = pieces[-1][:-1]  # what follows the chunk's last \n, if anything
    return pieces if pieces[-1] else pieces[:-1]


def iter_lines(data: bytes, newline_only: bool = False) -> Iterator[tuple[int, bytes]]:
    r"""Each line's start offset and bytes (terminator included), in order.

    Lines end at ``\n``, ``\r\n`` or ``\r`` (only ``\n`` with ``newline_only``). C-speed
    splitting a chunk at a time, never holding the whole body as line objects.
    """
    for start, chunk in chunks(data):
        for line in _split(chunk, newline_only):
            yield start, line
            start += len(line)


def line_start(data: bytes, k: int, start: int = 0) -> int:
    """Where the line after the first ``k`` lines from ``start`` starts (or ``len(data)``):
    counted in C a chunk at a time, in place; only the chunk that line starts in is split."""
    at, total = start, len(data)
    while k > 0 and at < total:
        stop = data.find(b"\n", at + CHUNK)  # never between a \r and its \n
        stop = total if stop < 0 else stop + 1
        count = -1
        if data.find(b"\r", at, stop) < 0:
            count = data.count(b"\n", at, stop) + (data[stop - 1] != 0x0A)
        if count < 0 or k < count:
            pieces = data[at:stop].splitlines(True)
            if k < len(pieces):
                return at + sum(map(len, pieces[:k]))
            count = len(pieces)
        k, at = k - count, stop
    return min(at, total)


def line_ends(data: bytes, newline_only: bool = False) -> list[int]:
    """Offsets just past each line (terminator included); a last unterminated line counts."""
    ends: list[int] = []
    for start, chunk in chunks(data):
        offsets = accumulate(map(len, _split(chunk, newline_only)), initial=start)
        next(offsets)  # the chunk's start is not a line end
        ends.extend(offsets)
    return ends


#: The line index's first chunk from either end, in bytes; each next one is twice the last.
_FIRST_CHUNK = 1 << 12


class LineIndex:
    """The lines of a body, found from either end only as far as a shaper asks.

    A shaper shows a budget's worth of lines from the head and the tail, so only those are
    split; the total is counted in C. Memory grows with what is shown, not with the body: a
    100 MB body of empty lines costs the same as one of long ones.
    """

    def __init__(
        self, data: bytes | RedactedBody, start: int = 0, stop: int | None = None
    ) -> None:
        """The lines of ``data[start:stop]`` (whole lines: ``start`` is where one starts),
        read in place; offsets the methods give are from ``start``. ``data`` may be a
        redacted view (:mod:`elision.shape.redactedbody`): its searches read the body."""
        self.data = data
        self.start, self.stop = start, len(data) if stop is None else stop
        start, stop = self.start, self.stop
        # Most bodies hold no \r at all, which memchr tells at memory speed: then neither
        # count of \r (bytes.count is a slower loop, 0.06 s for 100 MB) is needed.
        returns = data.count(b"\r", start, stop) if data.find(b"\r", start, stop) >= 0 else 0
        ends = data.count(b"\n", start, stop) + (
            returns - data.count(b"\r\n", start, stop) if returns else 0)
        last = data[stop - 1:stop] if stop > start else b""
        self.count = ends + (1 if last and last not in (b"\n", b"\r") else 0)
        # Machine integers, 4 bytes a line where a list of ints took 36: a text of blank lines
        # (a withheld stretch's kept line breaks) has a line a byte.
        code = "I" if len(data) < 1 << 32 else "q"
        self._head: array[int] = array(code)  # ends of lines 0, 1, 2, …
        self._tail: array[int] = array(code)  # starts of lines count-1, count-2, …
        self._head_at, self._tail_at = start, stop
        # Doubling from a budget's worth: a first line (a cut, its byte range) or a 4 KB budget
        # reads about 4 KB an end, not 16 KB of lines it does not show.
        self._head_chunk = self._tail_chunk = _FIRST_CHUNK

    def __len__(self) -> int:
        return self.count

    @property
    def size(self) -> int:
        """Bytes in all the lines."""
        return self.stop - self.start

    def __getitem__(self, i: int) -> int:
        """The size of line ``i`` in bytes, terminator included."""
        j = self.count - 1 - i
        if i < len(self._head) or (j >= len(self._tail) and i <= len(self._head)):
            return self.head_end(i + 1) - self.head_end(i)
        return self.tail_start(j) - self.tail_start(j + 1)

    def head_end(self, k: int) -> int:
        """Bytes in the first ``k`` lines."""
        while len(self._head) < k:
            self._scan_head()
        return self._head[k - 1] - self.start if k else 0

    def tail_start(self, t: int) -> int:
        """Where the last ``t`` lines start."""
        while len(self._tail) < t:
            self._scan_tail()
        return (self._tail[t - 1] if t else self.stop) - self.start

    def reach(self, budget: int) -> bool:
        """Index the lines ``budget`` bytes could hold from either end, and one more each side;
        whether every line is now indexed (from one end or the other).

        When not, the lines indexed from each end already pass ``budget``.
        """
        start, stop, count, head, tail = self.start, self.stop, self.count, self._head, self._tail
        # One scan an end: a chunk that reaches past ``budget`` bytes from that end.
        while len(head) + len(tail) < count and (not head or head[-1] - start <= budget):
            self._head_chunk = max(self._head_chunk, budget + 1 - (self._head_at - start))
            self._scan_head()
        while len(head) + len(tail) < count and (not tail or stop - tail[-1] <= budget):
            self._tail_chunk = max(self._tail_chunk, budget + 1 - (stop - self._tail_at))
            self._scan_tail()
        return len(head) + len(tail) >= count

    def _scan_head(self) -> None:
        start, data, end = self._head_at, self.data, self.stop
        if start >= end:
            raise IndexError("line index out of range")
        # A chunk ends just after a \n, never between the \r and \n of one ending.
        stop = data.find(b"\n", start + self._head_chunk, end)
        stop = end if stop < 0 else stop + 1
        if start < self._tail_at < stop:
            stop = self._tail_at  # a line start: the tail's lines are indexed already
        # A piece at a time, so a chunk of a budget's worth of blank lines never stands as one
        # list of Python ints (36 bytes a line) before it is packed.
        piece = start
        while piece < stop:
            end = data.find(b"\n", piece + _PIECE, stop)
            end = stop if end < 0 else end + 1
            self._head.fromlist(_offsets(data, piece, end)[1:])
            piece = end
        self._head_at, self._head_chunk = stop, self._head_chunk * 2

    def _scan_tail(self) -> None:
        stop, data, begins = self._tail_at, self.data, self.start
        if stop <= begins:
            raise IndexError("line index out of range")
        target = stop - self._tail_chunk
        start = begins
        if target > begins:
            # Start just after an ending: after a \n, or after a \r that no \n follows.
            start = max(begins, data.rfind(b"\n", begins, target) + 1)
            cr = data.rfind(b"\r", begins, target)
            if cr >= start and data[cr + 1:cr + 2] != b"\n":
                start = cr + 1
        if start < self._head_at < stop:
            start = self._head_at  # a line start: the head's lines are indexed already
        piece = stop
        while piece > start:
            # A piece starts just after a \n: never between the \r and \n of one ending.
            # (rfind reads a negative bound from the end, so none is given)
            begin = start
            if piece - _PIECE > start:
                begin = max(start, data.rfind(b"\n", start, piece - _PIECE) + 1)
            starts = _offsets(data, begin, piece)
            starts.pop()  # the piece's end is where the line after it starts
            starts.reverse()
            self._tail.fromlist(starts)
            piece = begin
        self._tail_at, self._tail_chunk = start, self._tail_chunk * 2


#: Bytes of a chunk split at a time, in the line index.
_PIECE = 1 << 12


def _offsets(data: bytes | RedactedBody, start: int, stop: int) -> list[int]:
    """``start`` and the end of each line of ``data[start:stop]``, which ends a line."""
    if not isinstance(data, bytes) and data.find(b"\r", start, stop) < 0 and (
        data.count(b"\n", start, stop) <= _FEW_BREAKS
    ):
        # A redacted view's long line (URL users, 35,714 stubs a MB of one line) is not
        # written to be split: its few breaks are found in the body it reads.
        ends, at = [start], start
        while (at := data.find(b"\n", at, stop) + 1) > 0:
            ends.append(at)
        return ends if ends[-1] == stop else [*ends, stop]
    # From a list: array's extend from an iterator takes an item at a time.
    return list(accumulate(map(len, data[start:stop].splitlines(True)), initial=start))


#: Breaks in a view's piece found one by one, not by writing the piece and splitting it.
_FEW_BREAKS = 16


def first_eol(data: bytes | RedactedBody, newline_only: bool = False) -> str:
    # Two memchr scans, the second only as far as the first \n: a regex alternation took
    # 64 ms to learn that a 1 MB line has no ending at all.
    newline = data.find(b"\n")
    if newline_only:
        return "\n"
    ret = data.find(b"\r", 0, len(data) if newline < 0 else newline)
    if ret < 0:
        return "\n"
    return "\r\n" if data[ret + 1 : ret + 2] == b"\n" else "\r"


class Sizes(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> int: ...


def select(sizes: Sizes, budget: int) -> tuple[int, int]:
    """How many units to keep from the head and the tail within ``budget`` bytes.

    The head and tail advance along a fixed path (the head's next unit is taken while the head
    would stay within 60% of what is shown); where the path's next unit does not fit, the other
    side fills the rest. Shown bytes never decrease as ``budget`` grows.
    """
    n = len(sizes)
    head = tail = head_bytes = tail_bytes = 0
    head_turn = True
    while head + tail < n:
        x, y = sizes[head], sizes[n - 1 - tail]
        head_turn = 2 * (head_bytes + x) <= 3 * (tail_bytes + y)
        step = x if head_turn else y
        if head_bytes + tail_bytes + step > budget:
            break
        if head_turn:
            head, head_bytes = head + 1, head_bytes + x
        else:
            tail, tail_bytes = tail + 1, tail_bytes + y
    used = head_bytes + tail_bytes
    if head_turn:
        while head + tail < n and used + sizes[n - 1 - tail] <= budget:
            used += sizes[n - 1 - tail]
            tail += 1
    else:
        while head + tail < n and used + sizes[head] <= budget:
            used += sizes[head]
            head += 1
    return head, tail


def select_lines(lines: LineIndex, budget: int) -> tuple[int, int]:
    """:func:`select` over a text's lines, read from their running totals: the same answer in
    O(log² n) steps, where :func:`select` takes a Python step a line.

    A text of many short lines (each withheld value's line breaks kept after its stub, a log of
    blank lines) had its budget walked a line at a time, both ends' sizes looked up at each.
    The walk is a merge: the head's next line is taken while twice the head's bytes with it are
    at most three times the tail's with its next line, so its steps are the two sequences
    ``2·H(i)`` and ``3·T(j)`` (``H``, ``T``: the bytes of the first ``i``, last ``j`` lines),
    merged in order, ties to the head. The bytes shown grow along it, so where it stops (the
    last step within ``budget``) is a bisection over the step count, each step count's split
    between head and tail another; the side that fills the rest is a bisection over its totals.
    Only the lines ``budget`` could hold from either end are indexed (:meth:`LineIndex.reach`);
    unless those are all the lines, a total past them is larger than ``budget``, so it is read
    as infinite and never taken.
    """
    n = len(lines)
    whole = lines.reach(budget)
    ends, starts, size = lines._head, lines._tail, len(lines.data)  # a whole body's index

    def head_bytes(i: int) -> float:
        if i <= len(ends):
            return ends[i - 1] if i else 0
        # Past the head's lines: read from the tail's, when between them they are all lines.
        if not whole:
            return _PAST
        return starts[n - i - 1] if i < n else size

    def tail_bytes(j: int) -> float:
        if j <= len(starts):
            return size - starts[j - 1] if j else 0
        if not whole:
            return _PAST
        return size - ends[n - j - 1] if j < n else size

    def heads_in(k: int) -> int:
        """How many of the walk's first ``k`` steps are the head's."""
        return _last(0, k, lambda h: 2 * head_bytes(h) <= 3 * tail_bytes(k - h + 1))

    def shown(k: int) -> float:
        h = heads_in(k)
        return head_bytes(h) + tail_bytes(k - h)

    steps = _last(0, n if whole else len(ends) + len(starts),
                  lambda k: shown(k) <= budget)
    head = heads_in(steps)
    tail = steps - head
    if steps == n:
        return head, tail
    # The step that did not fit: the side it was not on takes whatever of its own still fits.
    if 2 * head_bytes(head + 1) <= 3 * tail_bytes(tail + 1):
        room = budget - head_bytes(head)
        return head, _last(tail, n - head, lambda t: tail_bytes(t) <= room)
    room = budget - tail_bytes(tail)
    return _last(head, n - tail, lambda h: head_bytes(h) <= room), tail


#: A running total past what was indexed: past any budget.
_PAST = float("inf")


def _last(low: int, high: int, holds: Callable[[int], bool]) -> int:
    """The largest ``x`` in ``[low, high]`` where ``holds(x)``, which holds up to some point
    and not after it; ``low`` whether or not it holds there."""
    while low < high:
        mid = (low + high + 1) // 2
        if holds(mid):
            low = mid
        else:
            high = mid - 1
    return low


def settle(size_with: Callable[[int], int], floor: int) -> int:
    """The least ``s >= floor`` with ``size_with(s) == s``: a text that states its own size.

    ``size_with`` grows with its argument (only through digit counts), so iterating from below
    climbs to the least fixed point in a few steps.
    """
    shown = floor
    while (size := size_with(shown)) != shown:
        shown = size
    return shown


def widest(value: int) -> int:
    """The widest number with as many digits as ``value``: a bound on how it prints."""
    return int(10 ** len(str(max(value, 0)))) - 1


def range_text(first: int, last: int) -> str:
    return f"{first}-{last}"


def missing_how(ref: str | None, stored: bool | None, first: int, last: int) -> str:
    """How to get lines ``first``-``last`` back: a fetch call, or what to do without a ref."""
    if ref is not None:
        return format_next(ref, lines=range_text(first, last))
    why = "could not be kept" if stored is False else "were not kept (no store)"
    return f"lines {first}-{last} {why}; shape again with a store or a larger budget to see them"
