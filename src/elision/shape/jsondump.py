"""The value model's number type and the exact compact writer.

:class:`RawNumber` is a JSON number kept in its original spelling (the parser makes one wherever
orjson would re-spell a number). :func:`dumps_value` writes compact JSON: ``orjson.dumps`` when
it can, else an iterative writer that produces the same bytes at any depth and for integers past
64 bits. NaN and infinities (which orjson would write as ``null`` without a word), non-str keys
and lone surrogates are refused. Tuples are arrays.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import orjson

from elision.envelope import format_path
from elision.errors import InputError

__all__ = ["RawNumber", "default", "dumps_value"]

_NUMBER_BYTES = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


class RawNumber:
    """A JSON number kept in its original spelling, e.g. ``RawNumber(b"1E5")``.

    Two are equal when their bytes are; ``len()`` is the serialized size in bytes.
    """

    __slots__ = ("raw",)
    raw: bytes

    def __init__(self, raw: bytes) -> None:
        if not isinstance(raw, bytes) or _NUMBER_BYTES.fullmatch(raw) is None:
            raise InputError(
                f"RawNumber needs the bytes of one JSON number such as b'1E5', got {raw!r:.60}"
            )
        self.raw = raw

    @property
    def fragment(self) -> orjson.Fragment:
        """The raw bytes as an ``orjson.Fragment``, for ``orjson.dumps(..., default=...)``."""
        return orjson.Fragment(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RawNumber):
            return self.raw == other.raw
        return NotImplemented

    def __hash__(self) -> int:
        return hash((RawNumber, self.raw))

    def __repr__(self) -> str:
        return f"RawNumber({self.raw!r})"


def default(obj: Any) -> Any:
    """The ``default=`` hook for ``orjson.dumps``: writes a RawNumber as its bytes."""
    if isinstance(obj, RawNumber):
        return orjson.Fragment(obj.raw)
    lazyjson = sys.modules.get("elision.shape.lazyjson")
    if lazyjson is not None and lazyjson.is_lazy(obj):  # the bottom of a deep spine
        return orjson.Fragment(lazyjson.serialize(obj))
    raise TypeError(f"Type is not JSON serializable: {type(obj).__name__}")


# --------------------------------------------------------------------------- serialize


def dumps_value(value: Any) -> bytes:
    """Compact, exact serialization of a parsed (or user-given) value; any depth."""
    try:
        out = orjson.dumps(value, default=default)
    except TypeError:  # orjson.JSONEncodeError: too deep, an int past 64 bits, a bad key or str
        return _dumps_slow(value)
    if b"null" in out:  # orjson writes NaN and the infinities as null without a word
        _reject_non_finite(value)
    return out


# A crumb is (parent crumb, key or index): a path built only when an error needs it.
_Crumb = tuple[Any, "str | int"] | None


def _crumb_path(crumb: _Crumb) -> str:
    parts: list[str | int] = []
    while crumb is not None:
        crumb, part = crumb
        parts.append(part)
    parts.reverse()
    return format_path(parts)


def _reject_non_finite(value: Any, crumb: _Crumb = None) -> None:
    if not isinstance(value, dict | list | tuple):
        if isinstance(value, float):
            _check_float(value, crumb)
        return
    stack: list[tuple[Any, _Crumb]] = [(value, crumb)]
    while stack:
        node, crumb = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            if isinstance(child, float):
                _check_float(child, (crumb, key))
            elif isinstance(child, dict | list | tuple):
                stack.append((child, (crumb, key)))


def _check_float(value: float, crumb: _Crumb) -> None:
    if not math.isfinite(value):
        raise InputError(
            f"{value!r} at {_crumb_path(crumb)} is not a JSON number (RFC 8259 has no NaN or "
            "Infinity); replace it with None or a string before shaping"
        )


def _dumps_slow(value: Any) -> bytes:
    """Write what orjson would, iteratively: pending work is bytes or a (node, crumb) pair."""
    out: list[bytes] = []
    work: list[Any] = [(value, None)]
    while work:
        item = work.pop()
        if type(item) is bytes:
            out.append(item)
            continue
        node, crumb = item
        if isinstance(node, dict):
            pieces: list[Any] = [b"{"]
            for index, (key, child) in enumerate(node.items()):
                if not isinstance(key, str):
                    # A number is named; any other key is not quoted: a tuple may hold a
                    # credential, and an error never shows one.
                    named = f"{key!r} " if key is None or type(key) in (int, float, bool) else ""
                    raise InputError(
                        f"object key {named}at {_crumb_path(crumb)} is of type "
                        f"{type(key).__name__}; JSON keys are strings: convert it with str()"
                    )
                comma = b"," if index else b""
                pieces.append(comma + _dumps_str(key, crumb) + b":")
                _place(pieces, _dumps_child(child, (crumb, key)))
            pieces.append(b"}")
            work.extend(reversed(pieces))
        elif isinstance(node, list | tuple):
            pieces = [b"["]
            for index, child in enumerate(node):
                if index:
                    pieces.append(b",")
                _place(pieces, _dumps_child(child, (crumb, index)))
            pieces.append(b"]")
            work.extend(reversed(pieces))
        else:
            out.append(_dumps_leaf(node, crumb))
    return b"".join(out)


def _place(pieces: list[Any], written: Any) -> None:
    """Add what :func:`_dumps_child` gave: bytes, a pair to walk, or a chain's pieces."""
    if type(written) is list:
        pieces.extend(written)
    else:
        pieces.append(written)


