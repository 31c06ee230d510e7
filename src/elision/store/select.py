"""Selectors: which part of a stored body a fetch asks for.

JSON bodies take a JSONPath subset, the forms an envelope's ``next`` and a model need::

    $                  the whole document
    .key  ['key']  ["key"]   a member of an object
    [i]  [-1]          an element of an array (negative counts from the end)
    [start:end]        a slice of an array, of a string in chars, or of an object's members
                       by position (either end may be left out)
    ['k':]  ['k':'m']  a member range: an object's members from key ``k`` on, in the
                       document's order, up to (not including) key ``m``; keys are quoted and
                       escaped as in ``['key']``
    $.stores[3].stock[10:]   nesting; a slice or member range only as the last step

A slice or member range that starts past the end selects nothing, and its page says so
(``shown 0 of N, index past the end``) with no ``next``.

Texts take ``lines="a-b"`` (1-based, inclusive, ``"a-"`` to the end; lines end where the text
shaper says) or ``bytes="a-b"`` (0-based, inclusive as in HTTP ranges, snapped outwards to whole
UTF-8 characters).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import islice
from typing import Any

from elision.envelope import format_path, member_range, quote_key
from elision.errors import SelectorError, quoted
from elision.shape.lazyjson import ARRAYS, OBJECTS, LazyArray
from elision.shape.lines import line_ends

VALID_PATH_FORMS = (
    "valid forms: $, $.key, $['key'], $[\"key\"], $[3], $[-1], $[10:], $[10:20], "
    "$.items['k7':] (an object's members from key k7 on), $.items['k7':'k9'], "
    "nested like $.stores[3].stock[10:] (a slice or member range only as the last step)"
)
VALID_LINES_FORMS = (
    "valid forms: lines=\"62-5940\" (1-based, inclusive), \"62-\" to the end, \"62\""
)
VALID_BYTES_FORMS = "valid forms: bytes=\"0-1023\" (0-based, inclusive), \"4096-\" to the end"


@dataclass(frozen=True)
class Key:
    name: str


@dataclass(frozen=True)
class Index:
    index: int


@dataclass(frozen=True)
class Slice:
    start: int | None
    end: int | None


@dataclass(frozen=True)
class MemberRange:
    """An object's members from key ``start`` (the first when ``None``) up to, not
    including, key ``end`` (the last when ``None``), in the document's order."""

    start: str | None
    end: str | None


Step = Key | Index | Slice | MemberRange


@dataclass(frozen=True)
class Selection:
    """The selected value and where it sits in the original document."""

    value: Any
    #: Path of the selected node in the original; for a slice, the path of the sliced node.
    node_path: str
    #: For a slice: the index of its first element (or char) in the original node.
    offset: int = 0
    #: For a slice: the length of the original node; ``None`` for a whole node.
    total: int | None = None
    #: For a slice or member range that starts past the end of its node: it selects nothing.
    past_end: bool = False


_DOT_KEY = re.compile(r"\.([^\W\d][\w-]*)")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")
_SLICE = re.compile(r"\[\s*(-?\d+)?\s*:\s*(-?\d+)?\s*\]")
_QUOTED_STEP = re.compile(r"\[[ \t]*(?:['\"]|:[ \t]*['\"])")


def parse_path(path: str) -> list[Step]:
    """The steps of ``path``, or a SelectorError that shows the valid forms."""
    if not isinstance(path, str):
        raise SelectorError(f"path must be a string, got {quoted(path)}; {VALID_PATH_FORMS}")
    text = path.strip()
    if not text.startswith("$"):
        raise SelectorError(f"path must start with '$', got {quoted(path)}; {VALID_PATH_FORMS}")
    steps: list[Step] = []
    pos = 1
    while pos < len(text):
        if steps and isinstance(steps[-1], Slice | MemberRange):
            raise SelectorError(
                f"path {quoted(path)} has a step after a slice or member range; {VALID_PATH_FORMS}"
            )
        step, pos = _parse_step(text, pos, path)
        steps.append(step)
    return steps


def _parse_step(text: str, pos: int, path: str) -> tuple[Step, int]:
    for pattern in (_DOT_KEY, _INDEX, _SLICE):
        match = pattern.match(text, pos)
        if match is None:
            continue
        if pattern is _DOT_KEY:
            return Key(match.group(1)), match.end()
        if pattern is _INDEX:
            return Index(int(match.group(1))), match.end()
        start, end = match.group(1), match.group(2)
        return Slice(None if start is None else int(start),
                     None if end is None else int(end)), match.end()
    if _QUOTED_STEP.match(text, pos):
        return _parse_quoted(text, pos, path)
    raise SelectorError(
        f"path {quoted(path)} cannot be read at char {pos} ({quoted(text[pos:pos + 12])}); "
        f"{VALID_PATH_FORMS}"
    )


