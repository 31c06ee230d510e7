"""Parse and serialize JSON exactly, at about the cost of one orjson parse.

Every body is parsed once, here, and every kept value must come out as the tool wrote it
(DESIGN invariant 6). orjson is fast but re-spells some numbers (``1E5`` -> ``100000.0``,
``1.10`` -> ``1.1``, ``-0`` -> ``0``, integers past 64 bits become floats) and stops at 1024
levels. So :func:`parse_json` takes one of three paths:

fast
    ``orjson.loads``, when the root is an object or array and a scan of the raw bytes
    (:func:`~elision.shape.numscan.risky_numbers`, in number context after ``[ : ,``; one
    hyperscan pass on large bodies) finds no number orjson could re-spell: 19+ digit integers,
    exponents, fractions ending in a 0 after their first digit, 16+ significant digits, ``-0``,
    and fractions below 1e-5. The scan may fire on a string that merely looks like a number;
    that only costs speed.
exact
    stdlib ``json`` with hooks, for scalar roots, bodies the scan flagged, and anything orjson
    refused (so the error message comes from one place). An integer in ``[-2**63, 2**64)``
    stays ``int``; a float stays ``float`` when ``orjson.dumps`` of it gives back its exact
    spelling; every other number becomes a :class:`RawNumber` that keeps its bytes. ``1e400``
    overflows a double but RFC 8259 allows it, so it is kept as ``RawNumber(b"1e400")``.
deep
    an iterative parser (no recursion, same number rules) when orjson or the stdlib's C scanner
    hits its nesting limit. It walks up to :data:`MAX_DEPTH` levels and refuses deeper with a
    :class:`~elision.errors.DepthError`; a container under the deep part that nests no deeper
    than the C scanner reads is read by it whole, with the exact path's hooks (a record array
    under 9,000 levels: 39 ms a MB, was 227 ms a token at a time).

Duplicate keys: the last value wins, at the first key's position, on every path (orjson, the
stdlib and JavaScript agree on this). Pass ``duplicates=[]`` to be told: the JSONPath of every
repeated key is appended in document order. orjson cannot see duplicates, so the fast path
counts them (:func:`_shadows_members`): outside strings a ``:`` is only ever a member separator,
and orjson writes ``:`` in a string as itself, so the parsed value written back has fewer
colons than the body exactly when a member was shadowed (unless the body spells a colon as
``\\u003a``; then, and when there are some, one stdlib parse, plus a deep one, finds where).
The colons written back are counted without a second copy of the document
(:func:`written_colons`): strings in place, small containers opened, the rest written a slice
at a time; a document nested past the 255 levels orjson writes is written by msgspec. A body
of a few strings (:func:`outside_strings`) counts only the colons outside them, one a member,
against the members parsed: no string is counted, however long.

Refused with :class:`~elision.errors.InputError`: an empty body, invalid UTF-8, a byte order
mark, lone UTF-16 surrogate escapes (``"\\ud800"``: no UTF-8 output could carry them), ``NaN``
and ``Infinity``, trailing data. Messages give the byte offset, line and column, and what to do;
they never quote body text, which may hold credentials.

:func:`dumps_value` writes compact JSON: ``orjson.dumps`` when it can, else an iterative writer
that produces the same bytes at any depth and for integers past 64 bits. NaN and infinities
(which orjson would write as ``null`` without a word), non-str keys and lone surrogates are
refused. Tuples are arrays.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import msgspec
import orjson

from elision.envelope import format_path
from elision.errors import DepthError, InputError
from elision.shape.jsondump import RawNumber, default, dumps_value
from elision.shape.numscan import risky_numbers

__all__ = [
    "MAX_DEPTH", "PROBE_BYTES", "RawNumber", "default", "dumps_value", "outside_strings",
    "parse_deep", "parse_json", "refused_early", "repeated_keys", "risky_numbers",
]

#: The deepest nesting :func:`parse_json` accepts; 10,000 levels parse in well under a second.
MAX_DEPTH = 10_000

_LEADING_WS = re.compile(rb"[ \t\n\r]*")
_SURROGATE_HINT = re.compile(rb"\\u[dD][89a-fA-F]")
# Escaped backslashes are consumed first so that ``\\ud800`` (a backslash, then text) is skipped.
_ESCAPES = re.compile(
    rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The C string scanner the stdlib parser uses; typeshed does not declare it.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_NOT_JSON = "is not JSON"


def _raw(spelling: str) -> RawNumber:
    # The parser's grammar already checked the spelling; skip the second regex.
    number = object.__new__(RawNumber)
    number.raw = spelling.encode("ascii")
    return number


# --------------------------------------------------------------------------- numbers


def _parse_int(spelling: str) -> int | RawNumber:
    if spelling == "-0":
        return _raw(spelling)
    # int() of 4300+ digits raises in CPython; anything over 21 chars is past 64 bits anyway.
    if len(spelling) > 21:
        return _raw(spelling)
    value = int(spelling)
    return value if -(2**63) <= value < 2**64 else _raw(spelling)


def _parse_float(spelling: str) -> float | RawNumber:
    value = float(spelling)
    # orjson's spelling is what dumps_value writes; keep the float only if it is the same.
    if orjson.dumps(value) == spelling.encode("ascii"):
        return value
    return _raw(spelling)


class _Constant(Exception):
    pass


def _parse_constant(name: str) -> NoReturn:
    raise _Constant(name)


_DECODER = json.JSONDecoder(
    parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant
)


# --------------------------------------------------------------------------- parse


def parse_json(
    body: bytes, *, duplicates: list[str] | None = None, risky: bool | None = None
) -> Any:
    """Strict RFC 8259 parse to dict/list/str/int/float/bool/None/RawNumber, exact.

    With ``duplicates`` (a list), the path of every repeated object key is appended to it.
    ``risky`` is :func:`risky_numbers` of ``body`` when the caller knows it (a scan of a whole
    document answers for every piece of it); true takes the exact path, orjson untried (a
    caller that knows orjson would refuse the body: its refusal holds 12x the body).
    """
    if not isinstance(body, bytes | bytearray | memoryview):
        raise InputError(f"parse_json takes the body as bytes, got {type(body).__name__}")
    body = bytes(body)
    start = _LEADING_WS.match(body)
    head = body[start.end() : start.end() + 1] if start else b""
    if risky is None:
        risky = head in (b"{", b"[") and risky_numbers(body)
    if head in (b"{", b"[") and not risky:
        refused = refused_early(body)
        if refused == "deep":
            return parse_deep(body, duplicates)
        if refused == "invalid":
            return _parse_exact(body, duplicates)
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            if str(exc).startswith("depth limit exceeded"):
                return parse_deep(body, duplicates)
            # Anything else orjson refuses is parsed again below, so every error reads alike.
        else:
            if duplicates is None or _shadows_members(body, value) is False:
                return value
    return _parse_exact(body, duplicates)


#: A body over twice this is tried by orjson on its first this many bytes first: orjson's
#: refusal holds about 12x what it was given (its error keeps the text decoded), so a 10 MB log
#: that opens with ``[`` cost 120 MB to be told it is no JSON.
PROBE_BYTES = 16 << 10
_END_OF_DATA = "unexpected end of data"


def refused_early(body: bytes) -> str | None:
    """``"deep"`` or ``"invalid"`` when orjson's read of the body's first :data:`PROBE_BYTES`
    shows it would refuse the whole body (past its 1,024 levels, or on a byte that no more data
    can make valid); ``None`` when the prefix only ran out, or parsed, or the body is no more
    than twice the probe (read whole, a refusal costs little)."""
    if len(body) <= 2 * PROBE_BYTES:
        return None
    cut = PROBE_BYTES
    while cut > PROBE_BYTES - 4 and body[cut] & 0xC0 == 0x80:
        cut -= 1  # never inside a UTF-8 char, which orjson would call invalid
    try:
        orjson.loads(body[:cut])
    except orjson.JSONDecodeError as exc:
        if exc.msg == _END_OF_DATA:
            return None
        return "deep" if exc.msg.startswith("depth limit exceeded") else "invalid"
    return None  # a whole value, then white space or trailing data: the whole read tells


def repeated_keys(body: bytes, value: Any) -> list[str]:
    """The path of every member of ``body`` that a repeated key shadows, in document order.

    ``value`` is what orjson (or any last-wins parser) made of ``body``; a body without
    repeats costs a serialization of it and a count, not a second parse."""
    if _shadows_members(body, value) is False:
        return []
    shadowed: list[str] = []
    parse_json(body, duplicates=shadowed)
    return shadowed


_ESCAPED_COLON = re.compile(rb"\\u003[aA]")


def _shadows_members(body: bytes, value: Any) -> bool | None:
    """Whether parsing ``body`` into ``value`` (by orjson) dropped a repeated key's member;
    ``None`` when colons cannot tell.

    A ``:`` outside strings separates a member from its key, once per member, and nowhere
    else; inside a string it is itself or ``\\u003a``. orjson writes each member of
    ``value`` with one ``:``, and string colons as themselves. So with no escaped colon in
    the body, ``value`` written back holds as many colons as the body exactly when every
    member (and every string in one) survived; a shadowed member takes at least its own.
    """
    spans = outside_strings(body) if len(body) > FEW_STRINGS_FROM else None
    if spans is not None and sum(end - start for start, end in spans) <= OUTSIDE_BYTES:
        # A few strings: the colons outside them are the members, one each, whatever the
        # strings hold (escapes included); no string is counted.
        colons = sum(body.count(b":", start, end) for start, end in spans)
        return _members(value) < colons
    # A backslash first (memchr, at memory speed): the escape's own search took as long as
    # the parse of a body that is one big string.
    if b"\\" in body and b"\\u003" in body and _ESCAPED_COLON.search(body) is not None:
        return None
    if len(body) <= WRITE_WHOLE_BYTES:
        # Written whole, a small body costs one C call: opened container by container (as a
        # big one is), a batch of 300-deep documents cost 1 ms a KB in Python.
        written = _written(value)
        if written is not None:
            return written.count(b":") < body.count(b":")
    return written_colons(value) < body.count(b":")


#: A body with at most this many bytes outside its few strings (:func:`outside_strings`) is
#: proven free of repeated keys by counting its members, not colons.
OUTSIDE_BYTES = 4096
#: ... when it is longer than this (a small body's colons cost less than following its quotes).
FEW_STRINGS_FROM = 64 << 10


def _members(value: Any) -> int:
    """How many members the objects in ``value`` hold, at any depth."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            count += len(item)
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return count


