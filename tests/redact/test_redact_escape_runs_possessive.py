"""The escape view reads a run of backslashes before a "/" or a quote possessively.

Found by ``bench/fuzz_linear.py``'s ``text-deep-escapes`` (an assignment eight levels of
JSON-in-JSON down, 255 backslashes before each quote: 225x prose, issue 23): the escape
pattern read each run for a "/" first, then gave it back a char at a time before trying the
quote, in the view's substitution and again in each mapping back (``View.originals``): a
third of judging the text. A "/" or a quote is never a backslash, so the possessive run
(``*+``, ``++``) matches exactly where the backtracking one did; this checks it does, on
runs of backslashes among every char the pattern reads.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import encodings

#: The pattern as it was at 3294623, each run greedy.
_BACKTRACKING = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})"
    r"|%([0-7][0-9a-fA-F])|(?<!\\)\\(?:\\*(/)|\\+(\"))|\\(\\)"
)

_PIECES = ["\\", "\\\\", "\\" * 7, "\\" * 31, "/", '"', "u", "u0067", "uD83D", "uDE00", "%",
           "%41", "%2F", "x", "n", " "]


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_the_escapes_are_those_the_backtracking_pattern_finds(text: str) -> None:
    found = [(m.span(), m.groups()) for m in encodings._ESCAPE.finditer(text)]
    assert found == [(m.span(), m.groups()) for m in _BACKTRACKING.finditer(text)]


def test_a_deep_assignment_reads_as_before() -> None:
    text = '{"db_password": "s3cr3t-value-123"}'
    for _ in range(8):
        text = json.dumps(text)  # a level of JSON-in-JSON each: runs of 2**k - 1
    view = encodings.decode_escapes(text)
    assert view is not None and "s3cr3t-value-123" in view.text
    assert encodings._ESCAPE.sub(encodings._spelled, text) == _BACKTRACKING.sub(
        encodings._spelled, text)