def _parse_quoted(text: str, pos: int, path: str) -> tuple[Key | MemberRange, int]:
    """``['key']``, or a member range ``['a':]``, ``['a':'b']``, ``[:'b']`` (from ``[``)."""
    at = _skip_space(text, pos + 1)
    start: str | None = None
    if text[at:at + 1] != ":":
        start, at = _quoted_key(text, at, path)
        at = _skip_space(text, at)
        if text[at:at + 1] == "]":
            return Key(start), at + 1
        if at >= len(text):
            raise SelectorError(
                f"path {quoted(path)} has an unclosed quoted key; {VALID_PATH_FORMS}"
            )
        if text[at:at + 1] != ":":
            raise SelectorError(
                f"path {quoted(path)} has a quoted key not followed by ']' or ':' at char {at}; "
                f"{VALID_PATH_FORMS}"
            )
    at = _skip_space(text, at + 1)
    end: str | None = None
    if text[at:at + 1] in ("'", '"'):
        end, at = _quoted_key(text, at, path)
        at = _skip_space(text, at)
    if text[at:at + 1] != "]" or (start is None and end is None):
        raise SelectorError(
            f"path {quoted(path)} has an unclosed member range at char {at}; {VALID_PATH_FORMS}"
        )
    return MemberRange(start, end), at + 1


def _quoted_key(text: str, pos: int, path: str) -> tuple[str, int]:
    """The key quoted at ``pos`` (a backslash takes the next char as it is) and the position
    after its closing quote."""
    quote = text[pos:pos + 1]
    if quote not in ("'", '"'):
        raise SelectorError(
            f"path {quoted(path)} wants a quoted key at char {pos}; {VALID_PATH_FORMS}"
        )
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if char == quote:
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise SelectorError(f"path {quoted(path)} has an unclosed quoted key; {VALID_PATH_FORMS}")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def normalize_path(steps: list[Step]) -> str:
    """The canonical spelling of a parsed path (indices kept as given, negative too)."""
    out = ["$"]
    for step in steps:
        if isinstance(step, Key):
            out.append(format_path([step.name], root=""))
        elif isinstance(step, Index):
            out.append(f"[{step.index}]")
        elif isinstance(step, MemberRange):
            start = "" if step.start is None else quote_key(step.start)
            end = "" if step.end is None else quote_key(step.end)
            out.append(f"[{start}:{end}]")
        else:
            start = "" if step.start is None else str(step.start)
            end = "" if step.end is None else str(step.end)
            out.append(f"[{start}:{end}]")
    return "".join(out)


def select(document: Any, steps: list[Step]) -> Selection:
    """Walk ``steps`` into ``document``; a missing part names the deepest part that exists.

    ``document`` may be a lazy skeleton (:mod:`elision.shape.lazyjson`): a slice of a lazy
    array is a window of it, so a page parses only the rows it shows."""
    node = document
    parts: list[str | int] = []
    for step in steps:
        here = format_path(parts)
        if isinstance(step, Key):
            if not isinstance(node, OBJECTS):
                raise SelectorError(
                    f"{here} is {_kind(node)}, so it has no key {quote_key(step.name)}; "
                    f"{_what_fits(node)}"
                )
            try:  # one lookup: a dense object's runs are read once for it, not twice
                child = node[step.name]
            except KeyError:
                raise SelectorError(
                    f"{here} has no key {quote_key(step.name)}; {_what_fits(node)}"
                ) from None
            node = child
            parts.append(step.name)
        elif isinstance(step, Index):
            if not isinstance(node, ARRAYS):
                raise SelectorError(
                    f"{here} is {_kind(node)}, so it has no element [{step.index}]; "
                    f"{_what_fits(node)}"
                )
            index = step.index + len(node) if step.index < 0 else step.index
            if not 0 <= index < len(node):
                raise SelectorError(
                    f"{here} has {len(node)} elements, so [{step.index}] is out of range; "
                    f"{_what_fits(node)}"
                )
            node = node[index]
            parts.append(index)
        elif isinstance(step, MemberRange):
            if not isinstance(node, OBJECTS):
                raise SelectorError(
                    f"{here} is {_kind(node)}, so it has no member range; {_what_fits(node)}"
                )
            start, end = _member_bounds(node, step, here)
            return Selection(member_window(node, start, end), here, start, len(node))
        else:
            if not isinstance(node, (*ARRAYS, str, *OBJECTS)):
                raise SelectorError(
                    f"{here} is {_kind(node)}, so it cannot be sliced; {_what_fits(node)}"
                )
            start, end, _ = slice(step.start, step.end).indices(len(node))
            end = max(start, end)
            past_end = step.start is not None and step.start >= len(node)
            if isinstance(node, OBJECTS):
                part = member_window(node, start, end)
            elif isinstance(node, LazyArray):
                part = node.window(start, end)
            else:
                part = node[start:end]
            return Selection(part, here, start, len(node), past_end)
    return Selection(node, format_path(parts))