def _dumps_child(child: Any, crumb: _Crumb) -> Any:
    if isinstance(child, dict | list | tuple):
        # Most subtrees are fine for orjson; only the one holding the problem is walked here.
        try:
            out = orjson.dumps(child, default=default)
        except TypeError:
            return _chain(child, crumb)
        if b"null" in out:
            _reject_non_finite(child, crumb)
        return out
    return _dumps_leaf(child, crumb)


#: How many links of a chain are stepped down between two tries of orjson (a failed try reads
#: its 255 levels; a step is a few lookups).
_CHAIN_STRIDE = 32


def _chain(node: Any, crumb: _Crumb) -> Any:
    """What :func:`_dumps_slow` writes for ``node``, a container orjson refused, when it opens
    a chain of one-member containers (``[[[...]]]``, ``{"a":{"a":...}}``): the links' brackets
    and keys written in one step, and the rest by orjson from the first link it takes, tried
    every :data:`_CHAIN_STRIDE` links. Tried a level at a time, each refusal read 255 levels
    again: an error's data of 300-deep lists was 200x the time of prose through the egress
    gate (issue 23). Else ``(node, crumb)``, walked a level at a time as before."""
    heads: list[bytes] = []
    tails: list[bytes] = []
    steps = 0
    while len(node) == 1:
        if isinstance(node, dict):
            key, child = next(iter(node.items()))
            if not isinstance(key, str) or not isinstance(child, dict | list | tuple):
                break
            heads.append(b"{" + _dumps_str(key, crumb) + b":")
            tails.append(b"}")
        elif isinstance(node, list | tuple):
            key, child = 0, node[0]
            if not isinstance(child, dict | list | tuple):
                break
            heads.append(b"[")
            tails.append(b"]")
        else:
            break
        node, crumb = child, (crumb, key)
        steps += 1
        if steps % _CHAIN_STRIDE == 0:
            try:
                out = orjson.dumps(node, default=default)
            except TypeError:
                continue
            if b"null" in out:
                _reject_non_finite(node, crumb)
            tails.reverse()
            return b"".join(heads) + out + b"".join(tails)
    if not heads:
        return (node, crumb)
    tails.reverse()
    return [b"".join(heads), (node, crumb), b"".join(tails)]


def _dumps_str(text: str, crumb: _Crumb) -> bytes:
    try:
        return orjson.dumps(text)
    except TypeError:
        at = next(i for i, char in enumerate(text) if "\ud800" <= char <= "\udfff")
        raise InputError(
            f"text at {_crumb_path(crumb)} has a lone surrogate {text[at]!r} at char {at}, "
            "which no UTF-8 body can carry; decode the tool's bytes with errors='replace'"
        ) from None


def _dumps_leaf(leaf: Any, crumb: _Crumb) -> bytes:
    if isinstance(leaf, str):
        return _dumps_str(leaf, crumb)
    if isinstance(leaf, RawNumber):
        return leaf.raw
    if not isinstance(leaf, str | int | float | bool) and leaf is not None:
        lazyjson = sys.modules.get("elision.shape.lazyjson")
        if lazyjson is not None and lazyjson.is_lazy(leaf):  # the bottom of a deep spine
            return bytes(lazyjson.serialize(leaf))
    if isinstance(leaf, int) and not isinstance(leaf, bool) and not -(2**63) <= leaf < 2**64:
        try:
            return str(int(leaf)).encode("ascii")
        except ValueError:  # past sys.get_int_max_str_digits()
            raise InputError(
                f"integer at {_crumb_path(crumb)} has more digits than Python will print; "
                "pass it as RawNumber(b'...') with its digits"
            ) from None
    if isinstance(leaf, float):
        _check_float(leaf, crumb)
    try:
        return orjson.dumps(leaf, default=default)
    except TypeError:
        raise InputError(
            f"value at {_crumb_path(crumb)} is of type {type(leaf).__name__}, which is not "
            "a JSON type; convert it to a dict, list, str, number, bool or None first"
        ) from None
