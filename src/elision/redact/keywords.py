"""Every literal the trigger search looks for, derived once from the families table.

Four sets, each a superset test for one kind of precise rule:

* the families' own keywords (``ghp_``, ``glpat-``, ``postgres`` in any case, …);
* credential names followed by what assigns them (``password=``, ``token:``, ``api_key"``),
  or with an affix and then assigned (``password_2=``, ``token-v2:``,
  :data:`~.generic.AFFIX_ASSIGNED_ANYWHERE`),
  for the generic rules (:mod:`elision.redact.generic`);
* escapes that may hide a keyword: ``\\u`` (a JSON escape) and a percent-encoded letter or
  digit (``%67hp_``), which no encoder writes for an ordinary token;
* each keyword as it reads inside base64, at each of the three offsets a value can start at
  (a Kubernetes Secret's ``data``): only forms of five chars or more, so that the random
  bytes of an image rarely spell one.

:func:`present` says which of them a short piece of text holds (one hyperscan pass, or ``in``
tests), so the precise stage runs only the families whose keywords are there.

Deriving the sets (some 580 keywords' base64 forms, the windows' regexes) cost every command's
start about 10 ms (issue 24), so they are kept between processes (:func:`tables`), named by a
digest of what they are derived from: the families' keywords and shapes, the generic names,
the byte order marks, and this module's own source.
"""

from __future__ import annotations

import base64
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from functools import cache, cached_property
from pathlib import Path
from typing import Any, NamedTuple

from elision._cache import kept_json
from elision._hyperscan import built_with_hyperscan, database, held_scratch
from elision._lazylog import get_logger
from elision._lazyre import lazy_compile
from elision.redact.commands import GLUED_CURL_USER, PASSWORD_COMMANDS
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.generic import (
    AFFIX_ASSIGNED_ANYWHERE,
    AFFIX_PATTERNS,
    FIELD_SUFFIXES,
    FLAG_TRIGGERS,
    LINE_END_TRIGGERS,
    PLIST_KEY_CLOSE,
    QUOTED_NAMES,
    SHELL_DEFAULT_TRIGGERS,
    TEXT_SEPARATORS,
)
from elision.redact.textbytes import buffer, text_bytes
from elision.shape.bom import MARKS

log = get_logger("elision.redact")

_UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
#: Escapes: a JSON \\u escape (exact); the any-case ones (:data:`ESCAPE_ANY_CASE`) are a
#: percent-encoded unreserved char, the reserved chars that split a Telegram token or a JSON
#: member written into a query, and an encoded ``=`` (``access_token%3D…``: with no other
#: escape near it, it was never decoded), and one encoded twice (``%253D``: a URL's query in a
#: redirect's parameter inside another, ``?u=%252Fv1%253Fkey%253DS``, was never decoded),
#: and a "%" encoded twice (``%2525``: a third level or deeper, ``%25253D``).
ESCAPE_EXACT = ("\\u",)
#: Escapes that no trigger is (a PHP text of JSON writes every "/" so) but that send a piece a
#: trigger flagged to be read decoded too (``encodings.decode_escapes``): a URL family's
#: pattern reads "/" (``…/webhooks/123\\/token``), and a quote written two levels of
#: JSON-in-JSON down or more (``\\\\\\"``: the text finder reads ``\\"`` itself) is read
#: plain (``{"db_password": …}``).
_VIEWED = ("\\/", '\\\\"')
_B64_NAMES = ("password", "passwd", "secret", "token", "api_key", "api-key", "apikey",
              "private_key", "PRIVATE KEY", "authorization", "credential", "cookie")
#: The backslashes before a "/" that a keyword is looked for with, escaped (:func:`_slashed`):
#: 1, 3, 7 and 15 a level of JSON-in-JSON down from PHP's spelling each, as many plus one
#: doubled in a serialized string that holds it, even runs where an inner level wrote "/"
#: plain: any run up to three levels down.
_SLASH_RUNS = tuple("\\" * n for n in range(1, 16))
#: A run of more, four levels down or deeper (31, 63, …): a literal cannot hold a run of any
#: length between a keyword's head and its "/", so past :data:`_SLASH_RUNS` a keyword is looked
#: for from the last 16 backslashes of its run on, with what follows the "/" (:func:`_slashed`).
DEEP_RUN = "\\" * 16
#: Shortest base64 form kept: at four chars, random base64 spells one every ~16 MB per form.
B64_SHORTEST = 5