#: Quotes (and backslashes before them) :func:`outside_strings` reads before it gives up.
_QUOTE_STEPS = 64


def outside_strings(body: bytes) -> list[tuple[int, int]] | None:
    """The spans of ``body`` outside its strings, found a quote at a time (memchr), when it
    holds only a few strings; ``None`` when it holds more, or a string does not end.

    In a body of a few long strings what is outside them is all that costs: counting all of
    it (three counts, 1.8 ms a MB) was slower than orjson's read of it (0.5 ms a MB), and so
    was counting the colons of its strings twice to prove no key repeated."""
    spans: list[tuple[int, int]] = []
    steps, at = _QUOTE_STEPS, 0
    while steps > 0:
        start = body.find(b'"', at)
        if start < 0:
            spans.append((at, len(body)))
            return spans
        spans.append((at, start))
        end = start
        while steps > 0:
            steps -= 1
            end = body.find(b'"', end + 1)
            if end < 0:
                return None
            slashes = 0
            while body[end - 1 - slashes] == 0x5C and slashes < _QUOTE_STEPS:
                slashes += 1
            steps -= slashes
            if slashes % 2 == 0:
                break  # the quote that closes the string
        at = end + 1
    return None


#: A body at most this long has its parsed value written back whole to count its colons (the
#: copy is about its size); a longer one is counted by :func:`written_colons`.
WRITE_WHOLE_BYTES = 1 << 20
#: A container with at most this many members is opened and its members counted one by one
#: (so a huge string inside is never written), up to :data:`OPEN_CONTAINERS` of them; the
#: rest is written, a long array :data:`_WRITE_SLICE` elements at a time.
OPEN_MEMBERS = 8
OPEN_CONTAINERS = 4096
_WRITE_SLICE = 256