def _member_bounds(node: Any, step: MemberRange, here: str) -> tuple[int, int]:
    """The positions of a member range's first member and of the member it stops before."""
    start = 0 if step.start is None else _position(node, step.start)
    end = len(node) if step.end is None else _position(node, step.end)
    for bound, key in ((start, step.start), (end, step.end)):
        if bound is None:
            assert key is not None
            raise SelectorError(f"{here} has no key {quote_key(key)}; {_what_fits(node)}")
    assert start is not None and end is not None
    if end < start:
        raise SelectorError(
            f"{here}[{quote_key(step.start or '')}:{quote_key(step.end or '')}] ends before "
            "it starts: members are in the document's order; give the earlier key first"
        )
    return start, end


def member_window(node: Any, start: int, end: int) -> Any:
    """The members of object ``node`` from position ``start`` up to ``end``, as an object of
    their own in the document's order (a lazy object's window parses nothing)."""
    if isinstance(node, dict):
        return dict(islice(node.items(), start, end))
    return node.window(start, end)


def following(document: Any, steps: list[Step]) -> str | None:
    """The selector of what comes after ``steps``' selection in document order: the rest of
    its array or string, else the next member of its object, else the same one level up;
    ``None`` at the end of the document. The steps must select (see :func:`select`)."""
    nodes: list[Any] = [document]
    parts: list[str | int] = []
    for step in steps[:-1]:
        node = nodes[-1]
        if isinstance(step, Key):
            parts.append(step.name)
            nodes.append(node[step.name])
        elif isinstance(step, Index):
            index = step.index + len(node) if step.index < 0 else step.index
            parts.append(index)
            nodes.append(node[index])
    for depth in range(len(steps) - 1, -1, -1):
        step, parent, here = steps[depth], nodes[depth], format_path(parts[:depth])
        if isinstance(step, MemberRange):
            _, end = _member_bounds(parent, step, here)
            if end < len(parent):
                return _member_from(parent, here, end)
        elif isinstance(step, Slice):
            _, end, _ = slice(step.start, step.end).indices(len(parent))
            if end < len(parent):
                if isinstance(parent, OBJECTS):
                    return _member_from(parent, here, end)
                return f"{here}[{end}:]"
        elif isinstance(step, Index):
            index = step.index + len(parent) if step.index < 0 else step.index
            if index + 1 < len(parent):
                return f"{here}[{index + 1}:]"
        else:
            # The members after this one, as many as a page holds: not one member a page.
            at = _position(parent, step.name)
            if at is not None and at + 1 < len(parent):
                return _member_from(parent, here, at + 1)
    return None


def _position(node: Any, key: str) -> int | None:
    """The index of member ``key`` of object ``node``, or ``None``. A dense lazy object finds
    it run by run (``ChunkedObject.position``); a page's bounds were found by handing every key
    before them to Python, so a page cost more the later in the object it started."""
    find = getattr(node, "position", None)
    if find is not None:
        found: int | None = find(key)
        return found
    for index, name in enumerate(node):
        if name == key:
            return index
    return None


def _member_from(node: Any, here: str, index: int) -> str:
    # A dense lazy object parses the one run that holds it: every key before it was handed to
    # Python for the next of a page near the end of its members.
    key_at = getattr(node, "key_at", None)
    key = key_at(index) if key_at is not None else next(islice(iter(node), index, None))
    return member_range(here, key, index)


