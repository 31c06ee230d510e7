"""Credentials written in an encoding: JSON ``\\u`` escapes, percent-encoding, one level of base64.

A token spelled ``\\u0067hp_…`` or ``%67hp_…`` is still a token: :func:`decode_escapes` gives a
view of the text with both kinds of escape decoded, and :meth:`View.original` maps a span found
in the view back to the text, so the stub replaces exactly the escaped spelling.

A base64 value (a Kubernetes Secret's ``data``, an ``.env`` file stored whole) is decoded when it
decodes to text (:func:`base64_text`); a credential found inside withholds the whole value,
since the bytes of one part of a base64 run cannot be cut out of it. Binary runs (images, hashes,
ids) are told apart by their first bytes and are never decoded whole.
"""

from __future__ import annotations

import binascii
import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate
from operator import itemgetter

from elision._lazyre import lazy_compile
from elision._record import field, record_class
from elision.shape.bom import decode_marked

#: A run of backslashes before a "/" or a quote is read possessively (``*+``, ``++``): a "/" or
#: a quote is never a backslash, so giving one back can never match, and the run that ended
#: in a quote was read back a char at a time for the "/" first (a third of judging a MB of
#: assignments eight levels of JSON-in-JSON down, issue 23). A percent-escape encoded again
#: and again (``%2525…2541``: its "%" written ``%25`` once a level) is one escape, the char
#: its last two digits spell, read in one pass however deep (a redirect in a redirect in a
#: redirect, ``%25253D``, was four levels from the end). Every branch opens with a backslash
#: or a "%" (the run's "no backslash before it" is asked after its first one, as a lookbehind
#: of two): the regex engine then skips in C to where one is, where a lookbehind first made it
#: try each branch at every char (half of each escape search of a line of prose, issue 23).
_ESCAPE = lazy_compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})"
    r"|%(?:25)*([0-7][0-9a-fA-F])|\\(?<!\\\\)(?:\\*+(/)|\\++(\"))|\\(\\)"
)
#: :data:`_ESCAPE` with one group, each escape whole: its ``split`` is the text's literals
#: with each escape between two (:func:`_tabled_originals`, :func:`_decoded`).
_ESCAPE_WHOLE = lazy_compile(
    r"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}"
    r"|%(?:25)*[0-7][0-9a-fA-F]|\\(?<!\\\\)(?:\\*+/|\\++\")|\\\\)"
)
#: The most levels of escapes read through (:func:`decode_escapes`): a ``\\u`` escape three
#: levels of JSON-in-JSON down (``\\\\\\\\u0067``: 4, 2, 1, none), or a percent-escape spelled
#: in a ``\\u`` escape (``%2\\u0046``). A run before a quote or a "/", and a percent-escape
#: encoded again and again, are read whole in one level, however deep. No more: a ``\\u``
#: escape decoded may spell one again only a few chars shorter (``\\u005Cu005C…u0041``), so
#: a level more is a pass more over nearly all of it, and unbounded a text of them cost time
#: quadratic in its length.
_LEVELS = 4
#: The longest text whose escapes are read in C (:func:`_escape_table`, :func:`_decoded`): their
#: table is a few objects an escape, held for the call alone, so only a piece's (a few KB) is
#: tabled; a longer text is read an escape at a time, holding nothing per escape.
_TABLED = 1 << 14
#: Bytes read to tell a text from binary data before a run is decoded whole.
_PROBE = 96
#: What the byte order marks :mod:`elision.shape.bom` reads open with (its ``MARKS``): bytes
#: that open with none are read as UTF-8 with no look at the marks.
_MARK_HEADS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
#: The URL-safe alphabet's two chars as the standard one writes them.
_FROM_URLSAFE = str.maketrans("-_", "+/")


