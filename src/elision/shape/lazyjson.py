"""Big JSON documents in bounded memory: a lazy document that the shaper reads like a parsed one.

A parsed document costs 5-10x its bytes in Python objects, and the shaper looks at a few
kilobytes of it: the first elements of each array, the caveat members of each object, the sizes
of what it tries to show. So a body of at least :data:`LAZY_BYTES` is read into a *skeleton*:
every container longer than :data:`NODE_BYTES` becomes a :class:`LazyArray` or
:class:`LazyObject` that holds its children as ``msgspec.Raw`` views of the body (48 bytes each,
no copy), and every smaller child is parsed by :func:`~elision.shape.jsonparse.parse_json`, the
exact parser, only when the shaper reaches it (and kept, so that a node keeps its identity for
the shaper's size memo). What the shaper is shown is therefore what the whole parse would give:
the same values, numbers spelled as the tool spelled them, the same output bytes. Where a Raw
would cost as much as the element it views (a record array of small rows, written with one
comma between each two), the array is a :class:`PackedArray` of offsets instead.

The skeleton is built in one pass that also proves the body is one valid document with no
repeated key anywhere, since a document that repeats a key must be shaped with the shadowed
members withheld, and that takes the whole parse: every small child is parsed (in batches of
about :data:`BATCH_BYTES`, then dropped) by the exact parser, which refuses what it refuses and
reports repeats below it; a large object's own members are counted by their colons (outside
strings a colon only ever separates a member, and the members msgspec kept, with their keys and
values, account for every colon exactly when no member was shadowed). Whatever the pass cannot
prove - a repeated key, a lone surrogate escape, a body the exact parser would refuse, nesting
deeper than :data:`MAX_SKELETON_DEPTH` large containers - declines the lazy route, and the
caller parses the body whole, as it always did: the answer is the same, only the memory is not.

A lazy node is no ``dict`` or ``list``: code that does not know it gets a ``TypeError`` (orjson,
``scalar_size``) rather than an empty container. :func:`materialize` parses one whole, for a
stage that must see every value (a guard policy, a redaction walk over a body that needs one).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, eq, is_not, itemgetter
from typing import Any, NamedTuple

import msgspec
import orjson

from elision.envelope import ENVELOPE_KEY
from elision.errors import InputError
from elision.shape.jsonparse import (
    may_hold_surrogate,
    outside_strings,
    parse_deep,
    parse_json,
    refused_early,
    repeated_keys,
    risky_numbers,
)
from elision.shape.keys import caveat_pattern
from elision.shape.repeats import Repeated, RunKeys

__all__ = [
    "BATCH_BYTES",
    "LAZY_BYTES",
    "LAZY_COST",
    "MAX_SKELETON_DEPTH",
    "NODE_BYTES",
    "ChunkedObject",
    "LazyArray",
    "LazyObject",
    "PackedArray",
    "fresh",
    "is_lazy",
    "lazy_document",
    "materialize",
    "parse_cost",
    "parse_document",
    "reads_lazily",
    "serialize",
    "walks_lazily",
    "written_size",
]

#: Bodies at least this long are read lazily; smaller ones are parsed whole (orjson is faster
#: there, and 9x of a few MB is no one's problem). Measured here at 4 and 10 MB: the skeleton
#: holds a third to a half of the whole parse's peak in about its time (deep documents 1.5x),
#: at 1 MB it saves little and costs 1.25-1.7x; at 16 MiB, as first set, a 10 MB result still
#: raised the proxy's peak by 9.6x its size.
LAZY_BYTES = 4 << 20
#: A container longer than this (in the body's bytes) stays lazy; a shorter one is parsed whole
#: when the shaper reaches it. Large enough that the Raw views cost little next to the body.
NODE_BYTES = 256 << 10
#: Small children are checked in batches of about this many bytes (a parsed batch costs ~15x
#: its bytes beside the body while it is checked: at 1 MiB, 0.13x a 100 MB record array).
BATCH_BYTES = 256 << 10
#: A smaller body is read lazily too when its whole parse would make more than this many times
#: its bytes in Python objects (:func:`parse_cost`): with the body, past the 3x target. An array
#: of documents nested 300 levels costs 30-37x, a record array 5-8x, a dense object 6-9x
#: (measured at 1-3 MiB); a document of long strings about 1x.
LAZY_COST = 1.0
#: ... but never one under this: its whole parse is a few MB at worst.
STRUCTURE_BYTES = 64 << 10
#: What the whole parse makes, in bytes, per ``,``, ``{`` and ``[`` of the body: one more
#: member or element (its slot, a small value), a dict with a member or two and its GC header
#: (keys are shared: orjson caches them), a list. Calibrated with tracemalloc on the bench's
#: shapes; strings' own bytes (at most the body's) are left out. Counted in this order, so
#: that a record array, prose with commas or deep objects are known after one count or two.
_COSTS = ((b",", 100), (b"{", 180), (b"[", 80))
#: What the whole parse of any JSON makes per byte, at most (``[[[[``, ``{},{}``, ``0,0,0``).
_MOST_COST = 100
#: What checking or reading one small child, or one batch of them, may make at once, as a share
#: of the body's bytes: a body under ``BATCH_BYTES * _MOST_COST / ALLOWANCE_SHARE`` (51 MiB) has
#: its batches and small children cut smaller than :data:`BATCH_BYTES` and :data:`NODE_BYTES`,
#: so that no content, however dense in containers, makes more than the share.
ALLOWANCE_SHARE = 0.5
#: ... but no batch, child or run is cut smaller than this.
MIN_BATCH_BYTES = 8 << 10
#: A dense object's runs cost about this many times their bytes while they are read.
_RUN_COST = 8
#: Large containers nested deeper than this decline the lazy route (the whole parse handles
#: any depth iteratively; this keeps the skeleton's own recursion shallow).
MAX_SKELETON_DEPTH = 64

#: An object whose members average fewer bytes than this is read in runs of members, so that
#: its keys are never all held at once (a Raw and a key per member cost ~150 bytes).
DENSE_MEMBER_BYTES = 256
#: How much of a large object is read to tell whether it is dense.
SAMPLE_BYTES = 64 << 10
#: Commas tried, one after another, for the end of a run before the object counts as sparse
#: (its commas are mostly inside nested values, so a Raw per member is cheap there).
RUN_TRIES = 64

#: The least bitmap a dense object's keys are hashed into (a power of two).
BITMAP_BYTES = 1 << 16

_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])
_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_SKIP = msgspec.json.Decoder(msgspec.Raw)  # validates, builds nothing
_LEADING_WS = re.compile(rb"[ \t\n\r]*")
_KEY_SEPARATOR = "\x00"


class Declined(Exception):
    """The lazy route cannot prove this body is what the whole parse would make of it.

    ``refused``: msgspec or the exact parser refused the body (invalid, or nested past
    msgspec's depth), so orjson would refuse it too, or read it only to its 1,024 levels;
    ``deep``: it was the depth; ``nested``: large containers nest past
    :data:`MAX_SKELETON_DEPTH` (either way a spine may read it: :mod:`elision.shape.lazyspine`)."""

    def __init__(
        self, reason: str, *, refused: bool = False, deep: bool = False, nested: bool = False
    ) -> None:
        super().__init__(reason)
        self.refused = refused
        self.deep = deep
        self.nested = nested


#: A piece of a lazy node, unparsed (:meth:`_Lazy._spans`): (where, as in
#: :meth:`~_Lazy.pieces`; the run's bytes as one JSON container, or ``b""``; the large child,
#: or ``None``; the run's indices or keys, ``None`` when not known before it is parsed).
_Span = tuple[Any, bytes, "LazyArray | LazyObject | None", "range | list[str] | None"]


class Patch(tuple[tuple[str, Any], ...]):
    """A replaced object child as the members a walk replaced, (name, value) in order, over
    the object its bytes parse to (the same names, in the same order): the node that holds
    it reads the child (:meth:`_Lazy._child`) or writes it (:func:`serialize`) as that object
    with these members set."""

    __slots__ = ()

    def over(self, given: dict[str, Any]) -> dict[str, Any]:
        """``given`` (the child as its bytes parse) with the replaced members: a new dict."""
        value = dict(given)
        value.update(self)
        return value


#: Distinct patches an array's changes share (:meth:`IndexChanges.add_piece`); past it, each
#: is its own: a walk that replaces each child differently shares none.
_SHARED_PATCHES = 256


class IndexChanges(Mapping[int, Any]):
    """An array's children a redaction walk replaced, by index, added in increasing order: two
    columns (an index, 8 bytes; a value, a pointer), no dict. A MB of distinct tokens replaces
    24,000 elements, and a dict of them was 1.9x the input at ``shape()``'s peak (issue 23)."""

    __slots__ = ("_at", "_patches", "_values")

    def __init__(self) -> None:
        self._at = array("q")
        self._values: list[Any] = []
        #: The patches of strings alone made so far, shared by the children they are for.
        self._patches: dict[tuple[tuple[str, Any], ...], Patch] = {}

    def add(self, index: int, value: Any) -> None:
        """Replace the child at ``index``, after every one added so far."""
        if self._at and index <= self._at[-1]:
            raise ValueError(f"replaced children come in increasing order: {index} after "
                             f"{self._at[-1]}")
        self._at.append(index)
        self._values.append(value)

    def add_piece(self, first: int, new: list[Any], piece: list[Any]) -> None:
        """Add each child of ``new`` that is not ``piece``'s (elements ``first`` on), told in C
        (a generator's step an item was a call a token of 24,000 distinct ones). A replaced
        object with its members' names and order is kept as a :class:`Patch` of the members
        that changed, not as the new object: a MB of name/value pairs replaced 30,000 of
        them, and their copies held 4x the input at ``shape()``'s peak (issue 23)."""
        if self._at and first <= self._at[-1]:
            raise ValueError(f"replaced children come in increasing order: {first} after "
                             f"{self._at[-1]}")
        moved = list(map(is_not, new, piece))
        self._at.extend(compress(range(first, first + len(new)), moved))
        values = list(compress(new, moved))
        if dict in set(map(type, values)):  # no Python step an item where none is an object
            values = self._patched(values, list(compress(piece, moved)))
        self._values.extend(values)

    def _patched(self, values: list[Any], givens: list[Any]) -> list[Any]:
        """Each of ``values`` that is an object with the names of its ``givens``' (in their
        order) as a :class:`Patch` over it. Where all are, told in C, with a Python step a
        distinct patch (one a child was 13% of a MB of pairs' ``shape()``); a patch of
        strings alone is shared by the children it is the same for (an equal number or
        ``True`` may be spelled otherwise: ``1 == 1.0 == True``)."""
        if (set(map(type, values)) == {dict} == set(map(type, givens))
                and all(map(eq, map(tuple, values), map(tuple, givens)))):
            changed = map(map, repeat(is_not), map(dict.values, values),
                          map(dict.values, givens))
            diffs = list(map(tuple, map(compress, map(dict.items, values), changed)))
            if set(map(type, map(itemgetter(1), chain.from_iterable(diffs)))) <= {str}:
                share = self._share
                distinct = {members: share(members) for members in set(diffs)}
                return list(map(distinct.__getitem__, diffs))
        patch = self._patch
        return [patch(value, given) if type(value) is dict else value
                for value, given in zip(values, givens, strict=True)]

    def _patch(self, value: dict[str, Any], given: Any) -> Any:
        """``value`` as a :class:`Patch` over ``given`` when it is one (the same names in the
        same order), shared by the children it is the same for when it sets strings alone;
        else ``value``."""
        if type(given) is not dict or len(given) != len(value) or tuple(given) != tuple(value):
            return value
        members = tuple(compress(value.items(), map(is_not, value.values(), given.values())))
        if not all(type(member) is str for _, member in members):
            return Patch(members)
        return self._share(members)

    def _share(self, members: tuple[tuple[str, Any], ...]) -> Patch:
        """The patch of ``members`` (strings alone) the children it is for share, kept for
        the next while fewer than :data:`_SHARED_PATCHES` are."""
        patch = self._patches.get(members)
        if patch is None:
            patch = Patch(members)
            if len(self._patches) < _SHARED_PATCHES:
                self._patches[members] = patch
        return patch

    def applied(self, first: int, piece: list[Any]) -> list[Any]:
        """``piece`` (the children ``first`` on, as their bytes parse, parsed for the caller
        alone) with the replaced ones set in it: a patch's members set in its object, in
        place. A step a replaced child, not a look-up a child (:func:`serialize`)."""
        lo = bisect_left(self._at, first)
        hi = bisect_left(self._at, first + len(piece), lo)
        for at, value in zip(self._at[lo:hi], self._values[lo:hi], strict=True):
            if type(value) is Patch:
                piece[at - first].update(value)
            else:
                piece[at - first] = value
        return piece

    @property
    def indexes(self) -> Sequence[int]:
        """The replaced children's indexes, in order."""
        return self._at

    def __getitem__(self, index: int) -> Any:
        at = bisect_left(self._at, index)
        if at == len(self._at) or self._at[at] != index:
            raise KeyError(index)
        return self._values[at]

    def __iter__(self) -> Iterator[int]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def items(self) -> ItemsView[int, Any]:
        return _IndexItems(self)


class _IndexItems(ItemsView[int, Any]):
    _mapping: IndexChanges

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        return zip(self._mapping._at, self._mapping._values, strict=True)  # no lookup a key


class _Lazy:
    """A lazy container's children: the large ones are lazy nodes, the rest are parsed when
    first read and kept (the shaper remembers sizes by ``id()``, so a child read twice must be
    the same object)."""

    __slots__ = ("_big", "_changed", "_parsed", "_verbatim", "_written")

    def __init__(self, big: dict[Any, LazyArray | LazyObject]) -> None:
        self._big = big
        self._parsed: dict[Any, Any] = {}
        #: Children a redaction walk replaced (:meth:`with_children`): they, never the bytes
        #: under them, are what this node holds.
        self._changed: Mapping[Any, Any] = _NO_CHANGES
        #: Piece size -> a byte a piece (:meth:`_spans`), 1 where the piece's bytes were found
        #: to be its own compact serialization (:func:`serialize` copies them, parsing
        #: nothing). Shared by the copies of this node, whose pieces are the same bytes.
        self._verbatim: dict[int, bytes] = {}
        #: The length of this node's whole serialization, once written and found to be one
        #: line (:func:`serialize`): a page of its first bytes need not write the rest.
        self._written: int | None = None

    def with_children(self, changed: Mapping[Any, Any]) -> Any:
        """A copy of this node in which each child named in ``changed`` (by index or key) is
        the value given: the rest still view the same bytes, and nothing is parsed. What the
        redaction walk of a lazy document returns (:mod:`elision.redact.lazywalk`).
        ``changed`` is the copy's from then on, not copied where this node has none: a copy
        of 24,000 withheld tokens' stubs was 1.3x the input at ``shape()``'s peak (issue 23)."""
        copy = self._copy()
        copy._changed = {**self._changed, **changed} if self._changed else changed
        return copy

    def fresh(self) -> Any:
        """A copy of this node, and of each lazy node under it, that has parsed nothing yet:
        a reader of the copy keeps what it parses with it (a page of a kept view)."""
        copy = self._copy()
        copy._big = {name: node.fresh() for name, node in self._big.items()}
        if self._changed:
            copy._changed = {name: value.fresh() if is_lazy(value) else value
                             for name, value in self._changed.items()}
        return copy

    def _copy(self) -> Any:
        copy = self._empty_copy()
        copy._verbatim = self._verbatim
        return copy

    def _empty_copy(self) -> Any:
        raise NotImplementedError

    def _spans(self, size: int) -> Iterator[_Span]:
        """The pieces :meth:`pieces` yields, unparsed."""
        raise NotImplementedError

    def _parse_piece(self, raw: bytes) -> Any:
        return parse_json(raw)

    def pieces(
        self, size: int, *, skip: Callable[[bytes], bool] | None = None,
    ) -> Iterator[tuple[Any, bytes, Any]]:
        """The children in runs of about ``size`` bytes, in order, as (where, the run's bytes
        as one JSON container, the run parsed exactly); a large container alone, as (where,
        ``b""``, the lazy node). Each run is parsed when it is reached, so a reader that drops
        it holds one run at a time. What :meth:`with_children` replaced is not applied: the
        bytes are the original's. ``where`` is the index of a run's first element, or of the
        large element; in an object ``None`` for a run, the key of the large member. A run
        whose bytes ``skip`` is true of is passed over, unparsed."""
        for where, raw, node, _ in self._spans(size):
            if node is not None:
                yield where, b"", node
            elif skip is None or not skip(raw):
                yield where, raw, self._parse_piece(raw)

    def _child(self, name: Any, raw: msgspec.Raw | memoryview) -> Any:
        if self._changed:
            value = self._changed.get(name, _MISSING)
            if type(value) is Patch:
                # Read once and kept, as a child never replaced is: the shaper remembers
                # sizes by id(), so a child read twice must be the same object.
                patched = self._parsed.get(name, _MISSING)
                if patched is _MISSING:
                    patched = self._parsed[name] = value.over(_parse_child(raw))
                return patched
            if value is not _MISSING:
                return value
        big = self._big.get(name)
        if big is not None:
            return big
        value = self._parsed.get(name, _MISSING)
        if value is _MISSING:
            value = _parse_child(raw)
            self._parsed[name] = value
        return value


class LazyArray(_Lazy):
    """A JSON array whose elements are parsed when they are read."""

    __slots__ = ("_items",)

    def __init__(self, items: list[msgspec.Raw], big: dict[int, LazyArray | LazyObject]) -> None:
        super().__init__(big)
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def item_bytes(self, index: int) -> bytes:
        """Element ``index``'s bytes in the body, as the body spells it."""
        return bytes(self._items[index])

    def __getitem__(self, index: int) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"a lazy array is indexed by int, got {type(index).__name__}")
        if index < 0:
            index += len(self._items)
        if not 0 <= index < len(self._items):
            raise IndexError("lazy array index out of range")
        return self._child(index, self._items[index])

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self._items)):
            yield self[index]

    def window(self, start: int | None, end: int | None) -> LazyArray:
        """The elements ``list[start:end]`` would hold, as a lazy array of their own: the views
        are shared and nothing is parsed, and what a reader of the window parses is kept by the
        window (and goes with it), not by this array - a page of a big array costs its page."""
        first, last, _ = slice(start, end).indices(len(self._items))
        last = max(first, last)
        big = {index - first: node for index, node in self._big.items() if first <= index < last}
        return _shifted(LazyArray(self._items[first:last], big), self._changed, first, last)

    def _empty_copy(self) -> LazyArray:
        return LazyArray(self._items, self._big)

    def _spans(self, size: int) -> Iterator[_Span]:
        items, big = self._items, self._big
        first, total = 0, 0
        run: list[Any] = []
        for index, raw in enumerate(items):
            node = big.get(index)
            if node is not None:
                if run:
                    yield first, b"[" + b",".join(run) + b"]", None, range(first, index)
                yield index, b"", node, None
                first, total, run = index + 1, 0, []
                continue
            run.append(raw)
            total += len(raw)
            if total >= size:
                yield first, b"[" + b",".join(run) + b"]", None, range(first, index + 1)
                first, total, run = index + 1, 0, []
        if run:
            yield first, b"[" + b",".join(run) + b"]", None, range(first, len(items))


