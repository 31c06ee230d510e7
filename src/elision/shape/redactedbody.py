"""A redacted text read in place: the original body, its withheld spans and their stubs.

Where a stub is longer than the value it stands for (a 44-byte stub for an 8-byte password),
the redacted body written whole was 1.4-3.8x the input, held while the text shaper read only
its head and tail (issue 23: text's target is 1.5x). A :class:`RedactedBody` is the same
bytes, written only where they are read: a slice writes its stretch, a search of a line
break reads the body itself (every break of a withheld value follows its stub), and
``bytes(view)`` writes the whole for a reader that needs it.

The redacted body is ``gap 0, stand-in 0, gap 1, stand-in 1, …, gap n``: each gap is the
body's bytes between two spans, each stand-in a span's stub followed by the span's line
breaks (its ``\\r`` and ``\\n`` bytes, in order), so every line keeps its number. Offsets of
the redacted body are found by a binary search of where each stand-in starts.
"""

from __future__ import annotations

import io
import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import overload

#: Bytes written at a time by a search that the body cannot answer itself.
_WINDOW = 1 << 16
_BREAKS = re.compile(rb"[\r\n]+")
#: Every byte but the line breaks: what a span's stand-in drops of it.
_NOT_BREAKS = bytes(b for b in range(256) if b not in b"\r\n")
#: A span longer than this keeps its stand-in once written (it holds the span's line breaks,
#: at most its size, and a stub): a dense stretch's, read by each cut of the shaper.
_LONG = 1 << 12
#: The line breaks: a withheld span's follow its stub, so the body counts and finds them.
_KEPT = (b"\n", b"\r")


