"""A credential's value written as a YAML block scalar: ``password: |`` and the lines below it.

A Helm values file, a Kubernetes manifest or an Ansible vars file may write any string as a
block (``|`` keeps its line breaks, ``>`` folds them; ``-``, ``+`` and a digit after either say
how): the value is the lines under the key indented deeper than it. The name rules read a
name's value on its own line, where they found ``|`` and kept it, so the password on the next
line reached the model. Here such a block under a credential's name is judged as that
member's value would be (:func:`elision.redact.generic.is_credential_value`, its lines joined
as the block style joins them) and withheld from its first char to its last line's end; the
line breaks inside stay (a stub over lines keeps them, so a text keeps its line numbers).

A block ends at the first line that is not indented deeper than its key, or at the end of
the text read. A text is judged in pieces of about 1 KB around the name's trigger, each read
one line on (:mod:`elision.redact.scan`), so a block's first line is always read with its
header; a block or a collection that runs past its piece is read on from it once the pieces
are judged (:func:`continued`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from functools import partial

from elision._lazyre import lazy_compile
from elision.redact.columns import SpanSink
from elision.redact.fields import is_metadata_key, keeps_metadata
from elision.redact.generic import (
    ASSIGNMENT,
    STRONG,
    is_credential_value,
    name_strength,
    names_many,
)
from elision.redact.rules import Span, make_span
from elision.redact.samelines import judge_lines

#: A key (at most 96 name chars, as the text finder reads a name; after a list's ``- ``),
#: then a block indicator and its modifiers, an optional comment, and the line's end.
_HEADER = lazy_compile(
    r"(?m)^[ \t]*(?:-[ \t]+)?([A-Za-z0-9_.-]{1,96})[ \t]*:[ \t]*([|>])[-+0-9]{0,2}[ \t]*"
    r"(?:#[^\r\n]*)?\r?$"
)

_LONGEST_VALUE = 4096


def find_blocks(text: str) -> list[Span]:
    """The value of each YAML block scalar in ``text`` whose key's name withholds it."""
    if "|" not in text and ">" not in text:
        return []
    found: list[Span] = []
    read_to = 0  # a header inside a block already read is that block's text: each line once
    for match in _HEADER.finditer(text):
        name = match.group(1)
        if match.start() < read_to or not name_strength(name):
            continue
        end = _judge_block(text, match, found)
        if end >= 0:
            read_to = end
    return found


def _judge_block(text: str, match: re.Match[str], found: SpanSink) -> int:
    """Withhold the block under the header ``match`` (:data:`_HEADER`'s) where its name
    withholds it; where the block ends (-1: an empty one)."""
    key_column = match.start(1) - (text.rfind("\n", 0, match.start()) + 1)
    return block_value(text, match.group(1), match.group(2), match.end() + 1, key_column, found)


def block_value(
    text: str, name: str, style: str, at: int, key_column: int, found: SpanSink
) -> int:
    """Withhold the block of ``style`` (``|`` or ``>``) whose lines start at ``at``, under a
    key at ``key_column``, where a member so ``name``d would be withheld (a YAML pair's
    ``value: |`` under its ``name:``, :mod:`elision.redact.pairs`, as a key's own); where the
    block ends (-1: an empty one)."""
    start, end, lines = _block(text, at, key_column)
    if start < 0:
        return -1
    # A block longer than a value is read is withheld unread (fail closed), as a bare
    # value over 4 KB is (elision.redact.generic).
    if lines is None or is_credential_value(name, ("\n" if style == "|" else " ").join(lines)):
        found.append(make_span((start, end, ASSIGNMENT)))
    return end


#: A key with nothing after it on its line: a mapping or a list is under it.
_COLLECTION = lazy_compile(
    r"(?m)^[ \t]*(?:-[ \t]+)?([A-Za-z0-9_.-]{1,96})[ \t]*:[ \t]*(?:#[^\r\n]*)?\r?$"
)
#: A line of a collection: an item (``- value``), a member (``key: value``), or both.
_ENTRY = lazy_compile(r"[ \t]*(-[ \t]+)?(?:([A-Za-z0-9_.-]{1,96})[ \t]*:(?:[ \t]+|$))?")