def written_colons(value: Any) -> int:
    """The colons in ``orjson.dumps(value)`` for a value orjson parsed, at any depth.

    Counted without writing the whole value: a string's colons where it lies (a body that is
    one 100 MB string is not copied into a second 100 MB), the first few thousand small
    containers opened member by member, and what is left written, a slice of a long array
    at a time. orjson writes 255 levels at most; what it refuses msgspec writes (to about
    1,000), and only what neither writes is opened in Python, so a deep document costs a
    write, not a second parse by the exact parser. Both write a key's or a string's ``:`` as
    itself and one ``:`` per member; no number or literal holds one.
    """
    count = 0
    stack = [value]
    opens = OPEN_CONTAINERS
    # Once neither writer takes a piece, everything left is opened: trying again level by
    # level could write the same prefix hundreds of times over.
    too_deep = False
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            count += item.count(":")
            continue
        if kind is not dict and kind is not list:
            continue  # a number or a literal
        if too_deep or (opens > 0 and len(item) <= OPEN_MEMBERS):
            opens -= 1
            count += _open(item, stack)
            continue
        pieces = [item] if kind is dict else [
            item[at : at + _WRITE_SLICE] for at in range(0, len(item), _WRITE_SLICE)
        ]
        for piece in pieces:
            written = None if too_deep else _written(piece)
            if written is None:
                too_deep = True
                count += _open(piece, stack)
            else:
                count += written.count(b":")
    return count


