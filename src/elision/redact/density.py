"""The density bound with the regex passes: each pass's matches counted in a window grid.

Hyperscan counts its literals' matches in each window as it reports them
(:mod:`elision.redact.triggers`). The regex passes (where hyperscan is missing) kept one
position a line and no count, so a text without hyperscan had no bound: 1 MB of
``api_key=abc`` lines cost 50x prose and held 36x the input (issue 23). Here the same passes
count their matches, a char at most once over all of them (the anchored passes and the
parameter pass both match at the ``=`` of ``api_key=``; counted by each, a ``.env`` listing
came out dense). Hyperscan counts ``api_key=`` and ``key=`` as two, these passes one, so the
counts are close to its own: on the realistic corpora (``tests/redact/benign.py``, 256 KB of
each kind) their largest window is hyperscan's (66 in error output, 51 in a ``.env`` listing,
37-41 in logs), one or two windows in a corpus a match or two over it. Only the keyword
passes count: the base64 runs and the userinfo pattern, which hyperscan reports once a scan or
not at all, keep one position a line.

The text is searched a window of :data:`~elision.redact.triggers.DENSE_WINDOW` chars at a
time, every pass over it, each match counted up to just past
:data:`~elision.redact.triggers.DENSE_LIMIT`; past it the window is dense and the search goes
on from the end of its line, so no window costs more than that many matches, and a pass that
finds nothing reads no dense window after the first. Its stretch is read as hyperscan's is:
on through each next window that holds more than
:data:`~elision.redact.triggers.DENSE_GOES_ON`, told first by a count (in C) of the dense
window's most frequent match, as hyperscan's stretches are. The grid is in chars for a text
(the passes read the ``str``), hyperscan's in bytes: the same for ASCII. A JSON serialization
is searched as its bytes, a stretch ending at a quote, as hyperscan's is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, AnyStr

#: A pass's confirmation of its match before it is counted (:mod:`elision.redact.weak`).
Confirms = Mapping[re.Pattern[Any], Callable[[Any, re.Match[Any]], bool]]

#: How far past its start a keyword pass's match may end (the longest keyword is shorter): a
#: window's search reads this far into the next window, for a match that starts in it.
_REACH = 256
#: How far before a match's anchor its form is taken from (a keyword's head is shorter).
_BEHIND = 48
#: The chars a keyword's head is made of, read back from its anchor to take its form.
#: What a pattern may ask of the chars outside its match or the form: a form of it is not
#: counted.
_CONTEXT = ("(?<!", "(?!", "\\b", "\\B", "^", "$", "\\A", "\\Z")
_HEAD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#: (As chars, and as the ints a ``bytes`` target gives: a serialization is searched as bytes.)
_HEAD = frozenset(_HEAD_CHARS) | frozenset(_HEAD_CHARS.encode())


def counted_search(
    passes: list[tuple[re.Pattern[Any], Any]], text: AnyStr, stop: AnyStr,
    window: int, limit: int, goes_on: int, *, inside: bool = False,
    confirms: Confirms | None = None,
) -> tuple[list[int], list[tuple[int, int]]]:
    """Each pass's ``(pattern, target)`` (``target`` is ``text`` or its lower-cased copy, of
    the same length) searched a window at a time, its matches counted.

    Returns the first position of each pass in each line outside the dense stretches, sorted,
    and the dense stretches as ranges, each from its window to the end of a line, joined
    where they meet. With ``inside``, the positions found in a dense window before it was
    told dense are kept too (a JSON walk reads them, as hyperscan's search keeps them): at
    most ``limit`` and one a window. A match of a pass in ``confirms`` is counted only where
    its confirmation says so (a weak literal's), and is a position either way."""
    size = len(text)
    positions: list[int] = []
    dense: list[tuple[int, int]] = []
    untils = [-1] * len(passes)  # per pass: the end of the line that holds its last position
    form: tuple[Any, str, int] | None = None  # the last dense window's most frequent match
    pos = 0
    while pos < size:
        start = pos - pos % window
        end = min(size, start + window)
        after = bool(dense) and dense[-1][1] >= start
        if after and form is not None and _holds(form, pos, end, goes_on):
            pos = _withhold(dense, text, stop, start, end)
            continue
        cap = goes_on if after else limit
        seen: dict[int, tuple[Any, int]] = {}  # a char once over all passes
        at = -1
        for index, (pattern, target) in enumerate(passes):
            search = pattern.search
            confirm = confirms.get(pattern) if confirms else None
            match = search(target, pos, min(size, end + _REACH))
            while match is not None and match.start() < end and len(seen) <= cap:
                at = match.start()
                if at not in seen:
                    if confirm is None or confirm(target, match):
                        seen[at] = (target, index)
                    if at >= untils[index]:
                        positions.append(at)
                        line_end = text.find(stop, at + 1)
                        untils[index] = size if line_end < 0 else line_end
                match = search(target, max(match.end(), at + 1), min(size, end + _REACH))
            if len(seen) > cap:
                break
        if len(seen) > cap:
            form = _form(passes, seen, confirms)
            line_end = text.find(stop, at)
            pos = _withhold(dense, text, stop, start,
                            max(size if line_end < 0 else line_end + 1, end))
        else:
            pos = end
    positions.sort()
    if dense and not inside:
        positions = _outside(positions, dense)
    return positions, dense


def _withhold(
    dense: list[tuple[int, int]], text: AnyStr, stop: AnyStr, start: int, end: int,
) -> int:
    """Add ``start`` to the end of the line at ``end`` to the stretches; where to go on."""
    if end < len(text) and text[end - 1:end] != stop:  # a slice: ``text`` may be bytes
        line_end = text.find(stop, end)
        end = len(text) if line_end < 0 else line_end + 1
    join(dense, start, end)
    return end


def join(ranges: list[tuple[int, int]], start: int, end: int) -> None:
    """Append ``(start, end)`` to sorted ``ranges``, joined to the last one where they meet:
    a stretch of a thousand windows is one range, not a thousand."""
    if ranges and start <= ranges[-1][1]:
        ranges[-1] = (ranges[-1][0], max(end, ranges[-1][1]))
    else:
        ranges.append((start, end))


def _form(
    passes: list[tuple[re.Pattern[Any], Any]], seen: dict[int, tuple[Any, int]],
    confirms: Confirms | None = None,
) -> tuple[Any, str, int] | None:
    """The most frequent match of a dense window as ``(target, form, offset)``: the chars of
    its keyword's head back from its anchor, with the anchor at ``offset``. Taken only where
    its pass matches the form alone, so that every copy of the form is a match of that pass:
    a count of the form is at most the count of matches, never more. Not a confirmed pass's
    (a count of its copies counts those its confirmation would not)."""
    forms: Counter[tuple[int, str, int]] = Counter()
    for at, (target, index) in seen.items():
        if confirms and passes[index][0] in confirms:
            continue
        back = at
        while back > at - _BEHIND and back > 0 and target[back - 1] in _HEAD:
            back -= 1
        match = passes[index][0].match(target, at, min(len(target), at + _REACH))
        if match is not None:
            forms[(index, target[back:match.end()], at - back)] += 1
    for (index, text, offset), _ in forms.most_common(4):
        pattern, target = passes[index]
        source = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode()
        if any(look in source for look in _CONTEXT):
            continue  # what it asks of the chars around the form, a count cannot tell
        alone = pattern.search(text)
        if alone is not None and alone.start() == offset and alone.end() == len(text):
            return target, text, offset
    return None


def _holds(form: tuple[Any, str, int], pos: int, end: int, least: int) -> bool:
    """Whether more than ``least`` copies of the form have their anchor in ``[pos, end)``."""
    target, text, offset = form
    return more_than(target, [text], max(0, pos - offset), end - offset - 1 + len(text), least)


#: How much of a window a count reads at a time: a dense one holds enough in its first 256 bytes,
#: and a count of all of it costs one step per copy (14 us a 4 KB of ``api_key=`` lines).
_COUNT_STEP = 256


def more_than(data: Any, forms: list[Any], start: int, end: int, least: int) -> bool:
    """Whether ``data[start:end]`` holds more than ``least`` copies of ``forms`` in all,
    counted a step at a time (a copy across a step's end is not counted: a count that is at
    most the true one)."""
    held = 0
    for at in range(start, end, _COUNT_STEP):
        stop = min(end, at + _COUNT_STEP)
        for form in forms:
            held += data.count(form, at, stop)
            if held > least:
                return True
    return False


def _outside(positions: list[int], dense: list[tuple[int, int]]) -> list[int]:
    """The sorted ``positions`` outside the sorted, disjoint ranges of ``dense``."""
    out: list[int] = []
    i = 0
    for pos in positions:
        while i < len(dense) and dense[i][1] <= pos:
            i += 1
        if i == len(dense) or pos < dense[i][0]:
            out.append(pos)
    return out
