"""Serialized sizes, measured without serializing: walks that stop at the space left.

The shaper asks "does this value fit in what is left?" far more often than it writes anything,
and a value may be a 100 MB subtree. These walks visit at most about ``limit`` nodes, since every
node adds at least a byte to the compact form.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import orjson

from elision.errors import InputError
from elision.shape.jsondump import RawNumber
from elision.shape.lazyjson import CONTAINERS, OBJECTS


def scalar_size(value: Any) -> int:
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):
        return len(str(value))
    if isinstance(value, float):
        if not math.isfinite(value):  # orjson would write null without a word
            raise InputError(
                f"{value!r} is not a JSON number; have the tool write null or a string instead"
            )
        return len(orjson.dumps(value))
    if isinstance(value, RawNumber):
        return len(value)
    if isinstance(value, str):
        return len(orjson.dumps(value))
    raise InputError(f"not a JSON value: {type(value).__name__} {value!r:.60}")


def string_size(text: str, limit: int) -> int | None:
    """The serialized size of ``text`` if it is at most ``limit``, else ``None``.

    Every char writes as at least one byte, so a string longer than ``limit`` is known to be
    too big without writing it: a 100 MB string is not copied to learn that it does not fit.
    """
    if len(text) + 2 > limit:
        return None
    size = len(orjson.dumps(text))
    return size if size <= limit else None


class Measured:
    """What walks learned about subtrees, by ``id()``, shared by every walk over one value.

    ``over`` holds a size each container is known to exceed (a walk that gave up records it for
    every container it was inside); ``deep`` a height (levels, itself included) each is known to
    reach (a walk that gave up on the depth room records it the same way); ``exact`` the compact
    size and the height of containers a walk finished. Ids are only valid while the value lives:
    keep one ``Measured`` per value, for as long as that value is held.
    """

    __slots__ = ("deep", "exact", "over")

    def __init__(self) -> None:
        self.over: dict[int, int] = {}
        self.deep: dict[int, int] = {}
        self.exact: dict[int, tuple[int, int]] = {}


def bounded_size(
    value: Any, limit: int, depth_room: int, known: Measured | None = None
) -> int | None:
    """Compact serialized size of ``value``, or ``None`` once it passes ``limit`` bytes or
    nests deeper than ``depth_room``.

    Containers are walked through iterators, never copied onto a stack whole, so the walk
    visits at most about ``limit`` nodes however long an array is. ``known`` remembers what
    walks proved (see :class:`Measured`): a later walk skips any container it proves too big.
    The shaper asks about the same subtrees several times (the document, then its root, then
    the array inside it), so this turns three walks of the limit into one.

    A container asked about again with more room than a walk that gave up on it had is walked
    with twice the room, and every container that walk finishes is remembered exactly. The
    shaper shows a deep chain (``[[[[…]]]]``) one level at a time, asking each level with about
    the same room: without this every level re-walked ``limit`` nodes below it (quadratic in
    the depth); with it the lower bounds at least double each time one is re-walked, and
    a finished level answers at once.
    """
    if isinstance(value, str):
        return string_size(value, limit)
    if not isinstance(value, CONTAINERS):
        size = scalar_size(value)
        return size if size <= limit else None
    if known is None:
        return _walk(value, limit, depth_room, None, record=False)
    done = known.exact.get(id(value))
    if done is not None:
        return done[0] if done[0] <= limit and done[1] <= depth_room else None
    over = known.over.get(id(value), -1)
    if over >= limit or known.deep.get(id(value), 0) > depth_room:
        return None
    if over < 0:
        return _walk(value, limit, depth_room, known, record=False)
    walked = _walk(value, 2 * limit, depth_room, known, record=True)
    return walked if walked is not None and walked <= limit else None


def _walk(
    value: Any, limit: int, depth_room: int, known: Measured | None, *, record: bool
) -> int | None:
    over = known.over if known is not None else None
    exact = known.exact if known is not None and known.exact else None
    deep = known.deep if known is not None and known.deep else None
    size = 0
    # (members, depth, keyed, container, size before it opened)
    stack: list[tuple[Iterator[Any], int, bool, Any, int]] = []
    # With ``record``: per open container, the deepest level reached inside it so far.
    deepest: list[int] = []
    item: Any = value
    depth = 1
    while True:
        if depth > depth_room:
            _too_deep(stack, depth, known)
            return None
        before, count = size, len(item)
        if isinstance(item, OBJECTS):
            size += 2 + count + max(count - 1, 0)  # braces, colons, commas
            stack.append((iter(item.items()), depth, True, item, before))
        else:
            size += 2 + max(count - 1, 0)  # brackets, commas
            stack.append((iter(item), depth, False, item, before))
        if record:
            deepest.append(depth)
        if size > limit:
            _too_big(stack, limit, over)
            return None
        item = None
        while stack and item is None:
            members, level, keyed, container, opened = stack[-1]
            for member in members:
                if keyed:
                    key, member = member
                    size += len(orjson.dumps(key))
                if isinstance(member, CONTAINERS):
                    done = exact.get(id(member)) if exact is not None else None
                    if done is not None:
                        if level + done[1] > depth_room:
                            _too_deep(stack, level + done[1], known)
                            return None
                        size += done[0]
                        if record:
                            deepest[-1] = max(deepest[-1], level + done[1])
                        if size > limit:
                            _too_big(stack, limit, over)
                            return None
                        continue
                    if over is not None and over.get(id(member), -1) >= limit - size:
                        _too_big(stack, limit, over)
                        return None
                    if deep is not None and level + deep.get(id(member), 0) > depth_room:
                        _too_deep(stack, level + deep[id(member)], known)
                        return None
                    item, depth = member, level + 1
                    break
                if isinstance(member, str):
                    written = string_size(member, limit - size)
                    size += limit + 1 if written is None else written
                else:
                    size += scalar_size(member)
                if size > limit:
                    _too_big(stack, limit, over)
                    return None
            else:
                stack.pop()
                if record and known is not None:
                    bottom = deepest.pop()
                    known.exact[id(container)] = (size - opened, bottom - level + 1)
                    if deepest:
                        deepest[-1] = max(deepest[-1], bottom)
        if item is None:
            return size


def _too_big(
    stack: list[tuple[Iterator[Any], int, bool, Any, int]], limit: int,
    over: dict[int, int] | None,
) -> None:
    """Record, for every container the walk was inside, that it is larger than what was left."""
    if over is not None:
        for _, _, _, container, before in stack:
            key = id(container)
            over[key] = max(over.get(key, -1), limit - before)


def _too_deep(
    stack: list[tuple[Iterator[Any], int, bool, Any, int]], bottom: int, known: Measured | None
) -> None:
    """Record, for every container the walk was inside, that it reaches level ``bottom``.

    Without it a subtree too deep for its room was walked down to the room again at every ask:
    shape() of 300-deep arrays at a 64 KB budget re-walked each element about five times.
    """
    if known is not None:
        deep = known.deep
        for _, level, _, container, _ in stack:
            key = id(container)
            deep[key] = max(deep.get(key, 0), bottom - level + 1)