def base64_forms(keyword: str) -> set[str]:
    """``keyword`` as it reads inside base64 at offsets 0, 1 and 2 (the chars that depend on
    it alone), in the standard and the URL-safe alphabet, five chars or longer."""
    raw = keyword.encode()
    forms: set[str] = set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        first = -(-8 * shift // 6)
        last = (8 * shift + 8 * len(raw)) // 6
        form = encoded[first:last]
        if len(form) >= B64_SHORTEST:
            forms.add(form)
            forms.add(form.replace("+", "-").replace("/", "_"))
    return forms


def _b64_sources(exact: Iterable[str], any_case: Iterable[str],
                 shapes: Iterable[str]) -> set[str]:
    words = set(exact)
    for word in [*any_case, *_B64_NAMES]:
        # Title case too: a header is written X-Api-Key (a stored .env or HTTP dump).
        words.update({word.lower(), word.upper(), word.capitalize(), word.title()})
    # How each family's example begins (``AccountKey=`` in a connection string, say), as
    # it is written: the spelling a stored file most likely has.
    for shape in shapes:
        head = shape.split("{", 1)[0][:24]
        if len(head) >= 4 and head.isprintable():
            words.add(head)
    return {w for w in words if len(w) >= 4}


def _heads(exact: Iterable[str], any_case: Iterable[str]) -> set[str]:
    # A value that starts with a keyword (a token stored alone in a Secret) starts its base64
    # with the keyword's first three bytes encoded: four chars, too short to look for
    # anywhere, but a string or a line rarely starts with them by chance.
    words = set(exact)
    for word in any_case:
        words.update({word.lower(), word.upper(), word.capitalize()})
    return {base64.b64encode(w[:3].encode()).decode() for w in words if len(w) >= 3}


def _marked_heads(marks: Iterable[bytes]) -> set[str]:
    # A value in UTF-16 or UTF-32 opens with its byte order mark (elision.shape.bom): the
    # base64 of the mark and the byte after it, in both alphabets, so a Windows .env stored
    # as a blob is decoded and read like any other.
    heads: set[str] = set()
    for mark in marks:
        for nxt in range(256) if len(mark) == 2 else (0,):
            head = base64.b64encode((mark + bytes([nxt]))[:3]).decode()
            heads.update({head, head.replace("+", "-").replace("/", "_")})
    return heads


#: The fewest chars of a base64 run long enough to hold a credential (:data:`B64_RUN`).
B64_RUN_MIN = 20
#: A run of base64 long enough to hold a credential.
B64_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{B64_RUN_MIN},}}={{0,2}}")
#: The bytes of :data:`B64_RUN`'s class, for the searches that read a run's chars in C.
B64_RUN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
#: The letters of the JSON escapes that open a run (``\\n`` in a serialized string: its "n"
#: would otherwise read as part of the run); the trigger search's literals spell them too.
RUN_ESCAPES = b"nrtbf"


def opens_run(data: bytes, start: int) -> bool:
    """Whether a head found at ``start`` of ``data`` opens a base64 run: at the start, after
    any char a run cannot hold, or after a JSON escape such as ``\\n`` (a line break in a
    serialized string, whose "n" would otherwise read as part of the run)."""
    if start == 0:
        return True
    before = data[start - 1]
    return before not in B64_RUN_BYTES or (
        before in RUN_ESCAPES and start >= 2 and data[start - 2] == 0x5C
    )
# The forms by their first five chars: a run is looked up once per offset, where testing it
# for each of the thousands of forms in turn cost milliseconds a run. Indexed on first use.
_forms_index: dict[str, tuple[str, ...]] | None = None


def _forms_by_head() -> dict[str, tuple[str, ...]]:
    global _forms_index
    if _forms_index is None:
        index: dict[str, tuple[str, ...]] = {}
        for form in BASE64:
            index[form[:B64_SHORTEST]] = (*index.get(form[:B64_SHORTEST], ()), form)
        _forms_index = index
    return _forms_index


def holds_base64_form(run: str) -> bool:
    """Whether ``run`` holds one of :data:`BASE64` (what ``any(f in run for f in BASE64)``
    says, for a fraction of its cost)."""
    get = (_forms_index or _forms_by_head()).get
    for at in range(len(run) - B64_SHORTEST + 1):
        forms = get(run[at:at + B64_SHORTEST])
        if forms is not None and any(run.startswith(form, at) for form in forms):
            return True
    return False


class Present:
    """What one piece of text holds: family indices (sorted), and whether it holds a generic
    name, an escape, or a keyword's base64 form.

    One is built for each piece judged, beside one hyperscan pass over it, and is only read:
    a plain class of slots, as a record (:mod:`elision._record`) cost about ten times as much
    to build, as much again as the pass itself on an NDJSON line with a key (issue 23).
    """

    __slots__ = ("base64", "escapes", "families", "generic")

    def __init__(self, families: tuple[int, ...], generic: bool, escapes: bool,
                 base64: bool) -> None:
        self.families = families
        self.generic = generic
        self.escapes = escapes
        self.base64 = base64

    def _key(self) -> tuple[tuple[int, ...], bool, bool, bool]:
        return self.families, self.generic, self.escapes, self.base64

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Present) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Present(families={self.families!r}, generic={self.generic!r}, "
                f"escapes={self.escapes!r}, base64={self.base64!r})")


_GROUPS = ("family", "generic", "escape", "base64")
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _as_regex(literal: str) -> bytes:
    """``literal`` as a hyperscan regex that matches its bytes alone: every byte but a
    letter or a digit as a ``\\xHH`` escape (a database of regexes holds the literals too)."""
    return b"".join(bytes([c]) if c in _ALNUM else b"\\x%02x" % c for c in literal.encode())


