"""A text dense with ``password=`` values costs less per candidate, and withholds the same.

Issue 23: a text just under the density bound (``bench/fuzz_linear.py``'s
``assign-under-limit``, 100 ``password=`` values per 4 KB) cost some 500 times prose, most of
it the precise rules judging each candidate afresh. The judging of a value is now kept for the
text (the same value after the same name is judged once), the URL rules tell a candidate
that holds no query, escape or scheme without parsing it, a family whose every match holds a
literal the text lacks is not searched for, and the regex engine tries the generic name it
found last first and reads each distinct base64 run once. The red-first tests count calls;
the differentials check that these shortcuts withhold exactly what the per-candidate path
did, on generated dense texts, with hyperscan and with the regex engine.

Found beside them (by reading ``urls._token_bounds``): the token around each URL candidate
was found by a char loop back to the token's start, so ``pwd=x)pwd=x)…`` (a ``)`` closes a
token and opens none) read the whole text back at each ``=``: its length squared.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import generic, keywords, redact_text, secrets, urls
from elision.redact.families import PATTERN_FAMILIES, TEMPLATE, Family, sample
from elision.redact.generic import STRONG, find_assignments
from elision.redact.rules import Span
from elision.redact.secrets import find_credentials
from support.built import strategies_built


class _CountingText(str):
    """A text that counts how many chars Python code indexes out of it one at a time."""

    reads = 0

    def __getitem__(self, key: object) -> str:  # type: ignore[override]
        if isinstance(key, int):
            _CountingText.reads += 1
        return str.__getitem__(self, key)  # type: ignore[index]


@pytest.mark.parametrize("unit", [
    "pwd=x)",  # ")" ends a token but opens none: each "=" is a candidate in one long token
    "token=ab)",
    "s://a:b@c)",  # the userinfo rule's candidates
])
def test_a_token_of_many_url_candidates_is_read_once(unit: str) -> None:
    """Red before: 500 units of ``pwd=x)`` read ~750,000 chars (each ``=`` read the text back
    to its start); now each char is read a bounded number of times, by a regex."""
    text = _CountingText(unit * 500)
    _CountingText.reads = 0
    urls.find_signed_urls(text)
    assert _CountingText.reads <= 4 * len(text)


@pytest.mark.parametrize("line", [
    "password=hunter2 xxxxxxxxxxxxxxxxxxxxxxx",  # assign-under-limit's line
    "db_password: 'correct horse battery staple'",
    "API_KEY=aB3dE5gH7jK9mN1pQ3rS",
])
def test_a_value_repeated_after_one_name_is_judged_once(line: str) -> None:
    """Red before: 100 lines of one assignment asked ``placeholder`` 100 times (and each of
    the other judgements as often); the verdict is now kept for the text."""
    calls = []
    real = generic.placeholder

    def counting(value: str) -> bool:
        calls.append(value)
        return real(value)

    text = "\n".join([line] * 100)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "placeholder", counting)
        # The shapes' answers are kept for the process: one kept by an earlier test of the
        # worker would answer this one with no judgement at all (red in a full run only).
        mp.setattr(generic, "_SHAPES_KEPT", {})
        found = find_assignments(text)
    assert len(found) == 100
    assert len(calls) == 1


def test_a_text_with_no_query_escape_or_scheme_classifies_no_token() -> None:
    """Red before: each of 100 ``password=`` candidates was cut out and classified as a URL
    (100 calls); a text with no ``?&;#%``, backslash or ``://`` holds no URL credential."""
    calls: list[str] = []
    real = urls.classify_url

    def counting(url: str) -> str | None:
        calls.append(url)
        return real(url)

    text = "password=hunter2 xxxxxxxxxxxxxxxxxxxxxxx\n" * 100
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(urls, "classify_url", counting)
        assert urls.find_signed_urls(text) == []
        found = urls.find_signed_urls(text + "https://h/p?token=abc&x=1")
    assert set(calls) == {"https://h/p?token=abc&x=1"}  # the URL alone (and its narrowing)
    assert len(found) == 1


