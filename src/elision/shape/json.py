"""Document-level JSON shaping: fill the budget with whole values, say what was cut.

The shaper grows an output document from nothing, in turns, until the next step would not fit:

* An **array** adds one element per turn, whole if it fits; an element too large to fit whole is
  added in shaped form only when it is large (over an eighth of the budget) or when the array
  would otherwise show nothing, so arrays lose whole elements and the budget is not spent on
  fragments of small records.
* An **object** adds all its members in one turn, in minimal form (short scalars whole,
  containers and long strings empty), caveat members first and whole when they fit; each member
  then grows in its own turns. Keys are dropped only when not even their minimal forms fit, and
  the entry says how many were shown of how many.
* A **string** adds up to :data:`STRING_STEP` bytes of characters per turn; the last turn fills
  exactly what is left.

Turns go round-robin over everything that can still grow, breadth first, so that a limit bounds
every array, not the first of six. A node's first turn tries to show it whole. Every trimmed node
costs its elided entry in the envelope, so the envelope is paid for as the document grows and
the result, envelope included, is within the limit. Work is proportional to what is shown, not
to the size of the document: sizes are measured with walks that stop at the space left.

The envelope goes first in the root object (a head slice of any size keeps it); caveat members
(warnings, totals, counts, cursors, ranges, ...) go before the bulk of every object that was
cut. Objects shown whole keep their key order exactly.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from elision.envelope import (
    ENVELOPE_KEY,
    VALUE_KEY,
    duplicate_entries,
    elided_entry,
    format_next,
    make_envelope,
    member_range,
    quote_key,
)
from elision.errors import BudgetError, ElisionError, InputError
from elision.shape import ShapeContext, Shaped
from elision.shape.jsondump import default, dumps_value
from elision.shape.jsonparse import MAX_DEPTH as MAX_PARSE_DEPTH
from elision.shape.keys import caveat_matcher, member_order
from elision.shape.lazyjson import (
    ARRAYS,
    CONTAINERS,
    OBJECTS,
    ChunkedObject,
    materialize,
    parse_document,
)
from elision.shape.sizes import Measured, bounded_size, scalar_size, string_size

#: Containers deeper than this in a cut document are shown empty, with an entry. Inside
#: the 255 levels orjson writes and the 1024 it reads, with room for the envelope.
MAX_OUTPUT_DEPTH = 200
#: A string no longer than this (serialized) is shown whole or not at all: an entry that says
#: it was cut would cost more than the characters it saves.
SHORT_STRING = 48
#: Bytes of characters a string may add per turn, so that strings share the budget with arrays.
STRING_STEP = 256
#: An array element larger than limit // PARTIAL_ELEMENT_SHARE may be shown in shaped form.
PARTIAL_ELEMENT_SHARE = 8
#: An array whose element measured at most this many bytes has its later elements measured by
#: serializing them. orjson writes at most 254 levels, so FAST_DEPTH levels of room below
#: MAX_OUTPUT_DEPTH keep such an element within the 1024 levels strict parsers read.
FAST_ELEMENT = 4096
FAST_DEPTH = 50

_WRAP_OVERHEAD = len(b'{"' + ENVELOPE_KEY.encode() + b'":,"' + VALUE_KEY.encode() + b'":}')
_ROOT_OVERHEAD = len(b'{"' + ENVELOPE_KEY.encode() + b'":,}')
_ELIDED_OVERHEAD = len(b',"elided":[]')
_NEXT_RESERVE = 24
# What the shaper measures and grows itself; anything else is a scalar.
_SHAPED = (*CONTAINERS, str)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def json_shaper(body: bytes, ctx: ShapeContext, *, strict: bool) -> Callable[[int], Shaped] | None:
    """A shaper for a JSON ``body``; ``None`` when it is not JSON and ``strict`` is false.

    A repeated key's earlier members are withheld (:func:`~elision.envelope.duplicate_entries`),
    so the body is never shown as it came, however small."""
    shadowed: list[str] = []
    try:
        value = parse_document(body, duplicates=shadowed)
    except InputError:
        if strict:
            raise
        return None
    ctx.format = "json"
    if shadowed:
        ctx.withheld = [*ctx.withheld, *duplicate_entries(shadowed)]
    return value_shaper(value, ctx)


def value_shaper(value: Any, ctx: ShapeContext) -> Callable[[int], Shaped]:
    """A shaper for an already-parsed JSON ``value`` (a whole document, or a page of one)."""
    whole = not ctx.withheld and ctx.page is None and ctx.reencoded is None
    if ctx.reencoded is not None and ctx.reencoded not in ctx.notes:
        ctx.notes.append(ctx.reencoded)  # the bytes shown are not the tool's: say so
    compact: list[bytes] = []
    # Sizes that subtrees are known to exceed, shared by every pass over this value.
    known = Measured()

    def run(limit: int) -> Shaped:
        if whole:
            if len(ctx.body) <= limit and ctx.root_path == "$":
                text = ctx.body.decode("utf-8")
                return Shaped(text, True, None, "json", ctx.sha256, ctx.total_bytes)
            # A bounded walk first: serializing a 100 MB value to learn it does not fit would
            # cost as much as the parse.
            if not compact and bounded_size(value, limit, MAX_PARSE_DEPTH, known) is not None:
                compact.append(dumps_value(materialize(value)))
            if compact and len(compact[0]) <= limit:
                # Only whitespace overflowed: every value is there, so no envelope.
                text = compact[0].decode("utf-8")
                return Shaped(text, True, None, "json", ctx.sha256, ctx.total_bytes)
        return _shape_to(value, ctx, limit, known)

    return run


def _shape_to(value: Any, ctx: ShapeContext, limit: int, known: Measured) -> Shaped:
    ref = ctx.keep()
    target = limit
    for _ in range(8):
        out, envelope, complete = _Growth(value, ctx, target, ref, known).run()
        if len(out) <= limit:
            return Shaped(out.decode("utf-8"), complete, envelope, "json", ctx.sha256,
                          ctx.total_bytes, ref)
        target -= len(out) - limit + 8
        if target <= 0:
            break
    alone = _envelope_alone(value, ctx, limit, ref)
    if alone is not None:
        return alone
    raise BudgetError(
        f"could not fit the envelope in {limit} bytes; raise the budget "
        "(the envelope alone lists every trimmed node and withheld value)"
    )


def _envelope_alone(value: Any, ctx: ShapeContext, limit: int, ref: str | None) -> Shaped | None:
    """The envelope with nothing beside it, when nothing fits beside it (a key longer than
    the budget, a path that spells one): the result is still delivered, with its ref and a
    ``next`` at the root's first element or member, which a larger budget shows (issue 22)."""
    if isinstance(value, OBJECTS):
        kind, total = "object", ctx.root_total if ctx.root_total is not None else len(value)
        first = next(iter(value), None)
        start = None if first is None else member_range(ctx.root_path, first, ctx.root_offset)
    elif isinstance(value, (*ARRAYS, str)):
        kind = "array" if isinstance(value, ARRAYS) else "string"
        total = ctx.root_total if ctx.root_total is not None else len(value)
        start = f"{ctx.root_path}[{ctx.root_offset}:]" if len(value) else None
    else:
        return None
    entry = elided_entry(ctx.root_path, kind, 0, total, ctx.root_offset)
    next_call = format_next(ref, path=start) if ref is not None and start is not None else None
    note = (f"nothing of {ctx.root_path} fits beside this envelope in {limit:,} bytes; "
            "fetch next with a larger budget")
    for notes in ([*ctx.notes, note], ctx.notes):
        out, shown = b"", limit
        for _ in range(3):  # bytes.shown is part of what it counts: settle its digits
            envelope = make_envelope(
                sha256=ctx.sha256, shown_bytes=shown, total_bytes=ctx.total_bytes,
                elided=[entry], withheld=ctx.withheld, ref=ref, next_call=next_call,
                page=ctx.page, stored=ctx.stored, notes=notes,
            )
            out = orjson.dumps({ENVELOPE_KEY: envelope})
            if len(out) == shown:
                break
            shown = len(out)
        if len(out) <= limit:
            return Shaped(out.decode("utf-8"), False, envelope, "json", ctx.sha256,
                          ctx.total_bytes, ref)
    return None