def _open(item: dict[str, Any] | list[Any], stack: list[Any]) -> int:
    """Push ``item``'s members on ``stack``; return the colons its own members write."""
    if type(item) is list:
        stack.extend(item)
        return 0
    stack.extend(item.values())  # type: ignore[union-attr]
    return len(item) + sum(key.count(":") for key in item)


def _written(piece: dict[str, Any] | list[Any]) -> bytes | None:
    try:
        return orjson.dumps(piece)
    except orjson.JSONEncodeError:  # nested deeper than orjson writes
        pass
    try:
        return msgspec.json.encode(piece)
    except RecursionError:
        return None


def _decode(body: bytes) -> str:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise InputError(
            f"body is not valid UTF-8: {bad!r} at {_where(body, exc.start)} ({exc.reason}); "
            "JSON must be UTF-8 (RFC 8259 section 8.1): re-encode the tool's output as UTF-8"
        ) from None
    if text.startswith("\ufeff"):
        raise InputError(
            "body starts with a UTF-8 byte order mark, which JSON text must not carry "
            "(RFC 8259 section 8.1); strip its first 3 bytes"
        )
    if _WS.fullmatch(text) is not None:
        raise InputError(
            f"body is empty ({len(body)} bytes of whitespace): there is no JSON value to read; "
            "check that the tool returned a result"
        )
    if may_hold_surrogate(body):
        _check_surrogates(body)
    return text


def may_hold_surrogate(body: bytes) -> bool:
    """Whether ``body`` may spell a UTF-16 surrogate as an escape (``\\ud800``).

    Searched for a backslash first (memchr, at memory speed), then for any ``\\u`` escape
    (memmem): the pattern alone stops at every backslash, which in a body of escaped text
    took longer than parsing it."""
    if b"\\" not in body or b"\\u" not in body:
        return False
    return _SURROGATE_HINT.search(body) is not None


def _check_surrogates(body: bytes) -> None:
    for match in _ESCAPES.finditer(body):
        if len(match[0]) == 6:
            raise InputError(
                f"lone UTF-16 surrogate escape {match[0].decode('ascii')!r} at "
                f"{_where(body, match.start())}: it is half of a character, and no UTF-8 "
                "output can carry it; have the tool pair each \\uD800-\\uDBFF escape with a "
                "following \\uDC00-\\uDFFF one"
            )


