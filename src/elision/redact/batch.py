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
  flags every string that holds its keyword. Neither is asked when no string is as long as
  the pattern's shortest match (look-arounds span nothing): the judge runs it on one string;
* a base64 run cannot hold a line break, so the runs are the strings' own; a run is flagged
  where the judge would decode it and it decodes to text.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from itertools import accumulate, repeat
from operator import add, itemgetter
from typing import Any

from elision.redact.encodings import base64_text
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.generic import JOIN_BLOCK, join_blocks
from elision.redact.keywords import (
    B64_HEADS,
    B64_RUN,
    B64_WINDOW,
    LONGEST,
    Present,
    holds_base64_form,
    present,
    window_local,
)
from elision.redact.rules import Span, make_span
from elision.redact.scan import PIECE, _merge
from elision.redact.triggers import quiet_runs

#: Fewer strings than this are judged one by one: the pass has a fixed cost.
BATCH = 32
#: Chars that let the signed-URL rules run (a ``%xx`` escape holds a ``%`` too).
_URL_MARKS = ("=", "%", "@")
#: The Slack rule's host (any case: the texts asked about are ASCII, so ``lower`` is exact).
#: An ``re`` search for it in any case read 1 MB in 20 ms, seven times a trigger search.
_SLACK = "hooks.slack.com"
#: A chunk of this many strings that a test flags is flagged whole rather than halved on.
_LEAF = 4
#: What a search of one run costs, as chars of a search of the whole joined text (~0.7 µs
#: a call; ~9 ns a char of prose).
_RUN_SEARCH_CHARS = 80
#: The fewest chars a base64 run (:data:`~elision.redact.keywords.B64_RUN`) holds.
_RUN_LEAST = 20
#: Compact JSON with its quotes made line breaks: with no backslash in it, each of its strings
#: is then one line, as :func:`may_withhold` joins them (what lies between is more lines).
_QUOTES_AS_BREAKS = bytes.maketrans(b'"', b"\n")
#: The same with every other byte an "a": where ``w`` of them meet, a line is ``w`` or longer.
_LINE_MARKS = bytes(0x0A if c == 0x22 else 0x61 for c in range(256))
#: Bytes of compact JSON marked and searched at a time for lines that long (the copy is no
#: bigger): a string is never far from its quotes, so the reach past a block is short.
_MARK_BLOCK = 1 << 16


def may_withhold(
    texts: Sequence[str], blocks: Iterable[tuple[int, int]] | None = None,
) -> set[int]:
    """The indices of ``texts`` in which the precise rules could withhold anything: a
    superset (an index left out is certain to hold nothing). Told a block of them at a time
    (:func:`~elision.redact.generic.join_blocks`, or ``blocks``, the caller's of them):
    what the pass says of a string it says of it among any others, so no joined copy of
    them all is held."""
    blocks = iter(join_blocks(texts, JOIN_BLOCK) if blocks is None else blocks)
    lo, hi = next(blocks, (0, 0))
    if hi == len(texts):
        return may_withhold_block(texts)
    hit: set[int] = set()
    while hi > lo:
        hit.update(map(lo.__add__, may_withhold_block(texts[lo:hi])))
        lo, hi = next(blocks, (0, 0))
    return hit


