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


def bounded_size(
    value: Any, limit: int, depth_room: int, known: dict[int, int] | None = None
) -> int | None:
    """Compact serialized size of ``value``, or ``None`` once it passes ``limit`` bytes or
    nests deeper than ``depth_room``.

    Containers are walked through iterators, never copied onto a stack whole, so the walk
    visits at most about ``limit`` nodes however long an array is. ``known`` remembers, by
    ``id()``, a size each container is known to exceed: a walk that gives up records it for
    every container it was inside, and a later walk skips any container it proves too big.
    The shaper asks about the same subtrees several times (the document, then its root, then
    the array inside it), so this turns three walks of the limit into one.
    """
    if isinstance(value, str):
        return string_size(value, limit)
    if not isinstance(value, CONTAINERS):
        size = scalar_size(value)
        return size if size <= limit else None
    if known is not None and known.get(id(value), -1) >= limit:
        return None
    size = 0
    # (members, depth, keyed, container, size before it opened)
    stack: list[tuple[Iterator[Any], int, bool, Any, int]] = []
    item: Any = value
    depth = 1
    while True:
        if depth > depth_room:
            return None
        before, count = size, len(item)
        if isinstance(item, OBJECTS):
            size += 2 + count + max(count - 1, 0)  # braces, colons, commas
            stack.append((iter(item.items()), depth, True, item, before))
        else:
            size += 2 + max(count - 1, 0)  # brackets, commas
            stack.append((iter(item), depth, False, item, before))
        if size > limit:
            _too_big(stack, limit, known)
            return None
        item = None
        while stack and item is None:
            members, level, keyed, _, _ = stack[-1]
            for member in members:
                if keyed:
                    key, member = member
                    size += len(orjson.dumps(key))
                if isinstance(member, CONTAINERS):
                    if known is not None and known.get(id(member), -1) >= limit - size:
                        _too_big(stack, limit, known)
                        return None
                    item, depth = member, level + 1
                    break
                if isinstance(member, str):
                    written = string_size(member, limit - size)
                    size += limit + 1 if written is None else written
                else:
                    size += scalar_size(member)
                if size > limit:
                    _too_big(stack, limit, known)
                    return None
            else:
                stack.pop()
        if item is None:
            return size


def _too_big(
    stack: list[tuple[Iterator[Any], int, bool, Any, int]], limit: int,
    known: dict[int, int] | None,
) -> None:
    """Record, for every container the walk was inside, that it is larger than what was left."""
    if known is not None:
        for _, _, _, container, before in stack:
            key = id(container)
            known[key] = max(known.get(key, -1), limit - before)
