"""RFC 8785 (JCS) bytes, fast for the values audit entries hold and exact for every value.

The pure-Python ``rfc8785`` costs ~50 us for one tool-result entry, a tenth of what the proxy
adds to a small call. orjson with sorted keys writes the same bytes for a large, checkable
class of values, so those take it and everything else takes ``rfc8785``:

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

orjson stops at 255 levels; a deeper value of the same kinds takes the standard library's C
encoder, which writes the same bytes for them (``repr`` for a float, the same escapes, keys
sorted by code point) up to the interpreter's recursion limit, as deep as ``rfc8785`` itself
goes. A differential property test holds every path to the bytes ``rfc8785`` writes.
"""

from __future__ import annotations

from typing import Any

import orjson

_INT_MAX = 2**53 - 1
#: Beyond this depth the check gives up and ``rfc8785`` decides (it fails near 1,000 levels,
#: its recursion and this check's meeting Python's limit; orjson stops at 255).
_MAX_DEPTH = 400
#: Floats orjson and ``repr`` both write in the plain decimal JCS uses (integers excluded).
_FLOAT_MIN = 1e-4
_FLOAT_MAX = 1e16
_FIRST_SURROGATE = "\ud800"


def canonical(value: Any) -> bytes:
    """The JCS bytes of ``value``; raises what ``rfc8785.dumps`` raises for a value it
    refuses (a float that is not finite, an integer past 2**53, a lone surrogate, …)."""
    if _fits_fast_path(value, 0):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # past 255 levels, or a lone surrogate
        import json

        try:
            return json.dumps(
                value, ensure_ascii=False, sort_keys=True, separators=(",", ":")
            ).encode()
        except (UnicodeEncodeError, RecursionError):
            pass  # a lone surrogate, or deeper than the stack allows: rfc8785 says why
    # Imported here: its import is ~1% of a hook's call (issue 24), and an entry of the usual
    # values never needs it.
    import rfc8785

    return bytes(rfc8785.dumps(value))


def _fits_fast_path(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-_INT_MAX <= value <= _INT_MAX)
    if kind is float:
        return _FLOAT_MIN <= abs(value) < _FLOAT_MAX and not value.is_integer()
    if depth >= _MAX_DEPTH:
        return False
    if kind is dict:
        for key in value:
            if type(key) is not str or not (key.isascii() or max(key) < _FIRST_SURROGATE):
                return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    for item in items:
        # Scalars are checked here rather than by a call each: an entry is mostly scalars.
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -_INT_MAX <= item <= _INT_MAX:
                return False
        elif kind is float:
            # NaN and the infinities fail the range test.
            if not _FLOAT_MIN <= abs(item) < _FLOAT_MAX or item.is_integer():
                return False
        elif not _fits_fast_path(item, depth + 1):
            return False
    return True