class _Hyperscan:
    def __init__(self, hs: Any) -> None:
        self.hs = hs
        caseless = hs.HS_FLAG_CASELESS
        exprs: list[bytes] = []
        flags: list[int] = []
        self.meaning: list[tuple[str, tuple[int, ...]]] = []

        def add(literal: str, flag: int, group: str, families: tuple[int, ...] = (), *,
                pattern: bool = False) -> None:
            exprs.append(literal.encode() if pattern else _as_regex(literal))
            flags.append(flag | hs.HS_FLAG_SINGLEMATCH)
            self.meaning.append((group, families))

        # A keyword of one char repeated (X's bearer tokens open with twenty ``A``) made a run
        # of that char cost hyperscan's literal matcher 13 ns a byte beside the others, ten
        # times prose (issue 23: keys of sixty ``A``): present() asks for it with ``in``, so
        # it is left out of its database (it comes last, for the located() one).
        runs = {kw: fams for kw, fams in FAMILY_EXACT.items() if len(set(kw)) == 1}
        for kw, fams in FAMILY_EXACT.items():
            if kw not in runs:
                add(kw, 0, "family", tuple(fams))
        for kw, fams in FAMILY_ANY_CASE.items():
            add(kw, caseless, "family", tuple(fams))
        for lit in GENERIC:
            add(lit, caseless, "generic")
        # An affixed name where it is assigned (_told asks): a regex each credential word,
        # so the databases are regexes, each literal escaped (a set of literals and
        # regexes compiles in a tenth of a second, and scans as fast).
        for pattern in AFFIX_ASSIGNED_ANYWHERE:
            add(pattern, caseless, "affix", pattern=True)
        for lit in (*ESCAPE_EXACT, *_VIEWED):
            add(lit, 0, "escape")
        for lit in ESCAPE_ANY_CASE:
            add(lit, caseless, "escape")
        for lit in BASE64:
            add(lit, 0, "base64")
        self.db = database(hs, exprs, flags)
        self._runs = [(kw, tuple(fams)) for kw, fams in runs.items()]
        for kw, fams in runs.items():
            add(kw, 0, "family", tuple(fams))
        self._exprs, self._flags = exprs, flags
        self._local = threading.local()
        self._lock = threading.Lock()
        #: The openings' databases (:func:`openings`) by what they hold, the oldest first.
        self._openings: dict[Any, tuple[Any, list[tuple[int, int]]]] = {}

    @cached_property
    def _every(self) -> Any:
        # The same literals, each reported wherever it ends: a family's keyword at every
        # line that holds it (a base64 form once is enough). Built on first use.
        # The URL rules' marks end the search too (see :data:`LINE_STOPS`), but those of one
        # char, which located() asks for first: in a set of regexes they took the database
        # from 433 KB to 683.
        once = self.hs.HS_FLAG_SINGLEMATCH
        flags = [f if group == "base64" else f & ~once
                 for f, (group, _) in zip(self._flags, self.meaning, strict=True)]
        stops = [_as_regex(mark) for mark in LINE_STOPS if len(mark) > 1]
        flags += [self.hs.HS_FLAG_CASELESS | once] * len(stops)
        self._stops = frozenset(range(len(self.meaning), len(self.meaning) + len(stops)))
        return database(self.hs, self._exprs + stops, flags)

    def located(self, data: bytes, most: int) -> Located | None:
        if any(mark in data for mark in _ONE_CHAR_STOPS):
            return None
        every = self._every
        scratch = getattr(self._local, "every", None)
        if scratch is None:
            scratch = self._local.every = self.hs.Scratch(every)
        meaning, stops = self.meaning, self._stops
        ends: dict[int, list[int]] = {}
        b64 = False
        hits = 0

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal b64, hits
            if expr in stops:
                return True
            group, fams = meaning[expr]
            if group == "base64":
                b64 = True
                return False
            if group == "affix":
                # A generic name only where AFFIX_PATTERNS confirm it: a chance ``key7"``
                # inside one record's ``sk-`` key sent its 64 KB piece to be judged a line
                # at a time (issue 23).
                if _affixed_in(data[max(end - _AFFIX_BACK, 0):end].decode("ascii").lower()):
                    return True
                hits += 1
                return hits > most
            if group != "family":
                return True  # a generic name or an escape: read across lines, stop here
            for index in fams:
                ends.setdefault(index, []).append(end)
            hits += 1
            return hits > most

        try:
            every.scan(data, match_event_handler=on_match, scratch=scratch)
        except self.hs.ScanTerminated:
            return None
        for found in ends.values():
            found.sort()
        return Located(ends, b64)

    def openings(
        self, data: bytes | memoryview, literals: Openings, most: int,
    ) -> dict[int, list[int]] | None:
        key = tuple(sorted(literals.items()))
        with self._lock:
            built = self._openings.pop(key, None)
            if built is None:
                exprs = [lit.encode() for _, (lits, _) in key for lit in lits]
                flags = [self.hs.HS_FLAG_CASELESS if caseless else 0
                         for _, (lits, caseless) in key for _ in lits]
                meaning = [(index, len(lit.encode())) for index, (lits, _) in key for lit in lits]
                built = (database(self.hs, exprs, flags, literal=True), meaning)
                if len(self._openings) >= _OPENING_DBS:
                    self._openings.pop(next(iter(self._openings)))
            self._openings[key] = built  # the newest last
        db, meaning = built
        scratch = held_scratch(self.hs, self._local, "openings", key, db, _OPENING_DBS)
        starts: dict[int, set[int]] = {index: set() for index in literals}
        hits = 0

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal hits
            index, length = meaning[expr]
            starts[index].add(end - length)
            hits += 1
            return hits > most

        try:
            db.scan(data, match_event_handler=on_match, scratch=scratch)
        except self.hs.ScanTerminated:
            return None
        return {index: sorted(found) for index, found in starts.items()}

    @cached_property
    def _reported(self) -> Any:
        # present()'s literals, each reported wherever it ends: a long text's one pass, which
        # a Python call a match bounds (:meth:`present_whole`). Built on first use.
        once = self.hs.HS_FLAG_SINGLEMATCH
        count = len(self._exprs) - len(self._runs)
        return database(self.hs, self._exprs[:count], [f & ~once for f in self._flags[:count]])

    def present_whole(self, text: str, most: int) -> Present | int:
        """:meth:`present` of all of ``text`` in one pass that reports every match; or, past
        ``most`` matches (each a Python call), how far into its bytes they were found."""
        db = self._reported
        scratch = getattr(self._local, "reported", None)
        if scratch is None:
            scratch = self._local.reported = self.hs.Scratch(db)
        hits: set[int] = set()
        count = reached = 0

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal count, reached
            hits.add(expr)
            count += 1
            reached = end
            return count > most

        try:
            # An ASCII text's own buffer: a copy of a MB was a tenth of the pass.
            db.scan(buffer(text_bytes(text)), match_event_handler=on_match, scratch=scratch)
        except self.hs.ScanTerminated:
            return reached
        return self._told(text, hits)

    def families(self, text: str) -> tuple[int, ...]:
        """``present(text).families`` of a short piece, nothing else told: a glued key's
        look-back (:func:`families_in`) asked whether a generic name, a curl user or an
        escape is there too, a Python call each, some 8 of a glued FCM key's 37 (issue 23)."""
        return self.present(text, families_only=True).families

    def _told(self, text: str, hits: Iterable[int], families_only: bool = False) -> Present:
        """What ``text`` holds, from the expressions of :attr:`db` it matched (its families
        alone where ``families_only``: the rest says nothing)."""
        families: set[int] = set()
        groups: set[str] = set()
        for expr in hits:
            group, fams = self.meaning[expr]
            groups.add(group)
            families.update(fams)
        for kw, fams in self._runs:
            if kw in text:
                families.update(fams)
        if families_only:
            return Present(tuple(sorted(families)), False, False, False)
        # An affixed name's literal (``key_1``, ``token2``) is a generic name only where it
        # is assigned: a chance one in random base64 sent its whole block to be judged a
        # string at a time.
        generic = "generic" in groups or ("affix" in groups and self._affixed(text)) or (
            glued_curl_user(text))
        return Present(tuple(sorted(families)), generic, "escape" in groups,
                       "base64" in groups)

    @cached_property
    def _affix_ends(self) -> Any:
        # The affixed names' regexes alone, each reported wherever it ends (built on first use).
        caseless = self.hs.HS_FLAG_CASELESS
        return database(self.hs, [p.encode() for p in AFFIX_ASSIGNED_ANYWHERE],
                        [caseless] * len(AFFIX_ASSIGNED_ANYWHERE))

    def _affixed(self, text: str) -> bool:
        """:func:`affixed_in_windows` of ``text``, read only before where a match of
        :data:`~.generic.AFFIX_ASSIGNED_ANYWHERE` ends: each match of :data:`_AFFIXED` is
        one, ending where it ends, so the windows before those ends hold every match. A
        chance ``key1`` in a MB of random base64 lowered and searched all of it (2.5 ms a MB
        to 8.5); past :data:`_AFFIX_HITS` matches (a hostile run of them), all of it is."""
        if not text.isascii():
            return affixed_in_windows(text)
        db = self._affix_ends
        scratch = getattr(self._local, "affix", None)
        if scratch is None:
            scratch = self._local.affix = self.hs.Scratch(db)
        ends: list[int] = []

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            ends.append(end)
            return len(ends) > _AFFIX_HITS

        try:
            db.scan(buffer(text_bytes(text)), match_event_handler=on_match, scratch=scratch)
        except self.hs.ScanTerminated:
            return affixed_in_windows(text)
        return any(_affixed_in(text[max(end - _AFFIX_BACK, 0):end].lower()) for end in ends)

    def present(self, text: str, *, families_only: bool = False) -> Present:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self.hs.Scratch(self.db)
        hits: list[int] = []

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> None:
            hits.append(expr)

        # The ASCII text's own buffer: a long piece read in one pass was copied whole.
        self.db.scan(buffer(text_bytes(text)), match_event_handler=on_match, scratch=scratch)
        return self._told(text, hits, families_only)


