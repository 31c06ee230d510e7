"""The verifier's own RFC 8785 (JCS) bytes: the standard library's where they are JCS's.

The verifier recomputes every hash with code of its own (:mod:`elision.audit.verify`), so a
bug in the writer's fast path (:mod:`elision.audit.jcs`, orjson) cannot hide by being
repeated. ``rfc8785`` alone is exact but pure Python: ~1 us a float, so a log of numbers
verified at a tenth of the speed it was written. Here the standard library's C encoder
(``json``, not orjson: another writer than the writer's) writes the values whose JCS bytes it
writes too, told by a walk of its own; anything else is ``rfc8785``'s, as before:

* a ``str``: both escape ``"``, ``\\`` and U+0000-U+001F the same way (``\\b \\f \\n \\r
  \\t``, else ``\\u00xx`` in lowercase) and write the rest as UTF-8; a lone surrogate fails
  to encode, and ``rfc8785`` says why;
* an ``int`` within +-(2**53 - 1), ``True``, ``False``, ``None``: the same words and digits;
* a ``float`` that is not whole with 1e-4 <= |x| < 1e16: ``repr``'s shortest digits in plain
  decimal, which is how ECMAScript spells it there (outside, ``repr`` takes an exponent or
  ``.0``); a whole one below 2**53 is written as the ``int`` it equals (a copy of the value is
  made for it), whose digits are ECMAScript's;
* object keys that are ``str`` below U+D800: sorted by code point, as JCS sorts by UTF-16 code
  units (the two differ only past U+D7FF);
* exact types only (a subclass may write otherwise), ``list`` and ``dict``, at most
  :data:`_DEEPEST` levels.

A Hypothesis differential holds it to ``rfc8785`` (``tests/audit/test_audit_recheck.py``).
"""

from __future__ import annotations

import json
from typing import Any

_INT_MAX = 2**53 - 1
#: Levels the standard library's encoder is trusted to: a deeper value goes to ``rfc8785``,
#: whose recursion decides (each encoder nests a Python frame or more a level).
_DEEPEST = 200
_KEY_LIMIT = "\ud800"
#: Below this a whole float's shortest digits are all of its digits, so ECMAScript writes the
#: integer it equals (past it, up to 1e21, its shortest digits and then zeros).
_WHOLE_FAR = float(2**53)


def jcs_bytes(value: Any) -> bytes:
    """The JCS bytes of ``value``, as ``rfc8785.dumps`` writes them or raising what it
    raises."""
    plain = _plain(value)
    if plain is not None:
        try:
            return json.dumps(_wholes_as_ints(value) if plain else value, ensure_ascii=False,
                              sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
        except UnicodeEncodeError:
            pass  # a lone surrogate: rfc8785 says why
    import rfc8785

    return bytes(rfc8785.dumps(value))


def _plain(value: Any) -> bool | None:
    """Whether the standard library writes ``value`` as JCS does (see the module's notes):
    ``False`` as it is, ``True`` once its whole floats are the integers they equal, ``None``
    not at all. A level at a time, the scalars in the loop, since a log's entries are mostly
    scalars."""
    wholes = False
    level = [value]
    for _ in range(_DEEPEST):
        below: list[Any] = []
        for node in level:
            kind = type(node)
            if kind is dict:
                for key in node:
                    if type(key) is not str or (key and not key.isascii()
                                                and max(key) >= _KEY_LIMIT):
                        return None
                items: Any = node.values()
            elif kind is list:
                items = node
            else:
                items = (node,)
            for item in items:
                kind = type(item)
                if kind is str or kind is bool or item is None:
                    continue
                if kind is float:
                    if item.is_integer() and abs(item) < _WHOLE_FAR:
                        wholes = True
                    elif not 1e-4 <= abs(item) < 1e16 or item.is_integer():
                        return None  # NaN and the infinities fail the range
                elif kind is int:
                    if not -_INT_MAX <= item <= _INT_MAX:
                        return None
                elif kind is dict or kind is list:
                    below.append(item)
                else:
                    return None
        if not below:
            return wholes
        level = below
    return None


def _wholes_as_ints(value: Any) -> Any:
    """``value`` (one :func:`_plain` passed) with each whole float the integer it equals: the
    digits ECMAScript writes for it below 2**53 (``-0.0`` is ``0``), where ``repr`` adds
    ``.0`` or an exponent."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is list:
        return [_wholes_as_ints(item) for item in value]
    if kind is dict:
        return {key: _wholes_as_ints(item) for key, item in value.items()}
    return value
