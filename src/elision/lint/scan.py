"""Where things are in a JSON response: byte offsets, in serialization order.

The lint's rules are about what a consumer reading a response front to back would see, so a
parsed value (which forgets where each member was) is not enough. :func:`scan` walks the raw
bytes of a document a parser has already accepted and records the *coverage layer*: every member
and array that is not inside a bulk array. Inside a bulk array only the element count and the
extent are kept, so that a 2,000-row response costs a skim, not a tree of 20,000 nodes.

A **bulk array** is an array that is neither inside another bulk array nor the value of a
caveat key (``warnings: [...]`` is coverage, not bulk). A tool's own ``__elision__`` envelope is
recorded as one caveat member and not descended into.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from elision.envelope import ENVELOPE_KEY, format_path
from elision.errors import DepthError, InputError
from elision.shape import DEFAULT_CAVEAT_KEYS
from elision.shape.json import caveat_matcher

#: Nesting the scanner follows; deeper documents are refused (the shaper has its own limit).
MAX_SCAN_DEPTH = 200

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(rb"-?[0-9][0-9.eE+-]*|true|false|null")
_SPACE = re.compile(rb"[ \t\r\n]*")


@dataclass
class Node:
    """One value of the coverage layer: where it starts and ends, in bytes."""

    path: str
    kind: str  # object, array, string, number, boolean, null
    start: int
    end: int
    #: The offset of the member's key, for object members; the node's start otherwise.
    key_start: int
    key: str | None
    #: For arrays, the number of elements; for scalars, the value.
    value: Any = None
    bulk: bool = False
    caveat: bool = False
    #: The path of the object this node is a member of (``None`` for the root and elements).
    parent: str | None = None


@dataclass
class Scan:
    """The coverage layer of one JSON document, in serialization order."""

    size: int
    nodes: list[Node] = field(default_factory=list)

    @property
    def bulk_arrays(self) -> list[Node]:
        return [n for n in self.nodes if n.bulk]

    @property
    def caveat_members(self) -> list[Node]:
        """Members under a caveat key, outermost only (not members nested in a caveat)."""
        return [n for n in self.nodes if n.caveat]

    def members_of(self, parent: str) -> list[Node]:
        return [n for n in self.nodes if n.parent == parent]


def scan(body: bytes, caveat: Callable[[str], bool] | None = None) -> Scan:
    """The coverage layer of ``body``, which must already be valid JSON."""
    matcher = caveat or caveat_matcher(DEFAULT_CAVEAT_KEYS)
    out = Scan(size=len(body))
    _Scanner(body, matcher, out).run()
    return out


class _Scanner:
    def __init__(self, body: bytes, caveat: Callable[[str], bool], out: Scan) -> None:
        self.body = body
        self.caveat = caveat
        self.out = out

    def run(self) -> None:
        pos = self._space(0)
        self._value(pos, [], record=True, inner=True, in_caveat=False, depth=0, key=None,
                    key_start=pos, parent=None)

    def _space(self, pos: int) -> int:
        match = _SPACE.match(self.body, pos)
        assert match is not None
        return match.end()

    def _string(self, pos: int) -> tuple[str, int]:
        match = _STRING.match(self.body, pos)
        if match is None:
            raise InputError(f"expected a JSON string at byte {pos}; scan valid JSON only")
        text: str = json.loads(match.group())
        return text, match.end()

    def _value(
        self, pos: int, parts: list[str | int], *, record: bool, inner: bool, in_caveat: bool,
        depth: int, key: str | None, key_start: int, parent: str | None,
    ) -> int:
        """Scan the value at ``pos`` (recording it when ``record``, what it holds when
        ``inner``); return the offset just past it."""
        if depth > MAX_SCAN_DEPTH:
            raise DepthError(
                f"response nests deeper than {MAX_SCAN_DEPTH} levels; the lint reads "
                "responses a consumer could walk, so flatten the response"
            )
        head = self.body[pos:pos + 1]
        node: Node | None = None
        if record:
            node = Node(format_path(parts), "", pos, pos, key_start, key, parent=parent)
            self.out.nodes.append(node)
        value: Any = None
        if head == b"{":
            end = self._object(pos, parts, record=inner, in_caveat=in_caveat, depth=depth)
            kind = "object"
        elif head == b"[":
            # An array in the coverage layer outside any caveat is bulk: skim its elements.
            bulk = record and not in_caveat
            end, value = self._array(pos, parts, record=inner and not bulk,
                                     in_caveat=in_caveat, depth=depth)
            kind = "array"
            if node is not None:
                node.bulk = bulk
        elif head == b'"':
            value, end = self._string(pos)
            kind = "string"
        else:
            match = _SCALAR.match(self.body, pos)
            if match is None:
                raise InputError(f"unexpected byte {head!r} at {pos}; scan valid JSON only")
            end = match.end()
            value = json.loads(match.group())
            kind = "null" if value is None else "boolean" if isinstance(value, bool) else "number"
        if node is not None:
            node.kind, node.end, node.value = kind, end, value
        return end

    def _object(
        self, pos: int, parts: list[str | int], *, record: bool, in_caveat: bool, depth: int,
    ) -> int:
        path = format_path(parts)
        pos = self._space(pos + 1)
        if self.body[pos:pos + 1] == b"}":
            return pos + 1
        while True:
            key_start = pos
            key, pos = self._string(pos)
            pos = self._space(self._space(pos) + 1)  # past the colon
            is_envelope = key == ENVELOPE_KEY and not parts
            caveat_here = not in_caveat and (is_envelope or self.caveat(key))
            index = len(self.out.nodes)
            pos = self._value(
                pos, [*parts, key], record=record, inner=record and not is_envelope,
                in_caveat=in_caveat or caveat_here, depth=depth + 1, key=key,
                key_start=key_start, parent=path,
            )
            if record and caveat_here:
                self.out.nodes[index].caveat = True
            pos = self._space(pos)
            if self.body[pos:pos + 1] == b",":
                pos = self._space(pos + 1)
                continue
            return pos + 1

    def _array(
        self, pos: int, parts: list[str | int], *, record: bool, in_caveat: bool, depth: int,
    ) -> tuple[int, int]:
        pos = self._space(pos + 1)
        if self.body[pos:pos + 1] == b"]":
            return pos + 1, 0
        count = 0
        while True:
            pos = self._value(
                pos, [*parts, count], record=record, inner=record, in_caveat=in_caveat,
                depth=depth + 1, key=None, key_start=pos, parent=None,
            )
            count += 1
            pos = self._space(pos)
            if self.body[pos:pos + 1] == b",":
                pos = self._space(pos + 1)
                continue
            return pos + 1, count
