"""A message whose bulk is one long text, read with the text held once.

A tool result of N bytes of text reaches the proxy as a line of 2N or more: MCPServer sends the
text as a content block and again as its ``structuredContent`` echo (``{"result": text}``).
Parsed whole, the line (2N), the two decoded strings (2N) and orjson's copy of its input (2N)
are all alive at once: 6N. Here the line is read so that the text is decoded once, both places
share that one string, and the line's bytes are let go while it is decoded:

1. msgspec skims the line (``msgspec.Raw`` views, no copy) for the longest text of the
   result's content blocks (or of a resource embedded in one), as the literal it is spelled
   with on the wire.
2. Every occurrence of exactly those bytes is found. Each must open a string where it starts
   (an even count of unescaped quotes before it, counted from the end of the one before), so
   it is a whole string token of the line: a literal is never split by a shorter match.
3. The line with each occurrence replaced by a random placeholder string is parsed by orjson,
   the same parser as the whole line's, so whatever it says of the rest (repeated keys,
   numbers, nesting, bad bytes) it says here too. The placeholder must come back exactly once
   per occurrence, always as a value inside ``result``, which a response holds as plain
   ``dict[str, Any]``: there the SDK validates no string, so the placeholder and the text
   validate alike, and the message is validated before the text is decoded.
4. The line is cut after the text's first occurrence (the rest was kept in the skeleton), so
   its memory goes back at once; the text is decoded by orjson in pieces of :data:`PIECE`
   bytes, cut only where an escape starts (never before a low surrogate, which may end a
   pair) or, with no escape near, at the start of a UTF-8 character, and gathered as UTF-8;
   then the line is emptied and the text decoded from what was gathered. A piece orjson
   refuses puts the line back as it came.

Whatever is not proven on the way (no long text, a text spelled differently in its echo, a
placeholder missing or misplaced, a message that does not validate) returns ``None`` and the
line is parsed whole, as before. So the message is the one the whole parse gives, only with
its equal texts being one string.
"""

from __future__ import annotations

import mmap
import re
import secrets
from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import mcp_types as types
import msgspec
import orjson

#: Bytes of a string literal at least this long are read once (shorter lines parse whole).
LONG_TEXT = 1 << 20
#: Bytes of the text decoded at a time: the scratch one decode needs besides its result.
PIECE = 1 << 20

#: A JSON string escape, or a quote that is not one: what decides where strings start.
_ESCAPE_OR_QUOTE = re.compile(rb'\\.|"', re.DOTALL)
#: A backslash that starts an escape: the first of its run (a backslash after one is escaped).
_ESCAPE_START = re.compile(rb"(?<!\\)\\")
#: A low-surrogate escape: it may end a pair begun just before it, so no piece starts with it.
_LOW_SURROGATE = re.compile(rb"\\u[dD][c-fC-F]")
#: A byte that starts a UTF-8 character (anything but a continuation byte).
_CHAR_START = re.compile(rb"[^\x80-\xbf]")
_ESCAPE_BYTES = 6  # the longest escape, \uXXXX
#: Bytes of a literal's head searched for, and how many false matches end the search.
_HEAD, _TRIES = 256, 64

_EMPTY_SIZE = bytearray().__sizeof__()


class _Resource(msgspec.Struct):
    text: msgspec.Raw = msgspec.Raw(b"null")


class _Block(msgspec.Struct):
    text: msgspec.Raw = msgspec.Raw(b"null")
    resource: _Resource | None = None  # an embedded resource: its text may be long too


class _Result(msgspec.Struct):
    content: list[_Block] = []


class _Skim(msgspec.Struct):
    result: _Result | None = None