def _parse_exact(body: bytes, duplicates: list[str] | None) -> Any:
    refused = _refused_by_prefix(body)
    if refused is not None:
        raise InputError(refused)
    text = _decode(body)
    seen_duplicate = [False]
    decoder = _DECODER if duplicates is None else _flagging_decoder(seen_duplicate)
    try:
        value = decoder.decode(text)
    except RecursionError:
        return _parse_deep_text(body, text, duplicates)
    except _Constant:
        # The hook is not told where the constant is; the deep parser is, and it will raise.
        return _parse_deep_text(body, text, duplicates)
    except json.JSONDecodeError as exc:
        raise InputError(_message(exc.msg, body, _byte_offset(text, exc.pos))) from None
    if seen_duplicate[0]:
        # Only the deep parser knows where it is; duplicates are rare enough to parse twice.
        return _parse_deep_text(body, text, duplicates)
    return value


#: An error this many chars or more before a probe's end is no cut of the probe's: a cut
#: token (a literal, a number's digits, an escape) is reported at its own start.
_PROBE_MARGIN = 64


def _refused_by_prefix(body: bytes) -> str | None:
    """The message :func:`_parse_exact` refuses a large ASCII ``body`` with, when the exact
    parse of its first :data:`PROBE_BYTES` already meets the error, well before its end (so
    the whole meets the same one there); else ``None``. The whole body is never decoded for
    it: a MB of text that opens with a brace, read as JSON once redacted, held its decoded
    copy beside the body (issue 23, memjson). An unterminated string is left to the whole
    parse: the probe's end may be what ends it."""
    if len(body) <= 2 * PROBE_BYTES or not body.isascii() or may_hold_surrogate(body):
        return None  # a UTF-8 error or a lone surrogate anywhere is what the whole refuses first
    text = body[:PROBE_BYTES].decode("ascii")
    try:
        _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        if exc.pos < len(text) - _PROBE_MARGIN and not exc.msg.startswith("Unterminated"):
            return _message(exc.msg, body, exc.pos)  # ASCII: a char's offset is its byte's
    except (RecursionError, _Constant):
        pass
    return None


def parse_deep(body: bytes, duplicates: list[str] | None = None) -> Any:
    """:func:`parse_json` by the iterative parser alone, for a body known to nest past what
    the C parsers read (about 1,000 levels): the same values and errors, no C parse tried."""
    return _parse_deep_text(body, _decode(body), duplicates)


def _parse_deep_text(body: bytes, text: str, duplicates: list[str] | None) -> Any:
    try:
        return _parse_deep(text, duplicates)
    except json.JSONDecodeError as exc:
        offset = _byte_offset(text, exc.pos)
        if exc.msg == "too deep":
            raise DepthError(
                f"JSON nests deeper than {MAX_DEPTH} levels at {_where(body, offset)}; elision "
                "will not walk deeper: flatten the document, or shape it as text "
                "(format='text')"
            ) from None
        raise InputError(_message(exc.msg, body, offset)) from None


