"""A text's withheld entries, held as numbers: no dict a value.

Just under the density bound a MB of text withholds 25,000 values, one entry
``{"line": N, "reason": r}`` each. As dicts those were ~220 bytes an entry, 5.5x the text,
the largest part of what a redaction held at its peak (issue 23), and yet nothing on the
pipeline's path reads an entry as a dict: the envelope lists them condensed
(:func:`elision.pipeline.condense_withheld`) and the audit counts them by reason.
:class:`LineEntries` keeps a line number (4 bytes) and a reason's index (1 byte) an entry,
and the ``bytes`` of the rare credential-dense stretch beside them; an entry is made as a
dict when it is read, so every consumer reads it as it read the list. Its fast paths are
what the consumers do: :meth:`LineEntries.counts` and :meth:`LineEntries.spans`.

:class:`Chained` joins the entries of several parts of one result (the proxy's blocks),
keeping each compact part as it is; :func:`count_reasons` counts either, or any sequence of
entry dicts.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, overload


class _Entries(Sequence[dict[str, Any]]):
    """A sequence of withheld entries that reads as the list of them: indexed, sliced (a
    list), equal to a list or tuple of the same entries. ``_entry(i)`` gives entry ``i``."""

    __slots__ = ()

    def _entry(self, i: int) -> dict[str, Any]:
        raise NotImplementedError

    @overload
    def __getitem__(self, at: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, at: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, at: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(at, slice):
            return [self._entry(i) for i in range(*at.indices(len(self)))]
        if at < 0:
            at += len(self)
        if not 0 <= at < len(self):
            raise IndexError("withheld entry index out of range")
        return self._entry(at)

    def __eq__(self, other: object) -> bool:
        # Equal to a list or tuple of the same entries, as the list it stands for was.
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return False
        return len(self) == len(other) and all(
            a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it stands for


class LineEntries(_Entries):
    """One text's withheld entries, in order: each reads as ``{"line", "reason"}`` (and
    ``"bytes"`` for a credential-dense stretch), made when it is read."""

    __slots__ = ("_index", "_lines", "_names", "_reasons", "_sizes")

    def __init__(self) -> None:
        self._lines = array("I")  # a line past 2**32 widens it (see append)
        self._reasons = array("B")  # an index into _names; a 257th reason widens it
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self._sizes: dict[int, int] = {}  # entry -> its "bytes", for the few that have one

    def append(self, line: int, reason: str, size: int | None = None) -> None:
        """Add the entry ``{"line": line, "reason": reason}`` (with ``"bytes": size``)."""
        at = self._index.get(reason)
        if at is None:
            at = self._index[reason] = len(self._names)
            self._names.append(reason)
        if size is not None:
            self._sizes[len(self._lines)] = size
        try:
            self._reasons.append(at)
        except OverflowError:
            self._reasons = array("q", self._reasons)
            self._reasons.append(at)
        try:
            self._lines.append(line)
        except OverflowError:
            self._reasons.pop()  # the entry is added whole or not at all
            self._lines = array("q", self._lines)
            self._lines.append(line)
            self._reasons.append(at)

    def __len__(self) -> int:
        return len(self._lines)

    def _entry(self, i: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"line": self._lines[i], "reason": self._names[self._reasons[i]]}
        size = self._sizes.get(i)
        if size is not None:
            entry["bytes"] = size
        return entry

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return map(self._entry, range(len(self)))

    def __repr__(self) -> str:
        return f"LineEntries({len(self)} entries: {self.counts()})"

    def counts(self) -> dict[str, int]:
        """How many entries each reason has, in the order the reasons first came."""
        return {name: self._reasons.count(i) for i, name in enumerate(self._names)}

    def spans(self) -> list[tuple[str, int, int, int]]:
        """``(reason, first line, last line, count)`` a reason, in the order the reasons first
        came: what the envelope's condensed ``{"lines": "a-b", ...}`` entry says of them."""
        if len(self._names) == 1:
            return [(self._names[0], min(self._lines), max(self._lines), len(self))]
        low: dict[int, int] = {}
        high: dict[int, int] = {}
        for at, line in zip(self._reasons, self._lines, strict=True):
            if low.get(at, line) >= line:
                low[at] = line
            if high.get(at, line) <= line:
                high[at] = line
        return [(name, low[i], high[i], self._reasons.count(i))
                for i, name in enumerate(self._names) if i in low]


class Chained(_Entries):
    """The withheld entries of several parts of one result, in order: a compact part
    (:class:`LineEntries`) is kept as it came, entry dicts are listed."""

    __slots__ = ("_parts",)

    def __init__(self, entries: Iterable[dict[str, Any]] = ()) -> None:
        self._parts: list[Sequence[dict[str, Any]]] = []
        self.extend(entries)

    def extend(self, entries: Iterable[dict[str, Any]]) -> None:
        if isinstance(entries, LineEntries):
            if entries:
                self._parts.append(entries)
        elif isinstance(entries, Chained):
            for part in entries._parts:
                self.extend(part)
        else:
            for entry in entries:
                self.append(entry)

    def append(self, entry: dict[str, Any]) -> None:
        last = self._parts[-1] if self._parts else None
        if not isinstance(last, list):
            last = []
            self._parts.append(last)
        last.append(entry)

    def __len__(self) -> int:
        return sum(map(len, self._parts))

    def _entry(self, i: int) -> dict[str, Any]:
        for part in self._parts:
            if i < len(part):
                return part[i]
            i -= len(part)
        raise IndexError("withheld entry index out of range")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return chain.from_iterable(self._parts)

    def counts(self) -> dict[str, int]:
        """How many entries each reason has (see :func:`count_reasons`)."""
        total: Counter[str] = Counter()
        for part in self._parts:
            total.update(count_reasons(part))
        return dict(total)


def count_reasons(entries: Iterable[Any]) -> dict[str, int]:
    """How many of ``entries`` each reason has (an entry without one counts as
    ``"withheld"``; what is not an entry dict is not counted): what the audit log records."""
    if isinstance(entries, LineEntries | Chained):  # counted from their numbers
        return entries.counts()
    return dict(Counter(
        str(w.get("reason", "withheld")) for w in entries if isinstance(w, dict)))


def kept(entries: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """``entries`` to keep beyond the call that made them: a compact form as it is, any
    other sequence as a tuple (a caller's list may change after)."""
    if isinstance(entries, _Entries | tuple):
        return entries
    return tuple(entries)


def is_compact(entries: object) -> bool:
    """Whether ``entries`` is a compact form, whose items are made as they are read (it must
    be listed before orjson, which serializes real lists only, is given it)."""
    return isinstance(entries, _Entries)

