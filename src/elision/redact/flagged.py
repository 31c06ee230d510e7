"""Trigger positions in strings the walk would judge to no effect, left out before the walk.

A trigger is a literal in the serialization (:mod:`elision.redact.triggers`); the walk judges
the string around one, and most often nothing comes of it: a key ``"/\\u001f"`` holds the
escape ``\\u`` (a control char, which hides no letter), ``"NudHJ5dV"`` is a base64 form of a
keyword and no more. A document of such keys had every node entered, framed and judged to
learn that (``json-deep-escaped-keys``, ``json-deep-wide-keys``: 100-300 positions a 3-6 KB
document, issue 23). Each string's answer is kept by its serialized bytes for the process, as
the walk keeps a short string's (:mod:`elision.redact.kept`): a position in a string whose
answer is "unchanged, nothing withheld, and as a key names nothing" is left out, so the walk
never enters what only such strings flagged.

What the walk withholds is what it withheld with every position: a string is judged for
itself alone, and an object is entered for its names only where a key names something
(:func:`~elision.redact.walk.names_inert`), which such a key is never counted to do; a key
that names a credential holds a trigger of its own, and the lanes' and dispositions'
positions are not left out.
"""

from __future__ import annotations

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
_BACKSLASH = 0x5C
#: Each short string's answer, by its serialized bytes (quotes included).
_inert: dict[bytes, bool] = {}


def judged_flags(data: bytes, positions: list[int]) -> list[int]:
    """``positions`` (sorted, in ``data``, orjson's compact serialization) without those in
    a string of :data:`~elision.redact.kept.LONGEST` bytes or fewer that the walk would judge
    to no effect, as a value or as a key."""
    if not SKIP_INERT or not positions:
        return positions
    out: list[int] = []
    answers = _inert
    size = len(data)
    string_end = -1  # the closing quote of the last string left out
    for pos in positions:
        if pos < string_end:
            continue  # in the same string
        if not _in_string(data, pos):
            out.append(pos)
            continue
        start = last_quote(data, pos)
        end = next_quote(data, pos)
        if start < 0 or end < 0 or end - start - 1 > LONGEST or end >= size:
            out.append(pos)
            continue
        raw = data[start:end + 1]
        answer = answers.get(raw)
        if answer is None:
            answer = _judged_inert(raw)
            keep(answers, raw, answer)
        if answer:
            string_end = end
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


def _judged_inert(raw: bytes) -> bool:
    """Whether the string ``raw`` (serialized, quotes included) is one the walk changes
    nothing in, withholds nothing in, and, as a key, counts as naming nothing: its key
    answer (:func:`~elision.redact.walk.key_inert`) asks the rules' spans too, which are what
    the judge of a value withholds (``redact_spans``)."""
    from elision.redact.walk import key_inert  # walk imports this module

    try:
        text = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(text, str) and key_inert(text)


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
