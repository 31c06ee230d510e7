"""Trigger positions in keys the walk would find name and hold nothing, left out before it.

A trigger is a literal in the serialization (:mod:`elision.redact.triggers`); the walk enters
every object whose bytes hold one and asks its keys, and most often nothing comes of it: a
key ``"/\\u001f"`` holds the escape ``\\u`` (a control char, which hides no letter),
``"NudHJ5dV"`` is a base64 form of a keyword and no more. A document of such keys had every
node entered and framed to learn that (``json-deep-escaped-keys``, ``json-deep-wide-keys``:
100-300 positions a 3-6 KB document, issue 23). A key's answer is the walk's own
(:func:`~elision.redact.walk.key_inert`, kept for the process) and is kept here by its
serialized bytes too: a position in a key that names nothing and holds nothing is left out,
so the walk never enters what only such keys flagged.

What the walk withholds is what it withheld with every position: a key is never judged as a
value, and an object is read for its names only where a key names something or holds a
secret (:func:`~elision.redact.walk.names_inert`), which such a key is never counted to do;
a key that does holds a trigger of its own, and values', lanes' and dispositions' positions
are all kept.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from elision.redact.kept import LONGEST, keep

__all__ = ["judged_flags", "last_quote", "next_quote"]

#: Whether leaving positions out is on (off: every position reaches the walk, as before; the
#: tests' differential).
SKIP_INERT = True
#: The bytes compact JSON holds outside its strings (no spacing): punctuation, numbers, and
#: the letters of true, false and null. A byte not among them is inside a string.
_OUTSIDE = frozenset(b"{}[]:,0123456789+-.eEtrufalsn")
_QUOTE = 0x22
_COLON = 0x3A
#: Positions kept, beyond twice those left out, after which the rest are kept unread.
_GIVE_UP = 16
_BACKSLASH = 0x5C
#: Each short key's answer, by its serialized bytes (quotes included).
_inert: dict[bytes, bool] = {}


def judged_flags(data: bytes, positions: list[int]) -> list[int]:
    """``positions`` (sorted, in ``data``, orjson's compact serialization) without those in
    a key of :data:`~elision.redact.kept.LONGEST` bytes or fewer that the walk counts as
    naming nothing and holding nothing (:func:`~elision.redact.walk.key_inert`, whose answers
    the walk's own look at the object's names then finds kept). Past :data:`_GIVE_UP` more
    positions kept than left out, the rest are kept unread: a value's string is judged by the
    walk (many at once, where they are many), so asking each here cost more than it spared
    (``json-strings-sk-numbered`` through ``shape()``, 7x)."""
    if not SKIP_INERT or not positions:
        return positions
    from elision.redact.walk import key_inert  # walk imports this module

    out: list[int] = []
    size = len(data)
    key_end = -1  # the closing quote of the last key left out
    left_out = 0
    for i, pos in enumerate(positions):
        if len(out) > _GIVE_UP + 2 * left_out:
            out.extend(positions[i:])
            break
        if pos < key_end:
            continue  # in the same key
        if not _in_string(data, pos):
            out.append(pos)
            continue
        start, end = _short_string(data, pos)
        if start < 0 or end + 1 >= size or data[end + 1] != _COLON:
            out.append(pos)  # a value (compact JSON: a key alone is followed by ":")
            continue
        if _judged_inert(data[start:end + 1], key_inert):
            key_end = end
            left_out += 1
        else:
            out.append(pos)
    return out


def _in_string(data: bytes, pos: int) -> bool:
    """Whether ``pos`` is certainly inside a string (not its quotes): its byte, or the one
    before it, is one compact JSON holds only in strings."""
    here = data[pos]
    if here == _QUOTE:
        return False
    if here not in _OUTSIDE:
        return True
    return pos > 0 and data[pos - 1] != _QUOTE and data[pos - 1] not in _OUTSIDE


def _short_string(data: bytes, pos: int) -> tuple[int, int]:
    """The quotes around ``pos`` (in a string of ``data``, compact JSON) when the string
    holds :data:`~elision.redact.kept.LONGEST` bytes or fewer, else ``(-1, -1)``: its quotes
    are looked for that far either side only. Found as :func:`last_quote` and
    :func:`next_quote` find them, a value of a million escaped quotes was read back to its
    start a quote at a time, for each trigger in it (``error-data-controls`` through the
    egress gate: 90x prose, issue 23)."""
    lo = max(0, pos - LONGEST - 1)
    # Inside a string every quote is escaped, and its opening quote follows one of "{[,:":
    # the last quote before pos with no backslash before it opens the string.
    start = data.rfind(b'"', lo, pos)
    while start > 0 and data[start - 1] == _BACKSLASH:
        start = data.rfind(b'"', lo, start)
    if start < 0:
        return -1, -1
    hi = start + LONGEST + 2
    end = data.find(b'"', pos, hi)
    while end > 0 and data[end - 1] == _BACKSLASH and _escaped(data, end):
        end = data.find(b'"', end + 1, hi)
    return (start, end) if end >= 0 else (-1, -1)


def _judged_inert(raw: bytes, key_inert: Callable[[str], bool]) -> bool:
    """Whether the key ``raw`` (serialized, quotes included) is one the walk counts as naming
    nothing and holding nothing, answered by its bytes where it was asked before."""
    answer = _inert.get(raw)
    if answer is None:
        try:
            text = orjson.loads(raw)
        except orjson.JSONDecodeError:
            text = None
        answer = isinstance(text, str) and key_inert(text)
        keep(_inert, raw, answer)
    return answer


def next_quote(data: bytes, pos: int) -> int:
    """The first unescaped quote at or after ``pos``, or -1."""
    at = data.find(b'"', pos)
    while at > 0 and data[at - 1] == _BACKSLASH and _escaped(data, at):
        at = data.find(b'"', at + 1)
    return at


def last_quote(data: bytes, pos: int) -> int:
    """The last unescaped quote before ``pos``, or -1."""
    at = data.rfind(b'"', 0, pos)
    while at > 0 and data[at - 1] == _BACKSLASH and _escaped(data, at):
        at = data.rfind(b'"', 0, at)
    return at


def _escaped(data: bytes, quote: int) -> bool:
    """Whether the quote at ``quote`` follows an odd run of backslashes (is inside a string)."""
    run = quote
    while data[run - 1] == _BACKSLASH:
        run -= 1
    return (quote - run) % 2 == 1
