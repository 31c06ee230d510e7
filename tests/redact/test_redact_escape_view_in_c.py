"""The escape view of a short text is decoded and mapped back in C, not a Python step an escape.

Found by profiling ``bench/fuzz_linear.py``'s ``cookies-json-deep`` (a cookie map two levels of
JSON-in-JSON down on each line, 410 ms a MB alone, 522x prose, 2.5x the other cookie rows;
issue 23): each piece's escape view called :func:`encodings._spelled` once an escape to decode
it and stepped :func:`encodings._marks` (a generator) once an escape to map each span back,
and the escape pattern, whose run branch opened with a lookbehind, tried every branch at every
char. Now a short text's escapes are split out in C and tabled (``accumulate``), each span's
ends found by bisection; the run's lookbehind is asked after its first backslash. These check
that the view, its mapping back and the redaction are what the Python steps gave, and that a
MB-shaped text of such lines takes no Python step an escape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import encodings, redact_text

#: The escape pattern as it was at ac16386: the run's lookbehind before its first backslash.
_BEFORE = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})"
    r"|%(?:25)*([0-7][0-9a-fA-F])|(?<!\\)\\(?:\\*+(/)|\\++(\"))|\\(\\)"
)

# Every char the pattern reads, runs of backslashes of each level's length, and a non-ASCII
# char (a view's offsets are chars, not bytes).
_PIECES = ["\\", "\\\\", "\\" * 3, "\\" * 7, "/", '"', "u", "u0067", "uD83D", "uDE00", "u005C",
           "%", "%41", "%2541", "%5C", "25", "x", "é", " ", "\n"]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


def _reference_view(text: str) -> list[str]:
    """Each level's text as :func:`encodings.decode_escapes` read it at ac16386."""
    levels = [text]
    for _ in range(encodings._LEVELS):
        if _BEFORE.search(levels[-1]) is None:
            break
        levels.append(_BEFORE.sub(encodings._spelled, levels[-1]))
    return levels


@settings(max_examples=300, deadline=None)
@given(text=_TEXTS)
def test_the_escapes_are_those_the_lookbehind_first_pattern_finds(text: str) -> None:
    found = [(m.span(), m.groups()) for m in encodings._ESCAPE.finditer(text)]
    assert found == [(m.span(), m.groups()) for m in _BEFORE.finditer(text)]
    # The one-group pattern splits at exactly those escapes.
    assert encodings._ESCAPE_WHOLE.split(text)[1::2] == [
        m.group() for m in _BEFORE.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(text=_TEXTS, cuts=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 20)),
                                  max_size=4))
def test_the_view_and_its_mapping_back_are_the_python_steps(
    text: str, cuts: list[tuple[int, int]]
) -> None:
    view = encodings.decode_escapes(text)
    levels = _reference_view(text)
    if view is None:
        assert levels == [text]
        return
    texts = []
    at: encodings.View | None = view
    while at is not None:
        texts.append(at.text)
        at = at.under
    assert [text, *reversed(texts)] == levels
    spans = [(min(a, len(view.text)), min(a + n, len(view.text))) for a, n in cuts]
    spans = [(a, b) for a, b in spans if a < b]
    tabled = view.originals(spans)
    saved = encodings._TABLED
    encodings._TABLED = -1  # every level read an escape at a time (the generator's steps)
    try:
        assert tabled == view.originals(spans)
    finally:
        encodings._TABLED = saved


_LINE = (r'{\\\"cookies\\\": {\\\"sid\\\": \\\"Xq7vR2mK9pL4wT8n\\\"}} '
         "the quick brown fox jumps over the lazy dog\n")


def test_cookie_maps_deep_in_json_take_no_python_step_an_escape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """400 lines of ``cookies-json-deep`` (8 escapes each): the view was decoded by a call of
    ``_spelled`` an escape and mapped back by a step of ``_marks`` an escape (6,400 on
    ac16386); none now. Each line's value is withheld as before."""
    steps = {"spelled": 0, "marks": 0}
    spelled, marks = encodings._spelled, encodings._marks

    def counted_spelled(match: re.Match[str]) -> str:
        steps["spelled"] += 1
        return spelled(match)

    def counted_marks(source: str) -> Iterator[tuple[int, int, int]]:
        for mark in marks(source):
            steps["marks"] += 1
            yield mark

    monkeypatch.setattr(encodings, "_spelled", counted_spelled)
    monkeypatch.setattr(encodings, "_marks", counted_marks)
    result = redact_text(_LINE * 400)
    assert steps == {"spelled": 0, "marks": 0}
    assert "Xq7vR2mK9pL4wT8n" not in result.value
    assert len(result.withheld) == 400


@pytest.mark.parametrize(
    "text",
    [
        # One level down, as a JSON string's JSON writes it.
        '{"body": "{\\"cookies\\": {\\"sid\\": \\"Xq7vR2mK9pL4wT8n\\"}}"}\n' * 3,
        # A \u escape beside the runs: the view is read by the Python steps (no C split).
        _LINE.replace("sid", "\\u0073id") * 3,
        # A percent-escape beside them likewise.
        _LINE.replace("quick", "qu%69ck") * 3,
        # Longer than what is tabled (16 KB): read an escape at a time.
        _LINE * 200,
    ],
)
def test_redaction_is_the_python_steps(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = redact_text(text)
    monkeypatch.setattr(encodings, "_TABLED", -1)
    assert redact_text(text) == fast