class RedactedBody:
    """The redacted UTF-8 bytes of ``body`` (valid UTF-8) with ``starts[i]:ends[i]`` (byte
    offsets, in order, apart) each standing as ``stub_of(i)`` and that span's line breaks.

    Reads as ``bytes`` for what the shapers ask of a body: ``len``, slices, an index, ``find``,
    ``rfind`` and ``count``, ``decode``, chunks; ``bytes(view)`` for the whole."""

    __slots__ = (
        "_body", "_dense", "_ends", "_long", "_out", "_plain", "_rules", "_size", "_starts",
        "_stubs", "ascii",
    )

    def __init__(
        self,
        body: bytes,
        starts: Sequence[int],
        ends: Sequence[int],
        rules: Sequence[int],
        stubs: Sequence[bytes | None],
        dense_stub: Callable[[int], bytes],
    ) -> None:
        """``rules[i]`` indexes ``stubs``; a ``None`` stub is a dense stretch's, whose text
        names its size (``dense_stub(size)``)."""
        self._body = body
        self._starts, self._ends, self._rules = starts, ends, rules
        self._stubs: tuple[bytes | None, ...] = tuple(stubs)
        self._dense = dense_stub
        #: A long span's stand-in, once written: a credential-dense stretch is one span over
        #: all its lines, and each read its bounds cut wrote it again from the body (the line
        #: index, head, tail and cut: 1 s for 2 MB, 25x the written body; the merge's review).
        self._long: dict[int, bytes] = {}
        self._plain = b"\r" not in body
        #: Whether the body is ASCII, and so every byte of the view (stubs are ASCII) a char.
        self.ascii = body.isascii()
        # Where each stand-in starts in the redacted body: 4 bytes a span, as the offsets.
        # One pass, its steps inline: it is a Python step a span (25,000 a MB).
        out: array[int] = array("I" if len(body) < 1 << 31 else "q")
        widths = [-1 if stub is None else len(stub) for stub in self._stubs]
        at = prev = 0
        grow = out.append
        plain, find = self._plain, body.find
        for start, end, rule in zip(starts, ends, rules, strict=True):
            at += start - prev
            try:
                grow(at)
            except OverflowError:
                out = array("q", out)
                grow = out.append
                grow(at)
            width = widths[rule]
            at += width if width >= 0 else len(dense_stub(end - start))
            if find(b"\n", start, end) >= 0 or not plain:
                at += self._breaks_in(start, end)
            prev = end
        self._out = out
        self._size = at + len(body) - prev

    def _breaks_in(self, start: int, end: int) -> int:
        body = self._body
        if body.find(b"\n", start, end) < 0 and (self._plain or body.find(b"\r", start, end) < 0):
            return 0
        found = body.count(b"\n", start, end)
        return found if self._plain else found + body.count(b"\r", start, end)

    def _stand_in(self, i: int) -> bytes:
        """Span ``i``'s stub and line breaks, as the redacted body holds them."""
        if (kept := self._long.get(i)) is not None:
            return kept
        start, end = self._starts[i], self._ends[i]
        if end - start > _LONG:
            written = self._write_stand_in(i, start, end)
            self._long[i] = written
            return written
        return self._write_stand_in(i, start, end)

    def _write_stand_in(self, i: int, start: int, end: int) -> bytes:
        stub = self._stubs[self._rules[i]]
        if stub is None:
            stub = self._dense(end - start)
        if self._breaks_in(start, end) == 0:
            return stub
        if self._plain:  # its breaks are all "\n": counted, no list of them
            return stub + b"\n" * self._body.count(b"\n", start, end)
        return stub + self._body[start:end].translate(None, _NOT_BREAKS)

    def _stand_in_end(self, i: int) -> int:
        if i + 1 < len(self._out):
            return self._out[i + 1] - (self._starts[i + 1] - self._ends[i])
        return self._size - (len(self._body) - self._ends[i])

    def __len__(self) -> int:
        return self._size

    def __bytes__(self) -> bytes:
        return self._slice(0, self._size)

    def __repr__(self) -> str:
        return f"<RedactedBody of {self._size:,} bytes, {len(self._out):,} spans>"

    @overload
    def __getitem__(self, key: int) -> int: ...
    @overload
    def __getitem__(self, key: slice) -> bytes: ...
    def __getitem__(self, key: int | slice) -> bytes | int:
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step != 1:
                return self._slice(0, self._size)[key]
            return self._slice(start, max(start, stop))
        at = key + self._size if key < 0 else key
        if not 0 <= at < self._size:
            raise IndexError("index out of range")
        return self._slice(at, at + 1)[0]

    def chunks(self, size: int = _WINDOW) -> Iterator[bytes]:
        """The redacted body ``size`` bytes at a time."""
        for at in range(0, self._size, size):
            yield self._slice(at, at + size)

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return bytes(self).decode(encoding, errors)

    def _slice(self, a: int, b: int) -> bytes:
        b = min(b, self._size)
        if a >= b:
            return b""
        out = io.BytesIO()
        self._write(a, b, out.write)
        return out.getvalue()

    def _write(self, a: int, b: int, put: Callable[[bytes | memoryview], object]) -> None:
        out, starts, ends, rules = self._out, self._starts, self._ends, self._rules
        stubs, data, body = self._stubs, self._body, memoryview(self._body)
        n = len(out)
        k = bisect_right(out, a) - 1
        at = source = a
        if k >= 0:  # a is in stand-in k, or in the gap after it
            end = self._stand_in_end(k)
            if a < end:
                at = min(b, end)
                put(self._stand_in(k)[a - out[k]:at - out[k]])
            source = ends[k] + (at - end)
        # Then a gap and a stand-in at a time, the plain case inline: a long line's slice
        # reads a stand-in every 28 bytes (a line of URL users).
        plain = self._plain
        for i in range(k + 1, n + 1):
            if at >= b:
                return
            stop = min(starts[i] if i < n else len(data), source + (b - at))
            put(body[source:stop])
            at += stop - source
            if at >= b or i == n:
                return
            start, source = starts[i], ends[i]
            stub = stubs[rules[i]]
            if stub is None:
                stub = self._dense(source - start)
            if not plain or data.find(b"\n", start, source) >= 0:
                stub = self._stand_in(i)
            if at + len(stub) > b:
                put(stub[:b - at])
                return
            put(stub)
            at += len(stub)

    # Searches. A line break is found and counted in the body: a withheld span holds as many
    # of each as its stand-in. Only a stand-in the bounds cut is written to be read.

    def _bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        size = self._size
        a = 0 if start is None else (max(0, start + size) if start < 0 else min(start, size))
        b = size if end is None else (max(0, end + size) if end < 0 else min(end, size))
        return a, max(a, b)

    def _split(self, a: int, b: int) -> tuple[bytes, int, int, bytes, int]:
        """``[a, b)`` as the stand-in bytes a cuts, the body's ``[A, B)`` of whole gaps and
        spans between, the stand-in bytes ``b`` cuts, and where those start."""
        out, starts, ends = self._out, self._starts, self._ends
        k = bisect_right(out, a) - 1
        head, lo = b"", a
        if k >= 0 and out[k] < a < (end := self._stand_in_end(k)):
            head = self._stand_in(k)[a - out[k]:min(b, end) - out[k]]
            lo = ends[k] if b > end else -1
        elif k >= 0 and a == out[k]:
            lo = starts[k]
        else:
            lo = a if k < 0 else ends[k] + (a - self._stand_in_end(k))
        if lo < 0:  # a and b in one stand-in
            return head, 0, 0, b"", b
        j = bisect_right(out, b) - 1
        tail, hi, tail_at = b"", 0, b
        if j >= 0 and out[j] < b < (end := self._stand_in_end(j)):
            tail, hi, tail_at = self._stand_in(j)[:b - out[j]], starts[j], out[j]
        elif j >= 0 and b == out[j]:
            hi = starts[j]
        else:
            hi = b if j < 0 else ends[j] + (b - self._stand_in_end(j))
        return head, lo, max(lo, hi), tail, tail_at

    def _from_body(self, p: int) -> int:
        """Where byte ``p`` of the body, a line break, is in the redacted body."""
        i = bisect_right(self._starts, p) - 1
        if i < 0:
            return p
        start, end = self._starts[i], self._ends[i]
        if p >= end:
            return self._stand_in_end(i) + (p - end)
        stub = self._stubs[self._rules[i]]
        width = len(stub) if stub is not None else len(self._dense(end - start))
        return self._out[i] + width + self._breaks_in(start, p)

    def _empty_bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        """``start`` and ``end`` adjusted as ``bytes`` adjusts them (an empty ``sub`` is found
        at ``start`` only where ``start <= end``; the review found ``find(b"", 5, 2)`` said 5)."""
        size = self._size
        b = size if end is None else (min(end, size) if end >= 0 else max(0, end + size))
        a = 0 if start is None else (start if start >= 0 else max(0, start + size))
        return a, b

    def count(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        if not sub:
            a, b = self._empty_bounds(start, end)
            return b - a + 1 if a <= b else 0
        a, b = self._bounds(start, end)
        if sub in _KEPT:
            head, lo, hi, tail, _ = self._split(a, b)
            return head.count(sub) + self._body.count(sub, lo, hi) + tail.count(sub)
        if not sub or _overlaps(sub):
            return self._slice(a, b).count(sub)
        # A window a time, each counting what starts in it: no match lies in two.
        found = 0
        for at in range(a, b, _WINDOW):
            found += self._slice(at, min(b, at + _WINDOW + len(sub) - 1)).count(sub)
        return found

    def find(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        if not sub:
            a, b = self._empty_bounds(start, end)
            return a if a <= b else -1
        a, b = self._bounds(start, end)
        if sub in _KEPT:
            return self._search(sub, a, b, last=False)
        for at in range(a, max(a, b - len(sub)) + 1, _WINDOW):
            i = self._slice(at, min(b, at + _WINDOW + len(sub) - 1)).find(sub)
            if i >= 0:
                return at + i
        return -1

    def rfind(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        if not sub:
            a, b = self._empty_bounds(start, end)
            return b if a <= b else -1
        a, b = self._bounds(start, end)
        if sub in _KEPT:
            return self._search(sub, a, b, last=True)
        i = self._slice(a, b).rfind(sub)
        return a + i if i >= 0 else -1

    def _search(self, sub: bytes, a: int, b: int, *, last: bool) -> int:
        """A line break's first (``last``: last) place in ``[a, b)``: in a stand-in ``a`` or
        ``b`` cuts, else in the body between, read in the order of the search."""
        head, lo, hi, tail, tail_at = self._split(a, b)
        look = bytes.rfind if last else bytes.find
        (at, first), (then_at, then) = ((tail_at, tail), (a, head)) if last else (
            (a, head), (tail_at, tail))
        if (i := look(first, sub)) >= 0:
            return at + i
        if (p := look(self._body, sub, lo, hi)) >= 0:
            return self._from_body(p)
        return then_at + i if (i := look(then, sub)) >= 0 else -1

    def startswith(self, prefix: bytes, start: int = 0) -> bool:
        if start > self._size:
            return False
        a, _ = self._bounds(start, None)
        return self._slice(a, a + len(prefix)) == prefix


def _overlaps(sub: bytes) -> bool:
    """Whether two matches of ``sub`` may overlap (a proper prefix is also a suffix), so a
    count by windows could differ from one over the whole."""
    return any(sub[:k] == sub[-k:] for k in range(1, len(sub)))
