"""A list's repeated lines and a property list's repeated members are judged once each
(issue 23).

Found by ``bench/redact.py --worst yaml-plural-long md-loose-rows plist-keys`` (the fifth
session's table: 214x, 113x and 253x the CPU time of prose) and a profile of each: every
``- hunter2x`` line of a list and every ``| password | hunter2x |`` row was a regex match,
its groups read and its verdict looked up (1.2 us a line), and every property list member
was a name unescaped and judged and a value stripped, unescaped and judged, and each of its
two elements a name judged again. Now the lines of a range where at most half are distinct
are split in C and each distinct one judged alone (``samelines.judge_lines``), a member's
verdict is kept by its text, and an element's name is judged once a piece (none read where
no name withholds).

What is withheld must be what the line-at-a-time reading withholds (differentials over
drawn repeated lines and members, always run), and what the code before withheld
(``test_redact_repeated_entries_cost.py`` with ``ELISION_BEFORE_SRC``, and the classes'
digests).
"""

from __future__ import annotations

import html

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elision.redact import blocks, elements, mdtables, redact_text, samelines
from elision.redact.generic import name_strength
from elision.redact.rules import Span
from support.calls import builtin_calls, python_calls


def _per_entry(text: str) -> tuple[float, float]:
    """A regex match's accessors (``Match.group``, ``start``…) called from Python, and Python
    calls, each over the entries withheld."""
    redact_text(text)  # caches and databases made
    seen, done = builtin_calls(lambda: redact_text(text))
    calls, _ = python_calls(lambda: redact_text(text))
    assert done.withheld
    accessors = sum(n for name, n in seen.items() if name.startswith("Match."))
    return accessors / len(done.withheld), calls / len(done.withheld)


@pytest.mark.parametrize(("text", "accessors", "calls"), [
    # yaml-plural-long: 2.1 accessors and 1.1 calls an entry before, 0.04 and 0.05 now
    ("passwords:\n" + "  - hunter2x\n" * 3000, 0.5, 0.5),
    # md-loose-rows: 4.0 accessors before (0.02 calls), none now
    ("| password | hunter2x |\n" * 3000, 0.5, 0.5),
    # md-table-rows: 3.0 calls an entry before (a row's cells read, each judged), 0.05 now
    ("| name | password |\n|---|---|\n" + "| bob | hunter2x |\n" * 3000, None, 0.5),
    # plist-keys: 11.9 calls an entry before (10.1 with the regex passes), 5.1 now (3.3); its
    # accessors (4.1 before, 2.1 now) are mostly the regex passes' own under that engine
    ("<key>password</key>\n<string>hunter2x</string>\n" * 3000, None, 7),
])
def test_a_repeated_line_or_member_is_not_read_again(
    text: str, accessors: float | None, calls: float,
) -> None:
    got_accessors, got_calls = _per_entry(text)
    assert accessors is None or got_accessors <= accessors
    assert got_calls <= calls


# -- the lines judged once: as each line read in the text -------------------------------------

def _unsplit(mp: pytest.MonkeyPatch, module: object) -> None:
    """Every range read a line at a time, as before."""
    mp.setattr(module, "judge_lines", lambda *args: None)


# A collection's lines, drawn in parts (items, members, metadata, quoted and flow values,
# blank lines, chars past ASCII), a unit of them repeated: the split's range.
_ITEMS = st.sampled_from(["", "- ", "-\t", "- - ", "-"])
_KEYS = st.sampled_from(["", "", "name: ", "api_key: ", "password:", "alice: ", "k" * 97 + ": "])
_VALUES = st.sampled_from([
    "", "hunter2x", "s3cr3t Zx8Q", "Zx8Qw3Er5Ty7Ui9Op", "'s3cr3t'", '"s3cr3t"', "'x", "''",
    "[a, b]", "&anchor", "|", "${X}", "abc def ghi", "h\u00fcnter2x", "a\u2028b", "a\x0bb",
])
_LINE = st.tuples(st.sampled_from(["  ", "    ", "\t", " ", ""]), _ITEMS, _KEYS, _VALUES,
                  st.sampled_from(["", " ", "\t"])).map("".join)
_UNITS = st.lists(_LINE, min_size=1, max_size=5)


#: A block of lines split at once: as the code has it, or a few chars (each line its own
#: block, or a few lines a block: the cuts at line breaks drawn).
_BLOCKS = st.sampled_from([samelines._BLOCK, 1, 12, 40])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_UNITS, st.integers(1, 40), st.integers(0, 3),
       st.sampled_from(["passwords", "tokens", "api_keys", "auth", "cookies"]),
       st.sampled_from(["", "x: y\n", "  - tail\n"]), _BLOCKS)
@example(["  - hunter2x"], 20, 0, "passwords", "", samelines._BLOCK)  # yaml-plural-long's
@example(["  - a", "  - b", "  - c"], 6, 0, "passwords", "", 12)  # 18 lines, 3 distinct
@example(["  - hunter2x"], 20, 0, "passwords", "", 12)  # blocks of two lines
def test_a_collections_lines_judged_once_are_read_as_each(
    unit: list[str], times: int, key_column: int, name: str, after: str, block: int,
) -> None:
    text = "\n".join(unit * times) + "\n" + after
    strength = name_strength(name)
    found: list[Span] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(samelines, "_BLOCK", block)
        read_to = blocks._entries(text, 0, key_column, name, strength, found)
    with pytest.MonkeyPatch.context() as mp:
        _unsplit(mp, blocks)
        each: list[Span] = []
        assert (read_to, found) == (
            blocks._entries(text, 0, key_column, name, strength, each), each)