class _Node:
    """A value shown in part; grows in turns."""

    __slots__ = (
        "depth", "entry_size", "fast", "first_turn", "items", "keys", "kind", "members",
        "offset", "order", "path", "shown", "total", "value",
    )

    def __init__(
        self, kind: str, value: Any, path: str, order: tuple[int, ...], depth: int,
        total: int, offset: int = 0,
    ) -> None:
        self.kind = kind
        self.value = value
        self.path = path
        self.order = order
        self.depth = depth
        self.total = total  # of the original node: elements, members or chars
        self.offset = offset  # index in the original of value's first element or char
        self.shown = 0
        self.items: list[Any] = []
        # Objects: members in output order (caveats first), taken lazily from ``members`` so a
        # million-key object costs what is shown, plus one scan for caveat keys.
        self.keys: list[tuple[int, str, bool]] = []
        self.members: Iterator[tuple[int, str, bool]] | None = None
        self.entry_size = 0
        self.first_turn = True
        self.fast = False  # an array whose elements have proved small: measure them in C

    def entry(self) -> dict[str, Any]:
        return elided_entry(self.path, self.kind, self.shown, self.total, self.offset)

    @property
    def remaining(self) -> int:
        """Elements, members or chars of ``value`` not shown yet."""
        length = len(self.value)
        return length - self.shown


