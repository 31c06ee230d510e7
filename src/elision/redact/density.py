"""The density bound with the regex passes: each pass's matches counted in a window grid.

Hyperscan counts its literals' matches in each window as it reports them
(:mod:`elision.redact.triggers`). The regex passes (where hyperscan is missing) kept one
position a line and no count, so a text without hyperscan had no bound: 1 MB of
``api_key=abc`` lines cost 50x prose and held 36x the input (issue 23). Here the same passes
count their matches, a char at most once over all of them (the anchored passes and the
parameter pass both match at the ``=`` of ``api_key=``; counted by each, a ``.env`` listing
came out dense). Hyperscan counts ``api_key=`` and ``key=`` as two, so these counts are at most
its own, and on the realistic corpora (``tests/redact/benign.py``) their largest window is
hyperscan's (66 in error output, 51 in a ``.env`` listing). Only the keyword passes count: the
base64 runs and the userinfo pattern, which hyperscan reports once a scan or not at all, keep
one position a line.

A window of :data:`~elision.redact.triggers.DENSE_WINDOW` chars is counted to just past
:data:`~elision.redact.triggers.DENSE_LIMIT` (then the rest of its line is skipped by every
later pass too), so no window costs more than that many matches, and its stretch is read as
hyperscan's is: from the window to the end of its line, and on through each next window that
holds more than :data:`~elision.redact.triggers.DENSE_GOES_ON`. The grid is in chars (the
passes read the ``str``), hyperscan's in bytes: the same for ASCII.
"""

from __future__ import annotations

import re
from typing import Any


def counted_positions(
    passes: list[tuple[re.Pattern[Any], Any]], stop: Any, window: int, limit: int,
) -> tuple[list[int], dict[int, int], dict[int, int]]:
    """Each pass's ``(pattern, target)`` searched, counting its matches per ``window``.

    Returns the first position of each pass in each line (a window past ``limit`` may miss
    some: it is dense), the count of each window that holds a match (at most ``limit`` + the
    passes), and where the scan skipped to from each window that went past ``limit``."""
    positions: list[int] = []
    counts: dict[int, int] = {}
    skips: dict[int, int] = {}
    counted: set[int] = set()
    for pattern, target in passes:
        search, find = pattern.search, target.find
        size = len(target)
        until = -1  # the end of the line that holds this pass's last position
        match = search(target)
        while match is not None:
            at = match.start()
            win = at // window
            nxt = skips.get(win)
            if nxt is not None and nxt > at:
                match = search(target, nxt)  # dense: its line was skipped already
                continue
            if at in counted:  # another pass matched here: one char, one match
                match = search(target, max(match.end(), at + 1))
                continue
            counted.add(at)
            held = counts.get(win, 0) + 1
            counts[win] = held
            if at >= until:
                positions.append(at)
                until = find(stop, at + 1)
                if until < 0:
                    until = size
            if held > limit:
                line_end = find(stop, at)
                nxt = max(size if line_end < 0 else line_end + 1, (win + 1) * window)
                for skipped in range(win, (nxt - 1) // window + 1):
                    skips[skipped] = nxt
            else:
                nxt = max(match.end(), at + 1)
            match = search(target, nxt)
    positions.sort()
    return positions, counts, skips


def dense_ranges(
    target: Any, stop: Any, counts: dict[int, int], skips: dict[int, int],
    window: int, limit: int, goes_on: int,
) -> list[tuple[int, int]]:
    """The dense windows of :func:`counted_positions`' counts as ranges, each from its window
    to the end of its line (or where the scan skipped to), joined where they meet."""
    ranges: list[tuple[int, int]] = []
    size = len(target)
    for win in sorted(counts):
        start = win * window
        if ranges and start + window <= ranges[-1][1]:
            continue  # inside the last stretch's lines
        after = bool(ranges) and ranges[-1][1] >= start
        if counts[win] <= (goes_on if after else limit):
            continue
        end = skips.get(win)
        if end is None:
            line_end = target.find(stop, min(size, start + window) - 1)
            end = max(size if line_end < 0 else line_end + 1, start + window)
        end = min(end, size)
        if ranges and start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(end, ranges[-1][1]))
        else:
            ranges.append((start, end))
    return ranges
