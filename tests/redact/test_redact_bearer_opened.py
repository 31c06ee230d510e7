"""bearer-token's pattern tried where ``bearer`` is written, not searched for at every char
(issue 23): it opens with a look-behind in a group that ignores case, ``Bearer|BEARER`` and a
branch of ``^`` and a look-behind, so the regex engine's search tried its three branches at
each char (75 ns a char: a tenth of redacting a MB of Bearer header lines,
``bench/fuzz_linear.py``'s ``bearer-letters-lines``), and its literal prefix was not read
(``secrets.leading_runs`` stops at the group). Now ``secrets._led_runs`` reads ``bearer`` past
them, in any case, and the pattern is tried at each one where they are one in 16 chars or
fewer. The count is red on the code before; the matches are the search's.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import secrets
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.secrets import find_credentials
from support.regexes import CountingPattern

INDEX = next(i for i, f in enumerate(PATTERN_FAMILIES) if f.id == "bearer-token")
LINE = "sent upstream, Authorization: Bearer kXvQmRtbLpWzNyHd{} (expired, refreshing)\n"


def test_lines_of_bearer_headers_are_not_searched_char_by_char() -> None:
    """40 header lines: the pattern is tried at each ``Bearer``, never searched; each token
    found."""
    text = "".join(LINE.format(chr(ord("a") + n % 26) * 2) for n in range(40))
    family = PATTERN_FAMILIES[INDEX]
    counting = CountingPattern(family.pattern)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(family.__dict__, "pattern", counting)
        found = [s for s in find_credentials(text) if s.rule == family.id]
    assert counting.searches == 0 and text not in counting.searched
    assert counting.matches == 40
    assert len(found) == 40


@pytest.mark.parametrize(("pattern", "led"), [
    # a look-behind in a group that ignores case; a word in two cases; ^ or a look-behind
    (r"(?:(?i:(?<=x: )bearer)\s+|(?:Bearer|BEARER)[ \t]+|(?:^|(?<=[=]))bearer\s)(\w+)",
     (("bearer",), True)),
    # the same word in two cases alone, and a look-behind before literals
    (r"(?:Token|TOKEN)=(\w+)", (("token",), True)),
    (r"(?<=\s)(?i:sk)-(\w+)", (("sk",), True)),
    # no branch ignores case: the search skips to the literal itself (leading_runs's)
    (r"(?<=\s)abc(\w+)", None),
    # two words, one char, a class: no opening read
    (r"(?:Bearer|Token) (\w+)", None),
    (r"(?i:(?<=a)b)(\w+)", None),
    (r"(?i:[ab]c)(\w+)", None),
])
def test_the_openings_read_past_what_consumes_no_char(
        pattern: str, led: tuple[tuple[str, ...], bool] | None) -> None:
    assert secrets._led_runs(re.compile(pattern)) == led


_PIECES = st.sampled_from([
    "authorization: ", "Authorization: ", "AUTHORIZATION:  ", "bearer", "Bearer", "BEARER",
    "bEaReR", "bearer ", "Bearer\t", " ", "\t", "\n", '"', "'", "=", ":", "x", "kXvQmRtbLpWzNyHd",
    "0123456789abcdef", "==", "\u212a", "\u0130", "é",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_trying_at_the_openings_finds_what_the_search_found(text: str) -> None:
    pattern = PATTERN_FAMILIES[INDEX].pattern
    assert pattern is not None
    want = [m.span("secret") for m in pattern.finditer(text)]
    opens = secrets._opened_by(INDEX, text * 20, [])
    if opens is not None:
        got = [m.span("secret") for m in secrets._from(text * 20, pattern, opens)]
        assert got == [m.span("secret") for m in pattern.finditer(text * 20)]
    assert [m.span("secret") for m in secrets._from(
        text, pattern, sorted({m.start() for m in re.finditer("(?i)bearer", text)}))] == want \
        or not text.isascii()
