"""A message held to a size bound: its longest strings cut, each saying how much was shown.

The egress gate (:mod:`elision.mcp.gate.egress`) says which bound a message has and which of
its members are exempt; here the message is measured and, when over, cut: the largest cap on
every string (key or value) that fits, found by a binary search, and past that each container
of its payload summarized in a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from elision.shape.jsondump import dumps_value

#: What a cut string ends with: how much of it was shown.
_CUT = " … [elision: cut, shown {shown:,} of {total:,} chars]"


def _dumps(value: Any) -> bytes:
    """The JSON bytes of ``value``: orjson's, or past its 255 levels the same bytes written by
    :func:`elision.shape.jsondump.dumps_value` (an upstream may nest deeper: elision reads
    JSON to 10,000 levels, and a message it could not measure was withheld whole as a gate
    failure)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        # A lone surrogate, which orjson refuses too, is refused there: withheld, as it was.
        return dumps_value(value)



# -- paths ----------------------------------------------------------------------------------


def _pop(node: Any, path: tuple[str, ...], *, copy: bool) -> tuple[bool, Any]:
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    if not isinstance(node, dict) or path[-1] not in node:
        return False, None
    if copy:
        return True, node[path[-1]]
    return True, node.pop(path[-1])


def _shallow(message: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``message`` with the dicts along ``path`` copied, so popping from it leaves the
    original whole."""
    top = dict(message)
    node = top
    for key in path[:-1]:
        inner = node.get(key)
        if not isinstance(inner, dict):
            break
        node[key] = dict(inner)
        node = node[key]
    return top


def _put(node: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(node)
    if len(path) == 1:
        out[path[0]] = value
        return out
    inner = out.get(path[0])
    out[path[0]] = _put(inner if isinstance(inner, dict) else {}, path[1:], value)
    return out


# -- cuts -----------------------------------------------------------------------------------


def _bounded(
    message: dict[str, Any], bound: int, exempt: Iterable[tuple[str, ...]], *,
    fast: bool = True,
) -> dict[str, Any]:
    """``message`` within ``bound`` bytes of JSON: its longest strings cut, each saying how
    much of it was shown; past that, every container but the ``exempt`` members summarized.
    ``fast``: cut with a :class:`_Capper` (else the plain :func:`_capped`, its reference)."""
    if len(_dumps(message)) <= bound:
        return message
    held = {path: _pop(message, path, copy=True) for path in exempt}
    capper = _Capper(message) if fast else None
    if capper is not None and capper.kept > bound:
        return _summarized(message, bound)  # no cap fits: its keys alone are over the bound
    lo, hi = 0, capper.longest if capper is not None else _longest(message)
    best: dict[str, Any] | None = None
    while lo <= hi:  # the largest cap on every string that fits
        cap = (lo + hi) // 2
        tried = capper.capped(message, cap) if capper is not None else _capped(message, cap)
        for path, (found, value) in held.items():
            if found:
                tried = _put(tried, path, value)
        if len(_dumps(tried)) <= bound:
            best, lo = tried, cap + 1
        else:
            hi = cap - 1
    if best is not None:
        return best
    return _summarized(message, bound)


def _longest(value: Any, reach: _Reach | None = None) -> int:
    """The length of the longest string (key or value) in ``value``; what a cut reaches of
    each container in ``reach`` when given."""
    items: Iterable[Any]
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        keys = max(map(len, value), default=0)
        items = value.values()
    elif isinstance(value, list):
        keys, items = 0, value
    else:
        return 0
    added = reach.added if reach is not None else 0
    lengths = [len(v) if isinstance(v, str) else _longest(v, reach) for v in items]
    values = max(lengths, default=0)
    if reach is not None:
        # No container among its members: their lengths are what a cut reaches.
        reach.add(value, keys, values if reach.added == added else None)
    return max(keys, values)


class _Reach:
    """Of each container of a message (by its id), the largest cap at which a cut changes
    it: its longest string value, its longest key past :data:`KEY_FLOOR` (a key within it is
    never cut), its containers' reach. And ``kept``: the bytes its keys within the floor
    take at any cap (each with its quotes and colon), which no cut makes fewer."""

    def __init__(self) -> None:
        self.of: dict[int, int] = {}
        self.kept = 0
        self.added = 0

    def add(self, node: dict[str, Any] | list[Any], keys: int, values: int | None) -> None:
        """``node``, its longest key, and its values' longest string when none of them is a
        container (``None``: look)."""
        self.added += 1
        of = self.of
        if values is None:
            items = node.values() if isinstance(node, dict) else node
            values = max((len(v) if isinstance(v, str) else of.get(id(v), 0) for v in items),
                         default=0)
        if isinstance(node, dict):
            if keys <= KEY_FLOOR:
                self.kept += sum(map(len, node)) + 3 * len(node)
            else:
                kept = [len(k) for k in node if len(k) <= KEY_FLOOR]
                self.kept += sum(kept) + 3 * len(kept)
                values = max(values, keys)
        of[id(node)] = values


def _capped(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return _cut(value, cap) if len(value) > cap else value
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        keys = max(cap, KEY_FLOOR)
        for k, v in value.items():
            out[_distinct(out, _cut(k, keys) if len(k) > keys else k)] = _capped(v, cap)
        return out
    if isinstance(value, list):
        return [_capped(v, cap) for v in value]
    return value


#: The fewest chars a cut key keeps: the protocol's own names (``jsonrpc``, ``params``,
#: ``_meta``, ``progressToken``) are never cut, so a message stays one its client reads; a
#: message that only cutting them would fit is summarized instead (:func:`_summarized`).
KEY_FLOOR = 64
#: What follows a key that another of its object's, cut alike or written so, took first.
_ALIKE = " [elision: key {n} cut alike]"


def _distinct(out: dict[Any, Any], key: Any) -> Any:
    """``key``, or, where ``out`` holds it already (two keys cut to the same first chars:
    ``…/k10`` and ``…/k11`` at 14 chars), it marked as the n-th such key: the member is
    shown, not silently replaced by the next."""
    if key not in out:
        return key
    n = 2
    while (again := key + _ALIKE.format(n=n)) in out:
        n += 1
    return again


class _Capper:
    """:func:`_capped` of one message at each cap of the bound's search, for less: a container
    whose strings are all within the cap is the message's own (each container's longest
    string is found once, by its id), and a cut's tail is written once a length, not once a
    string. A notification of 47,000 short ``_meta`` keys was cut whole at each cap, a
    ``str.format`` and a few calls a key: 115-175x the time of prose (issue 23)."""

    def __init__(self, message: Any) -> None:
        reach = _Reach()
        self.longest = _longest(message, reach)
        self.kept = reach.kept
        self._reach = reach.of

    def capped(self, value: Any, cap: int) -> Any:
        reach = self._reach
        tails: dict[int, str] = {}

        keys = max(cap, KEY_FLOOR)

        def cut(text: str) -> str:
            tail = tails.get(len(text))
            if tail is None:
                tail = tails[len(text)] = _CUT.format(shown=cap, total=len(text))
            return text[:cap] + tail

        def walk(node: Any) -> Any:
            if reach.get(id(node), cap + 1) <= cap:
                return node  # nothing in it is cut at this cap
            items = node.items() if isinstance(node, dict) else enumerate(node)
            out: dict[Any, Any] = {}
            for key, item in items:
                if isinstance(key, str) and len(key) > keys:
                    # Two keys cut alike stay two members.
                    key = _distinct(out, _cut(key, keys) if keys > cap else cut(key))
                elif key in out:
                    key = _distinct(out, key)
                if isinstance(item, str):
                    if len(item) > cap:
                        item = cut(item)
                elif isinstance(item, dict | list):
                    item = walk(item)
                out[key] = item
            return out if isinstance(node, dict) else list(out.values())

        if isinstance(value, str):
            return cut(value) if len(value) > cap else value
        return walk(value) if isinstance(value, dict | list) else value


def _cut(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    return text[:chars] + _CUT.format(shown=chars, total=len(text))


def _summarized(message: dict[str, Any], bound: int) -> dict[str, Any]:
    """The last resort of :func:`_bounded` (a message of thousands of small members): each
    member of its payload that is a container becomes a sentence saying how big it was."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        if key in ("params", "result") and isinstance(value, dict):
            out[key] = {
                k: (v if not isinstance(v, dict | list) else (
                    f"[elision: withheld, {len(_dumps(v)):,} bytes of JSON, over the "
                    f"{bound:,}-byte bound of this message]"
                )) for k, v in value.items()
            }
            out[key] = _capped(out[key], 256)
        else:
            out[key] = value
    return out
