"""Find and replace every withheld span in a text, at about the cost of a substring search.

The pre-filter's triggers are found first, in one search of the whole text
(:mod:`elision.redact.triggers`). A long text is cut into chunks of about :data:`CHUNK` chars
at line ends, and a chunk that holds no trigger is kept as it is. A chunk that holds one is
halved at a line end until the pieces are :data:`PIECE` chars or less, so the precise rules
only ever run on a few short pieces around each candidate, each read one line further so a
match that wraps a line (``Bearer`` then its token on the next) is not cut in two. A PEM,
PuTTY or SSH2 private key spans many lines, so those rules alone run over the rest of the text,
from each of their keywords that a piece holds.

The precise stage also reads a piece in its encodings (:mod:`elision.redact.encodings`): with
its ``\\u`` and ``%XX`` escapes decoded, and each base64 run in it that decodes to text.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import islice, repeat
from operator import attrgetter, eq, itemgetter, le, lt
from typing import Literal, TypeAlias, overload

from elision.redact import compat
from elision.redact.blocks import continued
from elision.redact.columns import column_spans
from elision.redact.commands import CONTINUING_WORDS
from elision.redact.density import join
from elision.redact.encodings import base64_text, decode_escapes, looks_like_base64_text
from elision.redact.families import BY_ID, PATTERN_FAMILIES, Family, Glue, read_closings
from elision.redact.folding import fold
from elision.redact.keywords import (
    B64_HEADS,
    B64_RUN,
    B64_RUN_BYTES,
    B64_WINDOW,
    Present,
    holds_base64_form,
    located,
    present,
)
from elision.redact.keywords import window_local as _window_local
from elision.redact.mdtables import escaped_table_spans, table_spans
from elision.redact.netrc import PAIRS
from elision.redact.rules import Span, credential_stub, make_span
from elision.redact.secrets import CREDENTIAL_RULES, find_credentials
from elision.redact.triggers import dense_text_triggers, quiet_runs, run_end, text_holds_wide
from elision.redact.urls import classify_url, signed_url_bounds, spans_of

#: Chars per pre-filtered chunk: big enough that the per-chunk cost is noise.
CHUNK = 1 << 16
#: A piece longer than this (one long line) gives its spans as arrays where its text's are.
_LONG_PIECE = 1 << 14
#: The largest piece the precise rules run on once the pre-filter has flagged it.
PIECE = 1 << 10
#: How far a piece is read into a credential-dense stretch after it, and a stretch's last
#: line before what follows it: a token that wraps a line is shorter.
WRAP = 4 * PIECE
#: The triggers a piece of :data:`WHOLE` chars or less holds from which it is judged whole
#: where it can be (:func:`_whole`), and how large such a piece is: its copies (the piece,
#: its bytes, its base64 marks) are what the judging holds beside the text, a fixed 0.2 MB
#: or so at most. Twice a chunk, so a chunk (:data:`CHUNK` chars to its next line end) is
#: one piece: at 16 KB a piece's fixed cost (its keyword pass, its Present, its rules'
#: set-up: some 22 us) was a sixth of judging NDJSON records of a key each (issue 23).
CROWDED = 4
WHOLE = 2 * CHUNK
#: A piece over this many chars refused by :func:`_whole` for a mark in it (told in C) has
#: its halves tried in turn: at :data:`WHOLE` one URL in a chunk of records would have sent
#: all of them to be judged a line at a time, where a piece of 16 KB sent its own.
_RETRY_ABOVE = 1 << 14
#: A chunk holding more family keywords than one each this many chars is halved: each
#: keyword found costs a call, where a piece's search stops at its first.
_KEYWORD_SPACING = 256
#: An ASCII text's bytes with each char a base64 run holds (B64_RUN's class) made an "a",
#: each other a space: where twenty "a"s meet, a run of B64_RUN starts.
_RUN_MARKS = bytes(0x61 if c in B64_RUN_BYTES else 0x20 for c in range(256))
_RUN_LEAST = b"a" * 20
#: A run longer than this is probed (:func:`~elision.redact.encodings.looks_like_base64_text`)
#: before the window's regex reads it: the probe costs what that search of this many does.
_PROBE_FIRST = 256
#: The longest text whose window is searched whole before its runs are (:func:`_headed_runs`):
#: a piece of assignments is about 1 KB; a line of an image's base64 is read a run at a time,
#: each probed before any window's search.
_HEADED_MOST = 4096
#: A piece with this many runs (a count of :data:`_RUN_LEAST` in its marks, in C) is asked
#: :func:`~elision.redact.triggers.quiet_runs` first: two hyperscan passes, some 5 us, where
#: finding and asking each run in Python was 11 us a piece of assign-under-limit (15 runs,
#: a sixth of its judging; issue 23). Fewer runs cost less asked one by one.
_QUIET_FIRST = 8
#: Runs of a text whose own window search is made before the text's one search answers.
_RUNS_ASKED = 4
#: A run's own window search (a slice and a call) costs what a search of the whole text
#: does over this many of its chars: a text with fewer runs than its length over this has
#: each run asked (:func:`_no_run_holds_a_window`).
_WINDOW_RUN_CHARS = 128
#: The reason and rule of a credential-dense stretch withheld whole.
DENSE = "credential-dense"
#: Line breaks as the text shaper counts them (``bytes.splitlines``).
_BREAKS = re.compile(r"\r\n|\r|\n")
#: Rules whose match spans lines: run over the whole of a long text.
_MULTILINE = tuple(
    rule for rule in CREDENTIAL_RULES
    if rule.id in ("private-key", "putty-private-key", "ssh2-private-key")
)
#: The multi-line rules' opening keywords.
_KEYWORDS = tuple(rule.keywords[0] for rule in _MULTILINE)
#: A DSN family names the password alone; the whole-URL userinfo rule yields to it.
_DSN = frozenset(f.id for f in BY_ID.values() if f.category == "databases" and f.source)
#: What the URL rules (:func:`~elision.redact.urls.find_signed_urls`) start from, with
#: ``hooks.slack.com`` in any case: a line without any is no URL's part, and no line beside it
#: makes it one. Looked for with ``in``: a regex of the three as a char class took 7 us a
#: 1.8 KB line, a tenth of judging it.
_URL_MARKS = ("=", "%", "@")
_START, _END, _RULE = attrgetter("start"), attrgetter("end"), attrgetter("rule")
#: A span's start and end, as a pair.
_ENDS = itemgetter(0, 1)


class SpanArrays:
    """Spans held as numbers, for :func:`find_spans` with ``compact``: a start, an end and a
    rule's index a span (10 bytes; 18 past 4 GB), where a :class:`Span` and its two offsets
    are some 130 (3.5x a MB just under the density bound, 25,000 spans, at the redaction's
    peak: issue 23). Iterated, it gives each span as a :class:`Span`, made then; it is
    filled by ``append`` and ``extend`` as the list it stands in for is."""

    __slots__ = ("_index", "ends", "names", "rules", "starts")

    def __init__(self) -> None:
        # Offsets of 4 bytes (a span every 13 bytes of a YAML list of passwords: 8 bytes a
        # span less was 0.6x the text), widened to 8 by the first that needs it.
        self.starts = array("I")
        self.ends = array("I")
        self.rules = array("H")  # an index into names (rules are some hundreds at most)
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def append(self, span: Span) -> None:
        at = self._index.get(span[2])
        if at is None:
            at = self._index[span[2]] = len(self.names)
            self.names.append(span[2])
        try:
            self.starts.append(span[0])
            self.ends.append(span[1])
        except OverflowError:
            del self.starts[len(self.rules):]  # a start taken before its end overflowed
            self.hold(max(span[0], span[1]))
            self.starts.append(span[0])
            self.ends.append(span[1])
        self.rules.append(at)

    def hold(self, most: int) -> None:
        """Widen the offsets where ``most`` does not fit them."""
        if most > _NARROW_MOST and self.starts.typecode != "q":
            self.starts = array("q", self.starts)
            self.ends = array("q", self.ends)

    def extend(self, spans: Iterable[Span]) -> None:
        for span in spans:
            self.append(span)

    def __len__(self) -> int:
        return len(self.starts)

    def __iter__(self) -> Iterator[Span]:
        names = self.names
        return map(make_span, zip(self.starts, self.ends, (names[i] for i in self.rules),
                                  strict=True))

    def move(self, offset: int) -> None:
        """Move every span on by ``offset`` (not below 0), in place."""
        if offset and self.ends:
            self.hold(max(self.ends) + offset)
            for spans in (self.starts, self.ends):
                for i, at in enumerate(spans):
                    spans[i] = at + offset

    def ordered(self) -> bool:
        """Whether the spans are in the order of their starts (told in C)."""
        return all(map(le, self.starts, islice(self.starts, 1, None)))

    def merged(self) -> SpanArrays:
        """The spans as :func:`_merge` gives them from a list of them in this order (any
        order: sorted by start, the longer first on a tie, then in this order), as numbers:
        a sort key a span (one int: start, end and place in one), no :class:`Span`."""
        starts, ends, rules = self.starts, self.ends, self.rules
        out = SpanArrays()
        out.names, out._index = self.names, self._index
        n = len(starts)
        if not n:
            return out
        most = max(ends) + 1
        out.hold(most)
        keys = [(start * most + most - 1 - end) * n + i
                for i, start, end in zip(range(n), starts, ends, strict=True)]
        keys.sort()
        into_starts, into_ends, into_rules = out.starts, out.ends, out.rules
        for key in keys:
            i = key % n
            start, end = starts[i], ends[i]
            if into_ends and start < into_ends[-1]:
                if end > into_ends[-1]:
                    into_ends[-1] = end  # named by the one that starts first
            else:
                into_starts.append(start)
                into_ends.append(end)
                into_rules.append(rules[i])
        return out

    def merge(self) -> bool:
        """Join overlapping spans in place as :func:`_merge` does (named by the one that
        starts first, the longer on a tie, the first found of equals), where the spans are
        found in the order of their starts, as a long text's pieces find them (a line judged
        twice finds its span twice); False, nothing changed, where they are not."""
        starts, ends, rules = self.starts, self.ends, self.rules
        nexts = islice(starts, 1, None)
        if all(map(lt, starts, nexts)) and all(map(le, ends, islice(starts, 1, None))):
            return True  # none overlaps: told in C
        if not self.ordered() or any(map(eq, starts, ends)):
            return False  # out of order, or an empty span (none is found): the list's merge
        last = 0
        for at in range(1, len(starts)):
            start, end = starts[at], ends[at]
            if start < ends[last]:  # as at one start: none is empty
                if end > ends[last]:
                    if start == starts[last]:
                        rules[last] = rules[at]  # the longer of two at one start names them
                    ends[last] = end
            else:
                last += 1
                starts[last], ends[last], rules[last] = start, end, rules[at]
        del starts[last + 1:], ends[last + 1:], rules[last + 1:]
        return True


#: The largest offset :class:`SpanArrays` holds in 4 bytes.
_NARROW_MOST = (1 << 8 * array("I").itemsize) - 1
#: What a long text's judging adds its spans to.
_Found: TypeAlias = list[Span] | SpanArrays


@overload
def find_spans(text: str, data: bytes | None = None, *, columns: bool = False) -> list[Span]: ...
@overload
def find_spans(
    text: str, data: bytes | None = None, *, compact: bool, columns: bool = False,
) -> list[Span] | SpanArrays: ...
def find_spans(
    text: str, data: bytes | None = None, *, compact: bool = False, columns: bool = False,
) -> list[Span] | SpanArrays:
    """The non-overlapping spans of ``text`` that must be withheld, in order (``data``, when
    given, is ``text`` in UTF-8: the trigger search reads it). With ``compact``, a long
    text's spans may come as :class:`SpanArrays` (iterated, the same spans). With
    ``columns`` (a whole text: a body, not a JSON string), the cells under a table's
    credential-named columns too (:mod:`elision.redact.columns`).

    A text with full-width forms or invisible chars where they can spell a name or a token
    is judged as its folded copy, and each span found there is the text's chars it came from
    (:mod:`elision.redact.compat`)."""
    if not text.isascii():
        holds, data = text_holds_wide(text, data)
        wide = None if holds is False else compat.folded(text, data)
        if wide is not None:
            inner = _find_spans(wide.text, None, compact=compact, columns=columns)
            if isinstance(inner, SpanArrays):
                back = SpanArrays()
                back.extend(wide.spans(inner))
                return back if back.merge() else _merge(list(back))
            return _merge(list(wide.spans(inner)))
    return _find_spans(text, data, compact=compact, columns=columns)


def _find_spans(
    text: str, data: bytes | None, *, compact: bool, columns: bool,
) -> list[Span] | SpanArrays:
    """:func:`find_spans` of a text that needs no fold of :mod:`elision.redact.compat`."""
    folded = fold(text)  # a name spelled with a look-alike is that name; offsets stay
    if folded is not text:
        text, data = folded, None
    positions: Sequence[int]
    positions, dense = dense_text_triggers(text, data=data)
    # The stretches withheld whole, unread: found first, so a table's records inside them
    # add no span (a MB of NDJSON read as a table and withheld as dense made one a line).
    unread = _dense_stretches(text, dense) if dense else []
    # Compact where the rest is: a span a cell of a 1 MB table was 4x the text as a list.
    cells: list[Span] | SpanArrays = SpanArrays() if compact else []
    if columns:
        column_spans(text, cells, unread)
        # Compact too: a span a row of a 1 MB Markdown table was 18x the text as a list.
        piped: list[Span] | SpanArrays = SpanArrays() if compact else []
        escaped: list[Span] = []
        if "|" in text:  # told once in C for both: a search of each cost emoji prose 1.2x
            # A table in a stretch withheld whole is read only as far as it may reach past
            # it (a MB of one-row tables naming a password, withheld whole: 300x prose).
            table_spans(text, piped, unread)
            escaped_table_spans(text, escaped, unread)  # in a JSON string the text holds
        if escaped:
            both: list[Span] | SpanArrays = SpanArrays() if compact else []
            both.extend(heapq.merge(piped, escaped, key=_START))
            piped = both
        if piped and not cells:
            cells = piped
        elif piped:  # in order with a CSV's cells, where a text read as both holds any
            joined: list[Span] | SpanArrays = SpanArrays() if compact else []
            joined.extend(heapq.merge(cells, piped, key=_START))
            cells = joined
    elif "|" in text:
        # A JSON string (walked) that holds a Markdown table: its header names its columns
        # as a whole text's does (``{"text": "| name | password |\n|---|…"}``); or that
        # holds JSON whose strings hold one, its breaks escaped (JSON-in-JSON).
        if "\n" in text:
            table_spans(text, cells, unread)
        inner: list[Span] = []
        escaped_table_spans(text, inner, unread)
        if inner:
            both = sorted([*cells, *inner], key=_START)
            cells = SpanArrays() if compact else []
            cells.extend(both)
    if not positions and not dense:
        if text[:4] not in B64_HEADS:
            return cells
        positions = [0]  # a string that is one base64 value opening with a keyword
    if len(text) <= PIECE:
        return _merge(_precise(text, 0) + list(cells))
    # 8 bytes a trigger, not an int object and a list slot (36): a MB just under the density
    # bound has 25,000, 0.9x the text held through the whole judging (issue 23).
    positions = array("q", positions)
    found: list[Span] | SpanArrays = SpanArrays() if compact else []
    heads: list[list[int]] = [[] for _ in _MULTILINE]
    tails: list[tuple[int, int]] = []
    lines = _Lines()
    constructs = _Constructs(text)
    lo, limit = 0, len(text)
    for a, b in [*unread, (limit, limit)]:
        # A stretch is left unread: what is around it is read up to it (and a line into it,
        # for a match that wraps one), and what wraps out of it is read from its last line.
        _judge(text, lo, a, found, positions, heads, min(limit, a + WRAP) if a < limit else a,
               lines, tails, constructs)
        if a < b:
            found.append(Span(a, b, DENSE))
            _wrapping_out(text, a, b, found, heads, tails)
        lo = b
    _multiline(text, heads, found)
    if isinstance(found, list):
        _read_on(text, tails, found)
        found.extend(cells)
        return _merge(found)
    # A list read on from its header re-finds the values its first piece found: added to
    # the rest, those were out of order, and every span was made a Span to sort (a YAML list
    # of 87,000 passwords: 11x the text, issue 23). Kept apart, the two runs are interleaved.
    later = SpanArrays()
    _read_on(text, tails, later)
    if later and found and later.starts[0] < found.starts[-1]:
        if found.ordered() and later.ordered() and _ordered(cells):
            return _interleaved(found, later, cells)
        found.extend(later)
        found.extend(cells)
        return found.merged()
    found.extend(later)  # after the rest: as they were added before
    del later
    if not found.merge():
        # Out of order (FCM keys glued end to end: a chain's links are found back from its
        # last): merged as numbers, where a Span each was 1.6x a MB at the peak (issue 23).
        found.extend(cells)
        return found.merged()
    if not cells:
        return found
    return _interleaved(found, cells)


def _ordered(spans: list[Span] | SpanArrays) -> bool:
    if isinstance(spans, SpanArrays):
        return spans.ordered()
    return all(map(le, map(_START, spans), map(_START, islice(spans, 1, None))))


def _interleaved(*runs: SpanArrays | list[Span]) -> list[Span] | SpanArrays:
    """The spans of ``runs`` (each in the order of its starts) merged as :func:`_merge` merges
    them all: interleaved in order (the first run's first on a tie, as a stable sort keeps
    them), then merged in place."""
    both = SpanArrays()
    both.extend(heapq.merge(*runs, key=_START))
    return both if both.merge() else _merge(list(both))


def _judge(
    text: str, lo: int, hi: int, found: _Found, positions: Sequence[int],
    heads: list[list[int]], reach: int, lines: _Lines, tails: list[tuple[int, int]],
    constructs: _Constructs,
) -> None:
    """The spans in ``text[lo:hi]`` (whole lines), each piece read on to the end of the next
    line but never past ``reach``."""
    escaped: list[int] = []
    start = lo
    while start < hi:
        end = _line_end(text, start + CHUNK, hi)
        end = hi if end < 0 else end + 1
        if _any(positions, start, end):
            _halve(text, start, end, found, positions, heads, escaped, reach, lines, hi, tails,
                   constructs)
        start = end
    if escaped:
        # A private key spelled in escapes (%2D----BEGIN, P\u0075TTY-…) over real line
        # breaks: _multiline reads keywords as written and a piece is a line or two, so the
        # rest of the text from the first such piece is read as the whole-text rules read it.
        found.extend(_precise(text[escaped[0]:reach], escaped[0]))


def _whole(
    text: str, a: int, b: int, found: _Found, positions: Sequence[int], reach: int,
    judged_on: bool, tails: list[tuple[int, int]],
) -> bool | None:
    """Add to ``found`` what the pieces of ``text[a:b]`` (whole lines) find, judged as one piece
    (read on to the end of the next line, as its last piece is), and say True; or add
    nothing and say False where its halves may yet be judged whole (a URL rule's mark or a
    char past ASCII in it, told in C before any pass), None where they may not. Where no
    two lines can be told together from apart (see :class:`_Lines`), a piece of many
    lines finds what its lines find each alone, so a piece crowded with triggers (NDJSON
    records of a key each) is judged in one call rather than a call a line: one keyword
    search, each family's pattern only on the lines that hold its keyword, and the judge's
    Python only for a match (issue 23). A piece with few triggers is halved: its pieces are
    less to read than all of it.

    Where the text is ``judged_on`` past ``b``, the line read on is only tested, not judged:
    it is judged as its own piece's first line, alone as here (issue 23: each line once)."""
    if bisect_left(positions, b) - bisect_left(positions, a) < CROWDED:
        return None
    ahead = text.find("\n", b)
    stop = min(reach, len(text) if ahead < 0 else ahead)
    if any(text.find(mark, a, stop) >= 0 for mark in _URL_MARKS):
        return False  # told in C before the pass: its database is loaded on first use
    piece = text[a:stop]
    if not piece.isascii():
        return False  # hyperscan's offsets are bytes: in ASCII, chars too
    where = located(piece, len(piece) // _KEYWORD_SPACING + CROWDED)
    if where is None or not all(_line_local(index) for index in where.ends):
        return None  # its halves' passes would search what this one searched
    near = where.ends
    if judged_on and b - a < len(piece):
        piece = piece[:b - a]
        near = {index: [end for end in ends if end <= len(piece)]
                for index, ends in near.items()}
    # No multi-line rule's keyword is here: its family's pattern reads across lines, so
    # where.ends holding it had stopped short of this.
    found.extend(_precise(piece, a, holds=where.present(), near=near))
    _tail(text, a, a + len(piece), tails)
    return True


def _dense_stretches(text: str, windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The credential-dense windows widened to whole lines, those that meet merged: the
    stretches withheld whole, unread."""
    stretches: list[tuple[int, int]] = []
    for a, b in windows:
        if stretches and b <= stretches[-1][1]:
            continue  # inside the last stretch's lines: its line end is found already
        start = text.rfind("\n", 0, a) + 1
        end = text.find("\n", b)
        join(stretches, start, len(text) if end < 0 else end + 1)
    return stretches


def _wrapping_out(
    text: str, a: int, b: int, found: _Found, heads: list[list[int]],
    tails: list[tuple[int, int]],
) -> None:
    """The matches that open in the stretch ``text[a:b]`` and end past it: a line's (a
    ``Bearer`` on its last line and the token on the next), read from the last :data:`WRAP`
    chars of it, and a multi-line key's, which can only open at the last of its keywords
    there (a key's body holds no ``-`` and no keyword)."""
    if b >= len(text):
        return
    tail = max(a, b - WRAP)
    stop = min(len(text), b + WRAP)
    found.extend(s for s in _precise(text[tail:stop], tail) if s.end > b)
    # A list whose header is in the stretch runs on past what was read here (to its last
    # whole line): read on as a piece's is (a header a stretch's last line, 300 items after).
    end = text.rfind("\n", tail, stop) if stop < len(text) else -1
    if end > b:
        _tail(text, tail, end, tails)
    for rule, starts in zip(_MULTILINE, heads, strict=True):
        at = text.rfind(rule.keywords[0], a, b)
        if at >= 0:
            starts.append(at)


def _holds_escaped_key(piece: str) -> bool:
    """Whether ``piece`` spells a multi-line rule's keyword in escapes, or a key the rule reads
    only decoded: its keyword as written, what follows it in escapes (``-----BEGIN PRIVATE
    KEY----- \\u0041\\u0041…``, a body the pattern wants base64 chars for)."""
    # The backslash first: one char is found in C at memchr speed, two chars are not.
    view = decode_escapes(piece) if "%" in piece or (
        "\\" in piece and "\\u" in piece) else None
    return view is not None and any(
        view.text.count(keyword) > piece.count(keyword)
        or (keyword in piece and _read_decoded_only(rule, keyword, piece, view.text))
        for rule, keyword in zip(_MULTILINE, _KEYWORDS, strict=True)
    )


def _read_decoded_only(rule: Family, keyword: str, piece: str, decoded: str) -> bool:
    """Whether one of ``keyword``'s places in ``piece`` opens no match of ``rule`` where the
    same place of its ``decoded`` text opens one (the places are alike in number and order:
    none of them is spelled in escapes)."""
    assert rule.pattern is not None
    raw = decoded_at = -1
    while (raw := piece.find(keyword, raw + 1)) >= 0:
        decoded_at = decoded.find(keyword, decoded_at + 1)
        if decoded_at < 0:
            return False
        if rule.pattern.match(piece, raw) is None and rule.pattern.match(decoded, decoded_at):
            return True
    return False


def _multiline(text: str, heads: list[list[int]], found: _Found) -> None:
    """The multi-line rules' matches over the whole text, as ``finditer`` gives them, tried
    only where the pieces found their keywords: each pattern opens with its keyword, and each
    keyword is a trigger, so a piece holds every keyword in it (searching the whole text for
    each one took more than the trigger search did)."""
    for rule, starts in zip(_MULTILINE, heads, strict=True):
        assert rule.pattern is not None
        covered = 0
        memo: Glue = {}  # keys glued end to end: each followed back once
        for at in sorted(set(starts)):
            if at < covered:
                continue  # inside the last match: finditer would not look here either
            whole = rule.pattern.match(text, at)
            if whole is None:
                continue
            covered = whole.end()
            # Each key read on to an armour spelled in escapes (one, where none is).
            for match in read_closings(rule, text, (whole,)):
                if rule.accepts(text, match, memo):
                    end = match.end()
                    found.append(Span(match.start(), end, rule.id))
                    # A key glued on next is glued to this one: told, not searched back for.
                    memo.setdefault(end, [(match.start(), end, rule.id, match.start())])
                    _glued_after(text, match.start(), end, found)


def _glued_after(text: str, start: int, end: int, found: _Found) -> None:
    """What is glued to the last line of a key that spans lines (``start:end``), judged as a
    text of its own from the key's end to its line's end or the next key's keyword, whichever
    is first: its piece refused the token's boundary (the key's ``-`` or hex before it), and
    the key's header, lines back, was in no piece with it. A key's keyword ends it: that
    key is this pass's own, so keys glued end to end add nothing to judge."""
    # A char a family's boundary refuses before a token (families._BEFORE and word chars).
    if end < len(text) and (text[end].isalnum() or text[end] in "_-+") and (
            text.find("\n", start, end) >= 0 or text.find("\r", start, end) >= 0):
        stop = text.find("\n", end)
        stop = len(text) if stop < 0 else stop
        # The next key's keyword on that line, looked for no further than what is judged.
        # Each keyword's search in C, no generator's step a keyword (a step a key).
        stop = min([stop, *filter((0).__le__,
                                  map(text.find, _KEYWORDS, repeat(end), repeat(stop)))])
        if stop > end:
            found.extend(_precise(text[end:stop], end))


def _any(positions: Sequence[int], start: int, end: int) -> bool:
    i = bisect_left(positions, start)
    return i < len(positions) and positions[i] < end


def _halve(
    text: str, start: int, end: int, found: _Found, positions: Sequence[int],
    heads: list[list[int]], escaped: list[int], reach: int, lines: _Lines, hi: int,
    tails: list[tuple[int, int]], constructs: _Constructs,
) -> None:
    # A trigger never spans a line end and every piece is whole lines, so a piece holds a
    # match only if it holds a trigger's position.
    pending = [(start, end, False)]
    while pending:
        a, b, tried = pending.pop()
        if not _any(positions, a, b):
            continue
        if PIECE < b - a <= WHOLE and not tried:
            # Once a lineage, but where a mark refused a piece over _RETRY_ABOVE (a URL in one
            # record of a chunk), whose halves may not hold it.
            verdict = _whole(text, a, b, found, positions, reach, b < hi, tails)
            if verdict:
                continue
            tried = verdict is None or b - a <= _RETRY_ABOVE
        cut = -1
        if b - a > PIECE:
            mid = (a + b) // 2
            # _line_end inline: a call a piece shows in the call counts of a MB of assignments
            opening = _OPENING.search(text, mid, min(b - 1, mid + _OPENING_REACH))
            cut = opening.start() if opening is not None else text.find("\n", mid, b - 1)
            if cut < 0:
                cut = text.rfind("\n", a, mid)
        if cut < 0:  # small enough, or one long line: nothing left to split on
            # Read one line past the piece: "Bearer" at a line end and its token on the next
            # line is one match, wherever the cut fell, however long that line is (a token
            # cut short would show its tail). A repeat found twice is merged.
            ahead = text.find("\n", b)
            line_end = len(text) if ahead < 0 else ahead
            stop = min(reach, line_end)
            if not (stop == line_end and lines.pair(text, a, b, stop, found)):
                piece = text[a:stop]
                # A long line's spans are kept as compact as the text's: its list of URL
                # users was 6.5x it (issue 23); a short piece's few are a list.
                own = _precise(piece, a, holds=lines.holds(a, stop),
                               compact=len(piece) > _LONG_PIECE
                               and isinstance(found, SpanArrays))
                # Told in C before the call (a piece opening a line of its own, or holding no
                # clause's or pair's word, has none): a call a piece was over the call
                # counts' bound for a MB of assignments (test_redact_assign_per_entry).
                carried = (constructs.judged_under_head(a, stop)
                           if a and not _OPENING.match(text, a - 1)
                           and _HEADED_VALUE.search(text, a, stop) else [])
                found.extend(_merge([*own, *carried]) if carried else own)
                if not escaped and _holds_escaped_key(piece):
                    escaped.append(a)
                if text.startswith(_INDENTED, stop) or text.startswith(_INDENTED, stop - 1):
                    _tail(text, a, stop, tails)  # told in C first: a call a piece was 3%
            _heads(text, a, b, heads)
        else:
            pending.append((cut + 1, b, tried))
            pending.append((a, cut + 1, tried))


#: A line break before a line a piece may open with: one that opens at its line's start with
#: no netrc token or SQL clause there (``login``, ``PASSWORD``, ``CONNECTION LIMIT``:
#: :data:`~elision.redact.commands.CONTINUING_WORDS`, each then a space or the line's end:
#: ``password=S`` lines are cut between), or a YAML list's item. A piece is
#: read one line on, not back: cut before an indented line (``  value: S`` under ``- name:
#: DB_PASSWORD``, ``  password S`` under ``machine h``, a ``PASSWORD 'S'`` clause under its
#: ``CREATE USER``), a construct's head and its value fell in two pieces and neither showed
#: the value withheld.
_OPENING = re.compile(
    r"\n(?=[ \t]*-[ \t]|(?!(?i:" + "|".join(sorted(set(CONTINUING_WORDS)))
    + r")(?:[ \t\r\n;]|$))[^ \t\r\n])")
#: How far past its middle a piece is cut at such a line, before any line end will do.
_OPENING_REACH = PIECE // 2


def _line_end(text: str, at: int, hi: int) -> int:
    """Where a piece of ``text`` is cut from ``at`` on, before ``hi``: the first line break
    before a line that may open a piece (:data:`_OPENING`), within :data:`_OPENING_REACH`
    chars; else the first line break; -1 where there is none."""
    opening = _OPENING.search(text, at, min(hi, at + _OPENING_REACH))
    return opening.start() if opening is not None else text.find("\n", at, hi)


#: A line break and an indented line after it: where a piece may be a YAML list's or
#: block's head (:func:`_tail` asked only there, a piece's end or the char before it).
_INDENTED = ("\n ", "\n\t")


def _tail(text: str, a: int, stop: int, tails: list[tuple[int, int]]) -> None:
    """Keep the piece ``text[a:stop]`` for :func:`_read_on` where the line after it is
    indented (told in C): a YAML list's or block's lines may run on past it."""
    # The piece ends at its last line's break, or after it (a crowded piece judged alone).
    after = stop + 1 if stop < len(text) and text[stop] == "\n" else stop
    if (after < len(text) and text[after] in " \t" and text[after - 1] == "\n"
            and text.find(":", a, stop) >= 0):
        tails.append((a, stop))


def _read_on(text: str, tails: list[tuple[int, int]], found: _Found) -> None:
    """The values of the YAML lists and blocks under a credential's name that open in a
    judged piece and run on past it (:func:`elision.redact.blocks.continued`), each line
    past its piece read once: a piece inside a list already read on is not asked again."""
    read_to = 0
    for a, stop in sorted(tails):
        if stop <= read_to:
            continue
        read_to = continued(text, max(a, read_to), stop, found)


def _heads(text: str, a: int, b: int, heads: list[list[int]]) -> None:
    """Where each multi-line rule's keyword is in ``text[a:b]``, for :func:`_multiline`."""
    if HEADS_DASH and text.find("-", a, b) < 0:
        # Each keyword holds a "-": one search in C, where each keyword's own search of a
        # long line of base64 was 0.2 ms a MB (its "P" and "-" starts are many).
        return
    for rule, starts in zip(_MULTILINE, heads, strict=True):
        keyword = rule.keywords[0]
        at = text.find(keyword, a, b)
        while at >= 0:
            starts.append(at)
            at = text.find(keyword, at + 1, b)


#: Whether :func:`_heads` asks for a "-" first, which each multi-line rule's keyword holds
#: (a test checks that they do; the tests turn it off to compare).
HEADS_DASH = True


#: A line that opens a construct whose lines run on under it, each a clause or a pair the
#: value may follow many lines on: a user's or a role's ``CREATE`` or ``ALTER`` (its clauses
#: a line each), a netrc entry's ``machine HOST`` or ``default``.
_HEAD_LINE = re.compile(
    r"[ \t]*+(?:(?P<sql>(?i:create|alter)[ \t]++(?i:user|role)\b)|machine[ \t]|default(?![^\s]))")
#: The last line break in a stretch before a line that may open a piece (:data:`_OPENING`),
#: found by one search back from its end, in C.
_LAST_OPENING = re.compile(r"(?s).*" + _OPENING.pattern)
#: What a piece under a head must hold for it to be judged with it (any case).
_HEADED_VALUE = re.compile(r"(?i)password|identified")
#: How far above a piece its construct's head is looked for: a statement of 64 KB of clauses
#: is none a person writes, and the search back is a regex's backtracking, some 15 ms a MB of
#: lines that open none (a text of one endless clause: 20x prose, unbounded).
_HEAD_REACH = CHUNK
#: What ends a statement before its clause (its ``;``, a blank line).
_STATEMENT_END = re.compile(r";|\n[ \t]*\r?\n")


class _Constructs:
    """The construct a piece opens inside of, where it is a statement of clauses or a netrc
    entry whose head (``CREATE USER bob WITH``, ``machine h``) an earlier piece holds: a
    ``PASSWORD 'S'`` clause or a ``password S`` pair more than a piece's length under its
    head was judged without it and shown (a text is cut into pieces of about 1 KB, cut where
    a line may open one within 512 chars, else at any line).

    Such a piece (its first line indented or a continuing word's, :data:`_OPENING`) that
    holds ``password`` or ``identified`` is judged again with its construct's head line
    before it, and what that finds in the piece is added. The head is the line of the last
    opening before the piece, where it is one (:data:`_HEAD_LINE`, a piece's length at
    most) and nothing between ends it (a statement's ``;`` or blank line; a netrc entry's
    tokens that are no pairs), within :data:`_HEAD_REACH` above the piece. The pieces come
    in order, and each stretch between two such pieces is searched once (back from the later
    one to the earlier, whose answer holds where no opening is between): a text of one
    endless clause reads each char a few times."""

    __slots__ = ("_head", "_netrc", "_text", "_upto")

    def __init__(self, text: str) -> None:
        self._text = text
        self._upto = 0
        #: The head line of the construct that runs on at ``_upto``, and whether a netrc's.
        self._head: tuple[int, int] | None = None
        self._netrc = False

    def judged_under_head(self, a: int, stop: int) -> list[Span]:
        """The spans that ``text[a:stop]`` (a piece that does not open a line of its own and
        holds a clause's or pair's word: the caller tells both) holds judged under its
        construct's head."""
        text = self._text
        head = self._head_of(a)
        if head is None:
            return []
        h0, h1 = head
        carried = text[h0:h1] + "\n"
        shift = a - len(carried)
        return [make_span((span.start + shift, span.end + shift, span.rule))
                for span in _precise(carried + text[a:stop], 0) if span.start >= len(carried)]

    def _head_of(self, a: int) -> tuple[int, int] | None:
        text = self._text
        if a < self._upto:  # out of order (never, as the pieces come): read from the start
            self._upto, self._head = 0, None
        lo = max(self._upto, a - _HEAD_REACH)
        last = _LAST_OPENING.match(text, lo, a)
        if last is None and lo > self._upto:
            self._upto, self._head = a, None  # its head, if any, is out of reach
            return None
        if last is not None or lo == 0:  # the text's first line opens one too
            start = 0 if last is None else last.end()
            end = text.find("\n", start, a)
            head: tuple[int, int] | None = None
            opened = _HEAD_LINE.match(text, start, end) if end - start <= PIECE else None
            if opened is not None:
                head = (start, end)
                self._netrc = opened.group("sql") is None
            since = end
        else:
            head, since = self._head, self._upto
        if head is not None and (
                PAIRS.fullmatch(text, since, a) is None if self._netrc
                else _STATEMENT_END.search(text, since, a) is not None):
            head = None
        self._upto, self._head = a, head
        return head


class _Lines:
    """Each piece of one long line, read with the next line as its context, judged a line at a
    time where that finds the same: the line read after one piece is the next piece's own, so
    its judgement is kept (by position) and given again, where judging the two lines together
    had judged each line of an NDJSON text twice (issue 23).

    A line is judged alone only where nothing in the two lines can tell them together from
    apart: no generic name and no escape in either (the generic rules and the escapes' decoded
    view read across lines), none of the URL rules' marks, and only families whose patterns are
    line-local (:func:`_line_local`). A family's match must have one of its
    keywords on its own line (``Family.keyword_near``), so that line's keywords run it alone
    too; a base64 run never holds a line break.
    """

    __slots__ = ("_at", "_holds", "_spans")

    def __init__(self) -> None:
        self._at = (-1, -1)
        self._spans: list[Span] | None = None
        self._holds: Present | None = None

    def holds(self, start: int, end: int) -> Present | None:
        """What :func:`present` said of ``text[start:end]`` when it was the line judged last
        (a long line that could not be judged alone is judged next as its own piece: the
        keyword search of a MB of one line was made twice)."""
        return self._holds if self._at == (start, end) else None

    def pair(self, text: str, a: int, b: int, stop: int, found: _Found) -> bool:
        """Add to ``found`` what ``_precise(text[a:stop], a)`` finds, where ``text[a:b]`` is
        one line (and its break) and ``text[b:stop]`` the next line or nothing, and say True;
        or add nothing and say False where the lines must be judged together."""
        end = b - 1 if text[b - 1] == "\n" else b
        if text.find("\n", a, end) >= 0:
            return False  # several short lines: judged together, as one call costs less
        if end == b < stop:
            return False  # the piece ends mid-line: not two lines (pieces are whole lines)
        first = self._line(text, a, end)
        if first is None:
            return False
        after = self._line(text, b, stop) if b < stop else []
        if after is None:
            return False
        found.extend(first)
        found.extend(after)
        return True

    def _line(self, text: str, start: int, end: int) -> list[Span] | None:
        if self._at == (start, end):
            return self._spans
        line = text[start:end]
        holds = present(line)
        spans = _precise(line, start, holds=holds) if _alone(line, holds) else None
        self._at, self._spans, self._holds = (start, end), spans, holds
        return spans


def _alone(line: str, holds: Present) -> bool:
    """Whether ``line`` is judged the same alone as beside any other line (see :class:`_Lines`)."""
    return (
        not (holds.generic or holds.escapes)
        and not any(mark in line for mark in _URL_MARKS)
        # as find_signed_urls reads it; its dots told first, in C, without a copy of the line
        and not ("." in line and "hooks.slack.com" in line.lower())
        and all(_line_local(index) for index in holds.families)
    )


@cache
def _line_local(index: int) -> bool:
    """Whether family ``index``'s pattern matches in a line alone as it does beside other
    lines: no part of it can match a line break, and its anchors read one as a text's end
    (:func:`elision.redact.batch.joinable`, worked out on first use: compiling every
    pattern at once cost each command's start)."""
    from elision.redact.batch import joinable  # batch imports this module

    pattern = PATTERN_FAMILIES[index].pattern
    return pattern is not None and joinable(pattern)


def redact_spans(
    text: str, *, keep_lines: bool = False, data: bytes | None = None, columns: bool = False,
) -> tuple[str, list[Span]]:
    """``text`` with each withheld span replaced by its stub, and the spans (input offsets).

    With ``keep_lines``, a stub is followed by the line breaks of the span it replaces (a PEM
    key of 28 lines becomes the stub and 27 empty lines), so every line after it keeps its
    number: a text's pages, selected by ``lines=`` from its redacted view, then number lines as
    the original does, which is what the envelope and its ``next`` describe.
    """
    spans = find_spans(text, data, columns=columns)
    return stubbed(text, spans, keep_lines=keep_lines), spans


def stubbed(text: str, spans: list[Span], *, keep_lines: bool = False) -> str:
    """``text`` with each of ``spans`` (:func:`find_spans`'s) replaced by its stub (see
    :func:`redact_spans`)."""
    if not spans:
        return text
    if (len(spans) == 1 and spans[0].start == 0 and spans[0].end == len(text)
            and spans[0].rule != DENSE and not keep_lines):
        # A string that is one credential is its stub, one string a rule: 24,000 distinct
        # tokens were 24,000 copies of it, 2 MB (issue 23).
        return _stub(spans[0].rule)
    out: list[str] = []
    pos = 0
    # A stretch's breaks as a count where they are all "\n": a list of them was one entry a
    # line of a credential-dense stretch.
    plain = "\r" not in text
    # One stub string a rule, not one a span: 2.3 MB of a MB of assignments (issue 23).
    stubs: dict[str, str] = {}
    for span in spans:
        out.append(text[pos:span.start])
        if span.rule == DENSE:
            out.append(dense_stub(text, span))
        else:
            stub = stubs.get(span.rule)
            if stub is None:
                stub = stubs[span.rule] = credential_stub(span.rule)
            out.append(stub)
        if keep_lines and plain:
            if text.find("\n", span.start, span.end) >= 0:  # memchr: a count is slower
                out.append("\n" * text.count("\n", span.start, span.end))
        elif keep_lines:
            out.extend(_BREAKS.findall(text, span.start, span.end))
        pos = span.end
    out.append(text[pos:])
    return "".join(out)


_stub = cache(credential_stub)  # one a rule: a few hundred rules


def dense_bytes(text: str, span: Span) -> int:
    """The UTF-8 bytes of ``text[span.start:span.end]``, counted a chunk at a time: a copy
    of the stretch (all of a dense text) was the largest allocation of its redaction."""
    if text.isascii():
        return span.end - span.start
    return utf8_between(text, span.start, span.end)


def utf8_between(text: str, start: int, end: int) -> int:
    """The UTF-8 bytes of ``text[start:end]``, encoded a chunk at a time."""
    return sum(len(text[at:min(at + CHUNK, end)].encode("utf-8", "surrogatepass"))
               for at in range(start, end, CHUNK))


def dense_stub(text: str, span: Span) -> str:
    """``[credential-dense text withheld: 41,230 bytes]``: what, and how much of it."""
    return dense_stub_of(dense_bytes(text, span))


def dense_stub_of(size: int) -> str:
    """The stub of a credential-dense stretch of ``size`` UTF-8 bytes."""
    return f"[credential-dense text withheld: {size:,} bytes]"


@overload
def _precise(
    text: str, offset: int, depth: int = 0, *, holds: Present | None = None,
    near: dict[int, list[int]] | None = None, compact: Literal[False] = False,
) -> list[Span]: ...
@overload
def _precise(
    text: str, offset: int, depth: int = 0, *, holds: Present | None = None,
    near: dict[int, list[int]] | None = None, compact: bool,
) -> list[Span] | SpanArrays: ...
def _precise(
    text: str, offset: int, depth: int = 0, *, holds: Present | None = None,
    near: dict[int, list[int]] | None = None, compact: bool = False,
) -> list[Span] | SpanArrays:
    """The spans of ``text`` (a piece of whole lines, or a decoded value), each moved on by
    ``offset``; with ``compact``, they may come as :class:`SpanArrays` (a long line's)."""
    holds = present(text) if holds is None else holds
    spans: list[Span] | SpanArrays
    # With ``near``, the text holds none of the URL rules' marks (keywords.located).
    if near is not None:
        spans = []
    else:
        bounds, shift = signed_url_bounds(text)
        if not bounds:
            spans = []
        elif compact:  # each span made and let go as it is added: a long line's are many
            spans = SpanArrays()
            mask = (1 << shift) - 1
            for key, rule in bounds.items():
                spans.append(make_span((key >> shift, key & mask, rule)))
        else:
            spans = spans_of(bounds, shift)
        del bounds
    spans.extend(find_credentials(text, holds, near))
    if depth == 0:
        if holds.escapes:
            view = decode_escapes(text)
            if view is not None:
                # An escape may spell a look-alike: read folded.
                inner = _precise_folded(view.text, depth + 1)
                # Each span made in C: a generator's step and a span's ``__new__`` (a Python
                # function) a value of a cookie map two levels down on each line (issue 23).
                spans.extend([make_span((a, b, span.rule)) for (a, b), span in zip(
                    view.originals(list(map(_ENDS, inner))), inner, strict=True)])
        # A run that opens with a keyword's head is told by its first four chars, wherever
        # it starts: too short a form for the keyword search, so each run is looked at.
        spans.extend(_in_base64(text, holds.base64))
    # Told in C: a generator's step a span, and a span's ``__new__`` (a Python function) to
    # move it, were two calls of the ~14 an entry of a MB of assignments took (issue 23).
    if not _DSN.isdisjoint(map(_RULE, spans)):
        spans = [s for s in spans if not _yields_to_dsn(text, s, spans)]
    if len(spans) > 1 and _USERINFO_RULE in map(_RULE, spans):
        # A URL's user that a family names (a Sentry DSN's key) is that family's: the same
        # chars, named by the rule that knows them.
        named = {(s.start, s.end) for s in spans if s.rule != _USERINFO_RULE}
        if named:  # none is named otherwise: every span stays, in its arrays
            spans = [s for s in spans
                     if s.rule != _USERINFO_RULE or (s.start, s.end) not in named]
    if isinstance(spans, SpanArrays):
        spans.move(offset)
    elif offset:
        spans = [make_span((s[0] + offset, s[1] + offset, s[2])) for s in spans]
    return spans


def _precise_folded(text: str, depth: int) -> list[Span]:
    """The spans of a decoded ``text`` (an escape's or a base64 run's), read folded: each
    look-alike as its letter (:mod:`elision.redact.folding`, one char for one) and each
    full-width form or invisible char as :mod:`elision.redact.compat` reads it, the spans
    mapped back to ``text``'s offsets; merged, in order."""
    wide = compat.folded(text)
    if wide is None:
        return _merge(_precise(fold(text), 0, depth))
    return _merge(list(wide.spans(_merge(_precise(fold(wide.text), 0, depth)))))


def _in_base64(text: str, forms: bool) -> list[Span]:
    """Each base64 run of ``text`` that opens with a keyword's head, holds a mid-token
    keyword's window or (where ``forms`` says the text holds one) a keyword's base64 form,
    and decodes to a text with a
    credential in it, withheld whole under the first credential's rule."""
    if (len(text) <= _HEADED_MOST and not forms and text.isascii() and "\\" not in text
            and _window_local()):
        marks = _run_marks(text)
        if (_QUIET_RUNS and isinstance(marks, bytes) and marks.count(_RUN_LEAST) >= _QUIET_FIRST
                and quiet_runs(text) is True):
            return []  # none opens with a head or holds a window: _headed_runs finds none
        if _no_run_holds_a_window(text, marks):
            return _headed_runs(text, marks)
    if (_QUIET_RUNS and not forms and len(text) > _HEADED_MOST and text.isascii()
            and "\\" not in text and _quiet_runs(text)):
        return []
    found: list[Span] = []
    # Whether a window is anywhere in the text: a run holds one only if the text does, so
    # once a few runs have asked, one search of the text answers for the rest (a run a
    # line of wrapped base64 was a search each).
    windows: bool | None = None
    for asked, (start, end) in enumerate(_runs(text)):
        if (windows is None and asked >= _RUNS_ASKED and asked * _WINDOW_RUN_CHARS >= start
                and _window_local()):
            # Only where the runs are dense: a few runs in a long text (NDJSON records, a
            # key each) are asked alone, not all of its prose (issue 23). And only where a
            # window's match in a run is one in the text (no anchor or lookahead in it).
            windows = B64_WINDOW.search(text) is not None
        value = text[start:end]
        # What _credential_in_run first asks of a short run, asked here: most runs (a log
        # line's id) hold nothing, and a call a run was a call an entry of a MB of
        # assignments (issue 23). A long run is probed there before any window's search.
        if (value[:4] not in B64_HEADS and not forms and len(value) <= _PROBE_FIRST
                and (windows is False or B64_WINDOW.search(value) is None)):
            rule = None
        else:
            rule = _credential_in_run(value, forms, windows is not False)
        if rule is None and start and text[start - 1] == "\\" and len(value) > 20:
            # After an escape ("a\\nZ2hw…" in a log of serialized strings) the run takes the
            # escape's letter and its bytes read one off: the run from the next char is the
            # one encoded, as the trigger search already reads it (rules._b64_hit).
            start, rule = start + 1, _credential_in_run(value[1:], forms, windows is not False)
        if rule is not None:
            found.append(Span(start, end, rule))
    return found


def _quiet_runs(text: str) -> bool:
    """Whether no base64 run of a long ASCII ``text`` opens with a keyword's head and none
    holds a window (:func:`~elision.redact.triggers.quiet_runs`): then, with no keyword's
    form and no backslash in it, none decodes to a credential that :func:`_in_base64` would
    find. Finding each run in its marks, a generator's step and a loop's tests a run, were a
    third of judging a chunk of NDJSON records of a key each (issue 23). A text longer than
    :data:`WHOLE` is asked a slice of :data:`_QUIET_SLICE` chars at most at a time (its copies
    are then small), each cut just after a char no run holds, so no run is split: a run's
    head is at its start and its windows are inside it. One long line of URL candidates
    (``pwd=x)`` and 35 run chars) was a run asked in Python each 41 chars, a quarter of its
    judging (issue 23); a run across a cut's reach is asked run by run, as before."""
    if not _window_local():
        return False
    at, size = 0, len(text)
    if size <= WHOLE:
        return quiet_runs(text) is True
    while at < size:
        end = size
        if size - at > _QUIET_SLICE:
            # The last char no run holds in the slice's last _CUT_REACH chars, found by
            # memrchr in their marks (a regex over the slice read one of one run twice,
            # 0.9 ms a slice of random base64, and a copy of a whole slice's marks raised a
            # long line's peak by 0.06x).
            lo = at + _QUIET_SLICE - _CUT_REACH
            cut = text[lo:at + _QUIET_SLICE].encode("ascii").translate(_RUN_MARKS).rfind(b" ")
            if cut < 0:
                return False  # a run this long at the cut: its runs are asked one by one
            end = lo + cut + 1
        if quiet_runs(text[at:end]) is not True:
            return False
        at = end
    return True


#: A text longer than :data:`WHOLE` is asked a slice of this many chars at most at a time
#: (``quiet_runs`` reads 16 K chars a block), each cut within its last :data:`_CUT_REACH`.
_QUIET_SLICE = 1 << 14
_CUT_REACH = 1 << 10


#: Whether :func:`_in_base64` asks :func:`_quiet_runs` first (the tests turn it off to
#: compare with each run asked).
_QUIET_RUNS = True


def _no_run_holds_a_window(text: str, marks: bytes | _Marks) -> bool:
    """Whether no base64 run of the ASCII ``text`` holds a window (:data:`B64_WINDOW`, read
    within a run's chars: :func:`_window_local`), asked of each run while they are few for
    the text's length, else of all the text (a run holds one only if the text does). One
    search of each piece of NDJSON records with a key each tested every char of their prose
    against the window's chars: 11 ms a MB, most of what judging them cost (issue 23)."""
    asked = len(text) // _WINDOW_RUN_CHARS
    at = marks.find(_RUN_LEAST, 0)
    while at >= 0:
        if asked == 0:
            return B64_WINDOW.search(text) is None
        asked -= 1
        end = marks.find(b" ", at + len(_RUN_LEAST))
        if end < 0:
            end = len(text)
        if B64_WINDOW.search(text[at:end]) is not None:
            return False
        at = marks.find(_RUN_LEAST, end)
    return True


def _headed_runs(text: str, marks: bytes | _Marks) -> list[Span]:
    """:func:`_in_base64` of an ASCII ``text`` with no keyword's form, no backslash and no
    window anywhere in it: only a run that opens with a keyword's head can hold a credential,
    and most runs (a log line's id) open with none, told by two searches in C and a slice each,
    where a match, a window's search and a call a run were a sixth of what a MB of
    assignments just under the density bound cost to judge (issue 23)."""
    found: list[Span] = []
    find = marks.find
    at = find(_RUN_LEAST, 0)
    while at >= 0:
        if text[at:at + 4] in B64_HEADS:
            run = B64_RUN.match(text, at)
            assert run is not None  # twenty run chars from here: the least run
            rule = _credential_in_run(run.group(), False)
            if rule is not None:
                found.append(Span(at, run.end(), rule))
        end = find(b" ", at)
        if end < 0:
            break
        at = find(_RUN_LEAST, end)
    return found


def _credential_in_run(value: str, forms: bool, windows: bool = True) -> str | None:
    """The rule of the first credential that the base64 run ``value`` decodes to, where it
    opens with a keyword's head or holds a keyword's window or form; else None. Without
    ``windows`` the text it is part of holds no window, so neither does ``value``."""
    if value[:4] not in B64_HEADS:
        # base64_text probes a run's first bytes before it decodes it, so a run they tell is
        # binary finds nothing, whatever it holds: the probe is asked first where it costs
        # less than the searches, which read all of a run (the window's 9 ms a MB of an
        # image's base64, the forms' a Python step a char; issue 23).
        if len(value) > _PROBE_FIRST and not looks_like_base64_text(value):
            return None
        if (not windows or B64_WINDOW.search(value) is None) and not (
            forms and looks_like_base64_text(value) and holds_base64_form(value)
        ):
            return None
    decoded = base64_text(value)
    if decoded is None:
        return None
    inner = _precise_folded(decoded, 1)
    return inner[0].rule if inner else None


def _runs(text: str) -> Iterator[tuple[int, int]]:
    """Where each match of ``B64_RUN.finditer(text)`` starts and ends: in an ASCII text, a run
    starts where twenty run chars meet and its chars end at the next other char, each found
    by a search of their marks (:data:`_RUN_MARKS`) in C, then its padding. The regex's
    search stopped at every word of prose and tried each (most of a long line's judging,
    NDJSON records of a key each), and its match read a run a char at a time (4 ms a MB of
    an image's base64; issue 23)."""
    if not text.isascii():
        for run in B64_RUN.finditer(text):
            yield run.span()
        return
    if len(text) > CHUNK and _RUNS_BY_BLOCK:
        yield from _block_runs(text)
        return
    marks = _run_marks(text)
    at = marks.find(_RUN_LEAST, 0)
    while at >= 0:
        end = marks.find(b" ", at + len(_RUN_LEAST))
        if end < 0:
            end = len(text)
        for _ in range(2):  # B64_RUN's ={0,2}: "=" is no run char, so a space in the marks
            if text.startswith("=", end):
                end += 1
        yield at, end
        at = marks.find(_RUN_LEAST, end)


#: Whether a long text's runs are found a block of marks at a time by :func:`_block_runs`
#: (the tests turn it off to compare with :class:`_Marks`'s finds).
_RUNS_BY_BLOCK = True


def _block_runs(text: str) -> Iterator[tuple[int, int]]:
    """:func:`_runs` of an ASCII text longer than :data:`CHUNK`: the marks of a block (reaching
    as far into the next as :data:`_RUN_LEAST` less one) searched with their own ``find``, two
    searches in C a run, where :meth:`_Marks.find` was two Python calls a run (a token of URL
    candidates, ``pwd=x)`` and 35 run chars, is a run each 41 chars: issue 23). A run that
    reaches past its block's marks is ended by :class:`_Marks`, with the block's marks let go
    first: one block's marks at a time, as before."""
    size = len(text)
    least = len(_RUN_LEAST)
    after = 0  # where the last run ended: the next starts at or after it
    for lo in range(0, size, CHUNK):
        if after >= lo + CHUNK:
            continue  # a run reached past this block
        hi = min(size, lo + CHUNK + least - 1)
        marks = text[lo:hi].encode("ascii").translate(_RUN_MARKS)
        at = marks.find(_RUN_LEAST, max(0, after - lo))
        while at >= 0:
            end = marks.find(b" ", at + least)
            if end < 0:
                break
            after = lo + end
            if text.startswith("=", after):  # _padded, without a call a run
                after += 2 if text.startswith("==", after) else 1
            yield lo + at, after
            at = marks.find(_RUN_LEAST, after - lo)
        else:
            continue
        del marks
        ended = run_end(text, hi) if _RUN_END_IN_ONE_PASS else None
        end = _Marks(text).find(b" ", hi) if ended is None else ended
        after = _padded(text, size if end < 0 else end)
        yield lo + at, after


#: Whether a run that reaches past its block's marks is ended by one pass in C
#: (:func:`~elision.redact.triggers.run_end`; the tests turn it off to compare).
_RUN_END_IN_ONE_PASS = True


def _padded(text: str, end: int) -> int:
    """Where a run whose chars end at ``end`` ends with its padding (B64_RUN's ``={0,2}``:
    ``=`` is no run char, so it is a space in the marks)."""
    for _ in range(2):
        if text.startswith("=", end):
            end += 1
    return end


class _Marks:
    """The marks (:data:`_RUN_MARKS`) of an ASCII text, made a block of :data:`CHUNK` chars
    at a time, each reaching as far into the next as :data:`_RUN_LEAST` less one: the marks
    of all of a long line beside its encoded copy were twice its size (issue 23: a text's
    peak is to stay within 1.5x)."""

    __slots__ = ("_at", "_marks", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = -1
        self._marks = b""

    def find(self, needle: bytes, start: int) -> int:
        """Where ``needle`` (:data:`_RUN_LEAST` or one space) is first in the marks from
        ``start`` on, or -1."""
        size = len(self._text)
        block = start // CHUNK
        while block * CHUNK < size:
            lo = block * CHUNK
            if self._at != block:
                hi = min(size, lo + CHUNK + len(_RUN_LEAST) - 1)
                self._at, self._marks = block, self._text[lo:hi].encode("ascii").translate(
                    _RUN_MARKS)
            got = self._marks.find(needle, max(0, start - lo))
            if got >= 0:
                return lo + got
            block += 1
        return -1


def _run_marks(text: str) -> bytes | _Marks:
    """The marks (:data:`_RUN_MARKS`) of the ASCII ``text``: a piece's made whole (one find a
    call), a long line's a block at a time (:class:`_Marks`)."""
    return text.encode("ascii").translate(_RUN_MARKS) if len(text) <= CHUNK else _Marks(text)


def _yields_to_dsn(text: str, span: Span, spans: Iterable[Span]) -> bool:
    """Whether a whole-URL span is there only for a DSN's password, which a DSN family
    withholds alone: the URL without those passwords must hold nothing else to withhold."""
    if span.rule not in _URL_YIELDS:
        return False
    inner = sorted((s for s in spans if s.rule in _DSN
                    and span.start <= s.start and s.end <= span.end), key=lambda s: s.start)
    if not inner:
        return False
    parts, pos = [], span.start
    for s in inner:
        parts.append(text[pos:s.start])
        pos = s.end
    parts.append(text[pos:span.end])
    return classify_url("".join(parts)) is None


_URL_YIELDS = frozenset({"url-userinfo", "credential-param-url"})
_USERINFO_RULE = "url-userinfo"


def _merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one, named by the one that starts first (the longer on a tie):
    a signed URL that carries a JWT is withheld once, as a URL."""
    if len(spans) < 2:
        return spans
    nexts = map(_START, islice(spans, 1, None))
    if all(map(lt, map(_START, spans), nexts)) and all(
        map(le, map(_END, spans), map(_START, islice(spans, 1, None)))
    ):
        # In order, none overlapping: the merge would copy the list as it is. Told in C (a
        # generator's step a pair was a call an entry) and read from the spans, not a list of
        # their starts: that list was 0.3x the input at the peak (issue 23).
        return spans
    # Two stable sorts order as one by (start, -end) would, without a key tuple a span: those
    # were 2 MB of the 7 MB that a MB of assignments just under the density bound took to
    # judge (issue 23).
    spans.sort(key=attrgetter("end"), reverse=True)
    spans.sort(key=attrgetter("start"))
    merged = [spans[0]]
    for span in islice(spans, 1, None):
        last = merged[-1]
        if span.start < last.end:
            if span.end > last.end:
                merged[-1] = Span(last.start, span.end, last.rule)
        else:
            merged.append(span)
    return merged
