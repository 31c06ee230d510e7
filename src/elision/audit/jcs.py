"""RFC 8785 (JCS) bytes, fast for the values audit entries hold and exact for every value.

The pure-Python ``rfc8785`` costs ~50 us for one tool-result entry, a tenth of what the proxy
adds to a small call, and ~1 us a float or a level of nesting. orjson with sorted keys writes
the same bytes for a large, checkable class of values, so those take it:

* strings: both escape exactly ``"``, ``\\`` and U+0000-U+001F, with the short forms
  ``\\b \\f \\n \\r \\t`` and lowercase ``\\u00xx`` for the rest, and write all else as
  UTF-8; a lone surrogate makes orjson raise, and the fallback raises as JCS does;
* integers within +-(2**53 - 1): both write plain decimal (JCS refuses larger ones);
* object keys below U+D800: JCS sorts keys by UTF-16 code units and orjson by code point,
  which agree unless a key holds a character above U+FFFF (two code units starting at
  U+D800) and another one in U+E000-U+FFFF;
* floats that are not integers with 1e-4 <= |x| < 1e16: JCS spells a float the ECMAScript
  way, from the shortest digits that read back as it (Python's ``repr``), and orjson (Ryu)
  writes the same shortest digits in the same plain decimal form there; outside it one of
  them turns to an exponent or keeps a ``.0`` (``1e-05``, ``1e+16``, ``1.0``, ``-0.0``);
* only the exact types ``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``
  and ``None`` (a subclass may serialize differently).

orjson writes at most 254 levels; a deeper value of the same kinds takes the standard library's C
encoder, which writes the same bytes for them (``repr`` for a float, the same escapes, keys
sorted by code point) up to the interpreter's recursion limit, as deep as ``rfc8785`` itself
goes.

Any other float, and keys that sort otherwise in UTF-16, take a copy of the value that orjson
writes as it stands: each such float an ``orjson.Fragment`` of its ECMAScript spelling, each
object's keys put in UTF-16 order (a whole float below 2**53 is the integer it equals: its
shortest digits are all of its digits). Only what that copy cannot hold (an integer past 2**53, a
type other than those above, NaN, an infinity, more than 254 levels) goes to ``rfc8785``,
which writes it or says why not. A differential property test holds every path to the bytes
``rfc8785`` writes.
"""

from __future__ import annotations

from typing import Any

import orjson

_INT_MAX = 2**53 - 1
#: Beyond this many levels the check gives up and ``rfc8785`` decides: its recursion, and the
#: standard library's, fail near Python's limit of 1,000 frames, less what called them.
_MAX_DEPTH = 400
#: Floats orjson and ``repr`` both write in the plain decimal JCS uses (integers excluded).
_FLOAT_MIN = 1e-4
_FLOAT_MAX = 1e16
_FIRST_SURROGATE = "\ud800"
#: The most levels orjson writes (it refuses a 255th).
_ORJSON_DEPTH = 254
_INFINITY = float("inf")
#: Outside these ``repr`` already spells a float as ECMAScript does (its exponent has no
#: leading zero from e-10 down, and ECMAScript's exponent form starts at e+21).
_NEAR = 1e-9
_FAR = 1e21
#: ECMAScript writes a float plain from here (up to _FAR).
_PLAIN_FROM = 1e-6


def canonical(value: Any) -> bytes:
    """The JCS bytes of ``value``; raises what ``rfc8785.dumps`` raises for a value it
    refuses (a float that is not finite, an integer past 2**53, a lone surrogate, …)."""
    levels = _fast_levels(value)
    if levels is not None and levels <= _ORJSON_DEPTH:
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # a lone surrogate: rfc8785 says why
    elif levels is not None:
        import json

        try:
            return json.dumps(
                value, ensure_ascii=False, sort_keys=True, separators=(",", ":")
            ).encode()
        except (UnicodeEncodeError, RecursionError):
            pass  # a lone surrogate, or deeper than the stack allows: rfc8785 says why
    try:
        return orjson.dumps(_ordered(value, 0))
    except (_Unwritable, orjson.JSONEncodeError):
        pass  # rfc8785 writes it, or says why not
    # Imported here: its import is ~1% of a hook's call (issue 24), and an entry of the usual
    # values never needs it.
    import rfc8785

    return bytes(rfc8785.dumps(value))