# -- the token's start: the regex that replaced the char loop says what the loop said --------

def _loop_start(text: str, at: int) -> int:
    """The char loop the token's start was found by (the reference)."""
    while at > 0 and text[at - 1] not in urls._LEFT_STOP:
        at -= 1
    return at


_TOKEN_CHARS = st.sampled_from(list("ab=)( \t\n\r\f\v\"'<>`[]{}|:/?&%@.,;\\"))


@given(st.text(_TOKEN_CHARS, max_size=60), st.lists(st.integers(0, 60), max_size=12))
def test_token_starts_are_the_char_loops(text: str, positions: list[int]) -> None:
    starts = urls._TokenStarts(text)
    for pos in sorted(p for p in positions if p <= len(text)):
        assert starts.at(pos) == _loop_start(text, pos)


@given(st.text(_TOKEN_CHARS, max_size=40), st.text(st.sampled_from(list("ab=)( \t.,")),
                                                   max_size=10))
def test_token_bounds_are_the_char_loops(text: str, tail: str) -> None:
    text += tail
    for end in range(len(text) + 1):
        start = _loop_start(text, end)
        stop = end
        while stop < len(text) and text[stop] not in urls._RIGHT_STOP:
            stop += 1
        full = stop
        while stop > start and text[stop - 1] in urls._TRAILING:
            stop -= 1
        assert urls._token_bounds(text, start, end) == (start, stop, full - stop)


_URL_CHARS = st.sampled_from([
    *"ab0=?&;#%/:@\\u2346fF.-_ ", "://", ":\\/\\/", "%26", "\\u0026", "&amp;", "%3f",
    "access_token=", "sig=", "pwd=", "u:p@", "%253d",
])


@given(st.lists(_URL_CHARS, max_size=30).map("".join))
def test_a_token_the_pre_check_passes_over_classifies_as_nothing(token: str) -> None:
    if not urls._urlish(token, 0, len(token)):
        assert urls.classify_url(token) is None


# -- the verdicts kept for a text withhold what the per-candidate judging did ----------------

def _judged_afresh(
    text: str, name: str, strength: int, at: int, found: list[Span], reach: generic._Reach
) -> None:
    """The generic path of ``generic._value`` as it was, every candidate judged in full (the
    reference; the names drawn below are neither headers nor cookies)."""
    if text.startswith(("[", "{"), at) and not generic._STUB_AT.match(text, at):
        generic._bracketed(text, name, strength, at, found, reach)
        return
    written = generic._written(text, at, found, reach)
    if written is None:
        return
    a, b, group = written
    value = text[a:b]
    if generic.placeholder(value) or (group == "bare" and TEMPLATE.match(text, b)):
        return
    if generic.is_location(value) or (
        generic._bare_prose(text, a, b) if group == "bare" else generic.prose(value)
    ):
        return
    if strength == STRONG:
        if generic.words(name) in (["pwd"], ["oldpwd"]) and generic._path(value):
            return
        if len(value) < 3:
            return
    elif not generic.opaque(value):
        return
    generic._withhold(a, b, group, found, reach)


def _never(*args: object) -> bool:
    """``_plain_bare`` handing every value to ``_value`` (the reference's path)."""
    return False


_NAMES = ["password", "PASSWORD", "db_password", "pwd", "OLDPWD", "api_key", "secret",
          "token", "auth_token", "page_token", "client_secret", "dbPassword"]
_SEPARATORS = ["=", ": ", " = ", '": "', "='", ":=", " => "]
_VALUES = ["hunter2", "x", "[1, 2]", "{}", "a\\\"b\\\"", "", "ab", "incorrect",
           "Invalid", "must", "/etc/passwd", "./a/b",
           "${PASS}", "<your-password>", "xxxxxxxx", "changeme", "correct-horse",
           "s3cr3t!", "aB3dE5gH7jK9mN1pQ3rS", "https://example.com/a", "null", "hunter2.",
           "Authentication", "str", "ZmFrZV9rZXlfZm9yX3Rlc3Rz0123"]
