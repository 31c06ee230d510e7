"""Which family patterns judge a line alike wherever it is read: alone, or beside another.

The pre-filter reads each piece one line further, so a match that wraps a line is not cut in
two. Where a pattern can match no line break and asserts nothing of the start or end of the
text, a match never wraps one, and what it matches in a line does not depend on what is
around that line: a line break and the end of the text both stop it, and a lookaround that
cannot read a line break sees nothing past either (:func:`line_local`). The pre-filter then
judges each line of such a text once (:mod:`elision.redact.scan`).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from elision.redact.families import PATTERN_FAMILIES

_NEWLINE = 0x0A
#: The char classes that hold a line break (``\\s``, ``\\D``, ``\\W`` and their forms).
_HOLD_NEWLINE = frozenset({
    sre.CATEGORY_SPACE, sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_WORD, sre.CATEGORY_LINEBREAK,
    sre.CATEGORY_UNI_SPACE, sre.CATEGORY_UNI_NOT_DIGIT, sre.CATEGORY_UNI_NOT_WORD,
    sre.CATEGORY_UNI_LINEBREAK, sre.CATEGORY_LOC_NOT_WORD,
})
#: ``\\b`` and ``\\B`` read a char on each side; a line break and the text's end are both
#: a non-word char to them. Every other anchor (``^``, ``$``, ``\\A``, ``\\Z``) tells them apart.
_SAME_AT_ENDS = frozenset({sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY})
_REPEATS = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT})

_local: dict[int, bool] = {}


def family_line_local(index: int) -> bool:
    """:func:`line_local` of family ``index``'s pattern, worked out on first use (compiling
    every pattern at once cost each command's start)."""
    got = _local.get(index)
    if got is None:
        pattern = PATTERN_FAMILIES[index].pattern
        got = _local[index] = pattern is not None and line_local(pattern)
        # A pattern that cannot be read is not judged line by line.
    return got


def line_local(pattern: re.Pattern[str]) -> bool:
    """Whether no match of ``pattern`` can hold a line break or tell one from the text's end:
    then its matches in a line are the same read alone as read with the lines around it."""
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except re.error:  # pragma: no cover - a compiled pattern parses
        return False
    return _local_seq(parsed, pattern.flags)


def _local_seq(seq: Any, flags: int) -> bool:
    for op, arg in seq:
        if op is sre.LITERAL:
            ok = arg != _NEWLINE
        elif op is sre.NOT_LITERAL:
            ok = arg == _NEWLINE
        elif op is sre.ANY:
            ok = not flags & re.DOTALL
        elif op is sre.IN:
            ok = not _set_holds_newline(arg)
        elif op is sre.SUBPATTERN:
            ok = _local_seq(arg[3], flags)
        elif op in _REPEATS:
            ok = _local_seq(arg[2], flags)
        elif op is sre.ATOMIC_GROUP:
            ok = _local_seq(arg, flags)
        elif op is sre.BRANCH:
            ok = all(_local_seq(branch, flags) for branch in arg[1])
        elif op is sre.ASSERT or op is sre.ASSERT_NOT:
            # Its body cannot read a line break, so past a line's end it reads what it
            # would past the text's: nothing.
            ok = _local_seq(arg[1], flags)
        elif op is sre.AT:
            ok = arg in _SAME_AT_ENDS
        else:  # a back reference, a conditional: not worked out, so not line-local
            ok = False
        if not ok:
            return False
    return True


def _set_holds_newline(items: Any) -> bool:
    negate = held = False
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            held = held or arg == _NEWLINE
        elif op is sre.RANGE:
            held = held or arg[0] <= _NEWLINE <= arg[1]
        elif op is sre.CATEGORY:
            held = held or arg in _HOLD_NEWLINE
        else:
            return True  # not worked out: as if it held one
    return held != negate
