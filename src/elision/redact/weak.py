"""Triggers whose match alone names nothing, counted towards the density bound only where
confirmed.

Two of the trigger literals stand for a construct whose credential's name is elsewhere: a
Markdown table's delimiter row (``\\n|---|``: the table's header, or a key/value row's first
cell, names the credential) and curl's ``-u`` closing a group of switches (``sku ``: the
group's ``-`` makes it curl's). A text of one-row tables, some 100 a 4 KB, or of the words
``haiku`` and ``tofu`` held more than :data:`~elision.redact.triggers.DENSE_LIMIT` of them a
window and was withheld whole as credential-dense, though nothing in it is a credential. Each
still makes its line a trigger (the judge reads it as before); it counts towards a window's
density only where :func:`counts` says the construct may hold a credential: a table whose
header or rows (read :data:`_REACH` chars each way at most, else counted) hold a name's core
(:data:`~elision.redact.generic.NAME_CORES`, what every name ``name_strength`` accepts
holds) or a char past ASCII (a look-alike letter may spell one), and a group that opens with
a ``-`` after white space, as curl's flag is read (:mod:`elision.redact.commands`). A text of
such tables or commands that name credentials is dense as before.

Each is asked only of a window about to turn dense (the affixed names' way,
:mod:`elision.redact.triggers`), each match once, and reads the chars around it in C; a
window with no ``-``, no core and nothing past ASCII near it is told at once (:func:`near`).

A name's literal closed by its quote (``password"``, ``"tokens"``) is counted the same way,
only where :func:`quoted_counts` says something may be assigned to it: an NDJSON log of
``{"m": "tokens"}`` lines was withheld whole as credential-dense.
"""

from __future__ import annotations

import re
from typing import Any

from elision.redact.commands import CURL_GROUPS, CURL_SWITCHES
from elision.redact.generic import NAME_CORES, TABLE_PREFIXES, TABLE_ROWS

#: Every weak literal (as the trigger search writes them: lower case).
LITERALS = frozenset(TABLE_ROWS) | CURL_GROUPS
#: The table literals that are a line's start alone: each a match only on a delimiter row
#: (:func:`delimiter_row`).
PREFIXES = frozenset(TABLE_PREFIXES)
#: How far a table's header is looked for before its delimiter row, and its rows after it:
#: a table that reaches further counts (fail closed). A table dense enough to matter is
#: some 40 chars.
_REACH = 512
#: The longest weak literal.
_LONGEST = max(len(lit) for lit in LITERALS)
#: curl's flag as :data:`~elision.redact.commands._CURL_FLAG` reads it, up to its ``u`` and
#: the space the literal ends with (any case: the regex passes read a lowered copy).
#: Its white space may be a JSON serialization's tab (``\\t``), which the walk decodes.
_CURL_GROUP = re.compile(
    rb"(?i)(?:[ \t]|\\t)-[" + re.escape(CURL_SWITCHES.encode()) + rb"]{2,8}u \Z")
#: The most chars the group reads back from the literal's end.
_CURL_BACK = 13
#: A name's core or a byte past ASCII, any case.
_NAMING = re.compile(
    rb"(?i)" + b"|".join(core.encode() for core in NAME_CORES) + rb"|[\x80-\xff]")
#: What a weak literal near it may be confirmed by, besides a byte past ASCII: curl's ``-``
#: after white space, a name's core (lower case). A window with none near it has none that
#: counts (told in C: a search for each, a regex alternation of them was 1.5 ms a window).
_NEAR = (b" -", b"\t-", b"\\t-", *(core.encode() for core in NAME_CORES))
#: A line break, plain or as a JSON string escapes it.
_BREAK = re.compile(rb"\n|\\n")


def near(data: Any, start: int, end: int) -> bool:
    """Whether a weak literal in ``data[start:end]`` may count: :func:`counts` is ``False``
    for every one where this is (one search in C of a window and the reach around it, where
    :func:`counts` is a Python call a literal: 100 a 4 KB of ``haiku``)."""
    # A literal that ends in the window starts a literal's length before it at most.
    chunk = _bytes(data[max(0, start - _REACH - _LONGEST):end + _REACH])
    if not chunk.isascii():
        return True
    low = chunk.lower()
    return any(needle in low for needle in _NEAR)


def counts(data: Any, start: int, end: int) -> bool:
    """Whether the weak literal at ``data[start:end]`` (bytes, a memoryview of them, or the
    ``str`` a regex pass read) counts towards its window's density: a switch group (its
    literal ends with a space) where curl's ``-`` opens it, a delimiter row where its table
    may name a credential (:func:`_table_counts`)."""
    if data[end - 1] in (0x20, " "):
        return _CURL_GROUP.search(_bytes(data[max(0, end - _CURL_BACK):end])) is not None
    return _table_counts(data, start, end)


