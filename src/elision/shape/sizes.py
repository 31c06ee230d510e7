"""Serialized sizes, measured without serializing: walks that stop at the space left.

The shaper asks "does this value fit in what is left?" far more often than it writes anything,
and a value may be a 100 MB subtree. These walks visit at most about ``limit`` nodes, since every
node adds at least a byte to the compact form.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from elision.errors import InputError
from elision.shape.jsondump import RawNumber


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


def bounded_size(value: Any, limit: int, depth_room: int) -> int | None:
    """Compact serialized size of ``value``, or ``None`` once it passes ``limit`` bytes or
    nests deeper than ``depth_room``. Visits at most about ``limit`` nodes."""
    size = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > depth_room:
                return None
            count = len(item)
            size += 2 + (2 * count - 1 if count else 0)  # braces, colons, commas
            for key, member in item.items():
                size += len(orjson.dumps(key))
                if isinstance(member, dict | list):
                    stack.append((member, depth + 1))
                else:
                    size += scalar_size(member)
                if size > limit:
                    return None
        elif isinstance(item, list):
            if depth > depth_room:
                return None
            count = len(item)
            size += 2 + (count - 1 if count else 0)
            if size > limit:
                return None
            for member in item:
                if isinstance(member, dict | list):
                    stack.append((member, depth + 1))
                else:
                    size += scalar_size(member)
                    if size > limit:
                        return None
        else:
            size += scalar_size(item)
        if size > limit:
            return None
    return size