class Located:
    """Where each family's keywords end in an ASCII piece that holds no generic name and no
    escape (:func:`located`): ``ends`` maps a family's index to the offsets, ascending, and
    ``base64`` says whether the piece holds a keyword's base64 form."""

    __slots__ = ("base64", "ends")

    def __init__(self, ends: dict[int, list[int]], base64: bool) -> None:
        self.ends = ends
        self.base64 = base64

    def present(self) -> Present:
        """What :func:`present` says of the same piece."""
        return Present(tuple(sorted(self.ends)), False, False, self.base64)


class _Plain:
    #: The generic literal found last: a dense text's pieces hold the same one (each its
    #: ``password=``), which testing first spares the hundreds before it in the list. A hint
    #: only: a thread that reads another's is still right, and at worst slower.
    _last_generic: str | None = None

    def _generic(self, low: str) -> bool:
        if self._last_generic is not None and self._last_generic in low:
            return True
        for lit in GENERIC:
            if lit in low:
                self._last_generic = lit
                return True
        return _affixed_in(low)

    def families(self, text: str, low: str | None = None) -> tuple[int, ...]:
        """The families whose keywords ``text`` holds (``low``: it lower-cased, if made)."""
        low = text.lower() if low is None else low
        families: set[int] = set()
        for kw, fams in FAMILY_EXACT.items():
            if kw in text:
                families.update(fams)
        for kw, fams in FAMILY_ANY_CASE.items():
            if kw in low:
                families.update(fams)
        return tuple(sorted(families))

    def present(self, text: str) -> Present:
        low = text.lower()
        generic = self._generic(low) or glued_curl_user(text)
        escapes = any(lit in text for lit in (*ESCAPE_EXACT, *_VIEWED)) or (
            "%" in low and any(lit in low for lit in ESCAPE_ANY_CASE)
        )
        return Present(self.families(text, low), generic, escapes, _holds_b64_form(text))


#: curl's ``-u`` glued after its switches (:data:`~.commands.GLUED_CURL_USER`), as written.
_GLUED = lazy_compile(GLUED_CURL_USER)


def glued_curl_user(text: str) -> bool:
    """Whether ``text`` holds curl's ``-u`` glued after its switches, which no literal of the
    keyword search marks: a generic name's construct (told in C, after ``curl``)."""
    return "curl" in text and _GLUED.search(text) is not None

#: :data:`~elision.redact.generic.AFFIX_PATTERNS`, each with its word.
_AFFIXED = tuple((word, lazy_compile(pattern)) for word, pattern in AFFIX_PATTERNS)


def _affixed_in(low: str) -> bool:
    """Whether the lower-cased ``low`` holds an affixed credential name that is assigned."""
    return any(word in low and pattern.search(low) for word, pattern in _AFFIXED)