def read_long_text(line: bytearray) -> types.JSONRPCResponse | None:
    """The response on ``line`` with its long text decoded once, or ``None`` (the module
    docstring says when). On success ``line`` is left empty; on ``None`` it is as it came."""
    if len(line) < LONG_TEXT:
        return None
    found = _occurrences(line)
    if found is None:
        return None
    starts, size = found
    gaps = _gaps(line, starts, size)
    if gaps is None:
        return None
    nonce = "elision-" + secrets.token_hex(16)
    placeholder = b'"' + nonce.encode() + b'"'
    try:
        skeleton = orjson.loads(placeholder.join(gaps))
    except orjson.JSONDecodeError:
        return None
    places = _placeholders(skeleton, nonce)
    if places is None or len(places) != len(starts) or has_rounded_integer(skeleton):
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_python(skeleton, by_name=False)
    except ValueError:
        return None
    if not isinstance(message, types.JSONRPCResponse):
        return None
    text = _decode(line, starts[0], size, gaps)
    if text is None:
        return None
    for path in places:
        container: Any = message.result
        for key in path[1:-1]:
            container = container[key]
        container[path[-1]] = text
    return message


def _occurrences(line: bytearray) -> tuple[list[int], int] | None:
    """Where the longest content text's literal occurs in ``line`` (non-overlapping), and its
    length; ``None`` when there is no long text or the line does not skim."""
    try:
        skim = msgspec.json.decode(line, type=_Skim)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if skim.result is None:
        return None
    texts = [block.text for block in skim.result.content]
    texts.extend(block.resource.text for block in skim.result.content if block.resource)
    literal = max(texts, key=len, default=None)
    del texts
    del skim
    if literal is None or len(literal) < LONG_TEXT:
        return None
    size = len(literal)
    starts: list[int] = []
    with memoryview(literal) as view:
        if view[0] != ord('"'):
            return None
        at = 0
        while (start := _find(line, view, at)) is not None and start != -1:
            starts.append(start)
            at = start + size
    return (starts, size) if start is not None else None


def _find(line: bytearray, literal: memoryview, at: int) -> int | None:
    """Where ``literal`` first occurs in ``line`` from ``at`` (-1: nowhere), or ``None`` past
    :data:`_TRIES` false starts. bytearray.find with a needle of megabytes preprocesses it
    first, a pass as long as the search; a short head is found at memchr's pace instead, and
    compared whole where it matches."""
    head = literal[:_HEAD]
    for _ in range(_TRIES):
        start = line.find(head, at)
        if start == -1 or line.startswith(literal, start):
            return start
        at = start + 1
    return None


def _gaps(line: bytearray, starts: list[int], size: int) -> list[bytes] | None:
    """The bytes around the occurrences, when each occurrence opens a string of the line and
    the rest is no longer than the text; else ``None``."""
    ends = [0, *(s + size for s in starts)]
    if len(line) - size * len(starts) > size:
        return None
    gaps = [bytes(line[end:start]) for end, start in zip(ends, starts, strict=False)]
    gaps.append(bytes(line[ends[-1]:]))
    for gap in gaps[:-1]:
        # The gap starts outside any string (the line's start, or just after a literal):
        # its quote before the next occurrence opens a string only if it is unescaped and
        # the gap's own unescaped quotes pair up.
        quotes = [m.group() for m in _ESCAPE_OR_QUOTE.finditer(gap + b'"')]
        if quotes[-1] != b'"' or quotes.count(b'"') % 2 != 1:
            return None
    return gaps