def _table_counts(data: Any, start: int, end: int) -> bool:
    """Whether the table whose delimiter row's literal is ``data[start:end]`` (its line break
    first) may name a credential: its header line (back to the break before it) or its
    delimiter row and first row (on to the second break after it) hold a name's core or a
    char past ASCII. A longer table's other rows are judged as before, where they are not
    dense (a table of many rows is one trigger, and always was judged whole). A literal's
    line that is no delimiter row counts for nothing: the literals of a wide first cell or
    of two spaces (``\n`` and 33 dashes, ``\n--  ``) open a ruled line or a comment too,
    and a log of them near a name's core was dense."""
    if not delimiter_row(data, start):
        return False
    lo = max(0, start - _REACH)
    before = _bytes(data[lo:start])
    plain, escaped = before.rfind(b"\n"), before.rfind(b"\\n")
    opens = max(plain + 1, escaped + 2 if escaped >= 0 else 0)
    if opens == 0 and lo > 0:
        return True  # a header longer than the reach: counted
    if _NAMING.search(before, opens) is not None:
        return True
    after = _bytes(data[end:end + _REACH])
    first = _BREAK.search(after)
    second = None if first is None else _BREAK.search(after, first.end())
    return _NAMING.search(after, 0, len(after) if second is None else second.start()) is not None


#: A delimiter row's line: only ``|``, ``-``, ``:`` and white space (a tab a JSON string's
#: ``\\t`` too), a ``|`` in it (a line of dashes alone is a rule), up to its end (a break,
#: plain or escaped, a JSON string's escape, the data's end). Possessive: each line is read
#: once; a class's run between escaped tabs, where an alternation a char was a third more
#: on a MB of ruled lines.
_DELIMITER_ROW = re.compile(
    rb"(?=[ \t:-]*+(?:\\t[ \t:-]*+)*+\|)[ \t|:-]*+(?:\\t[ \t|:-]*+)*+(?:[\r\n\\]|\Z)")
_DELIMITER_ROW_STR = re.compile(_DELIMITER_ROW.pattern.decode())


def delimiter_row(data: Any, start: int) -> bool:
    """Whether the line after the break at ``data[start]`` (plain or escaped; bytes, a
    memoryview of them, or a ``str``) is a delimiter row: a table literal's match whose line
    is none is a ruled line or a comment (``-----…``, ``--  note``), no table's."""
    opens = start + (1 if data[start] in (0x0A, "\n") else 2)
    row = _DELIMITER_ROW_STR if isinstance(data, str) else _DELIMITER_ROW
    return row.match(data, opens) is not None


def _bytes(chunk: Any) -> bytes:
    """A short slice as bytes: a ``str``'s encoded, a memoryview's copied."""
    return chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else bytes(chunk)


def table_pattern() -> str:
    """The regex passes' search for :data:`~.generic.TABLE_ROWS` (a lowered copy): each
    literal from its first char after the break (a row's ``|``, or the ``-`` or ``:`` of a
    delimiter row that does not open with one), so its position is on the delimiter row's
    line, as hyperscan's (a literal's last byte) is; grouped by that char, so the search
    stops only at one. Each literal is matched whole: an empty rest after a ``|`` matched
    every row's opening ``|``, and every row counted."""
    rests: dict[tuple[str, bool], set[str]] = {}
    indents: dict[tuple[str, bool], set[str]] = {}
    for lit in TABLE_ROWS:
        br = "\\n" if lit.startswith("\\n") else "\n"
        rest = lit[len(br):]
        # An indented row's literal from its first char after the indent, the indent looked
        # behind with the break: a space or a tab first was a stop at every one of a text's,
        # and a group an indent a look-behind more at each "|" (md-small-tables 1.4x).
        indent = _INDENT.match(rest).group()  # type: ignore[union-attr]
        rest = rest[len(indent):]
        key = (rest[0], lit in PREFIXES)
        rests.setdefault(key, set()).add(rest[1:])
        indents.setdefault(key, set()).add(indent)
    alternatives = []
    for (first, prefix), tails in sorted(rests.items()):
        c = re.escape(first)
        behind = "|".join(f"(?<={re.escape(br + indent)}{c})"
                          for indent in sorted(indents[first, prefix], key=len)
                          for br in ("\n", "\\n"))
        ordered = sorted(tails, key=len, reverse=True)
        # A line's start alone matches only on a delimiter row (:func:`delimiter_row`).
        ahead = "" if not prefix else _ROW_REST if first == "|" else _ROW_PIPE_AHEAD
        alternatives.append(
            f"{c}(?:{behind})(?:{'|'.join(re.escape(t) for t in ordered)}){ahead}")
    return "|".join(alternatives)


