"""No key in two runs of a dense object: the proof that lets the lazy read trust one.

A dense object (millions of small members, :class:`elision.shape.lazyjson.ChunkedObject`) is
parsed a run of members at a time, and each run's parse proves its own members free of
repeats. What is left is a key of one run repeated in another, and the keys of every run can
never be held at once (that is the whole parse's memory). :class:`RunKeys` is handed each run's
keys in order and proves that no key is in two runs - exactly, not by chance - or raises
:class:`Repeated`:

ranges
    A key in two runs lies in both runs' key ranges (least to greatest key, as Python orders
    ``str``), so a run is only compared with the earlier runs whose range meets its own, and
    only by its keys inside that range (found by bisecting the run's keys, sorted); where there
    are some, the earlier run is read again and the two met as sets. An object written with
    its keys sorted (Go's ``encoding/json``, ``sort_keys=True``, ``jq -S``, sequential ids),
    even with a few caveat keys after them, is proven by one ``sorted`` per run (linear on
    sorted keys). When the runs read again would pass the runs read so far (keys in no order:
    every range meets every other), the filter takes over.
filter
    From then on each key's hash marks one bit of a bitmap (the runs before are read again to
    be marked), and a key whose bit an earlier run set is a *suspect*, kept as its string.
    Equal keys hash alike, so the later of any repeated pair is a suspect; a key suspected in
    two runs is a repeat at once. The bits are read and written a run at a time by C-speed
    gathers (``itemgetter``) and a ``map``, not by a Python loop per key.
second look
    Each run before the last one holding a suspect is read again and met against the suspects
    (a set intersection in C). A run holds its own suspects; one more means a key suspected in a
    later run is here too. A suspect of a later run seen in this one would have been suspected
    here as well, so nothing after the last such run needs reading.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Collection
from itertools import compress, repeat
from operator import and_, itemgetter

__all__ = ["Repeated", "RunKeys"]

#: The bit a key marks within its byte, from its hash's top byte.
_BIT = bytes(1 << (value & 7) for value in range(256))
_LITTLE = sys.byteorder == "little"


class Repeated(Exception):
    """A key is in two runs (or may be: the caller's whole parse tells)."""


class RunKeys:
    """Told each run's keys in order (:meth:`add`), then :meth:`finish`: raises
    :class:`Repeated` when a key is in two runs.

    ``reread(number)`` gives run ``number``'s keys again; ``bitmap_bytes`` (a power of two, at
    most 2**32) sizes the filter, made only when the ranges stop proving the runs apart.
    ``hasher`` is ``hash`` but in tests, which make keys collide in the filter at will."""

    def __init__(
        self, bitmap_bytes: int, reread: Callable[[int], Collection[str]], *,
        hasher: Callable[[str], int] = hash,
    ) -> None:
        self._reread = reread
        self._hasher = hasher
        self._bitmap_bytes = min(bitmap_bytes, 1 << 32)
        self._ranges: list[tuple[str, str] | None] = []  # per run: its least and greatest key
        self._rereads = 0
        self._bits: bytearray | None = None
        self._suspects: set[str] = set()
        self._flagged: list[int] = []  # per run, how many of its keys are suspects

    def add(self, keys: Collection[str]) -> None:
        """The next run's keys, which the run's parse proved distinct among themselves."""
        if self._bits is None:
            if self._ranges_prove(keys):
                self._flagged.append(0)
                return
            self._bits = bytearray(self._bitmap_bytes)
            for earlier in range(len(self._flagged)):  # proven by their ranges: marked, not tested
                self._mark(self._reread(earlier))
        suspects = self._mark(keys)
        before = len(self._suspects)
        self._suspects.update(suspects)
        if len(self._suspects) - before != len(suspects):
            raise Repeated("a key suspected in two runs")
        self._flagged.append(len(suspects))

    def finish(self) -> None:
        """The second look at the suspects, where there are any."""
        last = max((n for n, count in enumerate(self._flagged) if count), default=0)
        for number in range(last):
            if len(self._suspects.intersection(self._reread(number))) != self._flagged[number]:
                raise Repeated("a suspect of a later run is in an earlier one")

    def _ranges_prove(self, keys: Collection[str]) -> bool:
        """Whether the ranges prove these keys in no earlier run (reading again the few runs
        they cannot tell from); ``False`` when that would take too many reads."""
        ordered = sorted(keys)
        if not ordered:
            self._ranges.append(None)
            return True
        low, high = ordered[0], ordered[-1]
        meets: list[tuple[int, int, int]] = []
        for number, span in enumerate(self._ranges):
            if span is not None and span[0] <= high and low <= span[1]:
                start, end = bisect_left(ordered, span[0]), bisect_right(ordered, span[1])
                if start < end:
                    meets.append((number, start, end))
        if self._rereads + len(meets) > len(self._ranges):
            return False
        for number, start, end in meets:
            self._rereads += 1
            if not set(ordered[start:end]).isdisjoint(self._reread(number)):
                raise Repeated("a key in two runs")
        self._ranges.append((low, high))
        return True

    def _mark(self, keys: Collection[str]) -> list[str]:
        """Set each key's bit; the keys whose bit an earlier run had set (the suspects)."""
        bits = self._bits
        assert bits is not None
        count = len(keys)
        if not count:
            return []
        shift = len(bits).bit_length() - 1
        hashes = array("q", list(map(self._hasher, keys))).tobytes()
        # Each key's byte from its hash's low bytes, its bit from the top one: gathered from the
        # hashes' bytes by strided slices, so no Python int is made per key but the index.
        wide = bytearray(4 * count)
        for byte in range((shift + 7) // 8):
            if _LITTLE:
                wide[byte::4] = hashes[byte::8]
            else:
                wide[3 - byte :: 4] = hashes[7 - byte :: 8]
        places = memoryview(wide).cast("I").tolist()
        if shift % 8:
            places = list(map(and_, places, repeat((1 << shift) - 1)))
        own = hashes[7 if _LITTLE else 0 :: 8].translate(_BIT)
        gather = _gatherer(places)
        before = int.from_bytes(gather(bits), "little")
        wanted = int.from_bytes(own, "little")
        hit = (before & wanted).to_bytes(count, "little")
        deque(map(bits.__setitem__, places, (before | wanted).to_bytes(count, "little")), 0)
        # Two keys of this run on one byte: the later write kept its bit, not the earlier's.
        lost = wanted & ~int.from_bytes(gather(bits), "little")
        if lost:
            where = lost.to_bytes(count, "little")
            for place, bit in zip(compress(places, where), compress(own, where), strict=True):
                bits[place] |= bit
        return list(compress(keys, hit))


def _gatherer(places: list[int]) -> Callable[[bytearray], bytes]:
    """The bytes of a table at ``places``, in order, gathered in C."""
    if len(places) == 1:
        (place,) = places
        return lambda table: bytes((table[place],))
    get = itemgetter(*places)
    return lambda table: bytes(get(table))