def find_collections(text: str) -> list[Span]:
    """Each scalar of a YAML list or mapping under a credential's name (``passwords:`` over
    ``- S``, ``api_keys:`` over ``prod: S``) that the JSON walk withholds in the same
    structure (:func:`elision.redact.fields.withhold_inside`): under a strong name every
    value but a metadata member's (``name:``, ``type:``), under a weak one an opaque item
    (a weak plural's map's members too: ``tokens:`` over ``alice: S``)."""
    found: list[Span] = []
    if ":" not in text:
        return found  # told in C: no key (the search tries each char for a line's start)
    read_to = 0  # a key inside a collection already read is read with it: each line once
    for match in _COLLECTION.finditer(text):
        name = match.group(1)
        if match.start() < read_to:
            continue
        strength = name_strength(name)
        if not strength:
            continue
        read_to = _judge_collection(text, match, strength, found)
    return found


def _judge_collection(text: str, match: re.Match[str], strength: int, found: SpanSink) -> int:
    """Withhold what the JSON walk would of the collection under the key ``match``
    (:data:`_COLLECTION`'s, its name of ``strength``); where its lines end."""
    name = match.group(1)
    key_column = match.start(1) - (text.rfind("\n", 0, match.start()) + 1)
    read_to = match.end() + 1
    if _scalar_below(text, read_to, key_column, name, found):
        return read_to  # a plain scalar over lines: the key's value, read whole
    if strength != STRONG and not names_many(name) and _mapping_below(text, read_to):
        # A weak singular's mapping is left to its own keys, each read as a key of its own
        # (``auth:`` over ``tokens:`` over ``alice: S``): passed here, not read twice.
        return read_to
    if key_column > _LINES_KEY_COLUMN or (0 < read_to < len(text) and text[read_to - 1] != "\n"):
        # a deep key's column, or lines read from inside one: a line at a time
        for at, stop, line, content in _deeper(text, read_to, key_column):
            if content:
                _entry(text, at, line, name, strength, found)
            read_to = stop + 1
        return read_to
    return _entries(text, read_to, key_column, name, strength, found)


def _entries(
    text: str, at: int, key_column: int, name: str, strength: int, found: SpanSink
) -> int:
    """:func:`_entry` of each line from ``at`` under a key at ``key_column`` (the lines
    :func:`_deeper` yields), the lines read in C: where the last one ends, as the loop over
    :func:`_deeper` has it (the next line's start, or the text's length and one past a last
    line with no break). A list of 87,000 items was a generator step, a line's slices and
    a judgement of the same value each: 429 ms a MB (issue 23)."""
    if at >= len(text):
        return at
    below = _shallow_line(key_column).search(text, at)
    if below is not None:
        end = read_to = below.start()
    else:
        end = len(text)
        read_to = end if text.endswith("\n") else end + 1
    skip_keys = strength != STRONG and not names_many(name)
    # With no ``#`` or ``\r`` in the lines, a value is the rest of its line less its trailing
    # spaces and tabs, read without trying for a comment at each char (2.4x as fast).
    plain = text.find("#", at, end) < 0 and text.find("\r", at, end) < 0
    if plain and judge_lines(text, at, end, partial(_plain_item, name, skip_keys),
                             ASSIGNMENT, found) is not None:
        return read_to  # a list's lines repeat: each distinct one judged once
    for line in (_ENTRY_LINE_PLAIN if plain else _ENTRY_LINE).finditer(text, at, end):
        value = _item(line, name, skip_keys)
        if value is not None:
            found.append(make_span((*value, ASSIGNMENT)))
    return read_to


def _item(line: re.Match[str], name: str, skip_keys: bool) -> tuple[int, int] | None:
    """Where the value of the collection's line ``line`` (:data:`_ENTRY_LINE`'s match) starts
    and ends, where the JSON walk would withhold it under ``name``; None where it shows it or
    the line holds no entry (its keys skipped under a weak singular name)."""
    item, key, value = line.group(1, 2, 3)
    meta = False
    if key is not None:
        if skip_keys:
            return None
        meta = is_metadata_key(key)  # judged with its value: fields.keeps_metadata
    elif item is None:
        return None  # a continuation, a comment, a blank line: no entry of its own
    if not value:
        return None
    start = line.start(3)
    if value[0] in "'\"[{&*|>!":
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value, start = value[1:-1], start + 1
        if not value or value[0] in "[{&*|>!":
            return None
    if meta and keeps_metadata(name_strength(name), key, value):
        return None
    return (start, start + len(value)) if is_credential_value(name, value) else None


def _plain_item(name: str, skip_keys: bool, line: str) -> tuple[tuple[int, int], ...]:
    """:func:`_item` of one line with no ``#`` or ``\r``, read alone."""
    match = _ENTRY_LINE_PLAIN.match(line)
    assert match is not None  # every part is optional
    value = _item(match, name, skip_keys)
    return () if value is None else (value,)