def _parse_deep(text: str, duplicates: list[str] | None) -> Any:
    """Iterative parse: the open containers live on ``stack``, never on the call stack."""
    ws = _WS.match
    end = len(text)
    # Each frame is [container, key being filled]; the key is unused for arrays.
    stack: list[list[Any]] = []
    # One str per distinct short key, as orjson's key cache gives: a record array past the C
    # parsers' depth held a new str for each key of each record, a third of its parse's memory.
    keys: dict[str, str] = {}
    # A container that nests no deeper than the C scanner reads is read by it whole (the same
    # values: the exact path's hooks). Tried from depth ``shallow_from`` on: a try that ran out
    # of depth at ``failed`` is tried again ``step`` levels deeper (:data:`_C_STEP`, doubled up
    # to :data:`_C_MOST_STEP` while tries keep failing), until the token walk closes back past
    # it, so each byte is read by a few failed tries at most.
    repeated = [False]
    decoder = _DECODER if duplicates is None else _flagging_decoder(repeated)
    shallow, shallow_from, failed, step = C_READS, 0, -1, _C_STEP
    pos = ws(text, 0).end()  # type: ignore[union-attr]
    while True:
        char = text[pos : pos + 1]
        value: Any
        read = None
        if (char == "{" or char == "[") and shallow and shallow_from <= len(stack):
            try:
                read = decoder.raw_decode(text, pos)
            except RecursionError:
                failed, shallow_from = len(stack), len(stack) + step
                step = min(2 * step, _C_MOST_STEP)
            except (ValueError, _Constant):
                shallow = False  # refused: the token walk finds the fault and names it
            if repeated[0] or (read is not None and not _within(read[0], len(stack))):
                # Only the token walk knows a repeated key's path, and refuses past MAX_DEPTH
                # where it is: it reads on, and no container is read twice again.
                read, shallow = None, False
        if read is not None:
            value, pos = read
        elif char == "{" or char == "[":
            if len(stack) >= MAX_DEPTH:
                raise json.JSONDecodeError("too deep", text, pos)
            pos = ws(text, pos + 1).end()  # type: ignore[union-attr]
            closing = text[pos : pos + 1]
            if char == "{" and closing == "}":
                value, pos = {}, pos + 1
            elif char == "[" and closing == "]":
                value, pos = [], pos + 1
            elif char == "{":
                key, pos = _key(text, pos)
                stack.append([{}, _shared(keys, key)])
                continue
            else:
                stack.append([[], None])
                continue
        elif char == '"':
            value, pos = _scanstring(text, pos + 1, True)
        else:
            value, pos = _scalar(text, pos)
        while True:  # hand the finished value to its container, closing those that end
            if not stack:
                pos = ws(text, pos).end()  # type: ignore[union-attr]
                if pos != end:
                    raise json.JSONDecodeError("Extra data", text, pos)
                return value
            frame = stack[-1]
            container = frame[0]
            is_list = type(container) is list
            if is_list:
                container.append(value)
            else:
                if duplicates is not None and frame[1] in container:
                    duplicates.append(_stack_path(stack))
                container[frame[1]] = value
            pos = ws(text, pos).end()  # type: ignore[union-attr]
            char = text[pos : pos + 1]
            if char == ",":
                pos = ws(text, pos + 1).end()  # type: ignore[union-attr]
                if not is_list:
                    key, pos = _key(text, pos)
                    frame[1] = _shared(keys, key)
                break
            if char == ("]" if is_list else "}"):
                value, pos = container, pos + 1
                stack.pop()
                if len(stack) < failed:
                    # Out of the deep container: try again.
                    failed, shallow_from, step = -1, 0, _C_STEP
                continue
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)


#: After a C read that ran out of depth, :func:`_parse_deep` tries again this many levels
#: deeper (the C scanner reads about ``sys.getrecursionlimit()`` levels).
_C_STEP = 256
#: ... at most (a document nested to its size was tried every 256 levels, 39 failed tries).
_C_MOST_STEP = 1024
#: Whether :func:`_parse_deep` tries the C scanner at all (the tests turn it off to compare).
C_READS = True
#: Through 3.11 the C scanner reads fewer levels than the recursion limit; from 3.12 it has a
#: limit of its own (1,497 levels on 3.12, 9,998 on 3.13), so what it read is measured.
_C_BOUNDED = sys.version_info < (3, 12)


def _within(value: Any, depth: int) -> bool:
    """Whether ``value``, read at ``depth`` open containers, nests within :data:`MAX_DEPTH`
    (what the token walk accepts): known without a walk where the C scanner cannot go that
    deep."""
    if _C_BOUNDED and depth + sys.getrecursionlimit() <= MAX_DEPTH:
        return True
    pending = [(value, depth + 1)]
    while pending:
        node, level = pending.pop()
        if level > MAX_DEPTH:
            return False
        children = node.values() if type(node) is dict else node
        pending.extend((child, level + 1) for child in children
                       if type(child) is dict or type(child) is list)
    return True


