"""Caveat keys: which members of an object carry coverage or caveats, and the order to show
them in (caveats first, each group in the original order)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any


def caveat_pattern(patterns: Sequence[str], *, wildcard: str = ".*") -> re.Pattern[str]:
    """One pattern that matches a whole lower-cased key carrying coverage or caveats.

    A pattern ending in ``*`` matches keys that start with it; any other matches exactly.
    Keys are lower-cased before matching (cheaper than a case-insensitive pattern).
    """
    # Made once per set of patterns: the shaper asks for it for every object it shows, and
    # escaping fifty patterns each time was a fifth of shaping a 300-deep document.
    return _caveat_pattern(tuple(patterns), wildcard)


@functools.lru_cache(maxsize=64)
def _caveat_pattern(patterns: tuple[str, ...], wildcard: str) -> re.Pattern[str]:
    parts = [
        re.escape(p[:-1].lower()) + wildcard if p.endswith("*") else re.escape(p.lower())
        for p in patterns
    ]
    return re.compile("(?:" + "|".join(parts) + ")", re.DOTALL)


def caveat_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """A predicate: does this key carry coverage or caveats?"""
    pattern = caveat_pattern(patterns)
    return lambda key: pattern.fullmatch(key.lower()) is not None


_BIG_OBJECT = 512
_SEPARATOR = "\x00"


def member_order(obj: dict[str, Any], patterns: Sequence[str]) -> Iterator[tuple[int, str, bool]]:
    """Members of ``obj`` as (original index, key, is caveat): caveats first, then the rest,
    each in the original order."""
    keys = list(obj)
    hits: list[int] = []
    joined = _SEPARATOR + _SEPARATOR.join(keys) + _SEPARATOR if len(keys) > _BIG_OBJECT else ""
    if joined and joined.count(_SEPARATOR) == len(keys) + 1:
        # One C-speed scan over all the keys joined (no key holds the separator), instead of
        # a Python call per key. Lower-casing never adds or removes a separator, so counting
        # separators before a match gives the key's index.
        joined = joined.lower()
        scan = re.compile(
            _SEPARATOR + caveat_pattern(patterns, wildcard="[^\x00]*").pattern
            + "(?=" + _SEPARATOR + ")", re.DOTALL,
        )
        index, position = -1, 0
        for match in scan.finditer(joined):
            index += joined.count(_SEPARATOR, position, match.start() + 1)
            position = match.start() + 1
            hits.append(index)
    else:
        pattern = caveat_pattern(patterns)
        hits = [i for i, k in enumerate(keys) if pattern.fullmatch(k.lower()) is not None]
    caveats = set(hits)
    yield from ((i, keys[i], True) for i in hits)
    yield from ((i, k, False) for i, k in enumerate(keys) if i not in caveats)