class PackedArray(LazyArray):
    """A large array of small elements written with no white space between them (as most
    tools write a record array): its elements are kept as offsets into the body, 8 bytes
    each, where a Raw view costs 56, as much as a small record."""

    __slots__ = ("_bounds", "_view")

    def __init__(self, view: memoryview, bounds: array[int]) -> None:
        super().__init__([], {})
        self._view = view
        self._bounds = bounds  # element i is view[bounds[i] : bounds[i + 1] - 1]

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def __getitem__(self, index: int) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"a lazy array is indexed by int, got {type(index).__name__}")
        count = len(self._bounds) - 1
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("lazy array index out of range")
        return self._child(index, self._view[self._bounds[index] : self._bounds[index + 1] - 1])

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self._bounds) - 1):
            yield self[index]

    def window(self, start: int | None, end: int | None) -> LazyArray:
        first, last, _ = slice(start, end).indices(len(self))
        window = PackedArray(self._view, self._bounds[first : max(first, last) + 1])
        return _shifted(window, self._changed, first, last)

    def _empty_copy(self) -> PackedArray:
        return PackedArray(self._view, self._bounds)

    def _spans(self, size: int) -> Iterator[_Span]:
        bounds, count = self._bounds, len(self._bounds) - 1
        first = 0
        while first < count:
            # The elements are contiguous: a run is one slice of the body.
            last = min(count, max(first + 1, bisect_left(bounds, bounds[first] + size)))
            raw = b"[" + self._view[bounds[first] : bounds[last] - 1] + b"]"
            yield first, raw, None, range(first, last)
            first = last


