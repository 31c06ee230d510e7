"""A document nested past msgspec's depth, read as a *spine* of one-member containers around a
lazily read bottom: the shape of a record array wrapped 9,000 levels deep (issue 23).

:func:`~elision.shape.lazyjson.lazy_document` declines such a body (msgspec stops near 1,000
levels), and the iterative parser (:func:`~elision.shape.jsonparse.parse_deep`) reads it whole:
a 19-byte record costs a 200-byte dict, so a MB of them is about 10x its bytes. Here each level
of the spine is read by its own bytes alone - the opener, a key and its colon, and the closer at
the other end - so the spine costs a dict or a list a level and no byte under it is read twice;
the value under the last level is read by the lazy reader (a record array: offsets into the
body, :class:`~elision.shape.lazyjson.PackedArray`).

Nothing is assumed: a level is taken to hold one member spanning to just before its closer,
and the bottom is read by msgspec over exactly those bytes. If they are one valid value, every
level around it is a valid one-member container, so the document is what the whole parse would
make of it; if not (the level held more members), the level above is read as the bottom instead,
once, and past that the caller parses the body whole, as before. Either way the answer is the
same; only the memory differs.
"""

from __future__ import annotations

import re
import sys
from collections import deque
from typing import Any

import msgspec

from elision.errors import InputError
from elision.shape.jsonparse import MAX_DEPTH, may_hold_surrogate, parse_json
from elision.shape.lazyjson import _SKIP, Declined, _Sizes, _skeleton

__all__ = ["read_spine"]

_WS = b" \t\n\r"
_LEADING_WS = re.compile(rb"[ \t\n\r]*")
#: A level's key and colon: a JSON string (exactly checked by the exact parser), white space.
_KEY = re.compile(rb'"(?:[^"\\]|\\.)*"[ \t\n\r]*:[ \t\n\r]*', re.DOTALL)
_CLOSERS = {ord("{"): ord("}"), ord("["): ord("]")}
#: Levels stepped back up when the bytes under one are not one value: each step's refusal
#: reads the bytes up to the end of their first value (msgspec stops there).
STEPS_BACK = 4
#: Fewer levels than this and the whole parse is cheap: not worth a spine.
MIN_LEVELS = 64


def read_spine(body: bytes) -> Any:
    """``body`` as :func:`~elision.shape.jsonparse.parse_json` reads it: the spine's levels as
    dicts and lists, the value under them a lazy node (or parsed, when small);
    :class:`~elision.shape.lazyjson.Declined` when the body is not such a spine (the caller
    parses it whole)."""
    if may_hold_surrogate(body):
        raise Declined("a surrogate escape: the exact parser decides whether it is paired")
    start = _LEADING_WS.match(body)
    at = start.end() if start else 0
    end = len(body)
    while end > at and body[end - 1] in _WS:
        end -= 1
    # Each level's key (None in an array), and where the last few levels' children start and
    # end (a tuple a level held 1x the body's bytes beside the spine being built).
    levels: list[str | None] = []
    spans: deque[tuple[int, int]] = deque(maxlen=STEPS_BACK + 1)
    keys: dict[bytes, str] = {}
    # Past this many levels the bottom is declined anyway (see below): a body nested to its
    # size (1 MB of "[") kept a level a byte pair, 4x its bytes, before it was declined.
    most = MAX_DEPTH - sys.getrecursionlimit() + STEPS_BACK
    while len(levels) <= most:
        opener = body[at] if at < end else -1
        if opener not in _CLOSERS or body[end - 1] != _CLOSERS[opener]:
            break  # the bottom: no container, or not one spanning these bytes
        child = _LEADING_WS.match(body, at + 1).end()  # type: ignore[union-attr]
        key = None
        if opener == ord("{"):
            found = _KEY.match(body, child)
            if found is None:
                break
            raw_key = found[0][: found[0].rindex(b'"') + 1]
            key = keys.get(raw_key)
            if key is None:
                key = keys[raw_key] = _key(raw_key)
            child = found.end()
        last = end - 1
        while last > child and body[last - 1] in _WS:
            last -= 1
        if last <= child:
            break  # an empty container is the bottom
        levels.append(key)
        spans.append((at, end))
        at, end = child, last
    if len(levels) < MIN_LEVELS:
        raise Declined("not a deep spine")
    sizes = _Sizes.of(body)
    for _ in range(STEPS_BACK):
        try:
            bottom = _bottom(body, at, end, sizes)
            break
        except _NotOne:
            # The last level held more than one member (a record's first member, read as a
            # level, is the usual one): that level's container is the bottom.
            levels.pop()
            at, end = spans.pop()
    else:
        raise Declined("not one value under the spine")
    if len(levels) + sys.getrecursionlimit() > MAX_DEPTH:
        # msgspec read the bottom, so it nests less deep than the recursion limit.
        raise Declined("the bottom may nest past MAX_DEPTH: the exact parser tells")
    value = bottom
    while levels:
        key = levels.pop()
        value = [value] if key is None else {key: value}
    return value


class _NotOne(Exception):
    """The bytes under a level are not one valid value."""


def _bottom(body: bytes, at: int, end: int, sizes: _Sizes) -> Any:
    """The value in ``body[at:end]``, read lazily when large; :class:`_NotOne` when those bytes
    are not one value (msgspec stops at the first byte past the value: a cheap refusal)."""
    view = memoryview(body)[at:end]
    head = view[:1].tobytes()
    try:
        if len(view) > sizes.node and head in (b"[", b"{"):
            node, _ = _skeleton(view, head, 0, sizes)
            return node
        _SKIP.decode(view)  # one value, or _NotOne: the exact parser's errors are long
        return parse_json(bytes(view))
    except msgspec.DecodeError as exc:
        if "trailing characters" in str(exc):
            raise _NotOne from None
        raise Declined("invalid under the spine", refused=True) from None
    except msgspec.ValidationError:
        raise Declined("a value the lazy read does not take") from None
    except RecursionError:
        raise Declined("nested past msgspec's depth under the spine", deep=True) from None
    except InputError:
        raise Declined("refused under the spine", refused=True) from None


def _key(raw: bytes) -> str:
    try:
        key = parse_json(raw)
    except InputError:
        raise Declined("a key the exact parser refuses", refused=True) from None
    if not isinstance(key, str):
        raise Declined("not a key")
    return key