def _placeholders(value: Any, nonce: str) -> list[tuple[str | int, ...]] | None:
    """The paths where ``nonce`` is a value; ``None`` where it is a key or lies outside
    ``result``."""
    if not isinstance(value, dict):
        return None
    found: list[tuple[str | int, ...]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key == nonce:
                    return None
                stack.append(((*path, key), child))
        elif isinstance(item, list):
            stack.extend(((*path, i), child) for i, child in enumerate(item))
        elif item == nonce:
            if len(path) < 2 or path[0] != "result":
                return None
            found.append(path)
    return found


def _decode(line: bytearray, start: int, size: int, gaps: list[bytes]) -> str | None:
    """The literal at ``line[start:start + size]`` decoded, the line emptied meanwhile; or
    ``None`` with the line put back as it came (``gaps`` are the bytes around the literal's
    occurrences) when orjson refuses a piece of it.

    The pieces are gathered as UTF-8 into an anonymous map as long as the literal (its text,
    as UTF-8, is never longer than its spelling), and the text decoded from that: joined as
    strings, the hundred 1 MiB pieces, once freed, stayed in the heap beyond the system's
    reach and held the proxy at 3N through the shaping, and a growing buffer was copied
    once it outgrew its place. Pages of the map are only taken as they are written, and all
    go back when it is closed. The round trip is exact: orjson gives no lone surrogate."""
    cut = _cut(line, start + size)
    gathered = mmap.mmap(-1, size)
    written = 0
    try:
        for a, b in _pieces(line, start + 1, start + size - 1):
            quoted = bytearray(b'"')
            with memoryview(line) as view:
                quoted += view[a:b]
            quoted += b'"'
            try:
                piece: str = orjson.loads(quoted)
            except orjson.JSONDecodeError:
                if cut:
                    literal = bytes(line[start:])
                    for gap in gaps[1:-1]:
                        line += gap
                        line += literal
                    line += gaps[-1]
                return None
            encoded = piece.encode("utf-8")
            gathered[written : written + len(encoded)] = encoded
            written += len(encoded)
        with suppress(BufferError):
            line.clear()
        with memoryview(gathered) as view:
            return str(view[:written], "utf-8")
    finally:
        gathered.close()


def _cut(line: bytearray, size: int) -> bool:
    """Drop ``line[size:]`` and give its memory back now: CPython shrinks a bytearray's buffer
    only once it falls under half of it, so when it would not, the buffer is first grown (by
    a few bytes past twice ``size``) so that it will. False, and the line as it was, while
    something else holds a view of it (it cannot be resized then)."""
    try:
        if size >= (line.__sizeof__() - _EMPTY_SIZE) // 2:
            line.extend(bytes(2 * size + 2 - len(line)))
        del line[size:]
    except BufferError:
        return False
    return True


def _pieces(line: bytearray, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(a, b)`` spans covering ``line[start:end]``, each about :data:`PIECE` bytes, cut
    where decoding the spans apart gives what decoding the whole gives."""
    at = probe = start
    while (probe := probe + PIECE) < end:
        cut = _cut_near(line, probe, end)
        if cut is None:
            continue  # no clean cut in this window (a long run of backslashes): the next
        yield at, cut
        at = probe = cut
    yield at, end


def _cut_near(line: bytearray, at: int, end: int) -> int | None:
    """A place at or after ``at`` (within a piece's length) to cut the literal, or ``None``."""
    stop = min(end, at + PIECE)
    search = at
    while (found := _ESCAPE_START.search(line, search, stop)) is not None:
        if not _LOW_SURROGATE.match(line, found.start()):
            return found.start()
        search = found.start() + 1
    # No escape to cut before: in a stretch with no backslash at all, any character start
    # past the longest escape that may have begun just before it is a clean cut (looked for
    # in a piece's length past that, so that one is always there).
    reach = min(end, stop + _ESCAPE_BYTES)
    if line.find(b"\\", at, reach) != -1:
        return None
    char = _CHAR_START.search(line, at + _ESCAPE_BYTES, reach)
    return None if char is None else char.start()


#: orjson keeps integers in [-2**63, 2**64) exact and reads longer ones as floats.
_EXACT_LIMIT = float(2**63)


def has_rounded_integer(value: object) -> bool:
    """Whether a float in ``value`` may be an integer literal orjson could not hold exactly
    (a float literal that large, such as 1e19, counts too: the slow path reads it the same)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) and abs(item) >= _EXACT_LIMIT:
            return True
    return False