def affixed_in_windows(text: str) -> bool:
    """:func:`_affixed_in` of ``text`` lowered, a window at a time, each read on by
    :data:`_AFFIX_REACH` (longer than any match with what its look-behind reads), so no lowered
    copy of a long text is made: a chance ``key1`` in a 1 MB base64 line lowered all of it
    (1.0x the text, where the search holds 0.2x)."""
    if len(text) <= _AFFIX_WINDOW + _AFFIX_REACH:
        return _affixed_in(text.lower())
    return any(_affixed_in(text[at:at + _AFFIX_WINDOW + _AFFIX_REACH].lower())
               for at in range(0, len(text), _AFFIX_WINDOW))


_AFFIX_WINDOW = 1 << 16
#: How many affixed names' literals a text may hold before all of it is searched for them.
_AFFIX_HITS = 64
#: Read back from where a match of :data:`~.generic.AFFIX_ASSIGNED_ANYWHERE` ends: an
#: affixed name's match (its word, an affix's head, up to ``2 * _LONGEST_NAME`` name chars
#: and a separator or a flag's gap, some 220 chars), the ``-`` before a flag's word, and a
#: qualified ``key``'s look-behind before it.
_AFFIX_BACK = 512
#: An affixed name's match is its word, an affix's head, up to ``2 * _LONGEST_NAME`` name
#: chars and a separator (generic.AFFIX_ASSIGNED) or a flag's gap (generic.AFFIX_FLAG); a
#: qualified ``key``'s look-behind reads a qualifier before it.
_AFFIX_REACH = 1024


def _holds_b64_form(text: str) -> bool:
    """Whether a base64 run of ``text`` holds one of :data:`BASE64`, each distinct run read
    once: a log's lines repeat theirs (a request id, a padding of ``x``), and each read looks
    up every offset of the run."""
    read: set[str] = set()
    for run in B64_RUN.finditer(text):
        value = run.group()
        if value not in read:
            if holds_base64_form(value):
                return True
            read.add(value)
    return False


_built: list[_Hyperscan | _Plain] = []
_lock = threading.Lock()


def _engine() -> _Hyperscan | _Plain:
    if _built:
        return _built[0]
    with _lock:
        if not _built:
            fast = None
            if os.environ.get("ELISION_REDACT_ENGINE", "").strip().lower() != "re":
                fast = built_with_hyperscan(_Hyperscan, log, "keywords use `in` tests")
            _built.append(fast or _Plain())
        return _built[0]


#: A piece longer than this (one long line) is read in blocks of :data:`_BLOCK` chars.
_LONG = 1 << 14
_BLOCK = 1 << 12
#: Blocks kept to be told again, at most: a run of one unit has as many distinct blocks as
#: the unit's length, and a text that repeats none (random base64) kept each, its own size.
_SEEN_MOST = 32


#: A long text is read in one pass (:meth:`_Hyperscan.present_whole`) while its matches are
#: no more than one in this many chars (random base64 spells some 85 a MB by chance): past
#: that, each a Python call, it is read another way.
_WHOLE_SPACING = 1 << 12


def _blocks_repeat(text: str) -> bool:
    """Whether the first or second block of ``text`` (as :func:`present` reads it) is read
    again within as many blocks as it keeps (lines of ``password=x``: their blocks, each
    told once, cost less than one pass of literals that match unseen at every line)."""
    reach = _BLOCK + LONGEST - 1
    last = min(len(text), (_SEEN_MOST + 2) * _BLOCK)
    return any(
        text.startswith(text[start:start + reach], at)
        for start in (0, _BLOCK)
        for at in range(start + _BLOCK, last, _BLOCK)
    )


#: Past the bound of :data:`_WHOLE_SPACING`, a long text whose matches were no denser than
#: one in this many bytes where they were counted is read in one pass of the literals each
#: reported once; a denser one (a run of ``QUFB``: a match at every byte) a block at a time.
_ONCE_SPACING = 2
#: Whether a long text is read in one pass first (the tests turn it off: the blocks' path).
WHOLE_FIRST = True


def families_in(text: str) -> tuple[int, ...]:
    """The families whose keywords ``text`` (a short piece) holds: :func:`present`'s
    ``families``, where only they are asked (a glued key's look-back,
    :func:`elision.redact.families._glued_to`). The regex passes' :func:`present` also asks
    each of the 3,000-odd generic names' literals in Python, which a look-back never reads:
    2 ms a look-back, 9 s a MB of FCM keys glued end to end."""
    engine = _engine()
    if isinstance(engine, _Plain) or len(text) <= _LONG:
        return engine.families(text)
    return present(text).families


def present(text: str) -> Present:
    """Which keywords ``text`` (a short piece: a line or a JSON string) holds.

    A long piece is read a block at a time, each block reaching as far into the next as the
    longest keyword, and a block that repeats one read before is not read again: a run of
    one unit (``QUFB`` again and again, the base64 of ``AAA…``) holds a keyword at each
    period, which cost hyperscan about a microsecond each, and has as many distinct blocks
    as its period at most."""
    engine = _engine()
    read = engine.present
    if len(text) <= _LONG:
        return read(text)
    if WHOLE_FIRST and isinstance(engine, _Hyperscan):
        # One pass where matches are few (random base64 spells a keyword by chance every
        # few KB): a block's Python was 1.4 ms a MB of it, the pass is 0.45 ms.
        most = len(text) // _WHOLE_SPACING
        whole = engine.present_whole(text, most)
        if isinstance(whole, Present):
            return whole
        if whole >= most * _ONCE_SPACING and not _blocks_repeat(text):
            # Matches no denser than one in _ONCE_SPACING bytes where they were counted, and
            # blocks that do not repeat (strings of ``sk-N``): one pass of the literals each
            # reported once, whose unseen matches cost some 5 ns each (0.9 ms a MB of those
            # strings, where the blocks' Python was 2.1 ms). A text that is dense or repeats
            # only past where this looked costs what its blocks do where none repeats (20 ms
            # a MB of ``QUFB`` runs with a char between): no more than before.
            return read(text)
    seen: dict[str, Present] = {}
    families: set[int] = set()
    generic = escapes = b64 = False
    reach = _BLOCK + LONGEST - 1
    for at in range(0, len(text), _BLOCK):
        block = text[at:at + reach]
        got = seen.get(block)
        if got is None:
            got = read(block)
            if len(seen) < _SEEN_MOST:
                seen[block] = got
            families.update(got.families)
            generic, escapes, b64 = (generic or got.generic, escapes or got.escapes,
                                     b64 or got.base64)
    return Present(tuple(sorted(families)), generic, escapes, b64)