def may_withhold_block(texts: Sequence[str], joined: str | None = None) -> set[int]:
    """:func:`may_withhold` of one block; ``joined``: the block joined by line breaks, when
    the caller has it."""
    if joined is None:
        joined = "\n".join(texts)
    longest = max(map(len, texts), default=0)
    if not joined.isascii() or longest > PIECE:
        # Rare in the documents this is for: those strings are judged alone.
        plain = [i for i, t in enumerate(texts) if len(t) <= PIECE and t.isascii()]
        hit: set[int] = set(range(len(texts))) - set(plain)
        if len(plain) >= BATCH:
            hit.update(plain[i] for i in may_withhold([texts[i] for i in plain]))
        else:
            hit.update(plain)
        return hit
    hit = set()
    starts: array[int] | None = None

    def touched(a: int, b: int) -> None:
        # Where each string starts in the joined text (each is followed by one line break):
        # counted on the first match only, as most blocks have none (keys of sixty ``A``:
        # 0.9 ms a MB, a tenth of their redaction, issue 23).
        nonlocal starts
        if starts is None:
            starts = _starts(texts)
        _touched(starts, a, b, hit)

    holds = present(joined)
    if _marks(joined, holds):
        _halve(texts, 0, len(texts), _marks, hit)
    for index in holds.families:
        pattern = PATTERN_FAMILIES[index].pattern
        assert pattern is not None
        if _least(pattern) > longest:
            # No string is as long as a match (60-char keys of "A" and a family of 71): the
            # search read each key forty times, 27 ms a MB, 172 ms at 4 MB.
            continue
        if joinable(pattern):
            # Every match's strings at once: a call or two a match was a fifth of the pass
            # over 24,000 distinct tokens (issue 23).
            spans = [match.span() for match in pattern.finditer(joined)]
            if spans:
                if starts is None:
                    starts = _starts(texts)
                _touched_all(starts, spans, hit)
        else:
            _halve(texts, 0, len(texts), _holds_family(index), hit)
    forms = holds.base64  # what a string's own present() says is in what the joined one says
    if not forms and _no_run_opens_or_holds_a_window(joined):
        return hit
    # A window's match reads base64 chars alone (:func:`window_local`), so it lies in one
    # run: none in the rest of the joined text is none in any run there. Where the runs are
    # most of it (keys of sixty ``A``), one search of the rest is told in C; in prose it
    # costs more than a search a run does, each run being a small part of it.
    # Told once the runs so far show they are most of it: no list of the runs is kept (a
    # match object each, 2x the input for keys of sixty ``A``).
    windows, ask = True, window_local()
    for count, run in enumerate(B64_RUN.finditer(joined)):
        if ask and count == BATCH:
            ask = False
            if count * _RUN_SEARCH_CHARS >= run.start():
                windows = B64_WINDOW.search(joined, run.start()) is not None
        value = run.group()
        if (value[:4] in B64_HEADS or (forms and holds_base64_form(value))
                or (windows and B64_WINDOW.search(value) is not None)
                ) and base64_text(value) is not None:
            touched(run.start(), run.end())
    return hit



def judged_together(
    texts: Sequence[str],
) -> Iterator[tuple[int, int, dict[int, list[Span]] | None]]:
    """For each block ``lo:hi`` of ``texts``: the spans the per-string judge
    (:func:`~elision.redact.scan.find_spans`) finds in those of its strings that hold any,
    by index (a string left out holds none), told by one pass over the block joined; or
    ``None``, where the block's strings are to be judged alone. A block at a time, so no
    answer of every string is held at once (a dict of 24,000 was 5x the input). A block of
    ``["ghp_…", "ghp_…", …]`` (each a credential, all flagged by :func:`may_withhold`) was
    a judgement a string, 23 us each, most of it the
    fixed cost of its trigger search, its keyword pass and its rules' set-up (issue 23).

    A block is told together only where the judge of each string would run nothing but
    families' patterns (no URL mark, generic name, escape, backslash, base64 form or run that
    a keyword opens or a window is in; ASCII strings of :data:`PIECE` chars at most), each
    :func:`joinable` (a DSN's span is what a whole URL's yields to: with no URL mark there
    is no such span, so DSN families are told together too). Then each family's
    matches in the joined text are its matches in each string (see the module's notes), and
    its acceptance reads no further than a match's own line (:meth:`Family.accepted`: the
    char before it, the template test one past it, the keyword on its line), so it accepts
    in the joined text what it accepts in the string. The judge of a string alone runs only
    the families whose keywords it holds (:func:`~elision.redact.keywords.present`), and a
    match is accepted only with one of its family's keywords on its line, in the string (the
    same keywords, in the same case), so the families of the block find no more in it. The
    spans are merged as the judge merges them. The trigger search that
    opens the judge is not asked: it is a pre-filter, so what it would let through is what
    the rules find (the prefilter differential tests hold the walk to that)."""
    for lo, hi in join_blocks(texts, JOIN_BLOCK):
        yield from _judged(texts, lo, hi)