class LazyObject(_Lazy):
    """A JSON object (no key repeated) whose member values are parsed when they are read."""

    __slots__ = ("_members",)

    def __init__(
        self, members: dict[str, msgspec.Raw], big: dict[str, LazyArray | LazyObject]
    ) -> None:
        super().__init__(big)
        self._members = members

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, key: object) -> bool:
        return key in self._members

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def keys(self) -> Iterator[str]:
        return iter(self._members)

    def __getitem__(self, key: str) -> Any:
        return self._child(key, self._members[key])  # KeyError when it is not a member

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._members else default

    def items(self) -> Iterator[tuple[str, Any]]:
        for key in self._members:
            yield key, self[key]

    def values(self) -> Iterator[Any]:
        for key in self._members:
            yield self[key]

    def window(self, start: int, end: int) -> LazyObject:
        """The members from position ``start`` up to ``end`` as a lazy object of their own:
        the views are shared and nothing is parsed (a page of a member range costs its page)."""
        keys = list(islice(self._members, start, max(start, end)))
        big = {key: self._big[key] for key in keys if key in self._big}
        window = LazyObject({key: self._members[key] for key in keys}, big)
        if self._changed:
            window._changed = {k: self._changed[k] for k in keys if k in self._changed}
        return window

    def _empty_copy(self) -> LazyObject:
        return LazyObject(self._members, self._big)

    def _spans(self, size: int) -> Iterator[_Span]:
        big = self._big
        total = 0
        run: list[bytes] = []
        keys: list[str] = []
        for key, raw in self._members.items():
            node = big.get(key)
            if node is not None:
                if run:
                    yield None, b"{" + b",".join(run) + b"}", None, keys
                yield key, b"", node, None
                total, run, keys = 0, [], []
                continue
            run.append(orjson.dumps(key) + b":" + raw)
            keys.append(key)
            total += len(raw)
            if total >= size:
                yield None, b"{" + b",".join(run) + b"}", None, keys
                total, run, keys = 0, [], []
        if run:
            yield None, b"{" + b",".join(run) + b"}", None, keys


