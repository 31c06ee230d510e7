"""The one helper every human-facing output goes through (issue 25: operator surfaces).

Found by planting hostile names in a log and a config: ESC and CSI sequences hid rows, OSC 52
wrote the clipboard, ``\\r`` and ``\\b`` wrote over text, U+202E showed it reversed.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from elision.terminal import safe_text, visible, visible_lines

#: What must never reach a terminal as it is: C0, DEL, C1, bidi controls, separators.
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def _unsafe(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI or code in (0x2028, 0x2029)
            or 0xD800 <= code <= 0xDFFF)


HOSTILE = [
    # (name, what it holds)
    ("evil\x1b[2K\x1b[1Aname", "CSI erase line and cursor up: hides the row above"),
    ("x\x1b]52;c;aGVsbG8=\x07y", "OSC 52: writes the reader's clipboard"),
    ("x\x9b2Jy", "C1 CSI, one byte"),
    ("ok\rEVIL", "carriage return: EVIL overwrites ok"),
    ("abc\b\b\bXYZ", "backspaces: XYZ overwrites abc"),
    ("\u202eexe.txt", "right-to-left override: shows reversed"),
    ("a\u2066b\u2069c", "bidi isolate"),
    ("two\nlines", "a line break inside one table cell"),
    ("nul\x00byte", "NUL"),
    ("del\x7f", "DEL"),
    ("lone\ud800surrogate", "cannot be written as UTF-8"),
]


@pytest.mark.parametrize(("name", "why"), HOSTILE, ids=[why for _, why in HOSTILE])
def test_a_hostile_name_is_shown_with_every_control_visible(name: str, why: str) -> None:
    shown = visible(name)
    assert not any(_unsafe(c) for c in shown), why
    assert shown.isprintable()
    shown.encode("utf-8")  # a lone surrogate no longer breaks the write


@pytest.mark.parametrize(("text", "expected"), [
    ("a\x1bb", "a\\x1bb"),
    ("a\rb", "a\\rb"),
    ("a\nb\tc", "a\\nb\\tc"),
    ("\u202eab", "\\u202eab"),
    ("\x9b", "\\x9b"),
    ("[bold]x[/]", "[bold]x[/]"),  # markup is text here; rich gets it as Text
])
def test_visible_spells_each_escape(text: str, expected: str) -> None:
    assert visible(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("line 1\nline 2\n", "line 1\nline 2\n"),  # line breaks stay
    ("a\tb", "a\tb"),  # so do tabs
    ("crlf\r\nend", "crlf\r\nend"),  # a CRLF line end overwrites nothing
    ("header\rspoof\n", "header\\r\nspoof\n"),  # a lone \r does: shown, line broken
    ("x\x1b[31mred\x1b[0m", "x\\x1b[31mred\\x1b[0m"),
])
def test_visible_lines_keeps_lines_and_shows_the_rest(text: str, expected: str) -> None:
    assert visible_lines(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_no_control_bidi_or_separator_survives(text: str) -> None:
    for out in (visible(text), visible_lines(text)):
        left = [c for c in out if _unsafe(c) and c not in "\n\t\r"]
        assert not left, f"{left!r} survived in {out!r}"
    assert not any(_unsafe(c) for c in visible(text))
    # a \r may stay only as the start of a CRLF
    lines = visible_lines(text)
    assert all(lines[i + 1:i + 2] == "\n" for i, c in enumerate(lines) if c == "\r")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"))))
def test_printable_text_round_trips(text: str) -> None:
    if any(ord(c) in _BIDI for c in text):
        return  # bidi controls are format characters (Cf), escaped on purpose
    assert visible(text) == text
    assert visible_lines(text) == text


def test_every_escaped_character_is_a_control_or_a_reordering_one() -> None:
    """Nothing printable is escaped by accident: each escaped code point is Cc, Cs, Zl, Zp or
    one of the bidi controls."""
    for code in range(0x3000):
        char = chr(code)
        if visible(char) != char:
            assert (unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp")
                    or code in _BIDI), hex(code)


@pytest.mark.parametrize("name", ["markup[/]x", "[bold]loud[/bold]", "[link=http://e]x[/link]"])
def test_safe_text_is_never_read_as_markup(name: str) -> None:
    console = Console(width=200, record=True, color_system=None)
    console.print(safe_text(name))
    assert console.export_text().strip() == name


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8))
def test_json_visible_is_the_same_value_and_safe(value: object) -> None:
    """`audit show --json`/`--acs` on a terminal: the same JSON value, nothing a terminal
    obeys (orjson and JCS write C1 controls and U+202E raw)."""
    import orjson

    from elision.terminal import json_visible

    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # a lone surrogate orjson refuses
        return
    shown = json_visible(text)
    assert orjson.loads(shown) == value
    assert not any(_unsafe(c) for c in shown)