def _judged(
    texts: Sequence[str], lo: int, hi: int,
) -> Iterator[tuple[int, int, dict[int, list[Span]] | None]]:
    """A block told whole, or halved until what cannot be told is a few strings: one
    random token in which a keyword's base64 window lies sent the other 1,500 of its block
    to be judged alone (3 blocks in 16 of a MB of ``ghp_`` tokens)."""
    told = _judge_block(texts, lo, hi) if hi - lo >= BATCH else None
    if told is not None or hi - lo < 2 * BATCH:
        yield lo, hi, told
        return
    mid = (lo + hi) // 2
    yield from _judged(texts, lo, mid)
    yield from _judged(texts, mid, hi)


def _judge_block(texts: Sequence[str], lo: int, hi: int) -> dict[int, list[Span]] | None:
    block = texts[lo:hi]
    joined = "\n".join(block)
    if not joined.isascii() or "\\" in joined or max(map(len, block)) > PIECE:
        return None
    # The literals each string holds, as it alone holds them: joined by a char no trigger
    # holds, so none is made by the join (a name that ends one string and the line break
    # after it read as a name that ends its line, `pw` + `\n`, sent its block to be judged
    # a string at a time). The patterns below run over the line breaks' join.
    holds = present("\0".join(block))
    if _marks(joined, holds) or holds.base64 or not _no_run_opens_or_holds_a_window(joined):
        return None
    families = [PATTERN_FAMILIES[i] for i in holds.families]
    if any(f.pattern is None or not joinable(f.pattern) for f in families):
        return None
    starts = _starts(block)
    found: dict[int, list[Span]] = {}
    for family in families:
        assert family.pattern is not None
        glued: list[tuple[int, int, str]] = []
        accepted = family.accepted(joined, family.pattern.finditer(joined), glued)
        for a, b, rule in [(a, b, family.id) for a, b in accepted] + glued:
            i = bisect_right(starts, a) - 1
            found.setdefault(lo + i, []).append(make_span((a - starts[i], b - starts[i], rule)))
    # One span (a string that is one token) needs no merge: a call a string, issue 23.
    return {i: spans if len(spans) < 2 else _merge(spans) for i, spans in found.items()}


def _starts(texts: Sequence[str]) -> array[int]:
    """Where each of ``texts`` starts in them joined by line breaks, and one past the end."""
    return array("q", accumulate(map(add, map(len, texts), repeat(1)), initial=0))


def _no_run_opens_or_holds_a_window(joined: str) -> bool:
    """Whether no base64 run of the ASCII ``joined`` opens with a keyword's head or holds a
    window, told by two hyperscan passes (:func:`~elision.redact.triggers.quiet_runs`; a
    window lies in one run). The runs' loop below was a Python step a run, and the windows'
    regex read 60-char keys of ``A`` a char at a time: 6 of their 14 ms a MB (issue 23).
    False where it cannot tell: the loop then asks each run."""
    return _RUNS_TOLD and window_local() and quiet_runs(joined) is True


#: Whether :func:`_no_run_opens_or_holds_a_window` is asked (the tests turn it off to compare
#: with each run asked alone).
_RUNS_TOLD = True