class ChunkedObject(LazyObject):
    """A dense object (small members, maybe millions): its members are kept as runs of bytes,
    and a run is parsed again (exactly) when it is read, so no key is held that is not read."""

    __slots__ = ("_caveats", "_count", "_current", "_runs", "_seen", "_view", "_where")

    def __init__(
        self, view: memoryview, runs: list[tuple[int, int, int]], count: int,
        caveats: dict[tuple[str, ...], list[tuple[int, str, int]]],
    ) -> None:
        super().__init__({}, {})
        self._view = view
        self._runs = runs  # (start, end, index of its first member)
        self._count = count
        self._caveats = caveats  # patterns -> (index, key, run) of each caveat member
        self._current: tuple[int, dict[str, Any]] | None = None
        self._where: dict[str, int] = {}  # key -> run, for keys read out of order
        self._seen: dict[object, bool] = {}

    def _run(self, number: int) -> dict[str, Any]:
        if self._current is not None and self._current[0] == number:
            return self._current[1]
        start, end, _ = self._runs[number]
        members = _members(self._view, start, end)
        if members is None:  # it parsed when the object was read, and bytes do not change
            raise InputError("a run of object members no longer parses; this is a bug")
        self._current = (number, members)
        return members

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: object) -> bool:
        found = self._seen.get(key)
        if found is None:
            found = any(key in self._run(n) for n in range(len(self._runs)))
            self._seen[key] = found
        return found

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self._runs)):
            yield from list(self._run(number))

    def keys(self) -> Iterator[str]:
        return iter(self)

    def _empty_copy(self) -> ChunkedObject:
        copy = ChunkedObject(self._view, self._runs, self._count, self._caveats)
        copy._seen.update(self._seen)
        return copy

    def _spans(self, size: int) -> Iterator[_Span]:
        """Its runs of members (``size`` was set when it was read: a run is about that many
        bytes); their keys are not known before a run is parsed."""
        for start, end, _ in self._runs:
            yield None, b"{" + self._view[start:end] + b"}", None, None

    def _parse_piece(self, raw: bytes) -> Any:
        members = _parsed_members(raw)
        if members is None:  # it parsed when the object was read, and bytes do not change
            raise InputError("a run of object members no longer parses; this is a bug")
        return members

    def __getitem__(self, key: str) -> Any:
        if self._changed and key in self._changed:
            return self._changed[key]
        # Every value handed out is kept: the shaper remembers sizes by id().
        value = self._parsed.get(key, _MISSING)
        if value is not _MISSING:
            return value
        current = self._current
        if current is not None and key in current[1]:
            value = current[1][key]
        elif key in self._where:
            value = self._run(self._where[key])[key]
        else:
            for number in range(len(self._runs)):
                members = self._run(number)
                if key in members:
                    value = members[key]
                    break
            else:
                raise KeyError(key)
        self._parsed[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def items(self) -> Iterator[tuple[str, Any]]:
        for key in self:
            yield key, self[key]

    def values(self) -> Iterator[Any]:
        for key in self:
            yield self[key]

    def window(self, start: int, end: int) -> LazyObject:
        """The members from position ``start`` up to ``end``: only their keys are listed;
        each value is read from its run when the page reads it."""
        keys: list[str] = []
        for number, (_, _, first) in enumerate(self._runs):
            if first >= end:
                break
            run = self._run(number)
            if first + len(run) <= start:
                continue
            for key in islice(run, max(0, start - first), max(0, end - first)):
                self._where[key] = number
                keys.append(key)
        return _MemberWindow(self, keys)

    def position(self, key: str) -> int | None:
        """The index of member ``key`` in the document's order, or ``None``: each run before
        it is parsed and the key looked up in C, no key handed to Python one by one."""
        for number, (_, _, first) in enumerate(self._runs):
            members = self._run(number)
            if key in members:
                self._where[key] = number
                return first + list(members).index(key)
        return None

    def key_at(self, index: int) -> str:
        """The key of the member at ``index``: the one run that holds it is parsed."""
        number = bisect_right([first for _, _, first in self._runs], index) - 1
        if not 0 <= index < self._count or number < 0:
            raise IndexError(index)
        key: str = next(islice(iter(self._run(number)), index - self._runs[number][2], None))
        self._where[key] = number
        return key

    def member_order(self, patterns: Sequence[str]) -> Iterator[tuple[int, str, bool]]:
        """As :func:`elision.shape.keys.member_order`: caveats first, then the rest, each in
        the original order - run by run, never every key at once."""
        hits = self._caveats.get(tuple(patterns))
        if hits is None:
            caveat = _caveat_scan(patterns)
            hits = []
            for number, (_, _, first) in enumerate(self._runs):
                hits.extend(
                    (first + offset, key, number) for offset, key in caveat(self._run(number))
                )
            self._caveats[tuple(patterns)] = hits
        for _, key, number in hits:
            self._where[key] = number
        caveats = {index for index, _, _ in hits}
        yield from ((index, key, True) for index, key, _ in hits)
        for number, (_, _, first) in enumerate(self._runs):
            for offset, key in enumerate(list(self._run(number))):
                if first + offset not in caveats:
                    yield first + offset, key, False


class _MemberWindow(LazyObject):
    """Some members of a dense object, in its order: its own keys, the object's values."""

    __slots__ = ("_object",)

    def __init__(self, obj: ChunkedObject, keys: list[str]) -> None:
        super().__init__(dict.fromkeys(keys, msgspec.Raw(b"")), {})  # values: the object's
        self._object = obj

    def __getitem__(self, key: str) -> Any:
        if key not in self._members:
            raise KeyError(key)
        return self._object[key]

    def window(self, start: int, end: int) -> LazyObject:
        return _MemberWindow(self._object, list(islice(self._members, start, max(start, end))))


_MISSING: Any = object()
_NO_CHANGES: dict[Any, Any] = {}


def _shifted(
    window: LazyArray, changed: Mapping[int, Any], first: int, last: int
) -> LazyArray:
    """``window`` (elements ``first:last`` of an array) with the array's replaced children
    among them: a page of a redacted array shows what the walk left, never the bytes."""
    if changed:
        window._changed = {i - first: v for i, v in changed.items() if first <= i < last}
    return window


def serialize(value: Any, *, stop: int | None = None) -> bytes:
    """Compact, exact JSON of ``value`` (what ``dumps_value(materialize(value))`` writes),
    a piece of a lazy node at a time: a lazy copy the redaction walk changed is written with
    its replaced children, and never parsed whole. With ``stop``, only its first bytes: the
    writing of a lazy node ends after the piece that reaches ``stop`` bytes (the result is at
    least that long, or all of it)."""
    from elision.shape.jsondump import dumps_value

    if not is_lazy(value):
        return dumps_value(value)
    out = bytearray()
    try:
        _write(value, out, dumps_value, stop if stop is not None else _NO_STOP)
    except _Enough:
        return bytes(out)
    if b"\n" not in out and b"\r" not in out:
        value._written = len(out)
    return bytes(out)


def written_size(value: Any) -> int | None:
    """The length of lazy ``value``'s serialization, when :func:`serialize` has written all of
    it and it is one line (no ``\\n`` or ``\\r``: JSON escapes them in a string); else ``None``.
    With it, a range of the first bytes is known without writing the rest."""
    return value._written if is_lazy(value) else None


class _Enough(Exception):
    """A serialization with a ``stop`` has written that many bytes."""


_NO_STOP = 1 << 62


def _write(node: Any, out: bytearray, dumps: Callable[[Any], bytes], stop: int) -> None:
    """Write lazy ``node`` a piece at a time. A piece nothing replaced whose bytes were found
    to be its own serialization (the body is compact and spelled as orjson spells it) is
    copied, never parsed: the first writing of a node learns which, the next ones only copy
    (a later page of a kept view; its first cost 23-27 ms for a 1 MB ``["sk-", …]``)."""
    is_array = isinstance(node, LazyArray)
    changed = node._changed
    indices: Sequence[int] = (
        [] if not (changed and is_array) else changed.indexes
        if isinstance(changed, IndexChanges) else sorted(k for k in changed if isinstance(k, int)))
    known = node._verbatim.get(PIECE_BYTES)
    learned = bytearray() if known is None else None
    out += b"[" if is_array else b"{"
    for number, (where, raw, big, names) in enumerate(node._spans(PIECE_BYTES)):
        if number:
            out += b","
        if big is not None:  # a large container: where is its index or key
            if learned is not None:
                learned.append(0)
            if not is_array:
                out += orjson.dumps(where) + b":"
            child = changed.get(where, big) if changed else big
            if is_lazy(child):
                _write(child, out, dumps, stop)
            else:
                out += dumps(child)
            if len(out) >= stop:
                raise _Enough
            continue
        if changed and _replaced(names, changed, indices):
            if learned is not None:
                learned.append(0)
            piece = node._parse_piece(raw)
            if isinstance(changed, IndexChanges):
                piece = changed.applied(where, piece)
            elif is_array:
                piece = [_over(changed.get(where + i, item), item)
                         for i, item in enumerate(piece)]
            else:
                piece = {key: changed.get(key, item) for key, item in piece.items()}
            out += dumps(piece)[1:-1]
        elif known is not None and number < len(known) and known[number]:
            out += memoryview(raw)[1:-1]
        else:
            dumped = dumps(node._parse_piece(raw))
            if learned is not None:
                learned.append(dumped == raw)
            out += memoryview(dumped)[1:-1]
        if len(out) >= stop:
            raise _Enough
    out += b"]" if is_array else b"}"
    if learned is not None:
        node._verbatim[PIECE_BYTES] = bytes(learned)


def _over(value: Any, given: Any) -> Any:
    """A piece's child as written: ``value`` the node holds for it, applied to ``given`` (the
    child as the piece's bytes parse) when it is a :class:`Patch`."""
    return value.over(given) if type(value) is Patch else value


def _replaced(
    names: range | list[str] | None, changed: Mapping[Any, Any], indices: Sequence[int]
) -> bool:
    """Whether a child of a piece (its ``names``) is among the ``changed`` ones (``indices``:
    the changed indices of an array, in order)."""
    if isinstance(names, range):
        at = bisect_left(indices, names.start)
        return at < len(indices) and indices[at] < names.stop
    return names is None or not changed.keys().isdisjoint(names)


#: The bytes of one piece a lazy node is walked or written in (:meth:`LazyArray.pieces`): a
#: piece parsed costs up to 100x its bytes, so 8 KB holds under a MB at a time.
PIECE_BYTES = 8 << 10
#: What the shaper treats as an array, or as an object.
ARRAYS = (list, LazyArray)
OBJECTS = (dict, LazyObject)
CONTAINERS = (dict, list, LazyArray, LazyObject)


def is_lazy(value: Any) -> bool:
    return isinstance(value, LazyArray | LazyObject)


def materialize(value: Any) -> Any:
    """``value`` as plain dicts and lists: a lazy node is parsed whole, anything else is itself.

    For a stage that must read every value (a guard policy, a redaction walk): it costs what
    the whole parse costs, so it is only asked for where it is needed. A deep spine's levels
    (:mod:`elision.shape.lazyspine`: one-member dicts and lists around a lazy node) are copied
    with the node under them parsed; any other plain value is itself."""
    if is_lazy(value):
        return _materialize(value)
    return _on_spine(value, _materialize)


def fresh(value: Any) -> Any:
    """:meth:`_Lazy.fresh` of a lazy ``value``, or of a deep spine's lazy bottom (its levels
    copied); any other value is itself. What a page reads of it goes with the page."""
    if is_lazy(value):
        return value.fresh()
    return _on_spine(value, lambda node: node.fresh())


def _on_spine(value: Any, change: Callable[[Any], Any]) -> Any:
    """``value`` with ``change`` of the lazy node under its one-member levels (a deep spine,
    :mod:`elision.shape.lazyspine`), the levels copied; ``value`` itself when no lazy node
    is under them."""
    levels: list[Any] = []
    node = value
    while type(node) in (dict, list) and len(node) == 1:
        key = next(iter(node)) if type(node) is dict else None
        levels.append(key)
        node = node[0] if key is None else node[key]
    if not is_lazy(node):
        return value
    out = change(node)
    while levels:
        key = levels.pop()
        out = [out] if key is None else {key: out}
    return out


def _materialize(value: Any) -> Any:
    if isinstance(value, LazyArray):
        return [_materialize(item) for item in value]
    if isinstance(value, LazyObject):
        return {key: _materialize(item) for key, item in value.items()}
    return value


def walks_lazily(value: Any) -> bool:
    """Whether the redaction walk reads ``value`` a piece at a time (:meth:`LazyArray.pieces`,
    :mod:`elision.redact.lazywalk`): a lazy node, but not a window of a dense object's members
    (its values are the object's), which is read whole (it is one page)."""
    return is_lazy(value) and not isinstance(value, _MemberWindow)


def parse_document(body: bytes, *, duplicates: list[str] | None = None) -> Any:
    """What :func:`parse_json` gives, read lazily when ``body`` is large, or costly to parse
    whole (:func:`reads_lazily`), and the lazy route can prove it equal (see the module
    docstring); the same errors, the same repeated keys."""
    refused = deep = nested = False
    if reads_lazily(body):
        try:
            return lazy_document(body)
        except Declined as declined:
            # Read on outside this block: its traceback holds what the lazy read held.
            refused, deep, nested = declined.refused, declined.deep, declined.nested
    if deep or nested:
        # A spine of one-member levels around a lazy bottom (a record array 9,000 levels deep
        # held 9.7x its bytes in dicts, parsed whole).
        from elision.shape.lazyspine import read_spine

        try:
            return read_spine(body)
        except Declined:
            pass
    if deep:  # past msgspec's depth: the C parsers stop near 1,000 levels, the deep one does not
        return parse_deep(body, duplicates)
    # orjson's refusal holds 12x the body (its error keeps the text decoded, at any size): the
    # exact parser refuses what msgspec refused, or reads what only msgspec refused.
    return parse_json(body, duplicates=duplicates, risky=True if refused else None)


def reads_lazily(body: bytes) -> bool:
    """Whether :func:`parse_document` tries the lazy read of ``body``.

    Size alone let a 3 MB array of documents nested 300 levels be parsed whole, at 37x its
    bytes; so a body under :data:`LAZY_BYTES` is judged by its structure too, by a few
    C-speed counts of its bytes (about 0.6 ms a MB each, stopped once the answer is known)."""
    if len(body) >= LAZY_BYTES:
        return True
    if len(body) < STRUCTURE_BYTES:
        return False
    return parse_cost(body, LAZY_COST, outside_strings(body)) > LAZY_COST


def parse_cost(
    body: bytes, enough: float = float("inf"), spans: list[tuple[int, int]] | None = None
) -> float:
    """The bytes of Python objects a whole parse of ``body`` makes per byte of it, estimated
    from its counts of ``,``, ``{`` and ``[`` (:data:`_COSTS`), in ``spans`` only when given
    (the body outside its strings); counting stops once the estimate passes ``enough``."""
    size = max(len(body), 1)
    cost = 0.0
    for char, each in _COSTS:
        count = (
            body.count(char) if spans is None
            else sum(body.count(char, start, end) for start, end in spans)
        )
        cost += each * count / size
        if cost > enough:
            break
    return cost


def lazy_document(body: bytes) -> Any:
    """The skeleton of ``body``; :class:`Declined` when the whole parse must decide."""
    start = _LEADING_WS.match(body)
    head = body[start.end() if start else 0 :][:1]
    if head not in (b"[", b"{"):
        raise Declined("only an object or array root is read lazily")
    if may_hold_surrogate(body):
        raise Declined("a surrogate escape: the exact parser decides whether it is paired")
    try:
        node, _ = _skeleton(body, head, 0, _Sizes.of(body), root=True)
    except RecursionError:
        raise Declined("nested past msgspec's depth", refused=True, deep=True) from None
    except (msgspec.DecodeError, InputError) as exc:
        raise Declined(type(exc).__name__, refused=True) from None
    except msgspec.ValidationError as exc:
        raise Declined(type(exc).__name__) from None
    return node


class _Sizes(NamedTuple):
    """How a body is cut while it is read: children over ``node`` bytes are lazy nodes, the
    rest are checked in batches of about ``batch`` bytes, a dense object in runs of ``run``.
    ``risky`` is :func:`risky_numbers` of the whole body: when it is false no batch is scanned
    again."""

    node: int
    batch: int
    run: int
    risky: bool

    @classmethod
    def of(cls, body: bytes) -> _Sizes:
        allowance = int(len(body) * ALLOWANCE_SHARE)
        small = max(MIN_BATCH_BYTES, allowance // _MOST_COST)
        run = min(BATCH_BYTES, max(MIN_BATCH_BYTES, allowance // _RUN_COST))
        return cls(min(NODE_BYTES, small), min(BATCH_BYTES, small), run, risky_numbers(body))


def _skeleton(
    raw: Any, head: bytes, depth: int, sizes: _Sizes, *, root: bool = False
) -> tuple[LazyArray | LazyObject, int]:
    """The lazy node for container ``raw`` (a Raw view, or the whole body) and how many colons
    its bytes hold."""
    if depth > MAX_SKELETON_DEPTH:
        raise Declined("large containers nested too deep", nested=True)
    if head == b"[":
        view = _value_view(raw, root)
        if len(view) > 4 * SAMPLE_BYTES:
            packed = _packed(view, sizes)
            if packed is not None:
                return packed
        items = _ARRAY.decode(raw)
        big_items: dict[int, LazyArray | LazyObject] = {}
        strings: dict[Any, str] = {}
        colons = _check(enumerate(items), big_items, strings, depth, sizes)
        array = LazyArray(items, big_items)
        array._parsed.update(strings)
        return array, colons
    view = _value_view(raw, root)
    if len(view) > 4 * SAMPLE_BYTES and _dense(view):
        try:
            # Its runs prove it free of repeats; its colons are only its parent's to check.
            node = _chunked(view, sizes.run)
            return node, 0 if root else _colons(view)
        except _Sparse:
            pass
    members = _OBJECT.decode(raw)
    big_members: dict[str, LazyArray | LazyObject] = {}
    member_strings: dict[Any, str] = {}
    value_colons = _check(iter(members.items()), big_members, member_strings, depth, sizes)
    colons = raw.count(b":") if root else _colons(view)  # the body itself needs no copy
    _same_colons(colons, members, value_colons)
    obj = LazyObject(members, big_members)
    obj._parsed.update(member_strings)
    return obj, colons


def _packed(view: memoryview, sizes: _Sizes) -> tuple[PackedArray, int] | None:
    """The array in ``view`` as a :class:`PackedArray`, with its children's colons; ``None``
    when it is not an array of small elements with exactly one comma between each two.

    It is read in runs of about ``sizes.batch`` bytes, each ended at a comma where the elements
    before it parse as an array (from an element's start, the bytes up to a comma inside a
    string or a nested value never do), so no Raw is held for more than one run. A run's
    elements, in order and each followed by at least its comma, are one comma apart exactly
    when their lengths add up to the run's bytes less one byte per comma."""
    last = len(view) - 1  # the closing bracket
    lead = _LEADING_WS.match(view, 1)
    at = lead.end() if lead else 1
    end = last
    while end > at and view[end - 1] in b" \t\n\r":
        end -= 1
    if at >= end:
        return None  # empty: nothing to pack
    bounds = array("q")
    colons = 0
    # Elements one comma apart each open right after a comma: where the first opens with a
    # bracket or a quote, a run is tried at a comma followed by that char (a row's own commas,
    # a prose string's, are then passed over instead of each costing a failed parse of a run).
    opener = view[at : at + 1].tobytes()
    separator = b"," + opener if opener in (b"{", b"[", b'"') else b","
    while True:
        cut, tried = at + sizes.batch, 0
        while True:
            cut = end if cut >= end else _next_separator(view, cut, end, separator, sizes.batch)
            run = b"[" + view[at:cut] + b"]"
            try:
                items = _ARRAY.decode(run)
            except msgspec.DecodeError:
                if cut >= end:
                    return None  # the whole read decides (and refuses it, if it must)
                tried += 1
                if tried > RUN_TRIES:
                    return None  # its commas are mostly inside elements: few, large ones
                cut += 1
                continue
            break
        lengths = array("q", map(len, items))
        if sum(lengths) + len(lengths) - 1 != cut - at or max(lengths) > sizes.node:
            return None
        del items
        # The run is its small elements joined by commas: a batch, checked as one.
        colons += _check_joined(run, sizes.risky)
        bounds.extend(accumulate(map(add, lengths[:-1], repeat(1)), initial=at))
        if cut >= end:
            bounds.append(end + 1)
            return PackedArray(view, bounds), colons
        at = cut + 1


def _same_colons(colons: int, members: dict[str, msgspec.Raw], value_colons: int) -> None:
    """Outside strings a colon only separates a member; when the members msgspec kept, their
    keys and their values account for fewer colons than the object's bytes hold, a member was
    shadowed (msgspec keeps the last value of a repeated key, silently) - or a key spells a
    colon as an escape. Either way the whole parse tells which."""
    keys = _KEY_SEPARATOR.join(members)
    if colons != len(members) + keys.count(":") + value_colons:
        raise Declined("a repeated key, or an escaped colon in a key")


def _value_view(raw: Any, root: bool) -> memoryview:
    """The bytes of one JSON value: a Raw is exactly that; the body may have white space."""
    view = memoryview(raw)
    if not root:
        return view
    start = _LEADING_WS.match(raw)
    end = len(raw)
    while end and raw[end - 1] in b" \t\n\r":
        end -= 1
    return view[start.end() if start else 0 : end]


def _colons(view: memoryview) -> int:
    # In windows: a nested object is never copied whole to be counted.
    return sum(
        bytes(view[at : at + BATCH_BYTES]).count(b":") for at in range(0, len(view), BATCH_BYTES)
    )


class _Sparse(Exception):
    pass


def _next_separator(view: memoryview, at: int, last: int, separator: bytes, run: int) -> int:
    """The next ``separator`` at or after ``at`` (its comma's offset), if one is within a few
    runs of ``run`` bytes; else the next comma: an array of mixed elements still gets runs of
    about its size."""
    if separator != b",":
        window = min(last, at + 4 * run + len(separator))
        found = bytes(view[at:window]).find(separator)
        if found >= 0:
            return at + found
    return _next_comma(view, at, last)


def _next_comma(view: memoryview, at: int, last: int) -> int:
    window = 64 << 10
    while at < last:
        found = bytes(view[at : min(at + window, last)]).find(b",")
        if found >= 0:
            return at + found
        at += window
    return last


def _runs(
    view: memoryview, size: int, tries: int | None = None
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Runs of whole members of the object in ``view``, about ``size`` bytes each, as
    (start, end, members): ``view[start:end]`` is the members' bytes, without the commas
    around them; the members' keys are exact, their values only proven valid (see
    :func:`_run_members`).

    A comma ends a run when the members before it parse as an object: from the start of a
    member, the bytes up to a comma inside a string or a nested value never do (the string or
    the value is left open), and up to a comma between members always do."""
    last = len(view) - 1  # the closing brace
    at = 1
    while at < last:
        cut, tried = at + size, 0
        while True:
            cut = last if cut >= last else _next_comma(view, cut, last)
            members = _run_members(view, at, cut)
            if members is not None:
                break
            if cut >= last:
                raise Declined("the object's members do not parse")
            tried += 1
            if tried > (RUN_TRIES if tries is None else tries):
                raise _Sparse
            cut += 1
        if not members:  # only white space after the last comma
            raise Declined("a trailing comma")
        yield at, cut, members
        del members  # not held while the next run is parsed: a run's dict is ~7x its bytes
        at = cut + 1
    if at == last:  # the last run ended at a comma just before the closing brace
        raise Declined("a trailing comma")


def _members(view: memoryview, start: int, end: int) -> dict[str, Any] | None:
    """The members in ``view[start:end]`` parsed exactly, or ``None`` when those bytes are not
    whole members (or repeat a key among themselves: a run must not hide one)."""
    return _parsed_members(_piece(view, start, end))


def _parsed_members(piece: bytes) -> dict[str, Any] | None:
    """:func:`_members` of the braced ``piece``."""
    if not risky_numbers(piece) and not _refused(piece):
        # parse_json's own fast path, with a failed try costing no error message
        try:
            value = orjson.loads(piece)
        except orjson.JSONDecodeError:
            pass
        else:
            if repeated_keys(piece, value):
                raise Declined("a repeated key")
            return value  # type: ignore[no-any-return]
    return _members_exactly(piece)


def _refused(piece: bytes) -> bool:
    """Whether orjson's read of a large ``piece``'s first bytes shows it would refuse it
    (:func:`~elision.shape.jsonparse.refused_early`): its refusal of the whole holds 12x the
    piece, and a MB of text lines that each open with a brace and hold no comma was one
    piece, 14x the input at ``shape()``'s peak (issue 23)."""
    return refused_early(piece) is not None


def _run_members(view: memoryview, start: int, end: int) -> dict[str, Any] | None:
    """As :func:`_members`, for the read that proves the object: its keys are exact, its values
    may be orjson's spelling of a number (they are never shown; a run is parsed exactly again
    when read), so no number scan is needed, and one count tells that no key repeated."""
    piece = _piece(view, start, end)
    if _refused(piece):
        return _members_exactly(piece)
    try:
        value = orjson.loads(piece)
    except orjson.JSONDecodeError:
        return _members_exactly(piece)
    # Each member owns one colon outside strings, and a repeat leaves fewer members than it
    # wrote: as many colons as members proves none was dropped (others are the full check's).
    if piece.count(b":") != len(value) and repeated_keys(piece, value):
        raise Declined("a repeated key")
    return value  # type: ignore[no-any-return]


def _piece(view: memoryview, start: int, end: int) -> bytes:
    if end - start > 4 * BATCH_BYTES:
        raise _Sparse  # a large value among small members: a Raw per member is cheap enough
    return b"".join((b"{", view[start:end], b"}"))  # one copy: a piece may be a MB


def _members_exactly(piece: bytes) -> dict[str, Any] | None:
    try:  # orjson refuses some valid JSON (a number past a double's range): check, then parse
        _SKIP.decode(piece)
    except (msgspec.DecodeError, RecursionError):
        return None
    repeated: list[str] = []
    try:
        members = parse_json(piece, duplicates=repeated)
    except InputError:
        return None
    if repeated:
        raise Declined("a repeated key")
    return members  # type: ignore[no-any-return]


def _dense(view: memoryview) -> bool:
    try:
        start, end, members = next(_runs(view, SAMPLE_BYTES, tries=8))
    except (_Sparse, Declined, StopIteration):
        return False
    return (end - start) < DENSE_MEMBER_BYTES * max(len(members), 1)


def _chunked(view: memoryview, size: int) -> ChunkedObject:
    """A dense object read in runs of members, each parsed (which proves it valid and free of
    repeats) and dropped; keys are proven unrepeated across runs by
    :class:`~elision.shape.repeats.RunKeys`. The default caveat keys are found on the way, so
    the shaper's first question costs no second pass."""
    from elision.shape import DEFAULT_CAVEAT_KEYS

    caveat = _caveat_scan(DEFAULT_CAVEAT_KEYS)
    runs: list[tuple[int, int, int]] = []
    hits: list[tuple[int, str, int]] = []
    check = RunKeys(_bitmap_bytes(len(view)), lambda number: _keys(view, *runs[number][:2]))
    count = 0
    enveloped = False
    try:
        for start, end, members in _runs(view, size):
            number = len(runs)
            runs.append((start, end, count))
            enveloped = enveloped or ENVELOPE_KEY in members
            hits.extend((count + offset, key, number) for offset, key in caveat(members))
            count += len(members)
            check.add(members)
            del members  # as in _runs: one run's dict at a time
        check.finish()
    except Repeated:
        raise Declined("a repeated key") from None
    node = ChunkedObject(view, runs, count, {tuple(DEFAULT_CAVEAT_KEYS): hits})
    node._seen[ENVELOPE_KEY] = enveloped  # the shaper asks first thing
    return node


def _bitmap_bytes(length: int) -> int:
    """The repeat filter's bitmap for a dense object of ``length`` bytes: about a bit per byte."""
    return max(BITMAP_BYTES, 1 << (length // 8).bit_length())


def _keys(view: memoryview, start: int, end: int) -> Any:
    """The keys of a run that parsed before: orjson reads them fastest, where it can (it
    refuses a number past a double's range, which the exact parser keeps)."""
    piece = b"{" + view[start:end] + b"}"
    try:
        return orjson.loads(piece)
    except orjson.JSONDecodeError:
        return parse_json(piece)


def _caveat_scan(patterns: Sequence[str]) -> Callable[[dict[str, Any]], list[tuple[int, str]]]:
    """(index, key) of the caveat keys among some members, in order, found by one C-speed
    search over the keys joined (the way :func:`elision.shape.keys.member_order` does)."""
    firsts = {(p[:-1] if p.endswith("*") else p).lower()[:1] for p in patterns}
    # A key whose first char starts no pattern is turned away by one class test, before the
    # alternatives are tried one by one: the scan of a dense object's keys was mostly that.
    lead = ""
    if firsts and "" not in firsts:
        lead = "(?=[" + "".join(map(re.escape, sorted(firsts))) + "])"
    scan = re.compile(
        _KEY_SEPARATOR + lead + caveat_pattern(patterns, wildcard="[^\x00]*").pattern
        + "(?=" + _KEY_SEPARATOR + ")", re.DOTALL,
    )
    pattern = caveat_pattern(patterns)

    def found(members: dict[str, Any]) -> list[tuple[int, str]]:
        keys = list(members)
        joined = _KEY_SEPARATOR + _KEY_SEPARATOR.join(keys) + _KEY_SEPARATOR
        if joined.count(_KEY_SEPARATOR) != len(keys) + 1:  # a key holds the separator
            return [(i, k) for i, k in enumerate(keys) if pattern.fullmatch(k.lower())]
        joined = joined.lower()
        out: list[tuple[int, str]] = []
        index, position = -1, 0
        for match in scan.finditer(joined):
            index += joined.count(_KEY_SEPARATOR, position, match.start() + 1)
            position = match.start() + 1
            out.append((index, keys[index]))
        return out

    return found


def _check(
    children: Iterator[tuple[Any, msgspec.Raw]], big: dict[Any, Any], strings: dict[Any, str],
    depth: int, sizes: _Sizes,
) -> int:
    """Prove every child valid and free of repeated keys; make the large containers lazy, and
    keep the large strings read (the shaper reads them, and a second read was the time of a
    document that is one string).

    Returns the number of colons in the children's bytes."""
    colons = 0
    batch: list[msgspec.Raw] = []
    size = 0
    for name, child in children:
        length = len(child)
        if length > sizes.node:
            head = memoryview(child)[:1].tobytes()
            if head in (b"[", b"{"):
                node, inner = _skeleton(child, head, depth + 1, sizes)
                big[name] = node
                colons += inner
                continue
            if head == b'"' and length > NODE_BYTES:
                strings[name], inner = _check_string(child)
                colons += inner
                continue
        batch.append(child)
        size += length
        if size >= sizes.batch:
            colons += _check_batch(batch, sizes.risky)
            batch, size = [], 0
    if batch:
        colons += _check_batch(batch, sizes.risky)
    return colons


def _check_string(raw: msgspec.Raw) -> tuple[str, int]:
    """Read a large string child where it lies (in a batch it was copied twice, and written
    back once more to count its colons), which proves it valid; return it and the colons in
    its bytes."""
    view = memoryview(raw)
    plain, colons = _scan_string(view)
    try:
        value = _read_string(view, plain)
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        raise Declined("a string the exact parser must judge") from None
    return value, colons


def _read_string(view: memoryview, plain: bool) -> str:
    """The value of the JSON string in ``view`` (its quotes included), as the exact parser
    reads it: a string holds no number to re-spell, and a document with a surrogate escape
    was declined, so orjson reads it exactly. A ``plain`` one (no escape, no control char) is
    its bytes decoded, straight from the body, where orjson would first copy them."""
    if plain:
        return str(view[1:-1], "utf-8")
    return orjson.loads(view)  # type: ignore[no-any-return]


#: What a string with neither escape nor control char holds none of.
_NOT_PLAIN = bytes(range(0x20)) + b'\\"'


def _scan_string(view: memoryview) -> tuple[bool, int]:
    """Whether the string in ``view`` is plain (holds none of :data:`_NOT_PLAIN`), and its
    colons: one pass, a window at a time, so no copy of a large string is made
    (``translate`` is a C loop, where a character class search was ten times slower)."""
    end, plain, colons = len(view) - 1, True, 0
    for at in range(1, end, BATCH_BYTES):
        window = bytes(view[at : min(at + BATCH_BYTES, end)])
        colons += window.count(b":")
        plain = plain and len(window.translate(None, _NOT_PLAIN)) == len(window)
    return plain, colons


def _parse_child(raw: msgspec.Raw | memoryview) -> Any:
    """A child's value, as :func:`parse_json` makes it; a string read by :func:`_read_string`
    (parse_json reads a string root with the standard library, from a copy of its bytes and a
    decoded copy of those). A small string was proved valid in its batch: it holds no control
    char, so a backslash is all that can keep it from being plain."""
    view = memoryview(raw)
    if view[:1].tobytes() == b'"':
        return _read_string(view, _plain(view))
    return parse_json(bytes(view))


def _plain(view: memoryview) -> bool:
    """Whether a string proved valid is plain: it holds no control char, so a backslash
    (memchr, a window at a time) is all that can keep it from being plain."""
    end = len(view) - 1
    return not any(
        b"\\" in bytes(view[at : min(at + BATCH_BYTES, end)]) for at in range(1, end, BATCH_BYTES)
    )


def _check_batch(batch: list[msgspec.Raw], risky: bool) -> int:
    return _check_joined(b"[" + b",".join(batch) + b"]", risky)


def _check_joined(joined: bytes, risky: bool) -> int:
    """Prove the small children in array ``joined`` valid and free of repeated keys; return
    the number of colons in their bytes. ``risky``: whether the body may hold a number orjson
    would re-spell (if so, this batch is scanned for one, by hyperscan at any size)."""
    repeated: list[str] = []
    parse_json(joined, duplicates=repeated, risky=risky and risky_numbers(joined, scan_from=0))
    if repeated:
        raise Declined("a repeated key")
    return joined.count(b":")