#: The rest of a delimiter row's line after a prefix's match: after a ``|`` (the row's own), and
#: where none is yet (one must follow).
_ROW_REST = r"(?=[ \t|:-]*+(?:\\t[ \t|:-]*+)*+(?:[\r\n\\]|\Z))"
_ROW_PIPE_AHEAD = (r"(?=[ \t:-]*+(?:\\t[ \t:-]*+)*+\|[ \t|:-]*+(?:\\t[ \t|:-]*+)*+"
                   r"(?:[\r\n\\]|\Z))")
#: A delimiter row's indent: spaces and tabs, a tab as a JSON string escapes it too.
_INDENT = re.compile(r"(?:[ \t]|\\t)*")


def curl_group_pattern() -> str:
    """The regex passes' search for :data:`~.commands.CURL_GROUPS` where one may count, on
    a lowered copy: the whole group from its ``-`` after white space, or after a JSON
    serialization's tab (``\\t``: a walked string's ``curl\\t-sku`` was no trigger)."""
    switches = re.escape("".join(sorted(set(CURL_SWITCHES.lower()))))
    return f"-(?:(?<=[ \\t]-)|(?<=\\\\t-))[{switches}]{{2,8}}u "


def table_match_counts(target: Any, match: re.Match[Any]) -> bool:
    """:func:`counts` of a match of :func:`table_pattern` (it starts right after its break)."""
    at = match.start()
    # back over an indented row's indent (:func:`table_pattern` looked behind it)
    while at and target[at - 1:at] in _INDENTS:
        at -= 2 if target[at - 2:at] in _ESCAPED_TABS else 1
    start = at - 1 if target[at - 1:at] in ("\n", b"\n") else at - 2
    return counts(target, start, match.end())


#: An indent's chars (a ``t`` of an escaped tab's, read with its backslash), as a ``str``'s
#: and a ``bytes``' slices are.
_INDENTS = frozenset({" ", "\t", "t", b" ", b"\t", b"t"})
_ESCAPED_TABS = frozenset({"\\t", b"\\t"})


#: The last chars of a name's literal that close it as a quoted string (``password"``,
#: ``"tokens"``, ``password'``, a JSON-in-JSON ``password\\`` before its escaped quote).
QUOTE_ENDS = frozenset('"\'\\')
#: The same as chars and as the ints a ``bytes`` target gives.
_QUOTE_ENDS_BOTH = QUOTE_ENDS | frozenset(ord(c) for c in QUOTE_ENDS)
#: What after a quoted name closes its member or its item with nothing assigned: a JSON
#: value's end (``{"m": "tokens"}``, ``{"field": "password", "n": 3}``), a line's end (plain
#: or escaped), the text's end. Any other char may assign it (``:``, ``=``, ``=>``, a bare
#: value after a space) and it counts. Read from a slice of :data:`_AFTER` bytes, longer than
#: the spaces it skips, so its ``\Z`` is the data's end.
_CLOSED = re.compile(rb'[ \t]{0,8}(?:[,})\]\r\n]|\\[nr]|\Z)')
_AFTER = 10
#: The escaped quote a literal that ends with a backslash is closed by, JSON-in-JSON deep.
_ESCAPED_QUOTE = re.compile(rb'\\{0,64}["\']')
#: A pair's name (``{"name": "DB_PASSWORD", "value": …}``, :mod:`elision.redact.pairs`): a
#: key that ends as a pair's name key does, then the quoted name. Its value may come before
#: it (``{"value": …, "name": "password"}``), so such a name counts however it ends. Any
#: case and any key that ends so (``hostname``): a superset of the pairs' own spellings.
_PAIR_NAME = re.compile(
    rb'(?i)(?:name|key|header)\\{0,16}["\'][ \t\r\n]{0,8}:[ \t\r\n]{0,8}\\{0,16}["\']'
    rb'[^"\'\r\n]{0,96}\Z')
#: The same, of a lowered copy (``bytes.lower``, ASCII as a bytes pattern's ``(?i)`` is: the
#: same matches at the same offsets): a caseless alternation is tried at every byte, a
#: lowered one skips to its first letters in C (4-5x quicker).
_PAIR_NAME_LOWERED = re.compile(_PAIR_NAME.pattern.removeprefix(b"(?i)"))
#: How far back from a name's closing quote its pair's name key is looked for: the reach of
#: :data:`_PAIR_NAME`.
_PAIR_BACK = 6 + 16 + 1 + 8 + 1 + 8 + 16 + 1 + 96