#: Literals a family's every match opens with (each ASCII where any case), and whether they
#: are of any case, by the family's index in PATTERN_FAMILIES.
Openings = dict[int, tuple[tuple[str, ...], bool]]
#: Openings' databases held in memory: a text's families are a few, and the same few again
#: in results of the same kind.
_OPENING_DBS = 32


def openings(text: str, literals: Openings, most: int) -> dict[int, list[int]] | None:
    """Where in the ASCII ``text`` each of ``literals``' families' literals starts, by family
    (ascending, each once), in one hyperscan pass; or None past ``most`` of them (each a
    Python call) or where hyperscan is not installed."""
    engine = _engine()
    if not isinstance(engine, _Hyperscan):
        return None
    return engine.openings(buffer(text_bytes(text)), literals, most)


#: What the URL rules (:func:`elision.redact.urls.find_signed_urls`) start from, ``hooks.slack.com``
#: in any case: a piece with none of them holds no URL's credential.
LINE_STOPS = ("=", "%", "@", "hooks.slack.com")
_ONE_CHAR_STOPS = tuple(mark.encode() for mark in LINE_STOPS if len(mark) == 1)


def located(text: str, most: int) -> Located | None:
    """Where the family keywords of the ASCII ``text`` are, by family, in one hyperscan pass;
    or None where ``text`` holds a generic name, an escape or one of :data:`LINE_STOPS`
    (what is read across lines), or more than ``most`` keywords (a run of them costs a call
    each), or hyperscan is not installed."""
    engine = _engine()
    if not isinstance(engine, _Hyperscan) or glued_curl_user(text):
        return None
    return engine.located(text.encode("ascii"), most)


def b64_probe(encode: bool) -> Any:
    """A test of one base64 run (``str``, or ``bytes`` with ``encode``): does it decode to
    text? What the regex passes flag in place of the base64 forms of every keyword."""
    from elision.redact.encodings import looks_like_base64_text

    if encode:
        return lambda run: looks_like_base64_text(run.decode("ascii"))
    return looks_like_base64_text


#: The families whose keyword is three chars inside the token (``:AA`` of a Telegram bot
#: token): its base64 forms would be three or four chars, which random base64 spells too
#: often to look for. Each is looked for instead as a window of the token around the keyword,
#: one char class a byte, and the window's base64 at each offset is a regex of the chars each
#: base64 digit can take (a superset, as adjacent digits share a byte). Six bytes give seven
#: or eight digits: about 2.6 chance matches in 10 MB of random base64 for all three.
_WINDOWS: dict[str, tuple[str, ...]] = {
    "telegram-bot-token": ("0-9", "0-9", ":", "A", "A", "A-Za-z0-9_-"),
    "azure-ad-client-secret": ("A-Za-z0-9_~.-", "0-9", "Q", "~", "A-Za-z0-9_~.-",
                               "A-Za-z0-9_~.-"),
    "mailchimp-api-key": ("0-9a-f", "0-9a-f", "-", "u", "s", "0-9"),
}
_STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_URLSAFE = _STD[:62] + "-_"


def _byte_class(spec: str) -> list[int]:
    chars = set(spec) if len(spec) == 1 else {
        c for c in map(chr, range(32, 127)) if re.fullmatch(f"[{spec}]", c)}
    return sorted(map(ord, chars))


