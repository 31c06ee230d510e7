"""Lines judged once by their text: a list's items and a table's rows repeat theirs.

A YAML list under ``passwords:`` (:func:`elision.redact.blocks.find_collections`) and rows of
``| password | S |`` outside a table (:mod:`elision.redact.mdtables`) are read a line at a
time, and what a line withholds is a pure function of its own text (and of what the caller
holds fixed: the list's name). Read with a regex over the whole text, each line was a match,
its groups and a judge's lookup: 87,000 ``- hunter2x`` lines were 95 ms a MB, 1.2 us a line
(issue 23). Where at most half of the lines are distinct, the lines are split in C, each
distinct one judged once, and each line's span is its text's, moved to where the line starts
(the starts summed in C).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, repeat
from operator import add

from elision.redact.columns import SpanSink
from elision.redact.rules import make_span

#: Fewest lines worth reading so; fewer are read one at a time by the caller.
FEWEST = 16
#: How many of the first lines are looked at before any are split: a range of distinct
#: lines (a list of generated passwords) is told by them, and read by the caller.
SAMPLE = 64
#: The most chars the first lines are looked for in, and the first chars looked in: the
#: window grows 4x at a time while it holds fewer than :data:`SAMPLE` lines. A table that
#: ends after a row (``|a|password|`` over ``|-|-|`` and ``|x|y|``, then a blank line, a MB of
#: them) had its 8 KB after each sampled and split: 11x the code before (review, issue 23).
_SAMPLED = 1 << 13
_SAMPLED_FIRST = 1 << 9
#: The chars of a block of lines split at once (cut at the first line break past it): its
#: lines, a str each, are some 6x its size while it is judged (a list of 12-char items).
#: The first block is :data:`_BLOCK_FIRST` chars, each next twice the last up to it: a list
#: or table that ends soon is split no further than twice its size and a block.
_BLOCK = 1 << 13
_BLOCK_FIRST = 1 << 8

#: What a line withholds: its spans' starts and ends in the line (none: nothing), or None
#: where the lines read end before it (a table's first line that is not a row).
LineJudge = Callable[[str], "tuple[tuple[int, int], ...] | None"]


def judge_lines(
    text: str, lo: int, hi: int, judge: LineJudge, rule: str, into: SpanSink
) -> int | None:
    """Add to ``into``, in the lines' order, the spans (under ``rule``) that ``judge`` gives
    each line of ``text[lo:hi]`` (``lo`` a line's start), each distinct line of a block
    judged once, up to the first line it gives None: where that line starts, or ``hi + 1``
    past the last line. None, nothing added, where more than half of the first
    :data:`SAMPLE` lines are distinct, or they are fewer than :data:`FEWEST`: the caller
    reads them one at a time."""
    sample = _first_lines(text, lo, hi)
    if len(sample) < FEWEST or 2 * len(set(sample)) > len(sample):
        return None
    del sample
    append = into.append
    # A block of lines at a time, cut at a line break: the lines split are a block's, not
    # the text's (a MB of short lines split whole was 5x its size).
    block = _BLOCK_FIRST
    while lo <= hi:
        stop = text.find("\n", lo + block, hi) if lo + block < hi else -1
        block = min(block << 1, _BLOCK)
        if stop < 0:
            stop = hi
        lines = text[lo:stop].split("\n")
        verdicts = {line: judge(line) for line in set(lines)}
        spans = list(map(verdicts.__getitem__, lines))
        del verdicts
        end = spans.index(None) if None in spans else len(spans)
        # Each line's start (and one more: where a line after the last would start).
        starts = accumulate(map(add, map(len, lines), repeat(1)), initial=lo)
        for at, withheld in zip(starts, spans[:end] if end < len(spans) else spans,
                                strict=False):
            for a, b in withheld or ():  # none is None before ``end``
                append(make_span((at + a, at + b, rule)))
        if end < len(spans):
            return lo + sum(map(len, lines[:end])) + end  # where that line starts
        lo = stop + 1
    return hi + 1


def _first_lines(text: str, lo: int, hi: int) -> list[str]:
    """The first :data:`SAMPLE` lines of ``text[lo:hi]`` within its first :data:`_SAMPLED`
    chars (fewer where those chars hold fewer), looked for in a window that grows from
    :data:`_SAMPLED_FIRST` chars: the same lines as the whole window's, a small window's
    slice where the lines are short."""
    size = _SAMPLED_FIRST
    while True:
        end = min(hi, lo + size)
        lines = text[lo:end].split("\n", SAMPLE)
        if len(lines) > SAMPLE or end == hi or size >= _SAMPLED:
            return lines[:SAMPLE]
        size <<= 2