def _flagging_decoder(repeated: list[bool]) -> json.JSONDecoder:
    """The exact path's decoder, which sets ``repeated[0]`` when an object repeats a key."""

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            repeated[0] = True
        return obj

    return json.JSONDecoder(
        parse_float=_parse_float, parse_int=_parse_int, parse_constant=_parse_constant,
        object_pairs_hook=pairs_hook,
    )


#: The distinct keys :func:`_parse_deep` shares, at most (orjson's cache holds 2,048), each of
#: at most :data:`_SHARED_KEY` chars: past either a key is kept as it was read.
_SHARED_KEYS = 1024
_SHARED_KEY = 64


def _shared(keys: dict[str, str], key: str) -> str:
    """The one str of ``key``'s spelling that this parse has kept, or ``key`` itself."""
    got = keys.get(key)
    if got is not None:
        return got
    if len(keys) < _SHARED_KEYS and len(key) <= _SHARED_KEY:
        keys[key] = key
    return key


def _key(text: str, pos: int) -> tuple[str, int]:
    if text[pos : pos + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    key, pos = _scanstring(text, pos + 1, True)
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if text[pos : pos + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
    return key, _WS.match(text, pos + 1).end()  # type: ignore[union-attr]


def _scalar(text: str, pos: int) -> tuple[Any, int]:
    number = _NUMBER.match(text, pos)
    if number is not None:
        spelling = number[0]
        parsed = _parse_int(spelling) if number.lastindex is None else _parse_float(spelling)
        return parsed, number.end()
    for word, value in (("true", True), ("false", False), ("null", None)):
        if text.startswith(word, pos):
            return value, pos + len(word)
    for word in ("NaN", "Infinity", "-Infinity"):
        if text.startswith(word, pos):
            raise json.JSONDecodeError(f"{word} {_NOT_JSON}", text, pos)
    raise json.JSONDecodeError("Expecting value", text, pos)


def _stack_path(stack: list[list[Any]]) -> str:
    parts: list[str | int] = []
    for container, key in stack:
        parts.append(len(container) if type(container) is list else key)
    return format_path(parts)


# --------------------------------------------------------------------------- errors


def _byte_offset(text: str, pos: int) -> int:
    return len(text[:pos].encode("utf-8", "surrogatepass"))


def _where(body: bytes, offset: int) -> str:
    line_start = body.rfind(b"\n", 0, offset) + 1
    line = body.count(b"\n", 0, offset) + 1
    column = len(body[line_start:offset].decode("utf-8", "replace")) + 1
    return f"byte {offset} (line {line}, column {column})"


def _at_end(body: bytes, offset: int) -> bool:
    """Whether only white space follows ``offset`` (without copying the rest twice, as
    ``body[offset:].strip()`` did: 2x a body refused near its start)."""
    rest = _LEADING_WS.match(body, offset)
    return rest is not None and rest.end() == len(body)


def _message(problem: str, body: bytes, offset: int) -> str:
    where = _where(body, offset)
    problem = problem.removesuffix(" at")  # the stdlib's "Unterminated string starting at"
    if problem.endswith(_NOT_JSON):
        return (
            f"{problem} at {where}: RFC 8259 has no NaN or Infinity; have the tool write null "
            "or a string instead"
        )
    if problem == "Extra data":
        return (
            f"trailing data after the JSON value at {where}; if the body holds one JSON "
            "document per line, shape it as NDJSON (format='ndjson')"
        )
    # An unterminated string runs to the end by definition; "Expecting" at the end is a cut too.
    if problem.startswith("Unterminated") or (
        problem.startswith("Expecting") and _at_end(body, offset)
    ):
        return (
            f"body ends before its JSON value does ({problem.lower()} at {where}): it looks "
            "cut off; fetch the complete result, a head slice of JSON cannot be read"
        )
    return (
        f"body is not valid JSON: {problem[:1].lower()}{problem[1:]} at {where}; fix the tool's "
        "output, or shape it as text (format='text')"
    )