def quoted_counts(data: Any, end: int, *, paired: bool = True) -> bool:
    """Whether the name's literal that ends at ``data[end - 1]``, a closing quote (or the
    backslash of an escaped one), counts towards its window's density: something may be
    assigned to it after its quote, or it is a pair's name. A name that only ends a JSON
    value (``{"m": "tokens"}``: 3,000 NDJSON lines of them were withheld whole) is a
    trigger still, its line judged as before, but no credential's candidate of its own.
    ``paired=False``: no pair's name key is near (:func:`pair_keys_near`), none is looked
    for."""
    at = end
    if data[end - 1] in (0x5C, "\\"):
        escaped = _ESCAPED_QUOTE.match(_bytes(data[end:end + 66]))
        if escaped is None:
            return True
        at = end + escaped.end()
    # A buffer's bytes are matched where they are (a slice's copy a name was a fifth of the
    # check); a regex pass's str a slice encoded.
    closed = (_CLOSED.match(data, at) if not isinstance(data, str)
              else _CLOSED.match(_bytes(data[at:at + _AFTER])))
    if closed is None:
        return True
    return paired and pair_form_lead(data, end) >= 0


#: A pair's name key as :data:`_PAIR_NAME` opens (its key, quote and colon), of a lowered
#: copy; and the words it opens with, looked for first.
_PAIR_KEY_LOWERED = re.compile(rb'(?:name|key|header)\\{0,16}["\'][ \t\r\n]{0,8}:')
_PAIR_WORDS = (b"name", b"key", b"header")


def pair_keys_near(data: Any, start: int, end: int) -> bool:
    """Whether a quoted name's literal that ends in ``data[start:end]`` may be a pair's name
    (:func:`pair_form_lead`): ``False`` is certain, where no pair's name key is in it or in
    the reach before it. One search in C a window, where :func:`pair_form_lead` is one a
    name: an NDJSON log of names as values (``{"field": "password", "n": 3}``) asked it of
    each, a third of its trigger search's match handling (issue 23)."""
    low = _bytes(data[max(0, start - 1 - _PAIR_BACK):end]).lower()
    if not any(word in low for word in _PAIR_WORDS):
        return False  # told in C: the search below is tried at each such word's first letter
    return _PAIR_KEY_LOWERED.search(low) is not None


#: What may follow a quoted name's closing quote in a dense window's form: a char that
#: assigns it (not one :data:`_CLOSED` skips or ends on, nor an escape's backslash).
_NOT_ASSIGNING = frozenset(b' \t,})]\r\n\\')


def quoted_form_tail(data: Any, end: int) -> int:
    """How many bytes past the name's literal that ends at ``data[end - 1]`` (its quote, or
    the backslash of an escaped one) reach the char after its quote, that char included,
    where that char assigns it (``password":``); -1 where none such follows. Every copy of
    the literal and those bytes is a match :func:`quoted_counts` counts, so a count of their
    copies tells a dense window's stretch goes on (a count of the literal alone would count
    the names it does not)."""
    at = end
    if data[end - 1] == 0x5C:
        escaped = _ESCAPED_QUOTE.match(_bytes(data[end:end + 66]))
        if escaped is None:
            return -1
        at = end + escaped.end()
    if at >= len(data) or data[at] in _NOT_ASSIGNING:
        return -1
    return at + 1 - end


def pair_form_lead(data: Any, end: int) -> int:
    """Where a dense window's form of a pair's quoted name starts (the quoted name's literal
    ends at ``data[end - 1]``): at its pair's name key (``"name":"api_key"``); -1 where none
    is before it. Every copy of those bytes is a match :func:`quoted_counts` counts (its
    pair's name is in them), so a text of pairs' lines is counted in C as it was before
    quoted names with nothing assigned stopped counting (text-pairs: 30 -> 56 ms a MB)."""
    start = max(0, end - 1 - _PAIR_BACK)
    found = _PAIR_NAME_LOWERED.search(_bytes(data[start:end - 1]).lower())
    return -1 if found is None else start + found.start()


def quoted_match_counts(target: Any, match: re.Match[Any]) -> bool:
    """:func:`quoted_counts` of a match of a name's pass (the regex passes,
    :func:`elision.redact.rules.anchored`) that ends with a closing quote (or the backslash
    of an escaped one); any other match of the pass counts."""
    end = match.end()
    return target[end - 1] not in _QUOTE_ENDS_BOTH or quoted_counts(target, end)