_AFTER = ["", " ", " login", " token manipulation error", " must be at least 12 characters",
          " xxxxxxxxxxxxxxxxxxxxxxx", "${N}", " is wrong", ",", " and the rest", "\r"]


# Built once: built on every draw, they were most of drawing's CPU (855 for 20 texts).
_NAME_DRAWS = st.sampled_from(_NAMES)
_SEPARATOR_DRAWS = st.sampled_from(_SEPARATORS)
_VALUE_DRAWS = st.sampled_from(_VALUES)
_AFTER_DRAWS = st.sampled_from(_AFTER)
_JOINS = st.sampled_from([" ", " ; "])


@st.composite
def _dense_texts(draw: st.DrawFn) -> str:
    """Lines of assignments, several a line, drawn from a few names and values so that the
    same (name, value) recurs with a different line after it."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        parts = []
        for _ in range(draw(st.integers(1, 4))):
            name, sep = draw(_NAME_DRAWS), draw(_SEPARATOR_DRAWS)
            value = draw(_VALUE_DRAWS)
            if sep.endswith(('"', "'")):
                value += sep[-1]
            parts.append(name + sep + value + draw(_AFTER_DRAWS))
        lines.append(draw(_JOINS).join(parts))
    return "\n".join(lines)


@settings(max_examples=300)
@given(_dense_texts())
def test_kept_verdicts_withhold_what_judging_each_did(text: str) -> None:
    now = find_assignments(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_value", _judged_afresh)
        mp.setattr(generic, "_plain_bare", _never)
        mp.setattr(generic, "_SHAPES", False)  # each value judged, none a shape's
        before = find_assignments(text)
    assert now == before



@pytest.mark.usefixtures("unbounded")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_dense_texts())
def test_dense_texts_are_redacted_as_before(keyword_engine: str, text: str) -> None:
    now = redact_text(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_value", _judged_afresh)
        mp.setattr(generic, "_plain_bare", _never)
        mp.setattr(generic, "_SHAPES", False)  # each value judged, none a shape's
        before = redact_text(text)
    assert now.value == before.value
    assert now.withheld == before.withheld


_PLAIN = keywords._Plain()


@given(st.lists(st.sampled_from([*keywords.GENERIC[:40], *keywords.GENERIC[-40:], "password",
                                 "x", " ", "=", "PASSWORD=", "Api_Key:"]), max_size=8))
def test_the_regex_engine_finds_a_generic_name_whichever_it_found_last(parts: list[str]) -> None:
    """The last generic literal found is tried first: a hint that never changes the answer
    (one engine for all the examples, so each starts from the last one's hint)."""
    plain = _PLAIN
    text = "".join(parts)
    assert plain.present(text).generic == any(lit in text.lower() for lit in keywords.GENERIC)


# -- a family whose every match holds a char the text lacks is not searched for -------------

class _CountingPattern:
    """A compiled pattern that counts its searches."""

    def __init__(self, real: re.Pattern[str]) -> None:
        self.real, self.searches = real, 0
        # what the family skip reads (secrets.needs): run alone, this test read them first
        self.groupindex, self.pattern, self.flags = real.groupindex, real.pattern, real.flags

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        self.searches += 1
        return self.real.finditer(text)

    def match(self, text: str, *args: int) -> re.Match[str] | None:
        # a pattern tried where it may open (secrets.prefixes): one try, one opening here
        self.searches += 1
        return self.real.match(text, *args)


def test_a_text_of_assignments_skips_the_connection_string_search() -> None:
    """Red before: ADO.NET's connection-string family (keyword ``password=``, any case) was
    searched for in every piece of assign-under-limit, though its every match holds a ``;``
    that no piece has: a sixth of the text's redaction."""
    index = next(i for i, f in enumerate(PATTERN_FAMILIES)
                 if f.id == "ado-connection-string-password")
    family = PATTERN_FAMILIES[index]
    assert family.pattern is not None
    # Whether a match takes in the next token's head is the family's own, asked once of the
    # real pattern (a search of its shapes): read it now, so only the texts' searches count.
    assert isinstance(family._takes_in_next, bool)
    counting = _CountingPattern(family.pattern)
    text = "password=hunter2 xxxxxxxxxxxxxxxxxxxxxxx\n" * 50
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(family.__dict__, "pattern", counting)
        found = find_credentials(text)
        with_semicolon = find_credentials("Server=db;Password=hunter2;\n" + text)
    assert len(found) == 50
    assert counting.searches == 1  # the text with a ";" in it, and only that one
    assert any(s.rule == family.id for s in with_semicolon)


_SEARCHED = [(i, f) for i, f in enumerate(PATTERN_FAMILIES) if f.pattern is not None and f.shapes]


@settings(max_examples=400)
@given(st.sampled_from(_SEARCHED), st.data())
def test_a_family_skipped_for_a_missing_run_has_no_match(
        family: tuple[int, Family], data: st.DataObject) -> None:
    """The skip never skips a match: a family's fake, with chars dropped and its case
    changed, that lacks one of its runs is not matched by its pattern."""
    index, fam = family
    assert fam.pattern is not None
    fake = sample(fam, data.draw(st.integers(0, len(fam.shapes) - 1)), "skip")[0]
    keep = data.draw(st.lists(st.booleans(), min_size=len(fake), max_size=len(fake)))
    text = "".join(c for c, kept in zip(fake, keep, strict=True) if kept)
    text = data.draw(st.sampled_from([text, text.lower(), text.upper(), text.swapcase()]))
    if not all(part in text for part in secrets.needs(index)):
        assert fam.pattern.search(text) is None


@given(st.lists(st.sampled_from(["x" * 23, "QUFBQUFBQUFBQUFBQUFBQUFB", "cGFzc3dvcmQ9aHVudGVy",
                                 " ", "\n", "password=", "y" * 30]), max_size=12))
def test_the_regex_engine_reads_each_distinct_base64_run_once(parts: list[str]) -> None:
    """Runs that repeat are read once: what the engine says is what reading each said."""
    text = "".join(parts)
    every = any(keywords.holds_base64_form(run.group())
                for run in keywords.B64_RUN.finditer(text))
    assert _PLAIN.present(text).base64 == every


def test_a_python_whose_regex_parser_changed_skips_no_family() -> None:
    """The skip reads CPython's private regex parser (``re._parser``), which a later Python
    may move or change. Red before: a parser that failed took every redaction with it; now
    no family is skipped (slower) and each match is still found."""
    index = next(i for i, f in enumerate(PATTERN_FAMILIES)
                 if f.id == "ado-connection-string-password")
    text = "Server=db;Password=hunter2;\n" + "password=hunter2 xxxxxxxxxxxxxxxxxxxxxxx\n" * 3

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(secrets, "_parser", object())  # one without the parse read here
        mp.setattr(secrets, "_needs", {})
        assert secrets.literal_runs(re.compile("abc=(x);")) == ()
        assert secrets.needs(index) == ()
        found = find_credentials(text)
    assert any(s.rule == "ado-connection-string-password" for s in found)
    assert sum(s.rule != "ado-connection-string-password" for s in found) >= 3
    assert secrets.needs(index), "on this Python the skip is live again"


def test_drawing_dense_texts_builds_no_strategy() -> None:
    """Red before: each draw built its parts again (855 strategies for 20 texts)."""
    assert strategies_built(_dense_texts(), examples=5) < 5