def none_may_withhold(data: bytes, start: int, end: int) -> bool:
    """Whether no string of ``data[start:end]`` (compact JSON: a run of scalar items) holds
    anything the per-string judge could withhold, told in C from the bytes: no set of the
    strings, no joined copy, no Python step a string. ``False`` when only
    :func:`may_withhold` of the strings can tell (an escape, a char past ASCII, a URL mark, a
    generic name, a string long enough for a family present or a base64 run).

    ``["sk-0", "sk-1", …]`` holds a family's keyword in every string, but no string as long
    as the shortest match of that family's pattern (``sk-0`` is no key): the lengths, read
    from where the quotes are, tell (issue 23: 21x prose, its peak 10x the input)."""
    if data.find(b"\\", start, end) >= 0:
        return False  # an escaped quote or line break: the bytes are not the strings' chars
    families = _families(data, start, end)
    if families is None:
        return False
    least = (_least(PATTERN_FAMILIES[i].pattern) for i in families)
    reached = _longest_reached(data, start, end,
                               sorted({_RUN_LEAST, *(w for w in least if w < _RUN_LEAST)}))
    if reached >= _RUN_LEAST:
        return False  # a base64 run may be there: judged by may_withhold
    patterns = [PATTERN_FAMILIES[i].pattern for i in families]
    near = [p for p in patterns if p is not None and _least(p) <= reached]
    if not all(joinable(p) for p in near):
        return False
    # Each string is shorter than a run here, so a block read that far into the next holds
    # every string that starts in it, whole.
    view = memoryview(data)
    for at in range(start, end, _MARK_BLOCK) if near else ():
        block = view[at:min(at + _MARK_BLOCK + _RUN_LEAST, end)].tobytes()
        lines = block.translate(_QUOTES_AS_BREAKS).decode("ascii")
        if any(p.search(lines) is not None for p in near):
            return False
    return True


def _families(data: bytes, start: int, end: int) -> set[int] | None:
    """The families whose keyword ``data[start:end]`` holds, read a block at a time (each
    reaching into the next as far as a keyword or the Slack host can: no copy of the whole);
    ``None`` when it is not ASCII or :func:`_marks` lets other rules run. What ``present``
    says of a block it says of each string in it."""
    families: set[int] = set()
    view = memoryview(data)
    reach = max(LONGEST, len(_SLACK)) - 1
    for at in range(start, end, _MARK_BLOCK):
        try:
            block = str(view[at:min(at + _MARK_BLOCK + reach, end)], "ascii")
        except UnicodeDecodeError:
            return None
        holds = present(block)
        if _marks(block, holds):
            return None
        families.update(holds.families)
    return families


def _longest_reached(data: bytes, start: int, end: int, widths: list[int]) -> int:
    """The largest of ``widths`` (sorted) that some line of ``data[start:end]`` with its
    quotes made line breaks is as long as, or 0."""
    reached = 0
    reach = widths[-1] - 1
    view = memoryview(data)
    for at in range(start, end, _MARK_BLOCK):
        block = view[at:min(at + _MARK_BLOCK + reach, end)].tobytes().translate(_LINE_MARKS)
        for width in widths:
            if width <= reached:
                continue
            if b"a" * width not in block:
                break  # no longer line here either
            reached = width
        if reached == widths[-1]:
            break
    return reached


@cache
def _least(pattern: re.Pattern[str] | None) -> int:
    """The fewest chars a match of ``pattern`` spans (look-arounds span none)."""
    from re import _parser  # type: ignore[attr-defined]

    assert pattern is not None
    least: int = _parser.parse(pattern.pattern, pattern.flags).getwidth()[0]
    return least


def _holds_family(index: int) -> Callable[[str], bool]:
    return lambda text: index in present(text).families


def _marks(text: str, holds: Present | None = None) -> bool:
    """Whether ``text`` (ASCII) lets the signed-URL rules, the generic names or the escapes
    run (``holds``: what ``present`` says of it, when known)."""
    got = present(text) if holds is None else holds
    return (got.generic or got.escapes or any(m in text for m in _URL_MARKS)
            or ("." in text and _SLACK in text.lower()))


def _touched_all(starts: Sequence[int], spans: list[tuple[int, int]], hit: set[int]) -> None:
    """:func:`_touched` of each of ``spans``, its bisects in C."""
    firsts = list(map(bisect_right, repeat(starts), map(itemgetter(0), spans)))
    lasts = list(map(bisect_right, repeat(starts), map(itemgetter(1), spans)))
    hit.update(map((-1).__add__, firsts))
    if firsts != lasts:  # a match that reaches past its string's line break
        for first, last in zip(firsts, lasts, strict=True):
            hit.update(range(first, last))


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
