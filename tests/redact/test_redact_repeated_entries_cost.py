"""A long list, property list or table of passwords costs little Python an entry (issue 23).

Found by ``bench/redact.py --worst yaml-plural-long plist-keys md-loose-rows`` (the third
session's table): 87,000 ``- hunter2x`` under one ``passwords:`` took 475x the CPU time of
prose, 22,000 ``<key>password</key>`` members 449x, 43,000 ``| password | hunter2x |`` rows
247x. A profile showed the Python work an entry: the list's lines were a generator step, a
line's slices and strips and a match each (``blocks._deeper``, ``blocks._entry``), and every
value of the three was judged afresh by five judges (``is_credential_value``); each 680-char
piece of the property list had its 45 name words (``key`` is one) read by the loop of
``generic.find_assignments``, because a shape whose name is followed by ``</`` was taken
for one whose separator may run on past it; a loose row's first cell was told by a slice of
its line, its description by a split of its value.

Now a collection's lines are read by one regex (``blocks._entries``), a verdict is kept by
name and value, a shape after which no separator can open is told alone, and a row's
verdict is kept in its text. What is withheld must be what the line-at-a-time reading
withholds (a differential over hostile drawn lines, always run) and what the code before
withheld (``ELISION_BEFORE_SRC``, a development check).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import blocks, folding, generic, mdtables, redact_text
from elision.redact.generic import STRONG, name_strength
from elision.redact.kept import LIMIT, LONGEST
from elision.redact.rules import Span
from support.before import redacted
from support.calls import redaction_calls
from support.traced import peak


def _calls_per_entry(text: str) -> float:
    redact_text(text)  # caches and databases made, the one value's verdict kept
    calls, done = redaction_calls(text)
    assert done.withheld
    return calls / len(done.withheld)


@pytest.mark.parametrize(("text", "most"), [
    # bench/fuzz_linear.py yaml-plural-long: 11.2 calls an entry before (both engines)
    ("passwords:\n" + "  - hunter2x\n" * 3000, 2),
    # md-loose-rows: 10.0 before
    ("| password | hunter2x |\n" * 3000, 1),
    # plist-keys: 20.1 before (18.3 with the regex passes); 11.9 now (10.1)
    ("<key>password</key>\n<string>hunter2x</string>\n" * 3000, 14),
])
def test_a_repeated_entry_costs_few_python_calls(text: str, most: float) -> None:
    assert _calls_per_entry(text) <= most


# -- the collection's lines read in C: as the line-at-a-time reading reads them ---------------

def _line_at_a_time(
    text: str, at: int, key_column: int, name: str, strength: int,
) -> tuple[int, list[Span]]:
    """What ``_judge_collection`` read before ``_entries``: its loop over ``_deeper``."""
    found: list[Span] = []
    read_to = at
    for line_at, stop, line, content in blocks._deeper(text, at, key_column):
        if content:
            blocks._entry(text, line_at, line, name, strength, found)
        read_to = stop + 1
    return read_to, found


# A collection's lines, each drawn in its parts, each part hostile: indents of spaces and tabs
# (deeper and shallower than the key), items, members (metadata and not, a name past 96
# chars), values (quoted, matched and not; flow and anchor openers; opaque; a placeholder),
# comments after a space, a tab or none, carriage returns alone, in runs and inside a value,
# blank lines, chars past ASCII; and parts of each kind anywhere, as noise.
_INDENTS = st.sampled_from(["    ", "  ", "   ", "\t", " \t", "      ", "", " "])
_ITEMS = st.sampled_from(["", "", "- ", "-\t", "-  ", "- - ", "-"])
_KEYS = st.sampled_from(["", "", "", "name: ", "type:\t", "api_key: ", "password:", "alice: ",
                         "k" * 97 + ": ", "a :  ", "x:y "])
_VALUES = st.sampled_from([
    "", "hunter2x", "s3cr3t Zx8Q", "Zx8Qw3Er5Ty7Ui9Op", "'s3cr3t'", '"s3cr3t"', "'x", '"',
    "''", "[a, b]", "{a: b}", "&anchor", "*alias", "|", ">", "!tag", "${X}", "abc def ghi",
    "h\u00fcnter2x", "\u03a3\u03c3", "x\ry", "#nocomment", "a\u2028b", "a\x0bb",
])
_TAILS = st.sampled_from(["", "", " ", "\t", " # note", "\t# not one", "#x", " #", "\r", "\r\r",
                          " \r", "\r #c", "\r \r"])
_NOISE = st.sampled_from([" ", "-", ":", "#", " #", "'", '"', "\r", "\n", "x", "|", "\t"])
_ENTRY_LINE = st.tuples(_INDENTS, _ITEMS, _KEYS, _VALUES, _TAILS).map("".join)
_LINE = st.one_of(_ENTRY_LINE, _ENTRY_LINE, _ENTRY_LINE, st.lists(_NOISE, max_size=6).map("".join))
_LINES = st.tuples(st.lists(_LINE, max_size=12), st.sampled_from(["\n", "\r\n"]),
                   st.booleans()).map(lambda d: d[1].join(d[0]) + (d[1] if d[2] else ""))
_NAMES = st.sampled_from(["passwords", "tokens", "api_keys", "password", "cookies", "auth"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_LINES, st.data(), st.integers(0, 3), _NAMES)
@example("  - a #b\r\n  - 'c' \r \r\n - d\n", None, 1, "passwords")  # comment, CRs, a shallow line
@example("  - x\r #c\n  -\ty\t\n", None, 0, "tokens")  # a CR before the comment stays in the value
@example("  - s3cr3t # note\n  - 'q1w2e3r4' #\n  - a\t#b\n", None, 0, "passwords")  # no CR
def test_a_collection_is_read_as_its_lines_one_at_a_time(
    text: str, data: Any, key_column: int, name: str,
) -> None:
    starts = [0, *(i + 1 for i, char in enumerate(text) if char == "\n"), len(text) + 1]
    at = starts[0] if data is None else data.draw(st.sampled_from(starts))
    strength = name_strength(name)
    found: list[Span] = []
    read_to = blocks._entries(text, at, key_column, name, strength, found)
    assert (read_to, found) == _line_at_a_time(text, at, key_column, name, strength)


@pytest.mark.parametrize(("text", "key_column"), [
    # deeper than a pattern's column: a line at a time
    (" " * 70 + "passwords:\n" + " " * 72 + "- s3cr3t\n" + " " * 70 + "x: y\n", 70),
    # the same list at the first column: the pattern's reading
    ("passwords:\n  - s3cr3t\nx: y\n", 0),
])
def test_a_collection_is_read_whatever_its_column(text: str, key_column: int) -> None:
    match = blocks._COLLECTION.search(text)
    assert match is not None
    found: list[Span] = []
    read_to = blocks._judge_collection(text, match, STRONG, found)
    assert (read_to, found) == _line_at_a_time(text, match.end() + 1, key_column,
                                               "passwords", STRONG)
    assert found


# -- a verdict kept by name and value ---------------------------------------------------------

#: blocks._ENTRY_LINE as yamlperf wrote it, its value read a char at a time: the reading the
#: runs' pattern must equal (its end's test re-read a run of blanks at each of its chars).
_ENTRY_LINE_BY_CHARS = re.compile(
    r"(?m)^[ \t]*(-[ \t]+)?(?:([A-Za-z0-9_.-]{1,96})[ \t]*:(?:[ \t]+|(?=\r*$)))?"
    r"((?:[^ \n]| (?!#))*?)[ \t]*(?: #[^\n]*)?\r*$"
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", " ", "  ", "\t", "#", "\r", ":", "-", "k", "\n",
                                 "x:", "- ", " #", "\t#", "\r #", " " * 40]), max_size=24))
@example(["  - a", " " * 40, "b", "\r", "\n", "  - x", " #", "c", "\r", "\n"])
def test_an_entry_line_is_read_by_runs_as_by_chars(parts: list[str]) -> None:
    """Found by the review of the merged head (2026-12-05): a CRLF list (so the pattern with
    comments' rule) whose item holds a run of 40,000 spaces took 44 s. The value is read a
    run at a time now; every line reads as it did a char at a time."""
    text = "".join(parts)
    assert [(m.span(), m.groups()) for m in blocks._ENTRY_LINE.finditer(text)] == [
        (m.span(), m.groups()) for m in _ENTRY_LINE_BY_CHARS.finditer(text)]


@pytest.fixture
def no_kept_verdicts() -> Iterator[dict[tuple[str, str], bool]]:
    kept = generic._credential_values
    saved = dict(kept)
    kept.clear()
    yield kept
    kept.clear()
    kept.update(saved)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["password", "api_key", "token", "authorization", "cookie", "pwd",
                        "passwords", "key", "note"]),
       st.one_of(st.text(max_size=40), st.sampled_from([
           "hunter2x", "Bearer abc", "/home/ada/x", "${X}", "xxxxxxxx", "Zx8Qw3Er5Ty7Ui9Op",
           "the user's password"])))
def test_a_kept_verdict_is_the_judges_own(name: str, value: str) -> None:
    generic._credential_values.pop((name, value), None)
    fresh = generic.is_credential_value(name, value)
    assert generic._credential_values[name, value] is fresh  # kept: a short value
    assert generic.is_credential_value(name, value) is fresh


@pytest.mark.parametrize(("name", "value", "kept"), [
    ("password", "x" * LONGEST, True),  # the longest value kept
    ("password", "x" * (LONGEST + 1), False),  # a longer one judged each time: not held
    ("p" * (LONGEST + 1) + "_password", "hunter2x", False),  # a long name: the same
])
def test_only_short_verdicts_are_kept(
    no_kept_verdicts: dict[tuple[str, str], bool], name: str, value: str, kept: bool,
) -> None:
    generic.is_credential_value(name, value)
    assert ((name, value) in no_kept_verdicts) is kept


def test_the_kept_verdicts_are_bounded(no_kept_verdicts: dict[tuple[str, str], bool]) -> None:
    for i in range(LIMIT + 10):
        generic.is_credential_value("password", f"hunter{i}x")
    assert 0 < len(no_kept_verdicts) <= generic._CREDENTIAL_VALUES_MOST
    assert generic.is_credential_value("password", "hunter1x") is True


# -- a shape after which no separator can open is told alone ----------------------------------

_AFTER_NAME = st.lists(st.sampled_from(
    ["<", "</", ">", "/", "=", ":", "=>", ":=", "==", "://", " ", "  ", "\t", '"', "'", "\\",
     "\n", "hunter2x", "s3cr3t", "key", "password", "x"]), max_size=6).map("".join)


@st.composite
def _tagged(draw: st.DrawFn) -> str:
    members = draw(st.lists(st.tuples(st.sampled_from(["password", "key", "token", "pwd"]),
                                      _AFTER_NAME), min_size=1, max_size=6))
    unit = "".join(f"<key>{name}{after}</key>\n<string>v{i}x</string>\n"
                   for i, (name, after) in enumerate(members))
    return unit * draw(st.integers(1, 12))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tagged())
@example("<key>password</key>\n<string>hunter2x</string>\n" * 14)  # plist-keys' piece
@example("<key>password</key>\n<string>a</string>\n<key>password \n" * 9)  # a space, then its end
def test_a_piece_of_names_is_read_by_its_shapes_as_by_its_loop(text: str) -> None:
    shaped = generic.find_assignments(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(generic, "_SHAPES", False)
        assert shaped == generic.find_assignments(text)


def test_a_plist_piece_is_read_by_its_shapes() -> None:
    """Red before: ``<key>password</key>``'s ``</`` was taken for a separator's lead that may
    run on past the shape, and the piece fell to the loop."""
    piece = "<key>password</key>\n<string>hunter2x</string>\n" * 14
    assert generic._shaped(piece, generic._Reach(piece), {}) is not None


# -- a loose row's verdict kept in its text ----------------------------------------------------

def _rows_one_at_a_time(text: str) -> list[Span]:
    """``mdtables._loose_rows`` with no verdict kept: each row judged. A row's first cell is
    found as the code reads it since leakmisc's merge (the search led by its line's break,
    the text's first line from its start), so this holds the kept verdicts alone."""
    found: list[Span] = []
    first = mdtables._LOOSE_ROW_AT.match(text)
    for match in [*([first] if first else []), *mdtables._LOOSE_ROW.finditer(text)]:
        name, value = match.group(1), match.group(2)
        if (not mdtables.names_nothing(name) and name_strength(name)
                and not mdtables._describes(name, value)
                and generic.is_credential_value(name, value)):
            found.append(Span(match.start(2), match.end(2), mdtables.CREDENTIAL_FIELD))
    return found


_ROW_PARTS = st.sampled_from([
    "| password | hunter2x |", "| password | The user's password |", "| api_key | a b |",
    "|token|Zx8Qw3Er5Ty7Ui9Op|", "| name | bob |", "   | pwd | s3cr3t |", "    | pwd | s |",
    "x | password | hunter2x |", " \t| password | s |", "| password | ${X} |", "|", "\r", " ",
])
_ROWS = st.lists(_ROW_PARTS, min_size=1, max_size=30).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(_ROWS)
@example("| password | hunter2x |\n" * 5 + "  | password | hunter2x |\nx| password | s |")
def test_loose_rows_are_read_as_one_at_a_time(text: str) -> None:
    assert mdtables._loose_rows(text, 0, len(text), []) == _rows_one_at_a_time(text)


# -- the whole texts, against the code before -------------------------------------------------

@st.composite
def _configs(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["passwords:\n", "api_keys:\n", "tokens:\n", "  secrets:\n"]))
    return head + draw(_LINES) * draw(st.integers(1, 40)) + draw(_ROWS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_configs(), _tagged()))
