"""Withheld entries held as numbers: no dict a value.

Just under the density bound a MB of text withholds 25,000 values, one entry
``{"line": N, "reason": r}`` each. As dicts those were ~220 bytes an entry, 5.5x the text,
the largest part of what a redaction held at its peak (issue 23), and yet nothing on the
pipeline's path reads an entry as a dict: the envelope lists them condensed
(:func:`elision.pipeline.condense_withheld`) and the audit counts them by reason.
:class:`LineEntries` keeps a line number (4 bytes) and a reason's index (1 byte) an entry,
and the ``bytes`` of the rare credential-dense stretch beside them; an entry is made as a
dict when it is read, so every consumer reads it as it read the list. Its fast paths are
what the consumers do: :meth:`LineEntries.counts` and :meth:`LineEntries.spans`.
:class:`PathEntries` does the same for a JSON walk's entries: an array element's path is its
array's (one string for all its elements) and an index.

:class:`Chained` joins the entries of several parts of one result (the proxy's blocks),
keeping each compact part as it is; :func:`count_reasons` counts either, or any sequence of
entry dicts.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, repeat
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


class PathEntries(_Entries):
    """One JSON walk's withheld entries, in order. An array element's entry
    ``{"path": f"{above}[{i}]", "reason": r}`` is held as three numbers (its array's path,
    written once for all its elements; its index; its reason), and so is a member's of an
    element, ``f"{above}[{i}]{tail}"`` (a pair's ``.value``: the path and its tail written
    once); any other entry as its dict.

    A MB of distinct tokens in an array withholds 24,000 elements: as dicts and path strings
    their entries were 5.6x the body, the most ``shape()`` held at its peak (issue 23)."""

    __slots__ = ("_above_at", "_aboves", "_index", "_names", "_others", "_parents", "_reason_at",
                 "_reasons", "_tails")

    def __init__(self) -> None:
        self._aboves: list[str] = []  # the paths of the arrays whose elements have entries
        self._tails: list[str] = []  # and what follows an element's index in each, or ""
        self._above_at: dict[tuple[str, str], int] = {}
        # 9 bytes an entry (a value past their types widens all three, see _put):
        self._parents = array("I")  # 1 + an index into _aboves; 0: the entry is in _others
        self._index = array("I")  # the element's index; under 0, the entry's in _others
        self._reasons = array("B")  # an index into _names (0 under 0: unread)
        self._names: list[str] = []
        self._reason_at: dict[str, int] = {}
        self._others: list[dict[str, Any]] = []

    def add(self, above: str, index: int, reason: str, tail: str = "") -> None:
        """Add the entry ``{"path": f"{above}[{index}]{tail}", "reason": reason}`` (``tail``:
        a normalized JSONPath's parts below the element, opening with ``.`` or ``[``)."""
        parent = self._parent(above, tail)
        at = self._reason_at.get(reason)
        if at is None:
            at = self._reason_at[reason] = len(self._names)
            self._names.append(reason)
        self._put(parent, index, at)

    def add_run(
        self, above: str, indexes: list[int], reasons: list[str], tail: str = "",
    ) -> None:
        """:meth:`add` each ``(indexes[k], reasons[k])`` under ``above`` (with ``tail``): one
        call for a run of an array's elements, or of its records' members (a call an entry was
        a Python call a token of 24,000, and a pair's value of a MB of pairs)."""
        parent = self._parent(above, tail)
        for reason in set(reasons).difference(self._reason_at):
            self._reason_at[reason] = len(self._names)
            self._names.append(reason)
        at = len(self._parents)
        try:
            self._parents.extend(repeat(parent, len(indexes)))
            self._index.extend(indexes)
            self._reasons.extend(map(self._reason_at.__getitem__, reasons))
        except OverflowError:
            del self._parents[at:], self._index[at:], self._reasons[at:]
            self._widen()
            self.add_run(above, indexes, reasons, tail)

    def _parent(self, above: str, tail: str) -> int:
        """1 + the index of ``(above, tail)`` among the paths written once, added if new."""
        parent = self._above_at.get((above, tail))
        if parent is None:
            parent = self._above_at[above, tail] = len(self._aboves) + 1
            self._aboves.append(above)
            self._tails.append(tail)
        return parent

    def append(self, entry: dict[str, Any]) -> None:
        """Add ``entry`` as it is."""
        self._put(0, len(self._others), 0)
        self._others.append(entry)

    def _widen(self) -> None:
        # Every column takes any value from then on.
        self._parents, self._index, self._reasons = (
            array("q", self._parents), array("q", self._index), array("q", self._reasons))

    def _put(self, parent: int, index: int, reason: int) -> None:
        try:
            self._parents.append(parent)
            self._index.append(index)
            self._reasons.append(reason)
        except OverflowError:  # the entry goes in whole or not at all
            del self._parents[len(self._reasons):], self._index[len(self._reasons):]
            self._widen()
            self._put(parent, index, reason)

    def __len__(self) -> int:
        return len(self._parents)

    def __delitem__(self, at: slice) -> None:
        """``del entries[n:]``: what a walk took back (the only deletion a walk makes)."""
        start, stop, step = at.indices(len(self))
        if stop != len(self) or step != 1:
            raise IndexError("only the entries from one on can be taken back")
        del self._others[len(self._others) - self._parents[start:].count(0):]
        del self._parents[start:], self._index[start:], self._reasons[start:]

    def _entry(self, i: int) -> dict[str, Any]:
        parent = self._parents[i]
        if not parent:
            return self._others[self._index[i]]
        return {"path": f"{self._aboves[parent - 1]}[{self._index[i]}]{self._tails[parent - 1]}",
                "reason": self._names[self._reasons[i]]}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        # A chunk of dicts at a time, each made in one comprehension: a call an entry was a
        # Python call a token for redact_value(), which lists them all.
        return chain.from_iterable(map(self._chunk, range(0, len(self), _CHUNK)))

    def _chunk(self, start: int) -> list[dict[str, Any]]:
        aboves, tails, names, others = self._aboves, self._tails, self._names, self._others
        end = start + _CHUNK
        return [others[index] if not parent else
                {"path": f"{aboves[parent - 1]}[{index}]{tails[parent - 1]}",
                 "reason": names[reason]}
                for parent, index, reason in zip(self._parents[start:end], self._index[start:end],
                                                 self._reasons[start:end], strict=True)]

    def __repr__(self) -> str:
        return f"PathEntries({len(self)} entries: {self.counts()})"

    def counts(self) -> dict[str, int]:
        """How many entries each reason has (see :func:`count_reasons`)."""
        total: Counter[str] = Counter()
        for parent, reason, index in zip(self._parents, self._reasons, self._index, strict=True):
            if not parent:
                total[str(self._others[index].get("reason", "withheld"))] += 1
            else:
                total[self._names[reason]] += 1
        return dict(total)

    def groups(self, pattern: Callable[[str], str]) -> dict[tuple[str, str], int] | None:
        """How many entries each ``(pattern(path), reason)`` has, in the order they first come,
        each array's ``pattern`` written once: an element's path is its array's and
        ``[i]``, and ``pattern`` must read that ``[i]`` on its own (as ``[*]``). ``None`` when
        an entry has no path."""
        wheres: dict[int, str] = {}
        out: dict[tuple[str, str], int] = {}
        for parent, reason, index in zip(self._parents, self._reasons, self._index, strict=True):
            if not parent:
                entry = self._others[index]
                if "path" not in entry:
                    return None
                key = (pattern(str(entry["path"])), str(entry.get("reason", "withheld")))
            else:
                where = wheres.get(parent)
                if where is None:
                    # Any index reads as this one does: ``pattern`` reads each "[i]" alone.
                    where = wheres[parent] = pattern(
                        f"{self._aboves[parent - 1]}[0]{self._tails[parent - 1]}")
                key = (where, self._names[reason])
            out[key] = out.get(key, 0) + 1
        return out


#: Entries a :class:`PathEntries` makes dicts of at a time, as it is iterated.
_CHUNK = 4096


class Chained(_Entries):
    """The withheld entries of several parts of one result, in order: a compact part
    (:class:`LineEntries`, :class:`PathEntries`) is kept as it came, entry dicts are listed."""

    __slots__ = ("_parts",)

    def __init__(self, entries: Iterable[dict[str, Any]] = ()) -> None:
        self._parts: list[Sequence[dict[str, Any]]] = []
        self.extend(entries)

    def extend(self, entries: Iterable[dict[str, Any]]) -> None:
        if isinstance(entries, LineEntries | PathEntries):
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
    if isinstance(entries, LineEntries | PathEntries | Chained):  # counted from their numbers
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