class _Growth:
    """One greedy pass at one byte limit."""

    def __init__(
        self, value: Any, ctx: ShapeContext, limit: int, ref: str | None, known: Measured
    ) -> None:
        self.known = known
        self.value = value
        self.ctx = ctx
        self.limit = limit
        self.ref = ref
        self.caveat_keys = ctx.caveat_keys
        self.queue: deque[_Node] = deque()
        self.nodes: list[_Node] = []
        wrap = not isinstance(value, OBJECTS) or ENVELOPE_KEY in value
        self.wrap = wrap
        self.used = (_WRAP_OVERHEAD if wrap else _ROOT_OVERHEAD) + self._envelope_base()

    # -- sizes ---------------------------------------------------------------------------------

    def _envelope_base(self) -> int:
        ctx = self.ctx
        base = make_envelope(
            sha256=ctx.sha256, shown_bytes=self.limit, total_bytes=ctx.total_bytes,
            withheld=ctx.withheld, ref=self.ref, page=ctx.page,
            stored=ctx.stored, notes=ctx.notes,
        )
        base["complete"] = False
        size = len(orjson.dumps(base)) + _ELIDED_OVERHEAD
        if self.ref is not None:
            size += len(orjson.dumps(format_next(self.ref, path=""))) + len(',"next":')
            size += _NEXT_RESERVE
        return size

    @property
    def room(self) -> int:
        return self.limit - self.used

    def _set_entry(self, node: _Node) -> None:
        trimmed = node.remaining > 0
        new = len(orjson.dumps(node.entry())) + 1 if trimmed else 0
        self.used += new - node.entry_size
        node.entry_size = new

    # -- the pass ------------------------------------------------------------------------------

    def run(self) -> tuple[bytes, dict[str, Any], bool]:
        ctx = self.ctx
        root = self._root_node()
        self.queue.append(root)
        while self.queue:
            node = self.queue.popleft()
            if self._turn(node):
                self.queue.append(node)
        entries = [n.entry() for n in sorted(self.nodes, key=_doc_order) if n.entry_size]
        complete = not entries and not ctx.withheld
        shown_root = _build(root)
        next_call = None
        if entries and self.ref is not None:
            next_call = format_next(self.ref, path=self._position(root))
        elif self.ref is not None and ctx.following is not None:
            # This page shows all of its selection: next goes on in the original.
            next_call = format_next(self.ref, path=ctx.following)
        out = b""
        shown = self.limit
        for _ in range(3):  # bytes.shown is part of what it counts: settle its digits
            envelope = make_envelope(
                sha256=ctx.sha256, shown_bytes=shown, total_bytes=ctx.total_bytes,
                elided=entries, withheld=ctx.withheld, ref=self.ref, next_call=next_call,
                page=ctx.page, stored=ctx.stored, notes=ctx.notes,
            )
            envelope["complete"] = complete
            if self.wrap:
                doc: dict[str, Any] = {ENVELOPE_KEY: envelope, VALUE_KEY: shown_root}
            else:
                doc = {ENVELOPE_KEY: envelope}
                doc.update(shown_root)
            # dumps_value, not orjson.dumps: it refuses NaN in a value handed in directly (orjson
            # would write null) and writes any depth.
            out = dumps_value(doc)
            if len(out) == shown:
                break
            shown = len(out)
        return out, envelope, complete

    def _position(self, node: _Node) -> str:
        """Where ``node`` (shown in part) stops being whole, in document order: the selector
        of the next page. Everything before it was shown whole, and each page after it shows
        something new of what it selects, so a reader that follows ``next`` alone reaches
        every value: inside an element shown in part, the first place not shown whole
        (``$.rows[0].text[300:]``), and the elements after it once that is all shown."""
        if node.kind == "string":
            return f"{node.path}[{node.offset + node.shown}:]"
        if node.kind == "array":
            for item in node.items:
                if isinstance(item, _Node) and _is_cut(item):
                    # Where the element stops being whole, not the element: its page would
                    # start it again and show what this one did (issue 23).
                    return self._position(item)
            return f"{node.path}[{node.offset + node.shown}:]"
        shown = dict(node.items)
        # The original order; stops at the first member not whole. The members from it on are
        # the next page, as many as fit: not one member a page.
        for index, key in enumerate(node.value):
            item = shown.get(key, _MISSING)
            if item is _MISSING:
                return member_range(node.path, key, node.offset + index)
            if isinstance(item, _Node) and _is_cut(item):
                return self._position(item)
        raise ElisionError(f"{node.path} was cut but every member is whole; this is a bug")

    def _root_node(self) -> _Node:
        ctx, value = self.ctx, self.value
        if isinstance(value, (*ARRAYS, str)):
            total = ctx.root_total if ctx.root_total is not None else len(value)
            kind = "array" if isinstance(value, ARRAYS) else "string"
            node = _Node(kind, value, ctx.root_path, (), 0, total, ctx.root_offset)
        elif isinstance(value, OBJECTS):
            # A member range of a page: its members count against the original object's.
            total = ctx.root_total if ctx.root_total is not None else len(value)
            node = _Node("object", value, ctx.root_path, (), 0, total, ctx.root_offset)
        else:  # a scalar root: always fits a legal budget, shown whole
            node = _Node("whole:scalar", value, ctx.root_path, (), 0, 1)
            node.first_turn = False
            self.used += scalar_size(value)
            return node
        if self.wrap:
            self.used += 2  # the root's own brackets or quotes; unwrapped, they are the output's
        self.nodes.append(node)
        self._set_entry(node)
        return node

    def _turn(self, node: _Node) -> bool:
        """Grow ``node`` by one step; whether it can grow further."""
        if node.kind.startswith("whole:"):
            return False
        if node.first_turn:
            node.first_turn = False
            if self._try_whole(node, self._share()):
                return False
        if node.depth >= MAX_OUTPUT_DEPTH:
            return False
        if node.kind == "array":
            return self._grow_array(node)
        if node.kind == "object":
            return self._grow_object(node)
        return self._grow_string(node)

    def _share(self) -> int:
        """What one node may take at once: the room left, split among the nodes still growing.

        Without it the first of several siblings to be tried whole could take everything."""
        return self.room // (len(self.queue) + 1)

    def _try_whole(self, node: _Node, share: int) -> bool:
        room = min(self.room, share) + node.entry_size + 2  # its "" [] {} are already counted
        size: int | None
        if node.kind == "string":
            size = string_size(node.value, room)
            if size is None:
                return False
        else:
            size = bounded_size(node.value, room, MAX_OUTPUT_DEPTH - node.depth, self.known)
            if size is None:
                return False
        self._show_all(node, size - 2)
        return True

    def _show_all(self, node: _Node, added: int) -> None:
        node.shown = len(node.value)
        node.kind = "whole:" + node.kind
        self.used += added
        self._set_entry(node)

    def _grow_array(self, node: _Node) -> bool:
        if node.remaining <= 0:
            return False
        index = node.shown
        element = node.value[index]
        sep = 1 if index else 0
        original_index = node.offset + index
        size = scalar_size(element) if not isinstance(element, _SHAPED) else None
        if size is not None:
            if size + sep > self.room:
                return False
            node.items.append(element)
        else:
            share = max(self._share(), self.limit // PARTIAL_ELEMENT_SHARE)
            whole = self._element_size(node, element, min(share, self.room - sep))
            if whole is not None:
                node.items.append(element)
                size = whole
            else:
                child = self._child(node, element, original_index, original_index)
                child.node.first_turn = False  # it was just tried whole
                # Not whole: it is larger than its share, or than the room left. Only a large
                # element is worth showing in part; a small one ends the array here.
                if node.shown and self.room - sep < share and not self._large(element):
                    return False
                if child.minimal + sep + child.entry_cost > self.room:
                    return False
                node.items.append(child.node)
                self._adopt(child)
                size = child.minimal
        node.shown += 1
        self.used += size + sep
        self._set_entry(node)
        return node.remaining > 0

    def _grow_object(self, node: _Node) -> bool:
        """Add every member in minimal form (caveats first, and whole when they fit)."""
        while (nxt := self._member(node)) is not None:
            index, key, caveat = nxt
            member = node.value[key]
            sep = 1 if node.shown else 0
            room = self.room - (len(orjson.dumps(key)) + 1 + sep)
            whole: int | None
            if isinstance(member, CONTAINERS):
                whole = (
                    bounded_size(member, room, MAX_OUTPUT_DEPTH - node.depth - 1, self.known)
                    if caveat or not member else None
                )
            elif isinstance(member, str):
                # Its size only matters up to the larger of the two bounds it is held to.
                whole = string_size(member, max(room, SHORT_STRING))
                if whole is not None and (whole > room or (whole > SHORT_STRING and not caveat)):
                    if whole <= SHORT_STRING:
                        return False  # too short to show in part
                    whole = None
            else:
                whole = scalar_size(member)
                if whole > room:
                    return False
            if whole is not None:
                if whole > room:
                    return False
                node.items.append((key, member))
                self.used += self.room - room + whole
            else:
                child = self._child(node, member, key, index)
                if child.minimal + child.entry_cost > room:
                    return False
                node.items.append((key, child.node))
                self.used += self.room - room + child.minimal
                self._adopt(child, front=caveat)
            node.shown += 1
            self._set_entry(node)
        return False

    def _member(self, node: _Node) -> tuple[int, str, bool] | None:
        """The next member of ``node`` to show, in output order, or ``None``."""
        if node.shown < len(node.keys):
            return node.keys[node.shown]
        if node.members is None:
            obj = node.value
            node.members = (
                obj.member_order(self.caveat_keys) if isinstance(obj, ChunkedObject)
                else member_order(obj, self.caveat_keys)
            )
        member = next(node.members, None)
        if member is not None:
            node.keys.append(member)
        return member

    def _grow_string(self, node: _Node) -> bool:
        text: str = node.value
        start = node.shown
        if start >= len(text):
            return False
        allowance = min(STRING_STEP, self.room)
        end = min(len(text), start + max(allowance, 0))
        if end >= len(text):
            # Showing the rest also drops the entry: count that saving in.
            rest = len(orjson.dumps(text[start:])) - 2
            if rest <= self.room + node.entry_size:
                node.shown = len(text)
                self.used += rest
                self._set_entry(node)
                return False
        lo, hi = start, end
        while lo < hi:  # the most chars whose escaped size fits the allowance
            mid = (lo + hi + 1) // 2
            if len(orjson.dumps(text[start:mid])) - 2 <= allowance:
                lo = mid
            else:
                hi = mid - 1
        if lo == start:
            return False
        added = len(orjson.dumps(text[start:lo])) - 2
        node.shown = lo
        self.used += added
        self._set_entry(node)
        return self.room > 0

    # -- children ------------------------------------------------------------------------------

    def _child(self, parent: _Node, value: Any, part: int | str, order: int) -> _Child:
        path = _child_path(parent.path, part)
        depth = parent.depth + 1
        if isinstance(value, str):
            node = _Node("string", value, path, (*parent.order, order), depth, len(value))
        elif isinstance(value, ARRAYS):
            node = _Node("array", value, path, (*parent.order, order), depth, len(value))
        else:
            node = _Node("object", value, path, (*parent.order, order), depth, len(value))
        return _Child(node)

    def _element_size(self, array: _Node, value: Any, bound: int) -> int | None:
        """The size of array element ``value`` shown whole, if that is at most ``bound``.

        Once an array's elements have proved small, the rest are measured by serializing them
        in C rather than walking them in Python: a large one among them costs its size once,
        and then the array stops growing, so all of it together costs at most one more pass
        over the document.
        """
        if isinstance(value, str):
            return string_size(value, bound)
        if array.fast:
            try:
                size = len(orjson.dumps(value, default=default))
            except TypeError:  # deeper than orjson writes, or an int past 64 bits
                array.fast = False
            else:
                return size if size <= bound else None
        size_or_none = bounded_size(
            value, bound, MAX_OUTPUT_DEPTH - array.depth - 1, self.known
        )
        if size_or_none is not None and size_or_none <= FAST_ELEMENT:
            array.fast = array.depth + FAST_DEPTH <= MAX_OUTPUT_DEPTH
        return size_or_none

    def _large(self, value: Any) -> bool:
        share = self.limit // PARTIAL_ELEMENT_SHARE
        if isinstance(value, str):
            return len(value) > share
        return bounded_size(value, share, MAX_OUTPUT_DEPTH, self.known) is None

    def _adopt(self, child: _Child, *, front: bool = False) -> None:
        node = child.node
        self.nodes.append(node)
        self._set_entry(node)
        if node.remaining > 0:
            if front:
                self.queue.appendleft(node)
            else:
                self.queue.append(node)


class _Child:
    """A node about to be added empty: its minimal size and what its entry will cost."""

    __slots__ = ("entry_cost", "minimal", "node")

    def __init__(self, node: _Node) -> None:
        self.node = node
        self.minimal = 2  # "" or [] or {}
        self.entry_cost = len(orjson.dumps(node.entry())) + 1 if node.total else 0


def _build(item: Any) -> Any:
    return _built(item)[0]


def _built(item: Any) -> tuple[Any, bool]:
    """The shown value of ``item``, and whether anything in it was cut."""
    if not isinstance(item, _Node):
        return materialize(item), False
    kind = item.kind
    if kind.startswith("whole:"):
        return materialize(item.value), False
    if kind == "string":
        return item.value[: item.shown], item.remaining > 0
    children = [_built(child) for child in (
        (child for _, child in item.items) if kind == "object" else item.items
    )]
    cut = item.remaining > 0 or any(child_cut for _, child_cut in children)
    if kind != "object":
        return [value for value, _ in children], cut
    members = [(key, value) for (key, _), (value, _) in zip(item.items, children, strict=True)]
    if not cut:
        # Every member is there whole: caveats were only moved first in case of a cut, so
        # the object goes out in its own key order, exactly.
        position = {key: index for index, key, _ in item.keys}
        members.sort(key=lambda member: position[member[0]])
    return dict(members), cut


def _doc_order(node: _Node) -> tuple[int, ...]:
    return node.order


_MISSING: Any = object()


def _is_cut(node: _Node) -> bool:
    """Whether anything in ``node`` was not shown (it walks only what was shown)."""
    if node.kind.startswith("whole:"):
        return False
    if node.remaining > 0:
        return True
    children = (child for _, child in node.items) if node.kind == "object" else node.items
    return any(isinstance(child, _Node) and _is_cut(child) for child in children)


def _child_path(parent: str, part: int | str) -> str:
    if isinstance(part, int):
        return f"{parent}[{part}]"
    if _IDENTIFIER.match(part):
        return f"{parent}.{part}"
    return f"{parent}[{quote_key(part)}]"


# caveat_matcher is also importable from here, where the lint first found it.
__all__ = ["caveat_matcher", "json_shaper", "value_shaper"]