def window_patterns(window: tuple[str, ...]) -> list[str]:
    """Regexes for ``window`` (one char class a byte) as it reads inside base64 at offsets
    0, 1 and 2, the standard and the URL-safe alphabet in one."""
    classes = [_byte_class(spec) for spec in window]
    patterns = []
    for shift in range(3):
        bits = 8 * (shift + len(classes))
        digits = []
        for j in range(-(-8 * shift // 6), bits // 6):
            at = 6 * j
            first, last = at // 8 - shift, (at + 5) // 8 - shift
            if first == last:
                values = {(a >> (2 - at % 8)) & 63 for a in classes[first]}
            else:
                # A digit across two bytes: the first byte's low bits, then the second's high
                # bits (no overlap), so the pairs' set is the product of two small sets.
                cut = 10 - at % 8
                highs = {(a << (8 - cut)) & 63 for a in classes[first]}
                lows = {b >> cut for b in classes[last]}
                values = {h | low for h in highs for low in lows}
            chars = sorted({_STD[v] for v in values} | {_URLSAFE[v] for v in values})
            digits.append(re.escape(chars[0]) if len(chars) == 1 else
                          "[" + "".join(re.escape(c) for c in chars) + "]")
        patterns.append("".join(digits))
    return patterns


def _literal_first(pattern: str) -> str:
    """``pattern`` (one char or class an atom) led by its longest literal, the rest checked
    behind and after it: the regex engine skips to a leading literal in C, where an
    alternation that opens with classes is tried at every offset (0.3 s a MB of one run)."""
    atoms = re.findall(r"\[(?:\\.|[^\]])*\]|\\.|.", pattern)
    plain = [not a.startswith("[") for a in atoms]
    best, at = 0, 0
    for i in range(len(atoms)):
        n = 0
        while i + n < len(atoms) and plain[i + n]:
            n += 1
        if n > best:
            best, at = n, i
    if not best:
        return pattern
    lit = "".join(atoms[at:at + best])
    return lit + (f"(?<={''.join(atoms[:at])}{lit})" if at else "") + "".join(atoms[at + best:])


class Inputs(NamedTuple):
    """What the keyword sets are derived from, besides this module's own constants."""

    #: Each pattern family's keywords, whether they are any-case, and its shapes, in the
    #: order of :data:`~elision.redact.families.PATTERN_FAMILIES` (a keyword names its
    #: families by their index there).
    families: tuple[tuple[tuple[str, ...], bool, tuple[str, ...]], ...]
    field_suffixes: tuple[str, ...]
    separators: tuple[str, ...]
    flag_triggers: tuple[str, ...]
    password_commands: tuple[str, ...]
    #: The byte order marks (:data:`elision.shape.bom.MARKS`).
    marks: tuple[bytes, ...]
    #: Names read only whole, quoted (:data:`~.generic.QUOTED_NAMES`).
    quoted_names: tuple[str, ...] = ()


class Tables(NamedTuple):
    """The sets :func:`present` and the regex passes look for (the module's constants)."""

    family_exact: dict[str, list[int]]
    family_any_case: dict[str, list[int]]
    generic: tuple[str, ...]
    escape_any_case: tuple[str, ...]
    b64_heads: frozenset[str]
    base64: tuple[str, ...]
    b64_windows: tuple[str, ...]
    #: :data:`B64_WINDOWS` as one pattern, each led by its longest literal.
    b64_window: str
    #: The longest literal :func:`present` looks for: how far a block reads into the next.
    longest: int


def inputs() -> Inputs:
    """The inputs as this process has them."""
    return Inputs(
        tuple((f.keywords, f.any_case, f.shapes) for f in PATTERN_FAMILIES),
        FIELD_SUFFIXES, TEXT_SEPARATORS, FLAG_TRIGGERS + LINE_END_TRIGGERS + SHELL_DEFAULT_TRIGGERS,
        PASSWORD_COMMANDS,
        tuple(mark for mark, _, _ in MARKS), QUOTED_NAMES,
    )


def derive(given: Inputs) -> Tables:
    """The keyword sets, derived from ``given`` (what :func:`tables` keeps)."""
    exact: dict[str, list[int]] = {}
    any_case: dict[str, list[int]] = {}
    for i, (keywords, caseless, _) in enumerate(given.families):
        for kw in keywords:
            table = any_case if caseless else exact
            table.setdefault(kw.lower() if caseless else kw, []).append(i)
    generic = tuple(sorted(
        {name + sep for name in given.field_suffixes for sep in given.separators}
        | set(given.flag_triggers) | set(given.password_commands) | set(given.quoted_names)
        | {name + PLIST_KEY_CLOSE for name in given.field_suffixes}
    ))
    escapes = tuple(sorted(
        {f"%{ord(c):02x}" for c in _UNRESERVED}
        | {"%3aaa", "%22%3a", "%27%3a", "%3d", "%253d", "%2525"}))
    heads = frozenset(_heads(exact, any_case) | _marked_heads(given.marks))
    shapes = [shape for _, _, family_shapes in given.families for shape in family_shapes]
    forms = tuple(sorted(
        {f for w in _b64_sources(exact, any_case, shapes) for f in base64_forms(w)}))
    windows = tuple(p for family in sorted(_WINDOWS) for p in window_patterns(_WINDOWS[family]))
    longest = max(len(lit) for lit in [*exact, *any_case, *generic, *ESCAPE_EXACT, *escapes,
                                       *forms])
    return Tables(exact, any_case, generic, escapes, heads, forms, windows,
                  "|".join(_literal_first(p) for p in windows), longest)


def _slashed(keywords: Iterable[str]) -> Iterator[str]:
    """Each keyword that holds a "/" (``1//0``, ``/api/webhooks/``) as a text of JSON may spell
    it: from its first "/" written with backslashes before it (``\\/`` in PHP's
    ``json_encode``, :data:`_SLASH_RUNS` a level or more of JSON-in-JSON down), up to the next
    "/" (through it, spelled alike or plain, where two meet: ``1\\/\\/0``, ``1\\//0``).
    The spelling of each "/" after it is the escape view's to read
    (``encodings.decode_escapes``). A keyword that opens with "/" has no form from it: the
    keyword after that backslash is the keyword, or holds a later "/" escaped (``\\/api``
    alone, on every line of a PHP API's log, named no credential)."""
    for kw in keywords:
        kw = kw.lower()
        slash = kw.find("/", 1)
        while slash >= 0:
            after = kw.find("/", slash + 1)
            head, tail = kw[:slash], kw[slash + 1:None if after < 0 else after]
            rest = ""
            for run in _SLASH_RUNS:
                if after == slash + 1:  # "//": the next "/" spelled alike, or plain
                    end = kw.find("/", after + 1)
                    rest = kw[after + 1:None if end < 0 else end]
                    yield head + run + "/" + run + "/" + rest
                    yield head + run + "//" + rest
                else:
                    yield head + run + "/" + tail
            yield from _deep(head, tail or ("/" + rest if rest else ""))
            slash = after


def _deep(head: str, tail: str) -> Iterator[str]:
    """A keyword's forms with :data:`DEEP_RUN` before a "/" written ``head``, a run of any
    length, then "/" and ``tail``: from the run's end on, where ``tail`` names something
    (``\\…\\/webhooks``), else from the head to the run's last 16 (``sentry.io\\…``)."""
    if tail:
        yield DEEP_RUN + "/" + tail
    else:
        yield head + DEEP_RUN


#: Part of the cache key: a change to what a kept file holds must not meet an older file.
_KEPT_FORM = b"keywords-v1\0"


def _key(given: Inputs) -> bytes | None:
    """Everything the tables are derived from: ``given``, this module's source (the code that
    derives them, and its constants), and Python's version. ``None`` (nothing kept) where the
    source cannot be read: a change to the code could then meet an older file."""
    try:
        source = Path(__file__).read_bytes()
    except OSError:
        return None
    return b"\0".join([_KEPT_FORM, sys.version.encode(), repr(given).encode(), source])


def _encode(tables: Tables) -> dict[str, Any]:
    return {**tables._asdict(), "b64_heads": sorted(tables.b64_heads)}


def _decode(kept: Any) -> Tables:
    def index(value: Any) -> dict[str, list[int]]:
        if not (isinstance(value, dict) and all(
                isinstance(fams, list) and all(isinstance(i, int) for i in fams)
                for fams in value.values())):
            raise TypeError("not a keyword index")
        return value

    def strings(value: Any) -> list[str]:
        if not (isinstance(value, list) and all(isinstance(s, str) for s in value)):
            raise TypeError("not a list of strings")
        return value

    if not isinstance(kept, dict) or set(kept) != set(Tables._fields):
        raise KeyError("not the keyword tables")
    window, longest = kept["b64_window"], kept["longest"]
    if not isinstance(window, str) or not isinstance(longest, int):
        raise TypeError("not the keyword tables")
    return Tables(
        index(kept["family_exact"]), index(kept["family_any_case"]),
        tuple(strings(kept["generic"])), tuple(strings(kept["escape_any_case"])),
        frozenset(strings(kept["b64_heads"])), tuple(strings(kept["base64"])),
        tuple(strings(kept["b64_windows"])), window, longest,
    )


def tables(given: Inputs) -> Tables:
    """:func:`derive` of ``given``, read from the cache where it was derived before (by any
    process); a kept file that is torn, altered, foreign or of another form is derived
    again, never used (:func:`elision._cache.kept_json`)."""
    return kept_json("keywords", _key(given), lambda: derive(given), _encode, _decode)


_TABLES = tables(inputs())
#: Case-sensitive family keywords, and any-case ones (lower-cased), each with its families.
FAMILY_EXACT: dict[str, list[int]] = _TABLES.family_exact
FAMILY_ANY_CASE: dict[str, list[int]] = _TABLES.family_any_case
#: A credential name right before what assigns it (any case).
GENERIC: tuple[str, ...] = _TABLES.generic
ESCAPE_ANY_CASE: tuple[str, ...] = _TABLES.escape_any_case
#: The family keywords that hold a "/" as a text of JSON may spell them (:func:`_slashed`,
#: lower-cased: looked for in any case). Triggers that no credential-dense window counts: a
#: log of PHP's JSON lines holds ``\\/api`` on each.
SLASHED: tuple[str, ...] = tuple(sorted(set(_slashed([*FAMILY_EXACT, *FAMILY_ANY_CASE]))))


def slashed_patterns() -> tuple[str, str]:
    """:data:`SLASHED` as two regexes, for the passes without hyperscan: its literals, and the
    forms that open with :data:`DEEP_RUN` as one pattern that reads a run whole from its first
    backslash, to be asked only of a text that holds :data:`DEEP_RUN`. Among the literals,
    they were tried at each backslash of a run, each of the 489 there: a MB of backslashes
    took 1.9 s, 0.05 s without them."""
    deep = [lit[len(DEEP_RUN):] for lit in SLASHED if lit.startswith(DEEP_RUN)]
    rest = [re.escape(lit) for lit in SLASHED if not lit.startswith(DEEP_RUN)]
    run = rf"(?<!\\)\\{{{len(DEEP_RUN)},}}+(?:{'|'.join(map(re.escape, deep))})"
    return "|".join(rest), run
#: The base64 of the first three chars of each keyword: what a run opens with when its value
#: opens with the keyword; and of each byte order mark that names UTF-16 or UTF-32.
B64_HEADS: frozenset[str] = _TABLES.b64_heads
#: Each keyword's base64 forms: found anywhere in a run. A head counts only where a run
#: opens (:func:`opens_run`), whatever char is before it.
BASE64: tuple[str, ...] = _TABLES.base64
#: Every window's regex: what a run must hold for a mid-token keyword's family to be in it.
B64_WINDOWS: tuple[str, ...] = _TABLES.b64_windows
#: A run that holds any window (what the hyperscan pass finds with :data:`B64_WINDOWS`).
B64_WINDOW = lazy_compile(_TABLES.b64_window)


@cache
def window_local() -> bool:
    """Whether every char :data:`~elision.redact.keywords.B64_WINDOW` reads, matched or
    looked behind, is one a base64 run holds, and it asserts nothing else: then a match in a
    run's text alone is a match, at the same chars, in any text that holds the run (so a text
    with no match holds no run with one). Read from CPython's private ``re`` parser: where it
    is missing or reads otherwise, False, and every run is searched alone (slower, the same
    result), rather than a failure of every redaction."""
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:
        return False

    allowed = B64_RUN_BYTES

    def ok(items: list[Any]) -> bool:
        for op, arg in items:
            if op is c.LITERAL:
                if arg not in allowed:
                    return False
            elif op is c.IN:
                if not all((o is c.LITERAL and a in allowed)
                           or (o is c.RANGE and all(x in allowed for x in range(a[0], a[1] + 1)))
                           for o, a in arg):
                    return False
            elif op is c.BRANCH:
                if not all(ok(list(branch)) for branch in arg[1]):
                    return False
            elif op is c.SUBPATTERN:
                if not ok(list(arg[3])):
                    return False
            elif op is c.ASSERT:
                if arg[0] != -1 or not ok(list(arg[1])):  # a lookbehind
                    return False
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                if not ok(list(arg[2])):
                    return False
            else:
                return False
        return True

    try:
        return ok(list(_parser.parse(B64_WINDOW.pattern, B64_WINDOW.flags)))
    except (AttributeError, TypeError, ValueError, IndexError):
        return False
#: The longest literal :func:`present` looks for: a text read in blocks reads this less one
#: into the next.
LONGEST = _TABLES.longest
