"""keywords.window_patterns reads the digits that span two bytes as a product of two small
sets (issue 24: the pairs of two byte classes cost every start ~5 ms). It must give what the
pairs themselves give, for the table's windows and for any window."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from elision.redact import keywords

_STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_URLSAFE = _STD[:62] + "-_"


def by_pairs(window: tuple[str, ...]) -> list[str]:
    """Every byte of every class, and every pair of them, encoded: the plain reading."""
    classes = [keywords._byte_class(spec) for spec in window]
    patterns = []
    for shift in range(3):
        bits = 8 * (shift + len(classes))
        digits = []
        for j in range(-(-8 * shift // 6), bits // 6):
            at = 6 * j
            first, last = at // 8 - shift, (at + 5) // 8 - shift
            if first == last:
                values = {(a >> (2 - at % 8)) & 63 for a in classes[first]}
            else:
                values = {((a << 8 | b) >> (10 - at % 8)) & 63
                          for a in classes[first] for b in classes[last]}
            chars = sorted({_STD[v] for v in values} | {_URLSAFE[v] for v in values})
            digits.append(re.escape(chars[0]) if len(chars) == 1 else
                          "[" + "".join(re.escape(c) for c in chars) + "]")
        patterns.append("".join(digits))
    return patterns


def test_the_tables_windows() -> None:
    for window in keywords._WINDOWS.values():
        assert keywords.window_patterns(window) == by_pairs(window)


SPECS = st.sampled_from(["0-9", "a-f", "A-Z", "A-Za-z0-9_-", ":", "~", "Q", "-", "0-9a-f",
                         "A-Za-z0-9_~.-", "!-/", " -~"])


@given(window=st.lists(SPECS, min_size=1, max_size=7).map(tuple))
def test_any_window(window: tuple[str, ...]) -> None:
    assert keywords.window_patterns(window) == by_pairs(window)