_ROW_PARTS = st.sampled_from([
    "| password | hunter2x |", "| password | The user's password |", "| api_key | a b |",
    "|token|Zx8Qw3Er5Ty7Ui9Op|", "| name | bob |", "   | pwd | s3cr3t |", "    | pwd | s |",
    "x | password | hunter2x |", "| password | ${X} |", "|", "\r", "", "| pwd | s |\r",
    "| p\u00e4ss | s |", "prose",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ROW_PARTS, min_size=1, max_size=5), st.integers(1, 40), st.data(), _BLOCKS)
@example(["| password | hunter2x |"], 20, None, samelines._BLOCK)  # md-loose-rows' lines
def test_loose_rows_judged_once_are_read_as_each(
    unit: list[str], times: int, data: st.DataObject | None, block: int,
) -> None:
    text = "\n".join(unit * times)
    # A range from the text's start, a line's start or inside a line, to a line's end.
    breaks = [i for i, char in enumerate(text) if char == "\n"]
    start = 0 if data is None else data.draw(st.integers(0, len(text)))
    end = len(text) if data is None else data.draw(st.sampled_from(
        [b for b in [*breaks, len(text)] if b >= start] or [len(text)]))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(samelines, "_BLOCK", block)
        found = mdtables._loose_rows(text, start, end, [])
    with pytest.MonkeyPatch.context() as mp:
        _unsplit(mp, mdtables)
        assert found == mdtables._loose_rows(text, start, end, [])


_CELLS = st.sampled_from(["hunter2x", "", " s3cr3t ", "Zx8Qw3Er5Ty7Ui9Op", "${X}", "a b",
                         "password", "The user's password", "p\u00e4ss"])


@st.composite
def _tables(draw: st.DrawFn) -> str:
    width = draw(st.integers(1, 3))
    header = draw(st.lists(st.sampled_from(["name", "password", "api_key", "note", "pwd"]),
                           min_size=width, max_size=width))
    piped = draw(st.booleans())
    lead, close = ("| ", " |") if piped else ("", "")
    rows = [lead + " | ".join(draw(st.lists(_CELLS, min_size=width, max_size=width))) + close
            for _ in range(draw(st.integers(1, 4)))]
    rows += draw(st.lists(st.sampled_from(["|", "| a", "\r", " | x |", "\u3000| s |"]),
                          max_size=2))
    tail = draw(st.sampled_from(["", "\n", "\nafter", "\n\n| password | s |"]))
    return (lead + " | ".join(header) + close + "\n" + lead + " | ".join(["---"] * width)
            + close + "\n" + "\n".join(rows * draw(st.integers(1, 30))) + tail)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), _BLOCKS)
@example("| name | password |\n|---|---|\n" + "| bob | hunter2x |\n" * 20, 12)  # md-table-rows
@example("| password | x |\n|---|---|\n" + "| bob | hunter2x |\n" * 20 + "| bob |", 40)
def test_a_tables_rows_judged_once_are_read_as_each(text: str, block: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(samelines, "_BLOCK", block)
        found = mdtables.table_spans(text, [])
    with pytest.MonkeyPatch.context() as mp:
        _unsplit(mp, mdtables)
        assert found == mdtables.table_spans(text, [])


# -- a property list's members and elements: as each read -------------------------------------

def _elements_each(text: str) -> list[Span]:
    """``elements.find_elements`` as before: each member's name and value judged, and each
    element's name (no escaped tags drawn)."""
    found: list[Span] = []
    if "</" not in text and "<\\/" not in text:
        return found
    if "</key>" in text:
        for match in elements._PLIST_MEMBER.finditer(text):
            name = html.unescape(match.group(1).strip())
            if name_strength(name):
                elements._judged(text, name, *match.span(3), found)
        elements._plist_containers(text, found)
    for match in elements._ELEMENT.finditer(text):
        name = match.group(1)
        if name_strength(name):
            elements._judged(text, name, *match.span(2 if match.start(2) >= 0 else 3), found)
    return found


_NAMES = st.sampled_from(["password", "key", "api_key", "token", "pwd", "note", " password ",
                          "&#112;assword", "pass&amp;word", "x" * 97])
_TAGS = st.sampled_from(["string", "data", "integer", "real", "password", "secret", "key"])
_TEXTS = st.sampled_from(["hunter2x", "", "  s3cr3t  ", "Zx8Qw3Er5Ty7Ui9Op", "a&amp;b", "${X}",
                          "\n", "the user's password", "<![CDATA[s3cr3t]]>"])
_GAPS = st.sampled_from(["\n", "", " \t\n  ", "\n\n"])


@st.composite
def _members(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(_NAMES, _GAPS, _TAGS, _TEXTS), min_size=1, max_size=4))
    unit = "".join(f"<key>{name}</key>{gap}<{tag}>{value}</{tag}>\n"
                   for name, gap, tag, value in parts)
    noise = draw(st.sampled_from(["", "<dict>", "<key>tokens</key><array>", "</key>", "<"]))
    return (unit + noise) * draw(st.integers(1, 6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_members())
@example("<key>password</key>\n<string>hunter2x</string>\n" * 14)  # plist-keys' piece
@example("<key>password</key><password>s3cr3t</password>\n" * 3)  # an element named so
def test_members_kept_by_their_text_are_read_as_each(text: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(elements, "_MEMBERS_KEPT", {})
        first = elements.find_elements(text)  # each member judged, its verdict kept
        assert first == _elements_each(text)
        assert elements.find_elements(text) == first  # read from the kept verdicts