#: The deepest key whose lines are read by :func:`_entries` (a pattern a column, kept);
#: a deeper one's are read a line at a time.
_LINES_KEY_COLUMN = 64
#: A line of a collection read whole (:data:`_ENTRY`, then its value as :func:`_entry` reads
#: it: up to its first `` #``, without the spaces and tabs before that or the ``\r``s that end
#: the line): the item's dash, the key, and the value. The value is read a run at a time (of
#: chars, of ``\r``s, of spaces and tabs), each whole (the end is tried before each): read a char
#: at a time, the end's test re-read a run of blanks at each of its chars (a CRLF list with a
#: run of 40,000 spaces in an item took 44 s, found by the review of the merged head,
#: 2026-12-05; the reading is the same, tests/redact/test_redact_repeated_entries_cost.py).
_ENTRY_LINE = lazy_compile(
    r"(?m)^[ \t]*(-[ \t]+)?(?:([A-Za-z0-9_.-]{1,96})[ \t]*:(?:[ \t]+|(?=\r*$)))?"
    r"((?:[^ \t\r\n]++|\r++|[ \t]++)*?)[ \t]*(?: #[^\n]*)?\r*$"
)
#: :data:`_ENTRY_LINE` of lines with no ``#`` and no ``\r``.
_ENTRY_LINE_PLAIN = lazy_compile(
    r"(?m)^[ \t]*(-[ \t]+)?(?:([A-Za-z0-9_.-]{1,96})[ \t]*:(?:[ \t]+|$))?"
    r"((?:[^ \t\n]++|[ \t]++(?=[^ \t\n]))*+)"
)


@functools.lru_cache(maxsize=_LINES_KEY_COLUMN + 1)
def _shallow_line(key_column: int) -> re.Pattern[str]:
    """The first line that is not blank (more than spaces, tabs and its ``\r``s) and is
    indented no deeper than ``key_column``: where :func:`_deeper` stops."""
    return re.compile(f"(?m)^[ \\t]{{0,{key_column}}}+(?![ \\t\\n])(?!\\r*$)")


def _mapping_below(text: str, at: int) -> bool:
    """Whether the first line from ``at`` that holds more than white space is a member
    (``key: …``), not a list's item."""
    line = _INDENT.search(text, at)
    if line is None:
        return False
    stop = text.find("\n", line.start())
    entry = _ENTRY.match(text[line.start():stop if stop >= 0 else len(text)].rstrip("\r"))
    return entry is not None and entry.group(1) is None and entry.group(2) is not None


#: A line's indent, where the line holds more than white space.
_INDENT = lazy_compile(r"(?m)^[ \t]*(?=[^ \t\r\n])")


def continued(text: str, lo: int, hi: int, found: SpanSink) -> int:
    """Where the first collection or block in the piece ``text[lo:hi]`` (whole lines) under a
    credential's name that runs on past ``hi`` ends, its values past the piece added to
    ``found`` as the piece's own were (:func:`find_collections`, :func:`find_blocks`); ``hi``
    where none does. A piece is judged alone (:mod:`elision.redact.scan`), so a list of 200
    passwords showed each one past its header's piece. Only the first such key is read on:
    a later one is inside it (each runs to ``hi``), and read with it. Each line of the piece
    is read once: a key whose lines end at a line is passed with every key before that line
    (they are inside it, or end there too)."""
    if text.find(":", lo, hi) < 0:
        return hi
    heads = sorted([*_HEADER.finditer(text, lo, hi), *_COLLECTION.finditer(text, lo, hi)],
                   key=lambda match: match.start())
    closed_to = lo
    for match in heads:
        if match.start() < closed_to:
            continue  # inside a key whose lines end before the piece does: so do its own
        strength = name_strength(match.group(1))
        if not strength:
            continue
        key_column = match.start(1) - (text.rfind("\n", 0, match.start()) + 1)
        closed_to = _shallower(text, match.end() + 1, hi, key_column)
        if closed_to < hi:
            continue  # ends inside the piece: judged with it
        if match.re is _HEADER.compiled():
            return max(hi, _judge_block(text, match, found))
        return max(hi, _judge_collection(text, match, strength, found))
    return hi


def _shallower(text: str, at: int, hi: int, key_column: int) -> int:
    """Where the first line in ``text[at:hi]`` that holds more than white space and is
    indented no deeper than ``key_column`` starts; ``hi`` where none is."""
    for line in _INDENT.finditer(text, at, hi):
        if line.end() - line.start() <= key_column:
            return line.start()
    return hi


