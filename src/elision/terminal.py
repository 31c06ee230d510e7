"""Text from logs, servers and bodies, made safe to show a person on a terminal.

A tool name, a server's stderr or a result body is data someone else wrote. Printed as it is,
an ESC starts a terminal command (a CSI that erases the line above, an OSC 52 that writes the
clipboard), a ``\\r`` or ``\\b`` writes over what came before, and a bidi override (U+202E)
shows the text in another order than it is. Every human-facing output of elision goes through
this module: each such character is written as a visible escape (``\\x1b``, ``\\r``,
``\\u202e``) and printable text is left as it is. What reaches a markup parser (rich) goes as
:class:`rich.text.Text`, never as markup.

Output for programs (``--json``, a body written to a pipe or a file) stays byte-exact: that is
where exactness is owed, and escaping there would change what a digest was computed over.
"""

from __future__ import annotations

import re
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

#: Characters that move the cursor, start a terminal command, or reorder what follows:
#: C0 controls, DEL, C1 controls (U+0085 NEL and U+009B CSI among them), the bidi embeddings,
#: overrides, isolates and marks, the line and paragraph separators, and lone surrogates (which
#: cannot be written as UTF-8 at all).
_UNSAFE = (
    "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
)
_ONE_LINE = re.compile(f"[{_UNSAFE}]")
#: In a text of many lines, a line break and a tab stay what they are, and so does the
#: ``\r`` of a CRLF line end (it returns to a column the line break leaves anyway).
_MANY_LINES = re.compile(
    "\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` as one line a person can read: every control, bidi or separator character is
    written as its escape (``\\x1b``, ``\\n``, ``\\u202e``); printable text is unchanged."""
    return _ONE_LINE.sub(_escape, text)


def _escape_line(match: re.Match[str]) -> str:
    # A lone \r ends a line for elision's shaper (lines= counts it): it is shown, and the
    # line is broken there, so what follows is neither lost nor written over the line.
    return "\\r\n" if match.group() == "\r" else _escape(match)


def visible_lines(text: str) -> str:
    """``text`` as lines a person can read: line breaks, tabs and CRLF line ends stay; every
    other control, bidi or separator character is written as its escape, and a lone ``\\r``
    as ``\\r`` and a line break (elision counts it as a line end)."""
    return _MANY_LINES.sub(_escape_line, text)


def json_visible(text: str) -> str:
    """JSON ``text`` with each control, bidi or separator character written as a JSON
    escape (``\\u001b``, ``\\u202e``): the same value to a parser, safe on a terminal.
    Such characters can only stand inside strings, so every one is escaped where it is."""
    return _ONE_LINE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def safe_text(value: object) -> Text:
    """``value`` as a rich :class:`~rich.text.Text` of one visible line: rich never reads it
    as markup (a tool named ``[/]`` or ``[bold]`` is shown as it is spelled)."""
    from rich.text import Text

    return Text(visible(str(value)))


def is_terminal(stream: IO[str] | IO[bytes]) -> bool:
    """Whether ``stream`` is a terminal a person reads (not a pipe or a file)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