def _fast_levels(value: Any) -> int | None:
    """How many levels of containers ``value`` has if orjson or the standard library writes
    it as JCS does, else None. Level by level rather than a call per container: a deep entry
    is mostly containers, and the calls were most of its cost."""
    kind = type(value)
    if kind is not dict and kind is not list and kind is not tuple:
        return 0 if _fits_scalar(value) else None
    level: list[Any] = [value]
    levels = 0
    while level:
        if levels >= _MAX_DEPTH:
            return None
        levels += 1
        below: list[Any] = []
        for container in level:
            if type(container) is dict:
                for key in container:
                    if type(key) is not str or not (key.isascii() or max(key) < _FIRST_SURROGATE):
                        return None
                items = container.values()
            else:
                items = container
            for item in items:
                # Scalars are checked here rather than by a call each: an entry is mostly
                # scalars.
                kind = type(item)
                if kind is str or kind is bool or item is None:
                    continue
                if kind is int:
                    if not -_INT_MAX <= item <= _INT_MAX:
                        return None
                elif kind is float:
                    # NaN and the infinities fail the range test.
                    if not _FLOAT_MIN <= abs(item) < _FLOAT_MAX or item.is_integer():
                        return None
                elif kind is dict or kind is list or kind is tuple:
                    below.append(item)
                else:
                    return None
        level = below
    return levels


def _fits_scalar(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-_INT_MAX <= value <= _INT_MAX)
    if kind is float:
        return _plain_float(value)
    return False


def _plain_float(value: float) -> bool:
    """orjson and ``repr`` both write ``value`` as JCS does (NaN and infinities fail)."""
    return _FLOAT_MIN <= abs(value) < _FLOAT_MAX and not value.is_integer()


class _Unwritable(Exception):
    """A value the ordered copy cannot hold: ``rfc8785`` writes it or refuses it."""


def _ordered(value: Any, depth: int) -> Any:
    """``value`` with keys in UTF-16 order and each float in a form orjson writes as JCS does:
    as it is, as the integer it equals (below 2**53 the shortest digits are all of them), or
    as a fragment of its ECMAScript spelling."""
    kind = type(value)
    if kind is not dict and kind is not list and kind is not tuple:
        return _ordered_scalar(value)
    if depth >= _ORJSON_DEPTH:
        raise _Unwritable
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise _Unwritable
        ordered = sorted(value, key=_utf16)
        keys: list[str] | None = ordered
        items: Any = [value[key] for key in ordered]
    else:
        keys, items = None, value
    out: list[Any] = []
    for item in items:
        # Scalars inline, as in the check: an entry of floats is one float after another.
        kind = type(item)
        if kind is str or kind is bool or item is None:
            out.append(item)
        elif kind is float:
            out.append(_float_form(item))
        else:
            out.append(_ordered(item, depth + 1))
    return out if keys is None else dict(zip(keys, out, strict=True))


def _ordered_scalar(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -_INT_MAX <= value <= _INT_MAX:
            return value
        raise _Unwritable
    if kind is float:
        return _float_form(value)
    raise _Unwritable


def _float_form(value: float) -> Any:
    """``value`` as orjson writes it the JCS way: itself when plain, the integer it equals
    below 2**53 (whose shortest digits are all of its digits), else its ECMAScript spelling."""
    size = abs(value)
    if _FLOAT_MIN <= size < _FLOAT_MAX and not value.is_integer():
        return value
    if size <= _INT_MAX and value.is_integer():
        return int(value)
    return orjson.Fragment(_number(value))


def _utf16(key: str) -> bytes:
    # A lone surrogate sorts here and makes orjson raise later, so rfc8785 says why.
    return key.encode("utf-16-be", "surrogatepass")


def _number(value: float) -> str:
    """ECMAScript's Number::toString of a finite ``value`` (ECMA-262 §6.1.6.1.20), from the
    shortest digits that read back as it, which ``repr`` gives (as ``rfc8785`` takes them)."""
    if value != value or value in (_INFINITY, -_INFINITY):
        raise _Unwritable
    if value == 0:
        return "0"  # -0 too
    size = abs(value)
    text = repr(value)
    # Where repr already spells it as ECMAScript does, or nearly.
    if not _NEAR <= size < _FAR:
        return text  # the same exponent form: e+21 and up, e-10 and down
    if "e" not in text:
        return text.removesuffix(".0")  # 1e-4 <= |x| < 1e16: plain for both
    if size < _PLAIN_FROM:
        return text.replace("e-0", "e-")  # e-7 to e-9: repr pads the exponent
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = text.lstrip("-").partition("e")
    # |value| = 0.<digits> * 10**point: repr's mantissa has one digit before its point
    digits = mantissa.replace(".", "")
    point = 1 + int(exponent)
    if point > 0:  # 1e16 <= |x| < 1e21: an integer, written out
        return sign + digits + "0" * (point - len(digits))
    return sign + "0." + "0" * -point + digits  # 1e-6 <= |x| < 1e-4
