"""Which of many short strings the precise rules could withhold in, told in one pass over all.

A JSON document can hold many distinct short strings or keys that each hold a trigger
(``["sk-0", "sk-1", …]``, keys of sixty ``A``): judged one by one, each cost 20-40 µs of
Python, 300x prose (issue 23). Here they are joined with a line break and the precise
stage's tests run once over the joined text, each as a *superset*: a string none of them
flags holds nothing the per-string judge (:func:`elision.redact.scan.find_spans`) would
withhold, and the callers judge only the flagged ones, alone, as before. So what is withheld
is the per-string judge's, string by string; the pass only spares the judging of the rest.

Why each test is a superset, for an ASCII string ``s`` of at most :data:`PIECE` chars (the
judge then runs :func:`~elision.redact.scan._precise` on ``s`` itself, unfolded):

* the signed-URL rules run only where ``s`` holds ``=``, ``%``, ``@`` or ``hooks.slack.com``;
  the generic names, escapes and families only where :func:`~elision.redact.keywords.present`
  says so, and ``present`` of a text holds what it says of each of its substrings;
* a family's pattern runs over the joined text and flags the strings its matches touch
  (before any accept test, which only takes matches away). That finds every match the
  string alone has when no part of the pattern can match a line break and its anchors read
  a line break as the end of a text (:func:`joinable`): then no match crosses a string's
  ends and each assertion sees what it sees in the string alone. A pattern that fails that
  flags every string that holds its keyword;
* a base64 run cannot hold a line break, so the runs are the strings' own; a run is flagged
  where the judge would decode it and it decodes to text.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import cache
from itertools import accumulate
from typing import Any

from elision.redact.encodings import base64_text
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.keywords import (
    B64_HEADS,
    B64_RUN,
    B64_WINDOW,
    Present,
    holds_base64_form,
    present,
)
from elision.redact.scan import PIECE

#: Fewer strings than this are judged one by one: the pass has a fixed cost.
BATCH = 32
#: Chars that let the signed-URL rules run (a ``%xx`` escape holds a ``%`` too).
_URL_MARKS = ("=", "%", "@")
_SLACK = re.compile(r"hooks\.slack\.com", re.IGNORECASE)  # as ``in text.lower()`` reads ASCII
#: A chunk of this many strings that a test flags is flagged whole rather than halved on.
_LEAF = 4


def may_withhold(texts: Sequence[str]) -> set[int]:
    """The indices of ``texts`` in which the precise rules could withhold anything: a
    superset (an index left out is certain to hold nothing)."""
    joined = "\n".join(texts)
    if not joined.isascii() or max(map(len, texts), default=0) > PIECE:
        # Rare in the documents this is for: those strings are judged alone.
        plain = [i for i, t in enumerate(texts) if len(t) <= PIECE and t.isascii()]
        hit: set[int] = set(range(len(texts))) - set(plain)
        if len(plain) >= BATCH:
            hit.update(plain[i] for i in may_withhold([texts[i] for i in plain]))
        else:
            hit.update(plain)
        return hit
    # Where each string starts in the joined text (each is followed by one line break).
    starts = array("q", accumulate((len(s) + 1 for s in texts), initial=0))
    hit = set()
    holds = present(joined)
    if _marks(joined, holds):
        _halve(texts, 0, len(texts), _marks, hit)
    for index in holds.families:
        pattern = PATTERN_FAMILIES[index].pattern
        assert pattern is not None
        if joinable(pattern):
            for match in pattern.finditer(joined):
                _touched(starts, match.start(), match.end(), hit)
        else:
            _halve(texts, 0, len(texts), _holds_family(index), hit)
    forms = holds.base64  # what a string's own present() says is in what the joined one says
    for run in B64_RUN.finditer(joined):
        value = run.group()
        if (value[:4] in B64_HEADS or (forms and holds_base64_form(value))
                or B64_WINDOW.search(value) is not None) and base64_text(value) is not None:
            _touched(starts, run.start(), run.end(), hit)
    return hit


def _holds_family(index: int) -> Callable[[str], bool]:
    return lambda text: index in present(text).families


def _marks(text: str, holds: Present | None = None) -> bool:
    """Whether ``text`` (ASCII) lets the signed-URL rules, the generic names or the escapes
    run (``holds``: what ``present`` says of it, when known)."""
    got = present(text) if holds is None else holds
    return (got.generic or got.escapes or any(m in text for m in _URL_MARKS)
            or _SLACK.search(text) is not None)


def _touched(starts: Sequence[int], a: int, b: int, hit: set[int]) -> None:
    """Flag each string that ``joined[a:b]`` touches (an empty match at an end too)."""
    first = bisect_right(starts, a) - 1
    last = bisect_right(starts, b) - 1
    hit.update(range(first, last + 1))


def _halve(
    strings: Sequence[str], lo: int, hi: int, test: Callable[[str], bool], hit: set[int],
) -> None:
    """Flag the strings of ``lo:hi`` that ``test`` flags alone, by halving chunks it flags
    (``test`` of a chunk joined is true whenever it is for one of its strings)."""
    pending = [(lo, hi)]
    while pending:
        a, b = pending.pop()
        if not test("\n".join(strings[a:b])):
            continue
        if b - a <= _LEAF:
            hit.update(range(a, b))
            continue
        mid = (a + b) // 2
        pending.append((mid, b))
        pending.append((a, mid))


@cache
def joinable(pattern: re.Pattern[str]) -> bool:
    """Whether no part of ``pattern`` can match a line break and each of its anchors reads
    one as it reads a text's end: then in strings joined by line breaks it matches, at each
    offset of a string, as in that string alone."""
    from re import _parser  # type: ignore[attr-defined]

    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
    except re.error:  # pragma: no cover - the pattern compiled
        return False
    return _safe(list(tree), pattern.flags)


def _safe(items: list[Any], flags: int) -> bool:
    from re import _constants as c  # type: ignore[attr-defined]

    for op, arg in items:
        if op is c.LITERAL:
            if arg == 10:
                return False
        elif op is c.NOT_LITERAL:
            if arg != 10:
                return False
        elif op is c.ANY:
            if flags & re.DOTALL:
                return False
        elif op is c.IN:
            if _set_matches_newline(arg):
                return False
        elif op is c.AT:
            if arg in (c.AT_BOUNDARY, c.AT_NON_BOUNDARY, c.AT_LOC_BOUNDARY,
                       c.AT_LOC_NON_BOUNDARY, c.AT_UNI_BOUNDARY, c.AT_UNI_NON_BOUNDARY):
                continue  # a line break is no word char, nor is a text's end
            if arg in (c.AT_BEGINNING, c.AT_END) and flags & re.MULTILINE:
                continue  # ^ and $ read a line break as a text's ends
            return False
        elif op is c.BRANCH:
            if not all(_safe(list(branch), flags) for branch in arg[1]):
                return False
        elif op is c.SUBPATTERN:
            _group, add, remove, sub = arg
            if not _safe(list(sub), (flags | add) & ~remove):
                return False
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            if not _safe(list(arg[2]), flags):
                return False
        elif op is c.ATOMIC_GROUP:
            if not _safe(list(arg), flags):
                return False
        elif op in (c.ASSERT, c.ASSERT_NOT):
            if not _safe(list(arg[1]), flags):
                return False
        elif op is c.GROUPREF_EXISTS:
            _group, yes, no = arg
            if not _safe(list(yes), flags) or (no is not None and not _safe(list(no), flags)):
                return False
        elif op is not c.GROUPREF:  # a backreference matches what its group did
            return False  # anything not known here
    return True


def _set_matches_newline(items: list[tuple[Any, Any]]) -> bool:
    from re import _constants as c  # type: ignore[attr-defined]

    negate = False
    inside = False
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            inside = inside or arg == 10
        elif op is c.RANGE:
            inside = inside or arg[0] <= 10 <= arg[1]
        elif op is c.CATEGORY:
            inside = inside or arg in (c.CATEGORY_SPACE, c.CATEGORY_NOT_DIGIT,
                                       c.CATEGORY_NOT_WORD, c.CATEGORY_LINEBREAK,
                                       c.CATEGORY_LOC_NOT_WORD, c.CATEGORY_UNI_SPACE,
                                       c.CATEGORY_UNI_NOT_DIGIT, c.CATEGORY_UNI_NOT_WORD,
                                       c.CATEGORY_UNI_LINEBREAK)
        else:
            return True  # anything not known here
    return inside != negate