def _kind(node: Any) -> str:
    if isinstance(node, OBJECTS):
        return "an object"
    if isinstance(node, ARRAYS):
        return f"an array of {len(node)}"
    if isinstance(node, str):
        return f"a string of {len(node)} chars"
    return f"a scalar ({type(node).__name__})"


def _what_fits(node: Any) -> str:
    if isinstance(node, OBJECTS):
        # The first keys only: a dense object of millions is read a run at a time.
        keys = ", ".join(quote_key(str(k)) for k in islice(node, 8))
        more = ", …" if len(node) > 8 else ""
        return f"its keys are {keys}{more}" if len(node) else "it is an empty object"
    if isinstance(node, ARRAYS):
        return f"use an index from 0 to {len(node) - 1} or a slice" if node else "it is empty"
    if isinstance(node, str):
        return "a string takes only a slice such as [0:100]"
    return "a scalar has no parts"


@dataclass(frozen=True)
class TextSelection:
    """Part of a text body, and where it sits in the original."""

    body: bytes
    #: Whole lines of the original before the slice starts.
    lines_before: int
    total_lines: int
    normalized: str
    #: Where ``body`` starts in the original, in bytes.
    byte_offset: int = 0
    #: The range starts after the last line: it selects nothing (its page says so).
    past_end: bool = False


def count_lines(body: bytes) -> int:
    """Lines as the text shaper counts them: ``\\n``, ``\\r\\n`` or ``\\r`` end one."""
    return len(line_ends(body))


def _parse_range(spec: str, what: str, forms: str, minimum: int) -> tuple[int, int | None]:
    if not isinstance(spec, str):
        raise SelectorError(f"{what} must be a string, got {quoted(spec)}; {forms}")
    match = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d+)?)?\s*", spec)
    if match is None:
        raise SelectorError(f"{what} {quoted(spec)} is not a range; {forms}")
    first = int(match.group(1))
    if match.group(2) is None:
        last: int | None = first
    else:
        last = None if match.group(3) is None else int(match.group(3))
    if first < minimum:
        raise SelectorError(f"{what} {quoted(spec)} starts below {minimum}; {forms}")
    if last is not None and last < first:
        raise SelectorError(f"{what} {quoted(spec)} ends before it starts; {forms}")
    return first, last


def select_lines(body: bytes, spec: str) -> TextSelection:
    first, last = _parse_range(spec, "lines", VALID_LINES_FORMS, 1)
    # The text shaper's own line ends, so line numbers in a page agree with its header.
    ends = line_ends(body)
    total = len(ends)
    normalized = f"{first}-" if last is None else f"{first}-{last}"
    if first > total:
        return TextSelection(b"", total, total, normalized, len(body), past_end=True)
    start = ends[first - 2] if first > 1 else 0
    end = len(body) if last is None or last >= total else ends[last - 1]
    return TextSelection(body[start:end], first - 1, total, normalized, start)


def select_bytes(body: bytes, spec: str, *, one_line: int | None = None) -> TextSelection:
    """Bytes ``spec`` of ``body``. ``one_line``: ``body`` is the first bytes of a text of that
    many bytes, all on one line (a compact JSON serialization), and holds the range and the
    3 bytes after it (see :func:`bytes_reach`)."""
    first, last = _parse_range(spec, "bytes", VALID_BYTES_FORMS, 0)
    size = len(body) if one_line is None else one_line
    if first >= size:
        raise SelectorError(
            f"bytes {quoted(spec)} start past the end: the body has {size:,} bytes; "
            f"{VALID_BYTES_FORMS}"
        )
    end = size if last is None else min(size, last + 1)
    # Snap outwards so a character is never cut: a page must decode as UTF-8.
    while first > 0 and _is_continuation(body[first]):
        first -= 1
    while end < size and _is_continuation(body[end]):
        end += 1
    if one_line is not None:
        return TextSelection(body[first:end], 0, 1, f"{first}-{end - 1}", first)
    ends = line_ends(body)
    return TextSelection(body[first:end], bisect_right(ends, first), len(ends),
                         f"{first}-{end - 1}", first)


def bytes_reach(spec: str) -> int | None:
    """How many of a text's first bytes :func:`select_bytes` reads for ``spec`` (its range,
    and the continuation bytes a char cut at its end may have), or ``None``: to the end, or
    not a range (select_bytes says why)."""
    try:
        _, last = _parse_range(spec, "bytes", VALID_BYTES_FORMS, 0)
    except SelectorError:
        return None
    return None if last is None else last + 4


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80