@record_class(frozen=True)
class View:
    """A decoded text, and the text it was decoded from (to map a span back)."""

    text: str
    source: str
    #: The view ``source`` is the text of, where it is itself decoded from a text (a level
    #: of escapes read beneath another).
    under: View | None = None
    #: The lengths of ``source``'s split at its escapes (literals, each escape between two),
    #: where it was decoded so (:func:`_decoded`): its mapping back reads them, not a second
    #: split (a piece's, a few KB at most: an int a part, held while the view is).
    parts: list[int] | None = field(default=None, compare=False, repr=False)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of ``text[start:end]``: an escape is kept whole."""
        return self.originals([(start, end)])[0]

    def originals(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """:meth:`original` of each of ``spans``, in one pass over the escapes.

        Nothing is kept per escape between calls: a table of them (three ints each) was 35
        to 70 times the size of a text that is a run of escapes (issue 23)."""
        if len(self.source) <= _TABLED:
            mapped = _tabled_originals(self.source, spans, self.parts)
            return mapped if self.under is None else self.under.originals(mapped)
        wanted = sorted((pos - 1 if is_end else pos, is_end, i)
                        for i, span in enumerate(spans) for is_end, pos in enumerate(span))
        out = [[0, 0] for _ in spans]
        marks = _marks(self.source)
        mark, ahead = None, next(marks, None)
        for key, is_end, i in wanted:
            while ahead is not None and ahead[0] <= key:
                mark, ahead = ahead, next(marks, None)
            pos = key + 1 if is_end else key
            if mark is None:
                out[i][is_end] = pos
                continue
            dec, orig_start, orig_end = mark
            if is_end and pos == dec + 1:
                out[i][is_end] = orig_end
            elif not is_end and pos == dec:
                out[i][is_end] = orig_start
            else:
                out[i][is_end] = orig_end + (pos - dec - 1)
        mapped = [(a, b) for a, b in out]
        return mapped if self.under is None else self.under.originals(mapped)


def _tabled_originals(
    source: str, spans: list[tuple[int, int]], parts: list[int] | None = None,
) -> list[tuple[int, int]]:
    """:meth:`View.originals` of a short ``source``, its escapes tabled in C (its split at
    them, ``accumulate``; ``parts``: that split's lengths, where the decoding made them),
    each span's ends then found by bisection: a Python step an escape (:func:`_marks`, a
    generator's) was a third of judging a line of a cookie map two levels of JSON-in-JSON
    down (issue 23). The same mapping: a position at an escape's decoded char is the
    escape's start for a span's start, its end for a span's end; any other is moved on by
    what the escapes before it are longer than the one char each spells."""
    # literals, each escape between two
    lengths = list(map(len, _ESCAPE_WHOLE.split(source))) if parts is None else parts[:]
    count = len(lengths) // 2
    in_source = list(accumulate(lengths, initial=0))
    lengths[1::2] = [1] * count  # each escape is one char of the view
    in_view = list(accumulate(lengths, initial=0))
    # Escape i is part 2i + 1: at in_view[2i + 1] in the view, in_source[2i + 1 : 2i + 3].
    escapes = in_view[1 : 2 * count : 2]
    out = []
    for start, end in spans:
        i = bisect_right(escapes, start) - 1
        if i < 0:
            a = start
        elif start == escapes[i]:
            a = in_source[2 * i + 1]
        else:
            a = start + in_source[2 * i + 2] - in_view[2 * i + 2]
        j = bisect_right(escapes, end - 1) - 1
        b = end if j < 0 else end + in_source[2 * j + 2] - in_view[2 * j + 2]
        out.append((a, b))
    return out


def _marks(source: str) -> Iterator[tuple[int, int, int]]:
    """For each escape of ``source``: its start in the decoded text, and its span in
    ``source``; each escape decodes to one char."""
    pos = length = 0
    for match in _ESCAPE.finditer(source):
        length += match.start() - pos
        yield length, match.start(), match.end()
        length += 1
        pos = match.end()


def _spelled(match: re.Match[str]) -> str:
    """The one char an escape ``match`` spells. A run of backslashes, and a percent-escape
    encoded again and again (``%2525…41``), are read here, never cached: their length is the
    text's to choose (a MB of them was a MB-long key)."""
    char = match.group(5) or match.group(6) or match.group(7)
    if char is not None:
        return char
    pct = match.group(4)
    return _char(match.group()) if pct is None else chr(int(pct, 16))


@lru_cache(maxsize=4096)
def _char(escape: str) -> str:
    match = _ESCAPE.fullmatch(escape)
    assert match is not None
    high, low, single, *_ = match.groups()
    if high is not None:
        return (chr(int(high, 16)) + chr(int(low, 16))).encode(
            "utf-16", "surrogatepass").decode("utf-16")
    return chr(int(single, 16))


def decode_escapes(text: str) -> View | None:
    """``text`` with ``\\uXXXX``, ASCII ``%XX`` and ``\\\\`` escapes decoded, and a run of
    backslashes before a "/" (or of two or more before a quote) read as that char; or
    ``None`` if it has none. Such a run is every level of JSON-in-JSON at once (``\\\\\\"``
    is ``\\"`` a level down, then ``"``; 2**k - 1 backslashes k levels down): the char is
    itself at every level, so a quote or a "/" is read plain however deep it was written. A
    ``\\"`` alone is kept: the text finder reads a name's quote so itself, and read as ``"``
    it would end a value where a quoted one ends (``\\"hunter2, x="``). Any other run is
    read a pair a level (JSON's own pairing): which level an escape after it is at, and so
    what it spells with the escapes beside it, is told by the run's length. What a decoding
    spells in escapes again (``\\\\u0067``, or ``%2\\u0046``) is decoded in turn, up to
    :data:`_LEVELS` levels: each level's escape is one char of the level above, so spans map
    back through each."""
    view: View | None = None
    for _ in range(_LEVELS):
        source = text if view is None else view.text
        if _ESCAPE.search(source) is None:
            break
        decoded, parts = _decoded(source)
        view = View(decoded, source, view, parts)
    return view


def _decoded(source: str) -> tuple[str, list[int] | None]:
    """``source`` with each of its escapes read as the one char it spells, and the lengths
    of its split at them where it was split (:attr:`View.parts`). Where it can hold only runs
    of backslashes (no ``\\u`` and no ``%``: told in C), and is short, in C: such an escape
    spells its own last char (a "/", a quote, a backslash), so its split's escapes are each
    put as that char. A call of :func:`_spelled` an escape was a fifth of judging a line of a
    cookie map two levels of JSON-in-JSON down (issue 23); the split again, to map the
    view's spans back, a twentieth."""
    if len(source) <= _TABLED and "%" not in source and "\\u" not in source:
        parts = _ESCAPE_WHOLE.split(source)
        lengths = list(map(len, parts))
        parts[1::2] = map(itemgetter(-1), parts[1::2])
        return "".join(parts), lengths
    return _ESCAPE.sub(_spelled, source), None


def blob_text(raw: bytes) -> str:
    """Decoded bytes as text: in the encoding a UTF-16 or UTF-32 byte order mark names (a
    Windows ``.env`` stored as a blob), else UTF-8; what cannot be decoded is U+FFFD."""
    marked = decode_marked(raw)
    return marked[0] if marked is not None else raw.decode("utf-8", "replace")


def _as_text(raw: bytes, *, whole: bool) -> str:
    """``raw`` read as text for :func:`_texty` and :func:`base64_text`: per its byte order
    mark when it has one (a probe of a prefix may end inside a char, so errors are dropped)."""
    return _read(raw, whole=whole)[0]


def _read(raw: bytes, *, whole: bool) -> tuple[str, bool]:
    """:func:`_as_text`, and whether ``raw`` opens with a byte order mark."""
    if not raw.startswith(_MARK_HEADS):
        # No mark: told in C, where asking decode_marked was two calls more a run probed
        # (the regex passes probe each run of a line: issue 23's calls an entry).
        return raw.decode("utf-8", "strict" if whole else "ignore"), False
    marked = decode_marked(raw)
    if marked is not None:
        text, _, bad = marked
        if whole and bad:
            raise UnicodeDecodeError("utf-16", raw, 0, len(raw), "not the marked encoding")
        return text, True
    return raw.decode("utf-8", "strict" if whole else "ignore"), False


def _texty(raw: bytes, *, whole: bool) -> bool:
    try:
        if raw.startswith(_MARK_HEADS):
            text, marked = _read(raw, whole=whole)
        else:  # _read's own first step, without its call
            text, marked = raw.decode("utf-8", "strict" if whole else "ignore"), False
    except UnicodeDecodeError:
        return False
    if not text:
        return False
    # A marked text's chars are two or four bytes each: the mark stands for the share check.
    # Told first: random bytes lose most of theirs to the decoding, and are told so without
    # a Python step a char.
    if not (whole or marked or len(text) >= 0.8 * len(raw)):
        return False
    printable = sum(1 for c in text if c.isprintable() or c in "\t\r\n")
    return printable >= 0.95 * len(text)


def _decode(body: str) -> bytes | None:
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return None
    if len(body) % 4 == 1:
        body = body[:-1]
    padded = body + "=" * (-len(body) % 4)
    # binascii itself, as base64.b64decode and urlsafe_b64decode call it: each wrapper was two
    # Python calls more a run the regex passes probe (issue 23's calls an entry).
    try:
        if urlsafe:
            return binascii.a2b_base64(padded.translate(_FROM_URLSAFE))
        return binascii.a2b_base64(padded, strict_mode=True)
    except (binascii.Error, ValueError):
        return None


def looks_like_base64_text(run: str) -> bool:
    """Whether a base64 run's first bytes decode to text (cheap: a probe, not the run)."""
    body = run.rstrip("=")
    head = _decode(body[: _PROBE - _PROBE % 4] if len(body) > _PROBE else body)
    return head is not None and _texty(head, whole=False)


def base64_text(run: str) -> str | None:
    """The text a base64 run decodes to, or ``None`` for binary data or a run that is not
    base64 at all."""
    if not looks_like_base64_text(run):
        return None
    raw = _decode(run.rstrip("="))
    if raw is None:
        return None
    try:
        return _as_text(raw, whole=True) if _texty(raw, whole=True) else None
    except UnicodeDecodeError:
        return None