@example("passwords:\n" + "  - hunter2x\n" * 500)
def test_repeated_entries_are_withheld_as_before(
    code_before_answers: Callable[[str, str], Any], text: str,
) -> None:
    assert redacted("text", text) == code_before_answers("text", text)


# -- a text past ASCII lowered a window at a time ---------------------------------------------

_CASED = st.lists(st.sampled_from(
    ["\u03a3", "\u03c3", "\u03c2", "A", "a", " ", "\n", "'", ".", ":", "\u0301", "\u00ad",
     "İ", "ü", "Ü", "ß", "ǅ", "Ω", "\u2028", "\t", "x", "1", ",", "/", "_", "-", "^", "`", "·"]),
    max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_CASED)
@example("AΣ Σ\nΣA")  # a final sigma's context across a window's end
def test_a_text_lowered_a_window_at_a_time_is_the_text_lowered(text: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(folding, "LOWERED_CHUNK", 3)
        assert folding.lowered(text) == text.lower()


@pytest.mark.parametrize("text", [
    "  - hünter2x\n" * 20_000,  # bench/fuzz_linear.py yaml-plural-long, past ASCII
    "ü" * 200_000,  # one line, no sigma: cut anywhere
    "\u0391\u03a31" * 60_000,  # capital sigmas, a digit after each: cut after one
])
def test_a_long_text_past_ascii_is_lowered_without_a_buffer_of_its_size(text: str) -> None:
    """Red before (no window: the regex passes lowered the text whole, 12 bytes a char)."""
    held = peak(lambda: folding.lowered(text))
    # the lowered copy (1 or 2 bytes a char) and a window's buffer
    assert held < 2.5 * len(text) * (2 if "\u03a3" in text else 1)
