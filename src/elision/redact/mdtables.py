"""Markdown tables: a column named like a credential, and a key/value table's row.

A pipe table's header names its columns as a CSV's does (:mod:`elision.redact.columns`):
``| name | password |`` over ``|---|---|`` over ``| bob | S |``. Each header cell is judged
once (:func:`~elision.redact.generic.name_strength`), and each cell under a credential name as
that JSON member's value would be (:func:`~elision.redact.generic.is_credential_value`). A
table of two columns is also read as keys and values: a row whose first cell names a
credential (``| password | S |``) has its second judged so. A withheld cell's text (its
white space kept) becomes a ``credential-field`` stub: the stub holds no ``|``, so the table
keeps its rows and columns.

A table is found by its delimiter row (``|---|``, ``| :--- |``: a ``|`` then a ``-`` or a
``:``), its header the line before it and its rows the lines after it that hold a ``|``. A
whole text is read so (as a CSV is), a JSON string too (its own line breaks, walked; or
escaped, ``\\n``, at any depth of JSON-in-JSON, in a whole text that holds the JSON or a
walked string that does). A table whose delimiter row does not open with a ``|`` (``a | b``
over ``--|--``) has rows that need not either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from itertools import chain

from elision._lazyre import lazy_compile
from elision.redact.columns import CREDENTIAL_FIELD, SpanSink
from elision.redact.generic import (
    PROSE_WORDS,
    WORD_EDGE,
    is_credential_value,
    name_shape,
    name_strength,
    names_nothing,
    words,
)
from elision.redact.kept import LONGEST, keep
from elision.redact.rules import make_span
from elision.redact.samelines import FEWEST, judge_lines

#: How a delimiter row's first cell opens: a ``|``, white space, then ``-`` or ``:``.
_DELIMITER_OPENING = lazy_compile(r"\|[ \t]{0,64}[-:]")
#: A delimiter row: ``|``, ``-``, ``:`` and white space alone (its ``|-`` found already);
#: told in C, where a set of the line's chars read all of a long line (``x |- `` a MB).
_DELIMITER_ROW = lazy_compile(r"[ \t|:-]*\r?")
_PIPED = lazy_compile(r"[ \t]*\|")
_DELIMITER_OPENING_BYTES = lazy_compile(rb"\|[ \t]{0,64}[-:]")


def body_may_hold_tables(body: bytes) -> bool:
    """Whether a UTF-8 ``body`` may hold a pipe table's delimiter row or a credential's row
    outside a table, its line break plain or escaped (a JSON text's string); ``False`` is
    certain (a ``|`` searched in C, then the opening of a delimiter's cell, then such a
    row)."""
    return b"|" in body and (
        _DELIMITER_OPENING_BYTES.search(body) is not None
        or (_ROW_OPENING_BYTES.search(body) is not None
            and _LOOSE_ROW_BYTES.search(body) is not None)
        or (body[:_ROW_INDENT + 1].lstrip(b" ")[:1] == b"|"
            and _LOOSE_ROW_AT_BYTES.match(body) is not None)
        or (b"\\n" in body and _ESCAPED_ROW_BYTES.search(body) is not None))


#: White space in a delimiter row as a JSON string writes it: a tab is ``\\t`` (a run of
#: backslashes before ``t`` a level of JSON-in-JSON down and so on; ``---\\t| ---`` was
#: shown by ``redact_text`` of the JSON text).
_ESCAPED_GAP = r"(?:[ \t]|\\++t)"
#: A delimiter row's opening as a JSON string writes it, its line break escaped (``\\n|-``,
#: ``\\\\n|-`` a level of JSON-in-JSON down and so on), or a row that does not open with a
#: ``|`` (``\\n--- | ---``, ``\\n:--|``).
_ESCAPED_DELIMITER = lazy_compile(
    rf"\\n(?:\|{_ESCAPED_GAP}{{0,64}}[-:]|{_ESCAPED_GAP}{{0,64}}:?-++:?{_ESCAPED_GAP}{{0,64}}\|)")
#: A key/value row outside a table so escaped (``\\n| password | S |``): its two cells' first
#: (a name) closed, as :data:`_ROW_SOURCE` opens.
_ESCAPED_ROW = lazy_compile(r"\\n {0,3}\|[ \t]*+[A-Za-z0-9_-][A-Za-z0-9_.-]{0,95}+[ \t]*+\|")
_ESCAPED_ROW_BYTES = lazy_compile(_ESCAPED_ROW.pattern.encode())
#: What the lined copy reads as a line break: an escaped one at any depth of JSON-in-JSON (a
#: run of backslashes before ``n``: 2**(k-1) k levels down), a ``\\r`` or a ``\\t`` so (as
#: spaces: a tab in a delimiter row's spacing is white space there), a
#: quote that opens a string on a ``|``, escaped at any depth (``"|``, ``\\"|``, ``\\\\\\"|``),
#: and one that closes the table's string or one around it (``S"}``, ``S\\"}"``: a last row
#: with no ``|`` after its last cell read the quote and the brace as its value). Each run
#: read possessively and replaced by as many chars: the copy's offsets are the text's.
_ESCAPED_BREAK = lazy_compile(r'\\++[nrt]|\\*+"(?=[|,}\]:\s]|\Z)')


#: A quote escaped once, and a bare one, that ends a string (:func:`_lined_flat`).
_ESCAPED_CLOSE = lazy_compile(r'\\"(?=[,}\]:\s]|\Z)')
_BARE_CLOSE = lazy_compile(r'(?<!\\)"(?=[,}\]:\s]|\Z)')


def _lined_flat(text: str) -> str:
    """:func:`escaped_table_spans`' copy of a text with no ``\\\\`` (so no JSON-in-JSON: each
    run is one backslash), made in C: the same copy its regex makes with a Python call an
    escape (a fifth of judging a MB of JSON lines that each hold a table)."""
    # The quotes first: what follows each is the text's, not a break the copy made (NULs,
    # which the text holds none of, stand for the escaped ones' spaces meanwhile).
    lined = _BARE_CLOSE.sub("\n", _ESCAPED_CLOSE.sub("\0\0", text)).replace("\0", " ")
    return (lined.replace("\\r", "  ").replace("\\t", "  ").replace("\\n", " \n")
            .replace('\\"|', " \n|").replace('"|', "\n|"))


def escaped_table_spans(
    text: str, into: SpanSink, unread: Sequence[tuple[int, int]] = (),
) -> SpanSink:
    """:func:`table_spans` of the tables that JSON strings in ``text`` hold with their line
    breaks escaped (``{"text": "| name | password |\\n|---|---|\\n| bob | S |"}`` in a log),
    at any depth of JSON-in-JSON: read in a copy of the same length where each escaped line
    break is spaces and a line break, each ``\\r`` spaces, and a quote that opens a string on
    a ``|`` or closes one a line break, so each row is a line of its own. Only where such a
    delimiter row is, or a key/value row outside a table (``\\n| password | S |``). The
    copy keeps the text's line breaks, so ``unread`` holds whole lines of it too
    (:func:`table_spans`)."""
    if "\\n" not in text:
        return into  # told in C
    found = _ESCAPED_DELIMITER.search(text) or _ESCAPED_ROW.search(text)
    if found is None:
        return into
    if "\\\\" not in text and "\0" not in text:
        return table_spans(_lined_flat(text), into, unread)
    start = found.start()  # the break's backslash: the run before it is the break's too
    while start and text[start - 1] == "\\":
        start -= 1
    return table_spans(_lined(text, found.start() + 1 - start), into, unread)


#: Pieces of :func:`_lined`'s copy joined at a time.
_PIECES = 4096


def _lined(text: str, depth: int) -> str:
    """:func:`escaped_table_spans`' copy, its table's line breaks escaped with ``depth``
    backslashes. A quote that closes the table's string is written with one backslash fewer
    (``"`` beside ``\\n``, ``\\"`` beside ``\\\\n``); one inside a cell with more (``\\"``,
    ``\\\\\\"``): a cell's quote before a ``,`` is no row's end."""

    # Joined a few thousand pieces at a time: ``re.sub``'s list of a piece an escape (and a
    # str each) was 14x a MB of JSON-in-JSON tables at its peak.
    chunks: list[str] = []
    pieces: list[str] = []
    copied = 0
    for match in _ESCAPED_BREAK.finditer(text):
        start, end = match.span()
        size = end - start
        if text[end - 1] in "rt" or (text[end - 1] == '"' and size > depth
                                    and text[end:end + 1] != "|"):
            pieces += (text[copied:start], " " * size)
        else:
            pieces += (text[copied:start], " " * (size - 1), "\n")
        copied = end
        if len(pieces) >= _PIECES:
            chunks.append("".join(pieces))
            pieces.clear()
    pieces.append(text[copied:])
    chunks.append("".join(pieces))
    del pieces
    return "".join(chunks)


def table_spans(
    text: str, into: SpanSink, unread: Sequence[tuple[int, int]] = (),
) -> SpanSink:
    """``into``, with the spans of the cells of ``text``'s pipe tables that a credential's
    name withholds added in order.

    ``unread``: the stretches of whole lines withheld whole (``(start, end)``, in order, none
    overlapping: a text's credential-dense stretches), whose own span merges away any cell's
    in them. A table whose delimiter row is in one is read only where it may reach past it:
    the scan goes on from the stretch's last line that holds no ``|`` (no row of any table,
    so every table before it has ended), and reads none of the tables before that line. Some
    words of a span added inside a stretch are harmless; one outside is what the whole scan
    gives."""
    if "|" not in text:
        return into  # told in C: no row
    if "-" not in text:
        return _loose_rows(text, 0, len(text), into)  # told in C: no delimiter row
    pos = 0
    size = len(text)
    loose = 0  # where the text outside the tables found resumes
    skips = _Skips(text, unread) if unread else None  # none: a table no call of its own
    while pos < size:
        opening = _DELIMITER_OPENING.search(text, pos)
        if opening is None:
            break
        at = opening.start()
        start = text.rfind("\n", 0, at) + 1
        end = _line_end(text, at)
        if start == 0 or _DELIMITER_ROW.fullmatch(text, start, end) is None:
            pos = end + 1
            continue
        # ``a | b`` over ``--|--``: a table whose rows need not open with a pipe.
        piped = _PIPED.match(text, start) is not None
        head_start = text.rfind("\n", 0, start - 1) + 1
        resume, first = (0, 0) if skips is None else skips.past(start, end)
        if resume:
            # The lines before the stretch that no table holds are read as before; the
            # table's header (where it is the line before the stretch) is no row of them.
            if loose < min(head_start, first):
                _loose_rows(text, loose, min(head_start, first), into)
            pos = loose = resume
            continue
        header = _cells(text, head_start, start - 1, piped)
        if loose < head_start:
            _loose_rows(text, loose, head_start, into)
        loose = _rows(text, end + 1, header, into, piped)
        pos = loose
    if loose < size:
        _loose_rows(text, loose, size, into)
    return into


#: The most lines looked back over, from a stretch's end, for one that holds no ``|``: a
#: stretch that ends inside a long table is read as the text around it is.
_LOOK_BACK = 64


class _Skips:
    """Where :func:`table_spans` may go on from past a table in an unread stretch: each
    stretch's last line that holds no ``|``, looked for once, the stretches met in order."""

    def __init__(self, text: str, unread: Sequence[tuple[int, int]]) -> None:
        self.text = text
        self.unread = unread
        self.at = 0  # the first stretch that may hold what is asked next
        self.plain: dict[int, int] = {}  # a stretch's index: its last line with no ``|``

    def past(self, start: int, end: int) -> tuple[int, int]:
        """For a delimiter row ``text[start:end]``: where the scan goes on (0: from the row,
        as it would) and where the stretch that holds the row starts."""
        unread = self.unread
        while self.at < len(unread) and unread[self.at][1] <= start:
            self.at += 1
        if self.at == len(unread) or unread[self.at][0] > start:
            return 0, 0
        first, last = unread[self.at]
        if last >= len(self.text):
            return len(self.text), first  # no line after it: nothing it holds reaches past
        plain = self.plain.get(self.at)
        if plain is None:
            plain = self.plain[self.at] = self._last_plain(first, last)
        return (plain, first) if plain > end else (0, 0)

    def _last_plain(self, first: int, last: int) -> int:
        """The start of the last of the lines ``text[first:last]`` (``last`` a line's start)
        that holds no ``|``, within :data:`_LOOK_BACK` lines of ``last``; 0 where none is."""
        text = self.text
        stop = last - 1  # the break that ends the stretch's last line
        for _ in range(_LOOK_BACK):
            if stop < first:
                break
            line = text.rfind("\n", first, stop) + 1 or first
            if text.find("|", line, stop) < 0:
                return line
            stop = line - 1
        return 0


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _cells(text: str, start: int, end: int, piped: bool = True) -> list[tuple[int, int]]:
    """The cells of the row ``text[start:end]`` as ranges of their text (white space off),
    the outer pipes dropped; none where the line does not open with a ``|`` (where
    ``piped``, as its table's delimiter row does) or holds none (where not)."""
    line = text[start:end].rstrip("\r")
    stripped = line.lstrip()
    if stripped.startswith("|"):
        at = start + len(line) - len(stripped) + 1
    elif piped or "|" not in stripped:
        return []
    else:
        at = start + len(line) - len(stripped)
    stop = start + len(line.rstrip())
    cells: list[tuple[int, int]] = []
    while at < stop:
        bar = text.find("|", at, stop)
        cut = stop if bar < 0 else bar
        a, b = at, cut
        while a < b and text[a] in " \t":
            a += 1
        while b > a and text[b - 1] in " \t":
            b -= 1
        cells.append((a, b))
        if bar < 0:
            break
        at = bar + 1
    return cells


def _rows(
    text: str, pos: int, header: list[tuple[int, int]], into: SpanSink, piped: bool,
) -> int:
    """Judge the rows from ``pos`` under ``header``; where the table ends."""
    names = [text[a:b] for a, b in header]
    named = {
        i: name for i, name in enumerate(names) if not names_nothing(name) and name_strength(name)
    }
    pairs = len(header) == 2
    # A table's first rows are read one at a time: most tables end within them, and one
    # that ends after a row had the lines after it sampled and split (review, issue 23).
    pos, ended = _rows_alone(text, pos, named, pairs, piped, into, FEWEST)
    if ended:
        return pos
    # A long table's rows repeat: each distinct one judged once, the table's end told by the
    # first line that is no row.
    told = judge_lines(text, pos, len(text), partial(_line_cells, named, pairs, piped),
                       CREDENTIAL_FIELD, into) if pos < len(text) else None
    if told is not None:
        return told
    return _rows_alone(text, pos, named, pairs, piped, into, len(text))[0]


def _rows_alone(
    text: str, pos: int, named: dict[int, str], pairs: bool, piped: bool, into: SpanSink,
    most: int,
) -> tuple[int, bool]:
    """Judge at most ``most`` rows from ``pos``, one at a time: where the next line starts,
    and whether the table ended there (a line that is no row, or the text's end)."""
    while pos < len(text) and most > 0:
        end = _line_end(text, pos)
        withheld = _row_cells(text, pos, end, named, pairs, piped)
        if withheld is None:
            return pos, True
        for a, b in withheld:
            into.append(make_span((a, b, CREDENTIAL_FIELD)))
        pos = end + 1
        most -= 1
    return pos, pos >= len(text)


def _row_cells(
    text: str, pos: int, end: int, named: dict[int, str], pairs: bool, piped: bool,
) -> list[tuple[int, int]] | None:
    """The withheld cells of the row ``text[pos:end]`` of a table whose credential columns
    are ``named`` (``pairs``: of two columns, its rows read as keys and values too); None
    where the line is no row (the table ends before it)."""
    cells = _cells(text, pos, end, piped)
    if not cells:
        return None
    withheld = []
    for i, (a, b) in enumerate(cells):
        name = named.get(i)
        if name is not None and a < b and is_credential_value(name, text[a:b]):
            withheld.append((a, b))
    if pairs and len(cells) >= 2 and 1 not in named:
        key = text[cells[0][0] : cells[0][1]]
        a, b = cells[1]
        if (
            a < b
            and not names_nothing(key)
            and name_strength(key)
            and is_credential_value(key, text[a:b])
        ):
            withheld.append((a, b))
    return withheld


def _line_cells(
    named: dict[int, str], pairs: bool, piped: bool, line: str,
) -> tuple[tuple[int, int], ...] | None:
    """:func:`_row_cells` of one line read alone."""
    withheld = _row_cells(line, 0, len(line), named, pairs, piped)
    return None if withheld is None else tuple(withheld)


#: A row of two cells outside any table (no header and delimiter above it): ``| password |
#: S |``. Group 1 is the first cell (a name: a letter, a digit, ``_`` or ``-`` first, so
#: ``| 2fa_secret | S |`` and a flag's ``| --api-key | S |`` are read), 2 the second (white
#: space off). Led by the line break before it and at most three spaces (CommonMark reads
#: four as code): a literal the search skips to in C, where a ``^`` first was tried at every
#: char (16 ms a MB of YAML blocks), and a row led by its ``|`` alone was tried at each ``|``
#: of a line (a name that may open with ``-`` at each ``|-``: 4 ms a MB of ``x |-``, 7x).
#: Possessive where nothing after can give back: a name's row with no value failed once a
#: char of the name.
_ROW_SOURCE = (
    r"\|[ \t]*+([A-Za-z0-9_-][A-Za-z0-9_.-]{0,95}+)[ \t]*+\|[ \t]*+([^|\r\n]{1,4096}?)"
    r"[ \t]*\|?[ \t]*\r?$"
)
_LOOSE_ROW_SOURCE = r"(?m)\n {0,3}" + _ROW_SOURCE
_LOOSE_ROW = lazy_compile(_LOOSE_ROW_SOURCE)
#: The same row at a text's start (or a range's, where a line opens).
_LOOSE_ROW_AT = lazy_compile(r"(?m) {0,3}" + _ROW_SOURCE)
#: How far a row outside a table may be indented: CommonMark reads four spaces as code.
_ROW_INDENT = 3
#: A line that opens with a pipe, from the break before it: a search led by a line break (a
#: ``str.find`` of each opening was 0.7 ms a MB, the regex 0.3 ms to 1.3 ms by the lines).
_ROW_OPENING = lazy_compile(r"\n {0,3}\|")
_ROW_OPENING_BYTES = lazy_compile(rb"\n {0,3}\|")
_ROW_AT_START = lazy_compile(r" {0,3}\|")
_LOOSE_ROW_BYTES = lazy_compile(_LOOSE_ROW_SOURCE.encode())
_LOOSE_ROW_AT_BYTES = lazy_compile((r"(?m) {0,3}" + _ROW_SOURCE).encode())


def _loose_rows(text: str, start: int, end: int, into: SpanSink) -> SpanSink:
    """``into``, with each row of ``text[start:end]`` (whole lines) that is no table's and
    holds a credential's name and its value (``| password | S |``) added; a phrase that
    describes (``| password | The user's password |``) is shown."""
    at_start = start == 0 or text[start - 1] == "\n"
    if not ((at_start and _ROW_AT_START.match(text, start))
            or _ROW_OPENING.search(text, max(0, start - 1), end)):
        return into  # told in C: no line opens with a pipe
    named: dict[str, bool] = {}  # each name judged once: a list's rows repeat theirs
    # Each row judged once, its description's test with it: a list's rows repeat (43,690
    # ``| password | hunter2x |`` rows were two judges' calls each, issue 23).
    judged: dict[tuple[str, str], bool] = {}
    lo = start if at_start else text.find("\n", start, end) + 1  # 0: no line opens here
    if (at_start or lo) and judge_lines(text, lo, end, partial(_line_row, named, judged),
                                        CREDENTIAL_FIELD, into) is not None:
        return into  # the rows repeat: each distinct line judged once
    # Each row from the break before it (the range's first line's too); the text's first
    # line has none.
    rows = _LOOSE_ROW.finditer(text, start - 1 if start and at_start else start, end)
    first = _LOOSE_ROW_AT.match(text, 0, end) if start == 0 else None
    for match in rows if first is None else chain((first,), rows):
        span = _row(match, named, judged)
        if span is not None:
            into.append(make_span((*span, CREDENTIAL_FIELD)))
    return into


def _row(match: re.Match[str], named: dict[str, bool],
         judged: dict[tuple[str, str], bool]) -> tuple[int, int] | None:
    """Where the value of the row ``match`` (:data:`_LOOSE_ROW`'s) starts and ends, where its
    name and value withhold it (each name's and row's answer kept in ``named`` and
    ``judged``); None where it is shown."""
    name = match.group(1)
    names = named.get(name)
    if names is None:
        names = named[name] = not names_nothing(name) and bool(name_strength(name))
    if not names:
        return None
    row = name, match.group(2)
    withheld = judged.get(row)
    if withheld is None:
        withheld = not _describes(*row) and is_credential_value(*row)
        if len(row[1]) <= LONGEST:
            keep(judged, row, withheld)
    return match.span(2) if withheld else None


def _line_row(named: dict[str, bool], judged: dict[tuple[str, str], bool],
              line: str) -> tuple[tuple[int, int], ...]:
    """:func:`_row` of one line read alone."""
    match = _LOOSE_ROW_AT.match(line)
    span = None if match is None else _row(match, named, judged)
    return () if span is None else (span,)


def _describes(name: str, value: str) -> bool:
    """Whether a cell of words says what ``name`` is rather than holding it: words that open
    with a plain word and hold a word of a message (:data:`PROSE_WORDS`: ``The user's
    password``) or of the name itself (``Your API key``). A passphrase
    (``correct horse battery staple``) holds neither."""
    parts = value.split()
    if len(parts) < 2 or not parts[0].strip(WORD_EDGE).replace("-", "").isalpha():
        return False
    named = set(words(name_shape(name)))
    low = {part.strip(WORD_EDGE).lower().removesuffix("'s") for part in parts}
    return not low.isdisjoint(PROSE_WORDS) or not low.isdisjoint(named)