#: A JSON member whose value a pretty-printer wrapped to the next line (``"password":`` over
#: ``  "S"``): the name (at most 96 chars, as the text finder reads one), its ``:`` ending its
#: line, then white space and the string, to its closing quote or its line's end.
_WRAPPED = lazy_compile(
    r'"([A-Za-z0-9_.:-]{1,96})"[ \t]*:[ \t]*\r?\n[ \t\r\n]{0,256}"([^"\\\r\n]{0,4096})'
)


def find_wrapped(text: str) -> list[Span]:
    """The string value of each JSON member of ``text`` written on the line after its name
    (``"password":`` over ``"S"``), where the member so named would be withheld."""
    found: list[Span] = []
    if '":' not in text and '" :' not in text:
        return found  # told in C: no member's name ends here
    for match in _WRAPPED.finditer(text):
        name = match.group(1)
        if name_strength(name) and is_credential_value(name, match.group(2)):
            found.append(make_span((match.start(2), match.end(2), ASSIGNMENT)))
    return found


#: A line under a key that is a plain scalar, not an entry: neither a list's item nor a
#: member, a comment or a flow collection (``S``, ``"S"``).
_PLAIN_LINE = lazy_compile(
    r"[ \t]*(?!-[ \t]|-$|[#\[{&*!|>])(?![A-Za-z0-9_.-]{1,96}[ \t]*:(?:[ \t]|$))\S"
)


def _scalar_below(text: str, at: int, key_column: int, name: str, found: SpanSink) -> bool:
    """Whether the lines under a key with nothing after it, from ``at``, are one plain (or
    quoted) scalar, the key's value wrapped to the next line (``password:`` over ``  S``, as
    a YAML writer or a person folds a long value); the value is added to ``found`` where
    the JSON member so named would be withheld (a value over 4 KB is, unread)."""
    stop = text.find("\n", at)
    first = text[at:stop if stop >= 0 else len(text)]
    if not first.strip() or _PLAIN_LINE.match(first) is None:
        return False
    start, end, lines = _block(text, at, key_column)
    if start < 0 or start > at + len(first):
        return False  # the first line is not indented deeper: no value under the key
    value = None if lines is None else " ".join(lines)
    if value is not None and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value, start, end = value[1:-1], start + 1, end - 1
    if value is None or (value and is_credential_value(name, value)):
        found.append(make_span((start, end, ASSIGNMENT)))
    return True


def _deeper(text: str, at: int, key_column: int) -> Iterator[tuple[int, int, str, str]]:
    """Each line from ``at`` (where it starts and ends, it without its ``\r``, and it without
    its indent) up to the first that is not blank and is indented no deeper than
    ``key_column``: the lines under a key."""
    while at < len(text):
        stop = text.find("\n", at)
        if stop < 0:
            stop = len(text)
        line = text[at:stop].rstrip("\r")
        content = line.lstrip(" \t")
        if content and len(line) - len(content) <= key_column:
            return
        yield at, stop, line, content
        at = stop + 1


def _entry(text: str, at: int, line: str, name: str, strength: int, found: SpanSink) -> None:
    """The value of one line of a collection under ``name``, added to ``found`` where the
    JSON walk would withhold it."""
    entry = _ENTRY.match(line)
    assert entry is not None  # every part is optional
    item, key = entry.group(1), entry.group(2)
    if key is not None and strength != STRONG and not names_many(name):
        # A weak name's mapping is left to its own keys, but a plural's (``tokens:`` over
        # ``alice: S``) holds its items.
        return
    if item is None and key is None:
        return  # a continuation, a comment: no entry of its own
    value = line[entry.end():]
    comment = value.find(" #")
    if comment >= 0:
        value = value[:comment]
    value = value.rstrip(" \t")
    start = at + entry.end()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value, start = value[1:-1], start + 1
    if key is not None and keeps_metadata(strength, key, value):
        return  # metadata says what it is
    if value and value[0] not in "[{&*|>!" and is_credential_value(name, value):
        found.append(make_span((start, start + len(value), ASSIGNMENT)))


def _block(text: str, at: int, key_column: int) -> tuple[int, int, list[str] | None]:
    """The block's first char, its last line's end and its lines (stripped) from ``at``,
    each line indented deeper than ``key_column`` or blank; ``-1`` for an empty block, and
    ``None`` for lines past :data:`_LONGEST_VALUE` chars (not kept: only its end is read)."""
    start = end = -1
    lines: list[str] | None = []
    held = 0
    for line_at, _, line, content in _deeper(text, at, key_column):
        if content:
            if start < 0:
                start = line_at + len(line) - len(content)
            end = line_at + len(line)
            if lines is not None:
                held += len(content)
                if held > _LONGEST_VALUE:
                    lines = None
                else:
                    lines.append(content.rstrip(" \t"))
    return start, end, lines
