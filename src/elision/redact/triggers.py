"""Where the pre-filter's triggers are in a text: one pass with hyperscan, else the regex passes.

The pre-filter (:mod:`elision.redact.rules`) is a superset test: the precise rules only run
where a trigger is. Finding the triggers is most of redaction's cost on a large result, and the
standard library has no multi-pattern search: each ``re`` pass or ``bytes.find`` of a short
literal runs at about 2 GB/s (memchr speed is for one byte only), and the triggers take about
eight passes plus a lower-cased copy. `hyperscan <https://pypi.org/project/hyperscan/>`_ finds
all of them, any case, in one pass at several GB/s, so it is used when it is installed (the
``fast`` extra) and the regex passes otherwise; both give a superset of the same triggers, so
the precise rules, and what is withheld, are the same either way (a differential test checks).
``ELISION_REDACT_ENGINE=re`` forces the regex passes.

A position is an offset inside the trigger (hyperscan reports where a match ends, the regex
passes where it starts); callers only ask whether a node's or a line's range holds one, and a
trigger never spans a JSON string's quotes or a line end.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cache, cached_property
from itertools import islice
from operator import le
from typing import Any, NamedTuple, TypeVar, cast

from elision._hyperscan import built_with_hyperscan, database, held_scratch
from elision._lazylog import get_logger
from elision._lazyre import lazy_compile
from elision.redact import compat, density, keywords, rules, weak
from elision.redact.commands import GLUED_CURL_USER
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.folding import fold, lowered
from elision.redact.generic import (
    AFFIX_ASSIGNED,
    AFFIX_ASSIGNED_ANYWHERE,
    AFFIX_FLAG,
    AFFIX_IN_JSON,
    AFFIX_NAME_MOST,
    AFFIX_TRIGGERS,
    AFFIXED_WORDS,
    KEY_QUALIFIED,
    ROW_NAME_TRIGGERS,
    TEXT_SEPARATORS,
)
from elision.redact.secrets import CREDENTIAL_FIELDS
from elision.redact.textbytes import AsciiBytes, buffer, text_bytes
from elision.shape.lines import is_utf8

ENGINE_ENV = "ELISION_REDACT_ENGINE"
log = get_logger("elision.redact")


class JsonTriggers(NamedTuple):
    """Trigger positions in a compact JSON serialization, by what they stand for."""

    secrets: list[int]  #: credential triggers and credential-named keys
    uris: list[int]  #: "uri" keys
    payloads: list[int]  #: "data", "text" and "blob" keys
    dispositions: list[int]  #: "disposition" keys
    #: Credential-dense byte ranges (:data:`DENSE_WINDOW` on to a quote), each to be read as
    #: if it held a trigger everywhere: the search left most of their positions out.
    dense: list[tuple[int, int]]


# The literals below are the regex passes' triggers spelled out (rules.py builds the same set
# from look-behinds): hyperscan compiles a set of literals in milliseconds, where one
# alternation of the same names takes a tenth of a second.
# The families' keywords, the generic names, the escapes and the base64 forms come from the
# families table (:mod:`elision.redact.keywords`); the regex passes find the base64 runs that
# decode to text instead of the forms.
#: The literals a credential itself opens with (never a family keyword met by chance).
_OWN_OPENINGS = frozenset({
    "sk-", "-----BEGIN", "github_pat_", "eyJ", "AIza", "AKIA", "ASIA", "ABIA", "ACCA",
    *(f"xox{c}-" for c in "abposre"), *(f"gh{c}_" for c in "pousr"),
    *(f"{a}k_{b}_" for a in "sr" for b in ("live", "test")),
})
_EXACT = tuple(sorted({
    *_OWN_OPENINGS, *keywords.FAMILY_EXACT, *keywords.ESCAPE_EXACT, *keywords.BASE64,
}))
_OWN_ANY_CASE = frozenset({
    "hooks.slack.com", "bearer", "basic", "secret_acc", "secretacc",
    *(f"{name}{eq}" for name in rules.PARAM_SUFFIXES for eq in ("=", "%3d", "%253d")),
    *keywords.FAMILY_ANY_CASE, *keywords.GENERIC, *keywords.ESCAPE_ANY_CASE,
})
_ANY_CASE = tuple(sorted(_OWN_ANY_CASE | set(AFFIX_TRIGGERS)))
#: An affixed name's literals (``password_0``) that are no other trigger: each counts only
#: where its name is then assigned (:data:`~.generic.AFFIX_ASSIGNED`, told in Python at each
#: match), so a listing of ``cache:key_1`` lines is not credential-dense.
_UNCONFIRMED = frozenset(AFFIX_TRIGGERS) - _OWN_ANY_CASE - set(_EXACT)
_AFFIX_ASSIGNED = re.compile(AFFIX_ASSIGNED.encode())
_AFFIX_FLAG = re.compile(AFFIX_FLAG.encode())
_KEY_QUALIFIED = tuple(q.encode() for q in KEY_QUALIFIED)
_LONGEST_QUALIFIER = max(map(len, _KEY_QUALIFIED))


def _affix_counts(data: memoryview, start: int, end: int) -> bool:
    """Whether the affixed name's literal at ``data[start:end]`` counts as a trigger: its name
    is then assigned, or a ``-`` opens it and a flag's gap follows it, and a ``key`` has a
    qualifier before it (as :data:`AFFIX_PATTERNS`)."""
    if _AFFIX_ASSIGNED.match(data, end) is None and not (
            start and data[start - 1] == 45 and _AFFIX_FLAG.match(data, end)):  # 45: "-"
        return False
    if data[start] not in b"kK":
        return True
    return bytes(data[max(0, start - _LONGEST_QUALIFIER):start]).lower().endswith(_KEY_QUALIFIED)


#: The scans of a JSON serialization whose first window may be told dense by the forms of
#: the last dense window they met (:meth:`_Hyperscan._dense_first`).
_JSON_SCANS = frozenset({"keys", "json_affixed"})
#: How far before a :data:`AFFIX_IN_JSON` match's last byte its position is, by expression.
_JSON_AFFIX_BACKS = tuple(back for _, back in AFFIX_IN_JSON)
_NAME_RUN = re.compile(rb"[A-Za-z0-9_.-]*")
#: Past this many unassigned affixed literals in a window of :data:`DENSE_WINDOW` bytes, a
#: text's scan looks ahead for where a name could next be assigned (:class:`_Unassignable`)
#: and searches up to there without the affixed literals: a run of them (``key1 key1 …``)
#: was a Python call each, 250x prose (issue 23); random base64 spells about 11 a MB.
_UNASSIGNED_RUN = 8
#: The farthest one look-ahead reaches, and the least worth a search of its own.
_UNASSIGNABLE_REACH = 1 << 20
_UNASSIGNABLE_LEAST = 256
#: A text's scan asks :func:`unassigned` of at most this many affixed literals, and one more
#: every this many bytes (those of a run a look-ahead then searched past are given back):
#: past them one is a trigger again, as before it was asked.
_DROPPED_LEAST = 64
_DROPPED_SPACING = 1 << 14
#: The bytes that can follow an affixed name's run and so assign it (:data:`AFFIX_ASSIGNED`'s
#: separators but the space that opens two of them).
_ASSIGNING = sorted({c for sep in TEXT_SEPARATORS for c in sep.encode() if c != 0x20})
#: A ``-`` before an affixed word's first letter may open a flag's name, which a gap assigns
#: (``--password_2 VALUE``, :data:`AFFIX_FLAG`): a look-ahead stops there too (a ``-`` alone
#: would stop it inside ``secret-v2``, 17x as slow on a run of them).
_FLAG_OPEN = re.compile(
    b"-[" + bytes(sorted({ord(w[0]) for w in AFFIXED_WORDS})) + b"]", re.IGNORECASE)
_PAST_ASCII = re.compile(rb"[\x80-\xff]")
#: A name's bytes made ``n``, any other a space: the last space is where a name last began.
_NAME_BYTES = bytes(0x6E if re.fullmatch(rb"[A-Za-z0-9_.-]", bytes([c])) else 0x20
                    for c in range(256))


def unassigned(data: memoryview, start: int, end: int) -> bool:
    """Whether the affixed name's literal at ``data[start:end]`` is certainly not assigned
    (:data:`AFFIX_ASSIGNED` does not match after it, nor is it a flag's name with its gap
    after it, as :func:`_affix_counts` reads one, and the char that ends its
    name is ASCII: a char past ASCII may lower to a name's letter where the judge reads it).
    Then no affixed name's pattern matches from it, and in a text it is no trigger: chance
    ones in random base64 (``jwT1``, ``KEY3``, some 11 a MB, each ended by a ``+``, a ``/``
    or a line break) made a piece of wrapped base64 crowded enough to be located, which
    loaded a database of 433 KB for nothing (issue 23)."""
    if _AFFIX_ASSIGNED.match(data, end) is not None or (
            start and data[start - 1] == 45 and _AFFIX_FLAG.match(data, end)):  # 45: "-"
        return False
    run = _NAME_RUN.match(data, end, end + AFFIX_NAME_MOST + 1)
    stop = end if run is None else run.end()
    return stop >= len(data) or stop > end + AFFIX_NAME_MOST or data[stop] < 0x80


class _Unassignable:
    """How far on from a position of a text no affixed name's literal can be assigned: up
    to the first byte that could assign a name (:data:`_ASSIGNING`, or one past ASCII, which
    :func:`unassigned` lets count), less the name run that byte may end. Every literal that
    ends before there is one :func:`unassigned` drops, so a scan searches up to there with
    the literals that need no assignment alone, in C.

    Each byte's next place is kept, and looked for only past where it was looked for last
    (the positions asked only grow): the look-aheads of one text read it once a byte. Where
    such a byte is too near (``cache:key_1`` lines: a ":" a line), ``first_assigned`` tells
    where the first name that may be assigned ends (:meth:`_Hyperscan.first_assigned`)."""

    def __init__(
        self, data: bytes | AsciiBytes, view: memoryview,
        first_assigned: Callable[[memoryview, int], int],
    ) -> None:
        self._view = view
        self._first_assigned = first_assigned
        self._assigned = -1
        self._size = len(data)
        self._hay: str | bytes
        needles: list[Any]
        if isinstance(data, AsciiBytes):
            self._hay, needles = data.text, [chr(c) for c in _ASSIGNING]
        else:
            self._hay, needles = data, [bytes([c]) for c in _ASSIGNING]
        #: The next place of each, and how far it was looked for (the place, or the end of
        #: the range looked in where it was not there).
        self._looked: dict[Any, tuple[int, int]] = dict.fromkeys(needles, (-1, -1))
        self._ascii = isinstance(data, AsciiBytes) or data.isascii()
        self._past: tuple[int, int] = (-1, -1)
        self._flag: tuple[int, int] = (-1, -1)

    def until(self, start: int) -> int:
        """Where, from ``start`` on, an affixed literal that ends before it is certainly
        unassigned, or -1 where that is too near to be worth a search of its own."""
        limit = min(self._size, start + _UNASSIGNABLE_REACH)
        end = limit
        for needle, (at, looked) in self._looked.items():
            if at < start and looked < limit:
                at = self._hay.find(needle, max(start, looked), limit)
                self._looked[needle] = (at, limit if at < 0 else at)
            if at >= start:
                end = min(end, at)
        if not self._ascii:
            self._past, end = self._next(_PAST_ASCII, self._past, start, limit, end)
        self._flag, end = self._next(_FLAG_OPEN, self._flag, start, limit, end)
        end = self._run_start(start, end)
        if end - start < _UNASSIGNABLE_LEAST:
            if self._assigned < start:
                self._assigned = self._first_assigned(self._view, start)
            # The match's separator opens at most two bytes before where it ends (" =").
            at = self._assigned
            end = self._run_start(start, at if at >= self._size else at - 2)
        return end if end - start >= _UNASSIGNABLE_LEAST else -1

    def _next(
        self, pattern: re.Pattern[bytes], state: tuple[int, int], start: int, limit: int,
        end: int,
    ) -> tuple[tuple[int, int], int]:
        """``pattern``'s next place from ``start`` (searched past where it was last looked
        for), kept as ``state``, and ``end`` lowered to it."""
        at, looked = state
        if at < start and looked < limit:
            found = pattern.search(self._view, max(start, looked), limit)
            at = -1 if found is None else found.start()
            state = (at, limit if at < 0 else at)
        return state, min(end, at) if at >= start else end

    def _run_start(self, start: int, end: int) -> int:
        """``end``, a byte that may assign a name, less the name run it may end: a literal
        counts where its run ends at ``end`` (or at a space before it: " ="), so the search
        stops where the last run before there began (``start`` where none did)."""
        if end >= self._size:
            return end
        low = max(start, end - 1 - AFFIX_NAME_MOST)
        space = bytes(self._view[low:end - 1]).translate(_NAME_BYTES).rfind(b" ")
        return low + space + 1 if space >= 0 else start


#: A userinfo match ends at an "@" (or "%40"): the literal search reports each, and the
#: userinfo pattern is tried only on the bytes before them.
_AT_GATES = ("@", "%40")
# The regex passes' userinfo patterns with unbounded repeats: a superset that hyperscan
# compiles in milliseconds (bounded to 256 chars, it takes over a second).
# A user alone (no ":") is one only where it may be a token: 16 letters and digits or more.
_USERINFO_TAIL = r"""(?:[^\s/?#@"'<>:]*(?::|%3a)[^\s/?#@"<>]*|[a-z0-9]{16,})(?:@|%40)"""
# A "/" JSON-escaped (\/) at any depth of JSON-in-JSON: each level doubles the backslashes
# and, spelled as PHP spells it, adds one (\/, \\/, \\\/, \\\\\\/, ...); a writer may
# escape one "/" and not the next.
_USERINFO = (r":\\*/\\*/" + _USERINFO_TAIL, "%3a%2f%2f" + _USERINFO_TAIL)
#: The same, as one ``re`` pattern that must end where its search window does (at an "@").
_USERINFO_BEFORE = re.compile(
    (r"(?::\\*/\\*/|%3a%2f%2f)" + _USERINFO_TAIL + r"\Z").encode(), re.IGNORECASE
)
#: How far before its "@" a userinfo the URL rules can withhold may start, in bytes: their
#: pattern (``urls._USERINFO``) allows 256 chars of user and 256 of password, a char is at most
#: 4 bytes of UTF-8, and the "://" and ":" and "@" are at most 9, 3 and 3 chars ("%3a%2f%2f").
USERINFO_REACH = 4 * (9 + 256 + 3 + 256 + 3)
#: Past this share of the data the windows before the "@"s would cost more than one hyperscan
#: pass of the userinfo patterns over all of it (a list of e-mail addresses, say).
_WINDOWS_SHARE = 4
#: Past one "@" (or "%40") in this many bytes, the userinfo pass runs over all of the data
#: rather than a window before each: an "@" is one Python step, a pass is a fraction of one.
_AT_SHARE = 64
_SECRET, _URI, _PAYLOAD, _DISPOSITION, _FIELD, _AT, _HEAD, _SLASH, _CURL = range(9)
#: A gate of the glued curl users' pass (:meth:`_Hyperscan._glued_in`): a literal of the
#: scan, reported once (a ``find`` of it was 0.6 ms a MB of prose, most of a text's scan).
_CURL_GATES = ("curl",)
#: A keyword's head in base64 (four chars): a trigger only where it opens a run.
_HEADS = tuple(sorted(keywords.B64_HEADS))
#: What opens a run before a head (keywords.opens_run): a char no run holds, or a JSON escape
#: such as \n (whose "n" would otherwise read as part of the run); or the data's start. The
#: head search reads a copy of the data with every char no run holds made a space, but the
#: ones that end a stretch and the escapes' backslash: then a head that opens a run is one of
#: a few literals, where a regex had to stop at each repeat of a head to look behind it, and
#: in a run that repeats one that was a stop every few bytes (issue 23). The stops are
#: TEXT_STOP and JSON_STOP.
_OPENERS = (b" ", b"\n", b'"', b"\\", *(b"\\" + bytes([c]) for c in keywords.RUN_ESCAPES))
_OPENING = bytes(c if c in keywords.B64_RUN_BYTES or bytes([c]) in _OPENERS else 0x20
                 for c in range(256))
#: The head search translates and scans the data this many bytes at a time (the copy is
#: no bigger), each block read on by :data:`_OPENER_REACH` so a head across its end is seen.
_HEAD_BLOCK = 1 << 16
#: A head is a trigger where the run it opens is a :data:`keywords.B64_RUN` (one shorter
#: decodes to nothing the judge reads): the head, then this many more of the run's chars. A
#: line of ``=//4I=`` (a UTF-16 mark's head in a 5-char run) was a stretch and a Python call
#: each, 160x prose with nothing withheld (bench/fuzz_linear.py's drawn units, issue 23).
_RUN_AFTER_HEAD = keywords.B64_RUN_MIN - 4
_RUN_BYTES = bytes(sorted(keywords.B64_RUN_BYTES))
_RUN_CLASS = b"[" + re.escape(_RUN_BYTES) + b"]"
_OPENER_REACH = 5 + _RUN_AFTER_HEAD
#: The bytes :data:`_OPENERS` are made of that no run holds: a translated block without any
#: opens no run.
_OPENER_BYTES = tuple(bytes([c]) for c in sorted({o[0] for o in _OPENERS}))
#: Heads asked about in one block past which it is read again by a pattern that holds the
#: run (:meth:`_Hyperscan._opening_heads`).
_HEADS_DENSE = 64
#: The heads a scan found are looked for with a database of at most this many (each as
#: :data:`_OPENERS` literals), compiled in milliseconds and kept like the others.
_HEADS_PER_DB = 64
#: Head databases held in memory, the oldest dropped first: a scan finds a few heads, and the
#: same few again in results of the same kind.
_HEAD_DBS = 32
#: A head database holds at least this many heads, made up with heads that cannot be in the
#: translated copy (:data:`_FILLERS`). Hyperscan searches a set of one or two heads' literals
#: (all ending in the same four bytes) with a matcher that stops in C at each place those
#: bytes are: a run that repeats the head mid-run is read at 1 ms a MB, more than the rest of
#: the search (bench/redact.py's ``run-b64-heads-mid``, 2.6-3.0x prose alone); with four
#: heads it takes the matcher it takes for many literals, 0.06 ms a MB on the same run.
_HEADS_LEAST = 4
#: The places a pass of the found heads alone may report (:meth:`_Hyperscan._few_heads`)
#: before the translated copy is read instead: each is a few Python steps.
_HEADS_FEW = 64
#: A head database's mode: the heads alone, as literals (0: after each opener; 1: with runs).
_PLAIN = 2
#: Whether the heads' own places are asked first (a test turns it off: the slow path).
FEW_HEADS_FIRST = True
#: Whether a block dense in heads is asked for a run long enough to decode before the pattern
#: that holds the run reads it (a test turns it off: the slow path).
RUNS_CHECK = True
#: Whether the head search asks first whether the data holds a byte that only a translation
#: makes an opener, and a run long enough to decode (a test turns it off: the slow path).
OTHERS_CHECK = True
#: Whether a text's head search skips its credential-dense windows (a test turns it off).
SKIP_DENSE = True
#: Whether a scan's first window is counted in C by the last dense window's forms
#: (:meth:`_Hyperscan._dense_first`; the tests turn it off to compare).
DENSE_FIRST = True
#: Past any range's end, for a bisect of (start, end) pairs by start.
_NO_END = 1 << 62
#: Made-up heads of a byte that :data:`_OPENING` turns into a space: never matched.
_FILLERS = tuple(bytes([c]) * 4 for c in b"!#$")
#: What ends a stretch: every caller asks whether a line (a text) or a string (a compact JSON
#: serialization) holds a trigger, never where in it, and no trigger crosses one of these
#: (a JSON key's literal ends at its closing quote, so its own stretch is the quote on).
TEXT_STOP = b"\n"
JSON_STOP = b'"'
#: A skipped range of a block, blanked: spaces but the line breaks.
_BLANK = bytes(c if c == TEXT_STOP[0] else 0x20 for c in range(256))
#: Matches skipped in a stretch already known to hold a trigger before the scan is stopped
#: and resumed at the stretch's end: a few cost less than a restart, a run of them more.
_SKIPS = 16
#: A text's trigger search counts the matches in each window of this many bytes (a fixed grid
#: from the text's start) ...
DENSE_WINDOW = 4096
#: ... and a window that holds more than this many is credential-dense: the search stops
#: there and goes on at the next window. The realistic corpora hold at most 66 in a window
#: (tests/redact/benign.py's error output; its .env listing 51, the rules' table 54), the bench
#: corpora 5; the hostile runs of bench/fuzz_linear.py 128 to 8,192.
DENSE_LIMIT = 100
#: A dense window's next window is dense too past this many (a stretch that opened past
#: :data:`DENSE_LIMIT` goes on while it holds more than a few, three times what the bench
#: corpora hold): a run of dense windows costs a count in C a window where its match forms
#: fill it (:meth:`_Hyperscan._goes_on`), else this many Python calls, not a hundred.
DENSE_GOES_ON = 16
#: A text with this many credential-dense windows or fewer is judged as any other (a .env file,
#: a config, a short hostile run): only past them is the bound's cost worth its loss.
DENSE_ALLOWANCE = 4
#: A dense window's most frequent match forms, counted in C to tell that its stretch goes on.
_FORMS = 8
#: The quoted names a window about to turn dense asks for their pair one by one
#: (:func:`.weak.pair_form_lead`) before the window is searched for a pair's name key once
#: (:func:`.weak.pair_keys_near`): a window with a few asks no more than it did.
_PAIRED_ASKS = 8


class _Hyperscan:
    """The triggers as hyperscan databases: literals (always) and userinfo (on many "@").

    A scan keeps one position per stretch (:data:`TEXT_STOP`, :data:`JSON_STOP`) and no more:
    a run of one base64 digit holds the keyword of twenty ``A`` at every offset, and a position
    for each was one Python call and one list entry per char (issue 23). The heads and the
    "@" gates are reported once per scan (``SINGLEMATCH``), then looked for where they count:
    a head where it opens a run, an "@" behind a userinfo.
    """

    def __init__(self, hs: Any) -> None:
        self.hs = hs
        caseless, once = hs.HS_FLAG_CASELESS, hs.HS_FLAG_SINGLEMATCH
        # A group at a time, not a call per literal: 4,581 calls cost a short command's start
        # about 3 ms (issue 24).
        groups = [(_EXACT, 0, _SECRET), (_ANY_CASE, caseless, _SECRET),
                  (keywords.SLASHED, caseless, _SECRET),
                  (_AT_GATES, caseless | once, _AT), (_HEADS, once, _HEAD),
                  (_CURL_GATES, once, _CURL),
                  # a key/value row's name, in a JSON serialization's scan alone (a text reads
                  # its rows whole, mdtables): the walk judges a string that holds one
                  (ROW_NAME_TRIGGERS, caseless, _SECRET),
                  # a key, at its ":" in compact output, any case
                  ([f'{name}":' for name in _KEY_NAMES], caseless, -1)]
        self._literals = [lit for lits, _, _ in groups for lit in lits]
        #: Each literal's length in bytes, by expression id: where a match of it starts.
        self.lengths: list[int] = [len(lit.encode()) for lit in self._literals]
        self._flags = [flag for lits, flag, _ in groups for _ in lits]
        self.kinds: list[int] = [kind for lits, _, kind in groups[:-1] for _ in lits]
        self.kinds += _KEY_NAMES.values()
        gates = len(_EXACT) + len(_ANY_CASE)
        #: The expressions of :data:`_UNCONFIRMED` (a JSON or a text scan's literals).
        self.affixed = frozenset(
            expr for expr, lit in enumerate(self._literals[:gates]) if lit in _UNCONFIRMED)
        #: The expressions of :data:`.weak.LITERALS`: each counts towards a window's density
        #: only where :func:`.weak.counts` confirms it, and is no dense window's form.
        self.weak = frozenset(
            expr for expr, lit in enumerate(self._literals[:gates]) if lit in weak.LITERALS)
        #: The expressions of :data:`.weak.PREFIXES`: a match only on a delimiter row.
        self.prefixes = frozenset(
            expr for expr, lit in enumerate(self._literals[:gates]) if lit in weak.PREFIXES)
        #: What counts towards a JSON serialization's density only where confirmed.
        self.confirmed = self.affixed | self.weak
        #: A name's literals that end with its closing quote (:data:`.weak.QUOTE_ENDS`): in
        #: a text each counts only where :func:`.weak.quoted_counts` confirms it (NDJSON of
        #: ``{"m": "tokens"}`` lines was withheld whole), and is no dense window's form.
        self.quoted = frozenset(
            expr for expr in range(gates)
            if self._literals[expr][-1] in weak.QUOTE_ENDS) - self.confirmed
        #: What counts towards a text's density only where confirmed (:meth:`scan`).
        self.text_confirmed = self.confirmed | self.quoted
        #: The longest literal's bytes: how far before its end a search that takes over
        #: from another starts reading, so that no match crosses the place it took over.
        self.longest = max(self.lengths)
        #: The escaped spellings of keywords with a "/": no density count (keywords.SLASHED).
        self.uncounted = range(gates, gates + len(keywords.SLASHED))
        gates += len(keywords.SLASHED)
        self.key_ids = gates + len(_AT_GATES) + len(_HEADS) + len(_CURL_GATES)
        # The rows' names, and the keys, after it: a JSON scan's alone (:attr:`text_literals`).
        self.heads: dict[int, str] = dict(enumerate(_HEADS, gates + len(_AT_GATES)))
        #: Reported once a scan, so never skipped: the first may be in a stretch already hit.
        self.gates = frozenset(range(gates, self.key_ids))
        self._userinfo: Any = None
        self._body: Any = None
        #: :meth:`chance_families` by expression id, each worked out on its first match.
        self._chance: dict[int, tuple[int, ...] | None] = {}
        self._head_dbs: dict[tuple[tuple[str, ...], int], Any] = {}
        # The mid-token keywords' windows in base64 are regexes, not literals: a second pass,
        # compiled apart so the literal set stays quick to compile. Loaded here, where the
        # literal sets wait for their first scan, so that a hyperscan unusable on this host
        # fails here and the regex passes take over (built_with_hyperscan).
        self.windows = self._compile([p.encode() for p in keywords.B64_WINDOWS],
                                     [0] * len(keywords.B64_WINDOWS), literal=False)
        self._local = threading.local()
        self._lock = threading.Lock()

    @cached_property
    def literals(self) -> Any:
        """Every literal: a JSON serialization's scan."""
        return self._compile([lit.encode() for lit in self._literals], self._flags,
                             literal=True)

    @cached_property
    def text_literals(self) -> Any:
        """The literals but the keys: a text has no members. Each set is 600 KB, read and
        checked when first scanned: a short result needs one of them."""
        return self._compile([lit.encode() for lit in self._literals[:self.key_ids]],
                             self._flags[:self.key_ids], literal=True)

    @cached_property
    def assigned_literals(self) -> Any:
        """A text's literals but the affixed names' (each reported as its place in
        :attr:`text_literals`): what a stretch where no name can be assigned is searched
        with (:class:`_Unassignable`). Compiled when first such a stretch is met."""
        ids = [expr for expr in range(self.key_ids) if expr not in self.affixed]
        return database(self.hs, [self._literals[expr].encode() for expr in ids],
                        [self._flags[expr] for expr in ids], literal=True, ids=ids)

    @cached_property
    def json_literals(self) -> Any:
        """A JSON serialization's literals but the affixed names' (each reported as its
        place in :attr:`literals`): those are told apart by :attr:`_json_affixed`."""
        ids = [expr for expr in range(len(self._literals)) if expr not in self.affixed]
        return database(self.hs, [self._literals[expr].encode() for expr in ids],
                        [self._flags[expr] for expr in ids], literal=True, ids=ids)

    @cached_property
    def _json_affixed(self) -> Any:
        """:data:`AFFIX_IN_JSON`: the affixed names that count in a JSON serialization, each
        reported where its match ends. Compiled when first used."""
        exprs = [pattern.encode() for pattern, _ in AFFIX_IN_JSON]
        return database(self.hs, exprs, [self.hs.HS_FLAG_CASELESS] * len(exprs))

    def _json_affixed_in(
        self, data: bytes | AsciiBytes, *, first: bool = False,
        dense: list[tuple[int, int]] | None = None,
    ) -> list[int]:
        """A position in each string of ``data`` (a JSON serialization) that holds an
        affixed name that counts there (:data:`AFFIX_IN_JSON`), one a stretch at most; with
        ``dense``, its credential-dense windows joined to those in it (as :meth:`scan`'s),
        each next one told by a count of the strings its matches were in (:func:`_strings`):
        an array of ``"password_1=x"`` was a Python call a string, 10x the literal scan's."""
        hits: list[int] = []
        backs = _JSON_AFFIX_BACKS
        own: list[tuple[int, int]] | None = None if dense is None else []

        def keep(expr: int, pos: int) -> bool:
            hits.append(pos - backs[expr])
            return True

        self._stretches(self._json_affixed, "json_affixed", data, JSON_STOP, keep, first=first,
                        dense=own, forms_of=_strings)
        if dense is not None and own:
            dense[:] = _joined_ranges(dense, own)
        return hits

    @cached_property
    def _may_assign(self) -> Any:
        """An affixed name's word, affix and name, then what assigns it or a byte past ASCII
        (:func:`unassigned` lets one count): a superset of the affixed literals that count,
        each reported where its separator ends. 25 KB, compiled when first used."""
        exprs = [f"{pattern[:-1]}|[\\x80-\\xff])".encode()
                 for pattern in AFFIX_ASSIGNED_ANYWHERE]
        return database(self.hs, exprs, [self.hs.HS_FLAG_CASELESS] * len(exprs))

    def first_assigned(self, view: memoryview, start: int) -> int:
        """Where the first name of :attr:`_may_assign` that ends past ``start`` in ``view``
        ends, or ``len(view)``: the scan starts a literal's length back, so a literal that
        ends past ``start`` is read whole."""
        db = self._may_assign
        base = max(0, start - self.longest)
        ends: list[int] = []

        def on_match(expr: int, begin: int, end: int, flags: int, ctx: object) -> bool:
            if base + end <= start:
                return False
            ends.append(base + end)
            return True

        with contextlib.suppress(self.hs.ScanTerminated):
            db.scan(view[base:], match_event_handler=on_match,
                    scratch=self._scratch("may_assign", db))
        return ends[0] if ends else len(view)

    def _compile(self, exprs: list[bytes], flags: list[int], *, literal: bool) -> Any:
        return database(self.hs, exprs, flags, literal=literal)

    def _scratch(self, name: str, db: Any) -> Any:
        # A scan releases the GIL, so each thread needs scratch space of its own.
        scratch = getattr(self._local, name, None)
        if scratch is None:
            scratch = self.hs.Scratch(db)
            setattr(self._local, name, scratch)
        return scratch

    def _heads_scratch(self, key: tuple[Any, ...], db: Any) -> Any:
        # One compiled again for the same set of heads needs the same space.
        return held_scratch(self.hs, self._local, "heads", key, db, _HEAD_DBS)

    def _heads_db(self, heads: tuple[str, ...], *, runs: bool = False, mode: int = -1,
                  openers: tuple[bytes, ...] = _OPENERS) -> Any:
        """A database of ``heads``, each after each of :data:`_OPENERS` (literals); with
        ``runs``, each before the rest of a run long enough to decode
        (:data:`_RUN_AFTER_HEAD`), a match ending that many chars after its head (a regex:
        25-70x the literals' time a byte, so only for a block dense in heads); with ``mode``
        :data:`_PLAIN`, the heads alone, as literals. ``openers``: those the data holds, where
        it is its own translation (a database of fewer literals compiles sooner; the
        fillers, bytes such data never holds, keep hyperscan off a matcher that stops at
        each line break when every literal opens with one)."""
        key: tuple[Any, ...] = (heads, int(runs) if mode < 0 else mode)
        if openers != _OPENERS:
            key += (openers,)
        with self._lock:
            db = self._head_dbs.pop(key, None)
            if db is None:
                if key[1] == _PLAIN:
                    fill = _FILLERS[:max(0, _HEADS_LEAST - len(heads))]
                    exprs = [*(h.encode() for h in heads), *fill]
                    db = self._compile(exprs, [0] * len(exprs), literal=True)
                elif runs:
                    run = _RUN_CLASS + b"{%d}" % _RUN_AFTER_HEAD
                    exprs = [re.escape(opener + head.encode()) + run
                             for head in heads for opener in openers]
                else:
                    fill = _FILLERS[:max(0, _HEADS_LEAST - len(heads))]
                    exprs = [opener + head for head in (*(h.encode() for h in heads), *fill)
                             for opener in openers]
                    if openers != _OPENERS:
                        exprs += _FILLERS
                if key[1] != _PLAIN:
                    db = self._compile(exprs, [0] * len(exprs), literal=not runs)
                if len(self._head_dbs) >= _HEAD_DBS:
                    self._head_dbs.pop(next(iter(self._head_dbs)))
            self._head_dbs[key] = db  # the newest last
            return db

    def _opening_heads(
        self, data: bytes | AsciiBytes, heads: set[str], stop: bytes, *, first: bool,
        skip: Sequence[tuple[int, int]] = (),
    ) -> list[int]:
        """:meth:`_translated_heads`, or where ``heads`` are few in ``data`` (a chance head
        inside an image's base64, say), the same places told from each head's own place
        (:meth:`_few_heads`): a copy of all of the data translated, and each block scanned,
        was most of the redaction of a result with a few thumbnails (issue 23).

        ``skip``: sorted byte ranges not searched (a text's credential-dense windows, whose
        positions no caller reads: each stretch is withheld whole, in whole lines). Every
        line outside them is searched as it would be without them."""
        # Asked first even where the data is its own translation (random base64: its 48
        # chance heads' plain pass is 1 ms a MB, the translated blocks' scan 0.3 ms): the
        # translated search's database of those heads after each opener compiles in 5 ms
        # where theirs alone takes 1.3 ms, and a new image's chance heads are a new set.
        if OTHERS_CHECK and not self._holds(self._others, data):
            present = tuple(b for b in _OPENER_BYTES if data.find(b) >= 0)
            if not present:
                # Every byte is a run's (one line of base64, a pasted image): only a head at
                # the start opens a run, where the heads' own places were a pass (1 ms a MB).
                return _head_at_start(data, heads)
            # Its own translation (wrapped base64): its blocks are searched for the heads
            # after the openers it holds (0.35 ms a MB), where the heads' own places were a
            # pass of 1.07 ms; that database compiles as soon as theirs (50 literals).
            openers = tuple(o for o in _OPENERS if o[:1] in present)
            return self._translated_heads(data, heads, stop, first=first, skip=skip,
                                          openers=openers)
        found = (self._few_heads(data, heads, stop, first=first, skip=skip)
                 if FEW_HEADS_FIRST else None)
        if found is None:
            found = self._translated_heads(data, heads, stop, first=first, skip=skip)
        return found

    def _few_heads(
        self, data: bytes | AsciiBytes, heads: set[str], stop: bytes, *, first: bool,
        skip: Sequence[tuple[int, int]] = (),
    ) -> list[int] | None:
        """Where :meth:`_translated_heads` finds a head (its last byte), one a stretch, told
        by one hyperscan pass of ``heads`` as plain literals (each place one reads) and, at
        each, whether it opens a run (:func:`keywords.opens_run`) long enough to decode;
        None past :data:`_HEADS_FEW` places (a run that repeats a head mid-run: the
        translated copy reads it in C) or :data:`_HEADS_PER_DB` heads."""
        if len(heads) > _HEADS_PER_DB:
            return None
        group = tuple(sorted(heads))
        key = (group, _PLAIN)
        # The class's own method: the translated copy's calls are what a test counts.
        db = type(self)._heads_db(self, group, mode=_PLAIN)
        ends: list[int] = []
        base = 0

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            if expr >= len(group):
                return False  # a filler (_HEADS_LEAST), which the data may well hold
            ends.append(base + end)
            return len(ends) > _HEADS_FEW

        raw = memoryview(buffer(data))
        scratch = self._heads_scratch(key, db)
        try:
            # The gaps between the skipped ranges, each a view: a head across a gap's edge
            # is in a skipped range's line, which is withheld whole.
            for base, end in _gaps(len(data), skip):
                db.scan(raw[base:end], match_event_handler=on_match, scratch=scratch)
        except self.hs.ScanTerminated:
            return None
        hits: list[int] = []
        until = -1
        for end in sorted(ends):
            if end <= until or not _opens_run(raw, end - 4):
                continue
            rest = raw[end:end + _RUN_AFTER_HEAD].tobytes()
            if len(rest) < _RUN_AFTER_HEAD or rest.translate(None, _RUN_BYTES):
                continue
            hits.append(end - 1)
            if first:
                break
            nxt = data.find(stop, end)
            until = len(data) if nxt < 0 else nxt
        return hits

    def _translated_heads(
        self, data: bytes | AsciiBytes, heads: set[str], stop: bytes, *, first: bool,
        skip: Sequence[tuple[int, int]] = (), openers: tuple[bytes, ...] = _OPENERS,
    ) -> list[int]:
        """The last byte of a head among ``heads`` where it opens a base64 run long enough
        to decode (a :data:`keywords.B64_RUN`), at least one a stretch that holds one, at
        most one a stretch a block (:data:`_HEAD_BLOCK`) and database of heads
        (:data:`_HEADS_PER_DB`). A hyperscan pass of literals over each block of the data
        translated by :data:`_OPENING` (a run that repeats a head mid-run, the base64 of
        ``AAAA…`` after one other char, reports nothing); a block where over
        :data:`_HEADS_DENSE` heads open a run is read again with the heads' runs in the
        pattern, so runs too short to decode (lines of ``=//4I=``) cost no Python call each.
        A block inside a ``skip`` range is not read; one that meets one reads its part as
        spaces but its line breaks (so a stretch after it is the line it was)."""
        if OTHERS_CHECK and not self._holds(self._long_runs, data):
            # No run anywhere reaches a B64_RUN's length, so no head opens one: lines of
            # ``=//4I=`` need no block translated (one pass in C, 0.1 ms a MB).
            return []
        hits = _head_at_start(data, heads)
        if first and hits:
            return hits
        names = sorted(heads)
        groups = [tuple(names[at:at + _HEADS_PER_DB])
                  for at in range(0, len(names), _HEADS_PER_DB)]
        view = memoryview(buffer(data))
        size = len(data)
        # A head in a block's reach may be seen again by the next block: only those are kept
        # to tell the second sight, where a dict of every hit beside the list and its copy was
        # 2x the input at the peak (lines of the base64 of ``Authorization: Basic``, issue 23).
        seen: set[int] = set(hits)
        for at in range(0, size, _HEAD_BLOCK):
            reach, seen = seen, set()  # the block before's hits in this block's reach
            edge = at + _HEAD_BLOCK
            last = min(size, edge + _OPENER_REACH)
            covered = _overlaps(skip, at, last)
            if covered and covered[0][0] <= at and covered[0][1] >= last:
                continue  # all of it withheld unread: lines of the base64 of "Authorization:"
            block = view[at:last].tobytes()
            if covered:
                block = _blanked(block, at, covered)
            if block.isalnum():
                # No opener in it, so no head that opens a run ends in it (one at its start
                # is the block before's): a check at half the cost of the translation.
                continue
            # Where the caller found the data its own translation (``openers`` are those it
            # holds), so is each block of it: blanks are spaces and line breaks, openers both.
            if openers == _OPENERS and not (OTHERS_CHECK and not self._holds(self._others,
                                                                             block)):
                block = _translated(block)  # else it is its own translation
            if not any(opener in block for opener in _OPENER_BYTES):
                # A run with a "+" or "/" in it (random bytes in base64) is not alphanumeric
                # but opens nothing either: four searches in C, where the heads' scan of it
                # was a hyperscan pass a group.
                continue
            for group in groups:
                found: list[int] = []

                def keep(expr: int, pos: int, found: list[int] = found,
                         block: bytes = block) -> bool:
                    if not _decodes(block, pos):
                        return False
                    found.append(pos)
                    return True

                def keep_run(expr: int, pos: int, found: list[int] = found) -> bool:
                    found.append(pos - _RUN_AFTER_HEAD)  # the head's last byte
                    return True

                # Named only where restricted: the default keeps the call a test counts.
                own: dict[str, Any] = {} if openers == _OPENERS else {"openers": openers}
                key: tuple[Any, ...] = (group, 0, *own.values())
                db = self._heads_db(group, **own)
                dense = self._stretches(db, "heads", block, stop, keep, first=first,
                                        scratch=self._heads_scratch(key, db),
                                        most=_HEADS_DENSE)
                if dense and RUNS_CHECK and not self._holds(self._long_runs, block):
                    # No run in the block reaches a B64_RUN's length, so no head in it opens
                    # one: lines of ``=//4I=`` need no pass of the pattern that holds the run
                    # (told in C, where that pass cost 25-70x the literals' a byte).
                    found.clear()
                elif dense:
                    found.clear()
                    key = (group, 1, *own.values())
                    db = self._heads_db(group, runs=True, **own)
                    self._stretches(db, "heads", block, stop, keep_run, first=first,
                                    scratch=self._heads_scratch(key, db))
                block_hits = [at + pos for pos in found]
                if reach:
                    block_hits = [pos for pos in block_hits if pos not in reach]
                hits.extend(block_hits)
                seen.update([pos for pos in block_hits if pos >= edge])
                if first and hits:
                    return hits[:1]
        return hits

    @cached_property
    def _others(self) -> Any:
        """A byte no run holds that is none of :data:`_OPENERS`' own: where there is none,
        :data:`_OPENING` leaves the data as it is."""
        return self._once([b"[^" + _hex(_RUN_BYTES + b"".join(_OPENER_BYTES)) + b"]"])

    @cached_property
    def _long_runs(self) -> Any:
        """A run as long as a :data:`keywords.B64_RUN`: where there is none, no head opens
        one (a head is a run's first four chars)."""
        return self._once([b"[" + _hex(_RUN_BYTES) + b"]{%d}" % keywords.B64_RUN_MIN])

    @cached_property
    def _not_run(self) -> Any:
        """A byte no run holds: where the first is, a run from before it ends."""
        return self._once([b"[^" + _hex(_RUN_BYTES) + b"]"])

    def run_end(self, data: bytes | AsciiBytes, start: int) -> int:
        """:func:`run_end`, with hyperscan."""
        end = -1

        def on_match(expr: int, _start: int, at: int, flags: int, ctx: object) -> bool:
            nonlocal end
            end = start + at - 1
            return True  # the first is the answer

        with contextlib.suppress(self.hs.ScanTerminated):
            self._not_run.scan(memoryview(buffer(data))[start:], match_event_handler=on_match,
                               scratch=self._scratch("not_run", self._not_run))
        return len(data) if end < 0 else end

    def _once(self, exprs: list[bytes]) -> Any:
        return self._compile(exprs, [self.hs.HS_FLAG_SINGLEMATCH] * len(exprs), literal=False)

    def _holds(self, db: Any, data: bytes | AsciiBytes) -> bool:
        """Whether ``db`` (:meth:`_others`, :meth:`_long_runs`) matches anywhere in ``data``:
        one pass in C, ended at the first match."""
        return self._matches(db, f"holds{id(db)}", data)

    def _userinfo_db(self) -> Any:
        with self._lock:
            if self._userinfo is None:
                caseless = self.hs.HS_FLAG_CASELESS
                self._userinfo = self._compile([p.encode() for p in _USERINFO],
                                               [caseless] * len(_USERINFO), literal=False)
            return self._userinfo

    def _body_db(self) -> tuple[Any, list[int]]:
        # Whether a raw body (any spacing) holds a trigger or a key, each reported once.
        with self._lock:
            if self._body is None:
                once, caseless = self.hs.HS_FLAG_SINGLEMATCH, self.hs.HS_FLAG_CASELESS
                # Three lists, not a tuple a literal: a tuple is an object the collector
                # tracks, and some thousands of them set off collections in the proxy's first
                # gate, its set-up's objects frozen by then (test_mcp_start_path).
                lits: list[bytes] = []
                flags: list[int] = []
                kinds: list[int] = []

                def add(group: Iterable[str], flag: int, kind: int) -> None:
                    before = len(lits)
                    lits.extend(lit.encode() for lit in group)
                    flags.extend([flag] * (len(lits) - before))
                    kinds.extend([kind] * (len(lits) - before))

                add(_EXACT, once, _SECRET)
                add(_ANY_CASE, once | caseless, _SECRET)
                add(keywords.SLASHED, once | caseless, _SECRET)
                add(_AT_GATES, once | caseless, _AT)
                add(_HEADS, once, _HEAD)
                add(_CURL_GATES, once, _CURL)  # the glued users' gate
                add(ROW_NAME_TRIGGERS, once | caseless, _SECRET)
                add(["\\/"], once, _SLASH)  # a body orjson did not write (orjson_slashes)
                for name, kind in _KEY_NAMES.items():
                    add([f'"{name}"'], once | caseless, kind)
                db = self._compile(lits, flags, literal=True)
                self._body = (db, kinds)
            body: tuple[Any, list[int]] = self._body
            return body

    def _stretches(
        self, db: Any, name: str, data: bytes | AsciiBytes, stop: bytes,
        keep: Callable[[int, int], bool], *, first: bool = False,
        gates: frozenset[int] = frozenset(), dense: list[tuple[int, int]] | None = None,
        scratch: Any = None, most: int = 0, affixed: frozenset[int] = frozenset(),
        unconfirmed: frozenset[int] = frozenset(), faint: frozenset[int] = frozenset(),
        forms_of: Callable[[bytes | AsciiBytes, list[tuple[int, int]]], list[bytes]]
        | None = None, uncounted: range | None = None,
    ) -> bool:
        """Scan ``data`` with ``db``, calling ``keep(expr, pos)`` for each match outside a
        stretch already hit; ``keep`` says whether the match hits its stretch (``pos`` to the
        next ``stop``). Matches come in the order of their ends, so once a stretch is hit the
        rest of it is skipped, and past :data:`_SKIPS` of them the scan resumes at its end.
        With ``first``, the scan ends at the first hit. The ``gates`` (expressions reported
        once a scan) are always kept.

        With ``dense``, every match is counted in its :data:`DENSE_WINDOW`: a window past
        :data:`DENSE_LIMIT` (:data:`DENSE_GOES_ON` right after one) is added to ``dense``
        as a byte range that goes on to the end of its stretch (a credential-dense stretch is
        withheld in whole lines), and the scan goes on from there, so no window costs more
        than that many Python calls and a long line no more than one window's. The windows
        after a dense one are first counted in C (:meth:`_goes_on`): a stretch of many lines
        costs one window's calls, not seventeen for each of its windows.

        With ``most``, the scan ends once ``keep`` has been asked that many times, and says
        so (True): the caller reads the data another way. A match of one of ``affixed``
        counts towards a dense window only where its name is then assigned, or, a weak
        literal's (:attr:`weak`), where :func:`.weak.counts` confirms it (a trigger it
        stays: the judging that follows reads the name).

        A match of one of ``unconfirmed`` (a text's affixed names) that :func:`unassigned`
        drops is no match at all; past :data:`_UNASSIGNED_RUN` of them in a window, the
        scan goes on without them (:attr:`assigned_literals`) as far as no name can be
        assigned (:class:`_Unassignable`), then with them again.

        A match of one of ``faint`` (a text's weak literals) in a window where none may count
        (:func:`.weak.near`) is no match at all: no table there names a credential (a text's
        tables are read whole, :mod:`elision.redact.mdtables`) and no group is curl's, so
        its line needs no judging for it (a text of ``haiku`` was a hit, a mark and a count
        a match)."""
        if scratch is None:
            scratch = self._scratch(name, db)
        view = memoryview(buffer(data))
        size = len(data)
        hit = until = -1
        skipped = 0
        done = False
        window = resume = -1
        seen, limit = 0, DENSE_LIMIT
        marks: list[tuple[int, int]] = []  # a window's matches, while it may turn dense
        if uncounted is None:
            uncounted = self.uncounted
        asked = 0
        base = self._dense_first(data, name, stop, dense) if dense is not None else 0
        if base >= size:
            return False
        # Where the last stretch counted in C (:meth:`_goes_on`) ends: its last line's end,
        # past its last range (which ends with its window). The window that line ends in goes
        # on with the stretch, as after a range of the scan's own (to its line's end): counted
        # as a fresh one, a line of a hundred assignments there was read and the next window
        # withheld whole, the lines after the stretch with it.
        reach = base if base > 0 else -1
        # An ASCII text's own find, in C: AsciiBytes.find is a Python call, one a match (a
        # MB of assignments just under the density bound is 25,000 matches, issue 23).
        find: Callable[[Any, int], int] = data.find
        needle: str | bytes = stop
        lengths = self.lengths
        weak_ones = self.weak
        prefixes = self.prefixes
        quoted = affixed & self.quoted

        near = [-1, False]  # the last window weak.near was asked of, and its answer
        # The window its quoted names were asked in, whether a pair's name key may be near
        # them (weak.pair_keys_near, asked once a window has asked _PAIRED_ASKS of them: one
        # search of a window costs some of a name's own), and how many it asked.
        paired = [-1, True, 0]

        def counts(expr: int, start: int, end: int) -> bool:
            if expr in quoted:
                at = (end - 1) // DENSE_WINDOW
                if paired[0] != at:
                    paired[0], paired[1], paired[2] = at, True, 0
                paired[2] += 1
                if paired[2] == _PAIRED_ASKS:
                    paired[1] = weak.pair_keys_near(
                        view, at * DENSE_WINDOW, (at + 1) * DENSE_WINDOW)
                return weak.quoted_counts(view, end, paired=bool(paired[1]))
            if expr not in weak_ones:
                return _affix_counts(view, start, end)
            at = start // DENSE_WINDOW
            if near[0] != at:
                near[0], near[1] = at, weak.near(view, at * DENSE_WINDOW, (at + 1) * DENSE_WINDOW)
            return bool(near[1]) and weak.counts(view, start, end)

        checked = [0]  # how many of the window's marks were asked (the affixed ones)
        if isinstance(data, AsciiBytes):
            find, needle = data.text.find, stop.decode("ascii")
        # A stretch searched without the affixed names: [floor, plain) (plain -1: none).
        floor, plain, ahead_from, ahead_to = base, -1, -1, -1
        run_window = run_seen = retry = 0
        ahead: _Unassignable | None = None  # made at the first run of them
        droppable = _DROPPED_LEAST + size // _DROPPED_SPACING

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal hit, until, skipped, done, window, seen, resume, limit, asked
            nonlocal run_window, run_seen, retry, ahead_from, ahead_to, droppable, ahead
            pos = base + end - 1
            if pos < floor:
                return False  # a match before where this search took over, found already
            if expr in prefixes and not weak.delimiter_row(view, pos + 1 - lengths[expr]):
                return False  # a ruled line or a comment, no table's delimiter row
            if expr in faint:
                at = pos // DENSE_WINDOW
                if near[0] != at:
                    near[0], near[1] = at, weak.near(view, at * DENSE_WINDOW,
                                                     (at + 1) * DENSE_WINDOW)
                if not near[1]:
                    return False
            if (expr in unconfirmed and droppable > 0
                    and unassigned(view, pos + 1 - lengths[expr], pos + 1)):
                droppable -= 1
                if pos // DENSE_WINDOW != run_window:
                    run_window, run_seen = pos // DENSE_WINDOW, 0
                run_seen += 1
                if run_seen > _UNASSIGNED_RUN and pos >= retry and UNASSIGNED_RUNS:
                    if ahead is None:
                        ahead = _Unassignable(data, view, self.first_assigned)
                    ahead_to = ahead.until(pos + 1)
                    if ahead_to >= 0:
                        ahead_from = pos + 1
                        droppable += run_seen  # a run's asks, each told in C now
                        return True
                    retry = (run_window + 1) * DENSE_WINDOW  # one look-ahead a window
                return False
            if dense is not None and expr not in uncounted:
                if pos // DENSE_WINDOW != window:
                    window, seen = pos // DENSE_WINDOW, 0
                    goes_on = dense and max(dense[-1][1], reach) >= window * DENSE_WINDOW
                    limit = DENSE_GOES_ON if goes_on else DENSE_LIMIT
                    marks.clear()
                    checked[0] = 0
                seen += 1
                marks.append((expr, pos))
                if seen > limit and affixed:
                    # An affixed name's literal counts only where its name is assigned, a
                    # weak one where its construct may name a credential: asked here, of a
                    # window about to be dense, each match once, not at every match (a set
                    # lookup a match was 4% of keys of ``A``).
                    fresh = [m for m in marks[checked[0]:] if m[0] not in affixed
                             or counts(m[0], m[1] + 1 - lengths[m[0]], m[1] + 1)]
                    del marks[checked[0]:]
                    marks.extend(fresh)
                    seen = checked[0] = len(marks)
                if seen > limit:
                    # The stretch is withheld to its line's end whatever the rest holds: the
                    # scan goes on from there.
                    line_end = find(needle, pos)
                    resume = max(size if line_end < 0 else line_end + 1,
                                 (window + 1) * DENSE_WINDOW)
                    density.join(dense, window * DENSE_WINDOW, min(resume, size))
                    return True
            if hit <= pos < until and expr not in gates:
                skipped += 1
                return dense is None and skipped > _SKIPS
            if most:
                asked += 1
                if asked > most:
                    done = True
                    return True
            if keep(expr, pos):
                if first:
                    done = True
                    return True
                hit, skipped = pos, 0
                until = find(needle, pos + 1)
                if until < 0:
                    until = size
            return False

        overlap = self.longest - 1  # a search that takes over reads this much before it
        while True:
            try:
                if plain < 0:
                    db.scan(view[base:], match_event_handler=on_match, scratch=scratch)
                    return False
                self.assigned_literals.scan(
                    view[base:plain], match_event_handler=on_match,
                    scratch=self._scratch("assigned", self.assigned_literals))
                # On with every literal from where a name may be assigned again.
                floor, base, plain = plain, max(0, plain - overlap), -1
                retry = floor + _UNASSIGNABLE_LEAST
                continue
            except self.hs.ScanTerminated:
                if done:
                    return most > 0 and asked > most
                if ahead_from >= 0:  # a run of unassigned names: on without them
                    floor, base, plain = ahead_from, max(0, ahead_from - overlap), ahead_to
                    ahead_from = -1
                    continue
                if resume >= 0:  # a dense window: on from the next one, in the same stretch
                    assert dense is not None
                    forms = (self._forms(data, marks, gates) if forms_of is None
                             else forms_of(data, marks))
                    self._dense_forms()[name] = forms
                    base = floor = reach = self._goes_on(data, stop, resume, forms, dense)
                    resume = -1
                    if base >= size:
                        return False
                    if plain <= base:
                        plain = -1
                    continue
                if until >= size:
                    return False
                # Every match that ends before ``until`` was in the stretch already hit.
                base, hit, until, skipped = until, -1, -1, 0
                floor = base
                if plain <= base:
                    plain = -1

    def _forms(
        self, data: bytes | AsciiBytes, marks: list[tuple[int, int]], gates: frozenset[int],
    ) -> list[bytes]:
        """The bytes of a dense window's matches, the most frequent first (at most
        :data:`_FORMS`): what its stretch is made of. Not a weak literal's: a count of its
        copies counts those that :func:`.weak.counts` would not. A quoted name's
        (:attr:`quoted`) with the char that assigns it (``password":``,
        :func:`.weak.quoted_form_tail`), or with its pair's name key before it
        (``"name":"api_key"``, :func:`.weak.pair_form_lead`), or none: in a text its literal
        alone is in names that do not count (``{"m": "tokens"}``; a JSON scan's takes the
        same forms)."""
        lengths, weak_ones, quoted = self.lengths, self.weak, self.quoted
        view = memoryview(buffer(data))
        counts: Counter[bytes] = Counter()
        for expr, pos in marks:
            if expr in gates or expr in weak_ones:
                continue
            end = pos + 1
            start = pos + 1 - lengths[expr]
            if expr in quoted:
                tail = weak.quoted_form_tail(view, end)
                if tail < 0:
                    # No char assigns it: a form only as a pair's name, its key with it.
                    start = weak.pair_form_lead(view, end)
                    if start < 0:
                        continue
                else:
                    end += tail
            counts[bytes(data[start:end])] += 1
        return [form for form, _ in counts.most_common(_FORMS)]

    def _dense_forms(self) -> dict[str, list[bytes]]:
        """The forms (:meth:`_forms`) of the last dense window each database's scan met in
        this thread, by the scan's name (a form is one literal's match in that database)."""
        forms: dict[str, list[bytes]] | None = getattr(self._local, "dense_forms", None)
        if forms is None:
            forms = self._local.dense_forms = {}
        return forms

    def _dense_first(
        self, data: bytes | AsciiBytes, name: str, stop: bytes, dense: list[tuple[int, int]],
    ) -> int:
        """Where a scan with ``dense`` starts: 0, or past the first window and those after it
        (:meth:`_goes_on`) where the forms of the last dense window this database met alone
        hold more than :data:`DENSE_LIMIT` in it, counted in C, so the scan would find it
        dense too (a count of a literal's bytes counts no more matches than it reports). The
        pieces of a lazily read array of ``sk-`` strings each made a hundred Python calls
        before their first window turned dense (issue 23: 11,700 a MB through ``shape()``)."""
        # A JSON serialization's only: its dense ranges are judged (a trigger at every byte),
        # where a text's, within the allowance or not, decide what is withheld unread.
        forms = self._dense_forms().get(name) if DENSE_FIRST and name in _JSON_SCANS else None
        size = len(data)
        end = min(DENSE_WINDOW, size)
        if not forms or not density.more_than(data, forms, 0, end, DENSE_LIMIT):
            return 0
        density.join(dense, 0, end)
        line_end = data.find(stop, end - 1)
        return self._goes_on(data, stop, max(size if line_end < 0 else line_end + 1, end),
                             forms, dense)

    @staticmethod
    def _goes_on(
        data: bytes | AsciiBytes, stop: bytes, at: int, forms: list[bytes],
        dense: list[tuple[int, int]],
    ) -> int:
        """Where the scan goes on after a dense window (``at``): each next window whose
        ``forms`` alone (a ``bytes.count`` each, in C) hold more than :data:`DENSE_GOES_ON`
        goes on with the stretch, as it would after that many calls of the match handler
        (each form is one literal's match, and a count of its bytes counts no more matches of
        it than the scan reports: so a window taken here is one the scan would take). The
        first window they do not fill is counted by the scan again, exactly. A stretch of a
        few forms costs a few counts a window, not seventeen Python calls (issue 23)."""
        size = len(data)
        while at < size and forms:
            window = at // DENSE_WINDOW
            end = min((window + 1) * DENSE_WINDOW, size)
            if not density.more_than(data, forms, at, end, DENSE_GOES_ON):
                break
            # The window is dense (its stretch is widened to whole lines later, as the scan's
            # are); the next count starts past its last line. The range ends with the window,
            # never past where the scan's would: the allowance reads their sum.
            density.join(dense, window * DENSE_WINDOW, end)
            line_end = data.find(stop, end - 1)
            at = max(size if line_end < 0 else line_end + 1, end)
        return at

    def chance_families(self, expr: int) -> tuple[int, ...] | None:
        """The families of the literal ``expr`` when it is only families' keywords, each
        family's pattern one that matches in a line as it does in any text
        (``batch.joinable``): :func:`_may_match` asks them. Worked out on the literal's first
        match and kept: told for every literal at once, the first scan compiled 225 family
        patterns and loaded ``inspect``, which a small result's hook must not (issue 24)."""
        from elision.redact.batch import joinable  # batch imports scan, which imports this

        got = None
        if expr >= len(_EXACT):  # a gate's, a head's or a key's expression: never a keyword
            self._chance[expr] = got
            return got
        lit = _EXACT[expr]
        families = keywords.FAMILY_EXACT.get(lit)
        if families and lit not in _not_by_chance() and all(
                (pattern := PATTERN_FAMILIES[i].pattern) is not None and joinable(pattern)
                for i in families):
            got = tuple(families)
        self._chance[expr] = got
        return got

    def chance_keywords(self) -> dict[int, tuple[int, ...]]:
        """Every literal's :meth:`chance_families`, where it has them, by expression id."""
        told = {expr: self.chance_families(expr) for expr in range(len(_EXACT))}
        return {expr: fams for expr, fams in told.items() if fams is not None}

    def body_kinds(self, body: bytes, *, spelled: bool = False) -> set[int]:
        """The kinds of trigger in a raw JSON body: a secret's, or a key's (quoted, any case,
        so a string value that spells one counts too). A body that holds a ``\\/`` is asked
        again as orjson spells it (:func:`orjson_slashes`; ``spelled``: it is), from its
        first ``\\/``: a body with none costs no pass and no copy more."""
        db, kinds = self._body_db()
        found: set[int] = set()
        heads: set[str] = set()

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            kind = kinds[expr]
            if kind == _HEAD:
                heads.add(body[end - 4:end].decode("ascii"))
            elif kind != _SLASH or spelled:
                found.add(kind)
            else:
                found.add(kind)
                return True  # the rest is read as orjson spells it
            return kind == _SECRET  # the answer is known: no need to read on

        with contextlib.suppress(self.hs.ScanTerminated):
            db.scan(body, match_event_handler=on_match, scratch=self._scratch("body", db))
        if _SLASH in found and not spelled:
            return self.body_kinds(orjson_slashes(body), spelled=True)
        found.discard(_SLASH)
        if _SECRET in found:
            return found
        opening = bool(heads) and bool(self._opening_heads(body, heads, JSON_STOP, first=True))
        if (opening or (_AT in found and self._userinfo_in(body, JSON_STOP, first=True))
                or self._windows_in(body, JSON_STOP, first=True)
                or (_CURL in found and self._glued_in(body, JSON_STOP, first=True))):
            found.add(_SECRET)
        return found

    def _windows_in(
        self, data: bytes | AsciiBytes, stop: bytes, *, first: bool = False,
    ) -> list[int]:
        hits: list[int] = []

        def keep(expr: int, pos: int) -> bool:
            hits.append(pos)
            return True

        self._stretches(self.windows, "windows", data, stop, keep, first=first)
        return hits

    @cached_property
    def _glued(self) -> Any:
        """curl's ``-u`` glued after its switches (:data:`GLUED_CURL_USER`): a pattern, which
        no literal marks. A pass of its own, run only on data that holds ``curl`` (the judge
        reads the flag only after it; told by the scan's gate, :data:`_CURL_GATES`): beside
        the windows it cost every text with many dashed flags (a shell log) 1 ms a MB, what
        the windows cost in all."""
        return self._compile([GLUED_CURL_USER.encode()], [0], literal=False)

    def _glued_in(
        self, data: bytes | AsciiBytes, stop: bytes, *, first: bool = False,
        dense: list[tuple[int, int]] | None = None,
    ) -> list[int]:
        """The glued curl users' positions; with ``dense``, counted as the literals are, their
        own dense ranges merged into it: a text of ``curl -skuadmin:x`` commands uncounted
        was each judged and withheld, 260x prose a MB and 14x its size held."""
        hits: list[int] = []

        def keep(expr: int, pos: int) -> bool:
            hits.append(pos)
            return True

        own: list[tuple[int, int]] | None = None if dense is None else []
        self._stretches(self._glued, "glued", data, stop, keep, first=first, dense=own,
                        uncounted=range(0), forms_of=_no_forms)
        if dense is not None and own:
            both = sorted([*dense, *own])
            dense.clear()
            for a, b in both:
                density.join(dense, a, b)
        return hits

    @cached_property
    def _quiet(self) -> Any:
        """Every keyword's head after a byte no base64 run holds, and every window: what
        :meth:`quiet_runs` asks, in one pass over the data as it is. It was two, the heads'
        over a copy with each such byte made a space (a translation, half the time of the
        two scans): 1.1 ms a MB of NDJSON records' keys or of keys of ``A``, now 0.3
        (issue 23). Every head is base64 chars, so a head after a non-run byte is a run's
        head; a head at the data's start is asked apart. A regex set: compiled once a host
        (0.5-0.7 s; as one alternation it compiled in 0.08 s but scanned 4-6x slower), then
        read from the cache (``_hyperscan.database``)."""
        not_run = b"[^" + re.escape(bytes(sorted(keywords.B64_RUN_BYTES))) + b"]"
        exprs = [not_run + re.escape(head.encode("ascii")) for head in _HEADS]
        exprs += [p.encode() for p in keywords.B64_WINDOWS]
        return self._compile(exprs, [0] * len(exprs), literal=False)

    @cached_property
    def _wide(self) -> Any:
        """Where a run of full-width forms or invisible chars that the fold reads is
        (:func:`elision.redact.compat.hyperscan_spots`): compiled when a text or a body past
        ASCII is first asked, then read from the cache."""
        return self._once(compat.hyperscan_spots())

    def holds_wide(self, data: bytes | AsciiBytes) -> bool:
        """:func:`holds_wide`, with hyperscan."""
        return self._matches(self._wide, "wide", data)

    def quiet_runs(self, data: bytes) -> bool:
        """:func:`quiet_runs`, with hyperscan."""
        if data[:4].decode("latin-1") in keywords.B64_HEADS:
            return False
        return not self._matches(self._quiet, "quiet", data)

    def _matches(self, db: Any, name: str, data: bytes | AsciiBytes) -> bool:
        """Whether ``db`` matches anywhere in ``data`` (the scan ends at the first), with a
        scratch of its own (``name``): never one a scan in progress may hold."""
        found = False

        def on_match(expr: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal found
            found = True
            return True  # one is the answer

        with contextlib.suppress(self.hs.ScanTerminated):
            db.scan(buffer(data), match_event_handler=on_match, scratch=self._scratch(name, db))
        return found

    def _userinfo_in(
        self, data: bytes | AsciiBytes, stop: bytes, *, first: bool = False,
    ) -> list[int]:
        """The last byte of each userinfo (``scheme://user:password@``) in ``data`` that the
        URL rules can withhold, one a stretch at most.

        Where "@" and "%40" are few, each is tried in the window of :data:`USERINFO_REACH`
        bytes before it, which a userinfo never crosses an earlier "@" to reach; a hyperscan
        pass over the whole of ``data`` runs instead when they are many or the windows would
        cover much of it. Either way the positions are those of the userinfo patterns'
        matches.
        """
        count = data.count(b"@") + data.count(b"%40")
        if count * _AT_SHARE <= len(data):
            ats = [*_all(data, b"@"), *(p + 2 for p in _all(data, b"%40"))]
            ends = _userinfo_windows(data, ats, stop, first=first)
            if ends is not None:
                return ends
        hits: list[int] = []

        def keep(expr: int, pos: int) -> bool:
            hits.append(pos)
            return True

        self._stretches(self._userinfo_db(), "userinfo", data, stop, keep, first=first)
        return hits

    def scan(
        self, data: bytes | AsciiBytes, *, keys: bool, first: bool = False,
        dense: list[tuple[int, int]] | None = None, compact: bool = False,
    ) -> tuple[list[int], ...]:
        """Positions by kind, one a stretch for the secrets; with ``first``, the secrets stop
        at the first (callers that only ask whether there is one); with ``dense`` (a text's
        search), the credential-dense windows are appended to it and left unsearched. With
        ``compact``, the secrets come as an ``array("q")``, read as a sequence of ints (its
        one caller, :func:`dense_text_triggers`, sorts nothing in place): 8 bytes each,
        where an int and a list slot are 36 (a MB of NDJSON lines that each name a
        credential's name as a value, 45,000 of them, was 1.7x the text, issue 23)."""
        secrets: list[int] = cast("list[int]", array("q")) if compact else []
        found: tuple[list[int], ...] = (secrets, [], [], [], [], [], [])
        kinds = self.kinds
        adds = [lst.append for lst in found]
        names = self.heads
        heads: set[str] = set()
        at = [False]
        curl = [False]

        stop = JSON_STOP if keys else TEXT_STOP
        # A JSON key's affixed name counts unassigned too (``"password_2 (old)"`` is one):
        # a JSON scan tells the affixed names that count in a pass of their own, in C
        # (:data:`AFFIX_IN_JSON`), or counts each of them.
        unconfirmed = frozenset() if keys else self.affixed
        json_affixed = keys and JSON_AFFIX_PASS
        chance = self._chance if CHANCE_CHECK else None
        told = self.chance_families
        searched: dict[tuple[int, tuple[int, ...]], bool] = {}

        def keep(expr: int, pos: int) -> bool:
            kind = kinds[expr]
            if kind == _HEAD:
                heads.add(names[expr])
                return False
            if kind == _AT:
                at[0] = True
                return False
            if kind == _CURL:
                curl[0] = True
                return False
            if chance is None:
                families = None
            else:
                families = chance.get(expr, _UNTOLD)
                if families is _UNTOLD:
                    families = told(expr)
            if families is not None and not _may_match(data, pos, self.lengths[expr], families,
                                                       stop, searched):
                return False  # a chance keyword mid-run: the stretch is searched on
            adds[kind](pos)
            return kind == _SECRET

        db = (self.json_literals if json_affixed else self.literals) if keys \
            else self.text_literals
        self._stretches(db, "keys" if keys else "text", data, stop, keep, first=first,
                        gates=self.gates, dense=dense,
                        affixed=self.confirmed if keys else self.text_confirmed,
                        unconfirmed=unconfirmed, faint=frozenset() if keys else self.weak)
        secrets = found[_SECRET]
        if first and secrets:
            return found
        if heads:
            # A text's dense windows are withheld whole, in whole lines, unread: a head in
            # them is no position any caller reads (a MB of lines of the base64 of
            # "Authorization: Basic " was a Python call a line here, 25x prose, issue 23).
            # A JSON walk reads a range's positions (Hits.dense), so it is searched whole.
            skip = dense if dense and not keys and SKIP_DENSE else ()
            secrets.extend(self._opening_heads(data, heads, stop, first=first, skip=skip))
        if first and secrets:
            return found
        if json_affixed:
            secrets.extend(self._json_affixed_in(data, first=first, dense=dense))
            if first and secrets:
                return found
        secrets.extend(self._windows_in(data, stop, first=first))
        if first and secrets:
            return found
        if curl[0]:
            secrets.extend(self._glued_in(data, stop, first=first, dense=dense))
        if at[0] and not (first and secrets):
            secrets.extend(self._userinfo_in(data, stop, first=first))
        return found


_UNTOLD: Any = object()


def _no_forms(data: bytes | AsciiBytes, marks: list[tuple[int, int]]) -> list[bytes]:
    """No form of a pattern's matches is counted in C (a form is one literal's bytes): the
    windows after a dense one are counted by the scan."""
    return []


def _strings(data: bytes | AsciiBytes, marks: list[tuple[int, int]]) -> list[bytes]:
    """The JSON strings (quotes included) that a dense window's :data:`AFFIX_IN_JSON`
    matches end in, the most frequent first (at most :data:`_FORMS`), as the forms
    :meth:`_Hyperscan._goes_on` counts: each copy of one holds a match of the pattern that
    matched in it, at its own end, so a count of them counts no more matches than the scan
    reports. A match that ends past its string (a key's ``":``), or in one longer than a
    name is read, gives none."""
    counts: Counter[bytes] = Counter()
    if not isinstance(data, bytes):
        return []  # a JSON serialization is bytes: no form, the scan counts on
    for expr, pos in marks:
        if _JSON_AFFIX_BACKS[expr]:
            continue  # its last byte is the ":" after its key
        start = data.rfind(b'"', max(0, pos - 2 * AFFIX_NAME_MOST), pos)
        end = data.find(b'"', pos, pos + 2 * AFFIX_NAME_MOST)
        if 0 <= start < end and data[start - 1:start] != b"\\":
            counts[bytes(data[start:end + 1])] += 1
    return [form for form, _ in counts.most_common(_FORMS)]


def _joined_ranges(
    one: list[tuple[int, int]], other: list[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Two sorted lists of ranges as one, those that meet joined (:func:`.density.join`)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(one + other):
        density.join(out, start, end)
    return out


@cache
def _not_by_chance() -> frozenset[str]:
    """Literals never a family keyword met by chance: a credential's own openings, the
    escapes and the base64 forms."""
    return _OWN_OPENINGS | frozenset(keywords.ESCAPE_EXACT) | frozenset(keywords.BASE64)


def _may_match(
    data: bytes | AsciiBytes, pos: int, length: int, families: tuple[int, ...], stop: bytes,
    searched: dict[tuple[int, tuple[int, ...]], bool],
) -> bool:
    """Whether the keyword of ``families`` ending at ``pos`` counts as a trigger: unless it is
    inside a base64 run (a run's char on each side), always; there, only where one of their
    patterns matches in its stretch (a line, or a JSON string), told by the patterns' own
    search in C. A match the judge accepts has a keyword of its family near it on its own
    line (``Family.keyword_near``), and each family here matches in a line as it does
    anywhere: so a stretch none of them matches in gives the judge nothing this keyword
    leads it to. A stretch that holds an escape (``\\``, ``%``), which the judge reads
    decoded, or is longer than :data:`_CHANCE_REACH`, counts as before. Random base64 spells
    twilio's ``SK0``… once in a KB: each was a piece judged in Python (issue 23)."""
    start = pos + 1 - length
    if (start == 0 or pos + 1 >= len(data)
            or not _runs_on(data, start - 1, -1, stop) or not _runs_on(data, pos + 1, 1, stop)):
        return True
    hay: str | bytes = data.text if isinstance(data, AsciiBytes) else data
    mark = stop.decode("ascii") if isinstance(hay, str) else stop
    lo = hay.rfind(mark, 0, start) + 1  # type: ignore[arg-type]
    hi = hay.find(mark, pos)  # type: ignore[arg-type]
    hi = len(hay) if hi < 0 else hi
    key = (lo, families)
    got = searched.get(key)
    if got is None:
        part = hay[lo:hi]
        try:
            line = part if isinstance(part, str) else part.decode("utf-8")
        except UnicodeDecodeError:
            line = None
        if line is None or hi - lo > _CHANCE_REACH or "\\" in line or "%" in line:
            got = True
        else:
            got = any(_pattern(i).search(line) is not None for i in families)
        searched[key] = got
    return got


def _runs_on(data: bytes | AsciiBytes, at: int, step: int, stop: bytes) -> bool:
    """Whether the run a chance keyword is in goes on at ``data[at]`` (the char before it,
    ``step`` -1, or after it, 1): a run's char, or in a text a line break with one beyond it
    (base64 wrapped as MIME and PEM wrap it: a keyword at a line's edge is mid-run too, and
    its line is searched as any other's; 14 lines of a MB of it were judged, issue 23)."""
    byte = data[at]
    if byte in keywords.B64_RUN_BYTES:
        return True
    beyond = at + step
    return (WRAPPED_EDGES and byte == 0x0A and stop == TEXT_STOP and 0 <= beyond < len(data)
            and data[beyond] in keywords.B64_RUN_BYTES)


def _pattern(index: int) -> re.Pattern[str]:
    pattern = PATTERN_FAMILIES[index].pattern
    assert pattern is not None
    return pattern


#: The longest stretch a chance keyword's families are searched in (else it counts).
_CHANCE_REACH = 1 << 16
#: Whether a run of unassigned affixed names is searched without them (a test turns it off
#: to compare: the slow path).
UNASSIGNED_RUNS = True
#: Whether a JSON scan tells the affixed names apart in C (:data:`AFFIX_IN_JSON`; off: each
#: affixed literal is a trigger wherever it is, as before, the tests' differential).
JSON_AFFIX_PASS = True
#: Whether chance keywords inside base64 runs are checked (a test turns it off: the slow path).
CHANCE_CHECK = True
#: Whether a chance keyword at a line's edge in wrapped base64 is checked as one mid-run is
#: (:func:`_runs_on`; the tests turn it off to compare).
WRAPPED_EDGES = True


def _opens_run(data: memoryview, start: int) -> bool:
    """:func:`keywords.opens_run` of a view: at the start, after a char no run holds, or
    after a JSON escape such as ``\\n``."""
    if start == 0:
        return True
    before = data[start - 1]
    return before not in keywords.B64_RUN_BYTES or (
        before in keywords.RUN_ESCAPES and start >= 2 and data[start - 2] == 0x5C)


def _head_at_start(data: bytes | AsciiBytes, heads: set[str]) -> list[int]:
    """``[3]`` where one of ``heads`` opens ``data`` and the run it opens is long enough to
    decode (its last byte: a run opens at the data's start), else none."""
    start = bytes(data[:keywords.B64_RUN_MIN]).decode("latin-1")
    return [3] if start[:4] in heads and keywords.B64_RUN.match(start) else []


def _translated(block: bytes) -> bytes:
    """``block`` with each byte no run holds made a space but :data:`_OPENERS`' own."""
    return block.translate(_OPENING)


def _hex(chars: bytes) -> bytes:
    """``chars`` spelled for a character class, each as ``\\xNN``."""
    return b"".join(b"\\x%02x" % c for c in sorted(set(chars)))


def _gaps(size: int, skip: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges of ``range(size)`` between the sorted, apart ``skip`` ranges."""
    gaps: list[tuple[int, int]] = []
    at = 0
    for a, b in skip:
        if a > at:
            gaps.append((at, a))
        at = max(at, b)
    if at < size:
        gaps.append((at, size))
    return gaps


def _overlaps(skip: Sequence[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    """The ``skip`` ranges (sorted, apart) that meet ``lo:hi``, each cut to it."""
    out: list[tuple[int, int]] = []
    for a, b in islice(skip, max(0, bisect_right(skip, (lo, _NO_END)) - 1), None):
        if a >= hi:
            break
        if b > lo:
            out.append((max(a, lo), min(b, hi)))
    return out


def _blanked(block: bytes, at: int, covered: list[tuple[int, int]]) -> bytes:
    """``block`` (the data from ``at``) with each ``covered`` range made spaces but its line
    breaks: nothing in them is found, and each line outside them ends where it did."""
    parts: list[bytes] = []
    pos = 0
    for a, b in covered:
        parts.append(block[pos:a - at])
        parts.append(block[a - at:b - at].translate(_BLANK))
        pos = b - at
    parts.append(block[pos:])
    return b"".join(parts)


def _decodes(block: bytes, end: int) -> bool:
    """Whether the head ending at ``end`` of ``block`` (translated by :data:`_OPENING`)
    opens a run long enough to decode: :data:`_RUN_AFTER_HEAD` more of a run's chars."""
    rest = block[end + 1:end + 1 + _RUN_AFTER_HEAD]
    return len(rest) == _RUN_AFTER_HEAD and not rest.translate(None, _RUN_BYTES)


def _all(data: bytes | AsciiBytes, needle: bytes) -> list[int]:
    out: list[int] = []
    pos = data.find(needle)
    while pos >= 0:
        out.append(pos)
        pos = data.find(needle, pos + 1)
    return out


def _userinfo_windows(
    data: bytes | AsciiBytes, ats: list[int], stop: bytes, *, first: bool,
) -> list[int] | None:
    """The userinfo ends among ``ats`` (the last byte of each "@" and "%40"), each tried in
    the window before it; ``None`` when the windows would cover much of ``data``."""
    ats.sort()
    windows: list[tuple[int, int]] = []
    after_at = 0
    for pos in ats:
        windows.append((max(after_at, pos + 1 - USERINFO_REACH), pos + 1))
        if data[pos] == 0x40:  # "@" itself, not the "0" of "%40"
            after_at = pos + 1
    if sum(b - a for a, b in windows) * _WINDOWS_SHARE > len(data):
        return None
    search, view = _USERINFO_BEFORE.search, buffer(data)
    ends: list[int] = []
    until = -1
    for a, b in windows:
        if b - 1 >= until and search(view, a, b) is not None:
            ends.append(b - 1)
            if first:
                break
            until = data.find(stop, b)  # one a stretch, as the whole pass keeps
            if until < 0:
                until = len(data)
    return ends


def first_per_stretch(
    pattern: re.Pattern[Any], data: Any, stop: Any, *, first: bool = False,
) -> list[int]:
    """Where ``pattern`` first matches in each stretch of ``data`` (up to a ``stop``) that it
    matches in at all: the regex passes' form of the hyperscan scan's thinning."""
    out: list[int] = []
    search, find = pattern.search, data.find
    target = buffer(data) if isinstance(data, AsciiBytes) else data
    match = search(target)
    while match is not None:
        out.append(match.start())
        if first:
            break
        nxt = find(stop, match.start() + 1)
        if nxt < 0:
            break
        match = search(target, nxt)
    return out


class _Regex:
    """The same triggers with the standard library's ``re``: one pass per anchor char."""

    def scan(
        self, data: bytes, *, keys: bool, first: bool = False,
        dense: list[tuple[int, int]] | None = None,
    ) -> tuple[list[int], ...]:
        """As :meth:`_Hyperscan.scan`; with ``dense``, the keyword passes count their
        matches (:mod:`elision.redact.density`) and the credential-dense windows are appended
        to it, their positions left out: ``["sk-0", "sk-1", …]`` was a position and a list
        slot a string, 10x the serialization (issue 23)."""
        low = data.lower()
        found: tuple[list[int], ...] = ([], [], [], [], [], [], [])
        if keys:
            kind_of = _KEY_KIND
            for match in _KEYS.finditer(low):
                found[kind_of[match.lastindex or 0]].append(match.start())
        stop = JSON_STOP if keys else TEXT_STOP
        if dense is None:
            found[_SECRET].extend(rules.match_positions(data, low, stop=stop))
            return found
        passes = rules.bytes_prefilter()
        positions, ranges = density.counted_search(
            passes.keyword_passes(data, low), data, stop, DENSE_WINDOW, DENSE_LIMIT,
            DENSE_GOES_ON, inside=True, confirms=passes.confirms)
        dense.extend(ranges)
        positions.extend(passes.other_positions(data, low, stop))
        found[_SECRET].extend(positions)
        return found


# One pass over the lower-cased copy finds every member key, anchored on its ":"; each name
# has an empty group whose number says which kind of key it is.
_KEY_NAMES = {
    "uri": _URI, "disposition": _DISPOSITION, "data": _PAYLOAD, "text": _PAYLOAD,
    "blob": _PAYLOAD, **dict.fromkeys(sorted(CREDENTIAL_FIELDS), _FIELD),
}


def _compile_keys() -> tuple[Any, tuple[int, ...]]:
    names = list(_KEY_NAMES)
    behind = rules.names_behind(names, '":', capture=True)
    kinds = (-1, *(_KEY_NAMES[name] for name in rules.names_behind_order(names)))
    return lazy_compile(f":{behind}".encode()), kinds


_KEYS, _KEY_KIND = _compile_keys()


def _load_engine() -> Callable[[], _Hyperscan | _Regex]:
    choice = os.environ.get(ENGINE_ENV, "").strip().lower()
    lock = threading.Lock()
    built: list[_Hyperscan | _Regex] = []

    def engine() -> _Hyperscan | _Regex:
        # Compiled on first use, not on import: a CLI that never redacts pays nothing.
        if built:
            return built[0]
        with lock:
            if not built:
                built.append(_build(choice))
            return built[0]

    return engine


def _build(choice: str) -> _Hyperscan | _Regex:
    if choice == "re":
        return _Regex()
    return _hyperscan() or _Regex()


def _hyperscan() -> _Hyperscan | None:
    return built_with_hyperscan(_Hyperscan, log, "redaction uses the regex passes")


engine = _load_engine()


def engine_name() -> str:
    """``"hyperscan"`` or ``"re"``: which engine finds the triggers in this process."""
    return "hyperscan" if isinstance(engine(), _Hyperscan) else "re"


def json_triggers(
    data: bytes, using: _Hyperscan | _Regex | None = None, *, allowance: int = -1
) -> JsonTriggers:
    """The triggers in ``data``, a compact JSON serialization (orjson's).

    A window that holds more than :data:`DENSE_LIMIT` matches is left after them and
    returned in ``dense``, as a text's search leaves it (the regex passes count theirs,
    :mod:`elision.redact.density`) (issue 23: an array of
    175,000 strings that each hold ``sk-`` was one Python call and one list entry a string,
    0.9 s a MB); a document with :data:`DENSE_ALLOWANCE` such windows or fewer (or
    ``allowance``, when given: a piece of a larger document passes 0) is searched whole, so
    an ordinary one keeps every position.

    A serialization of ASCII and combining marks (NFD prose, an accent a word) is searched
    as the fold reads each of its strings, its marks dropped (:func:`compat.unmarked`), and
    each position mapped back: as spots of the fold, every string with a mark was judged
    alone (records of a line of NFD prose, 269 ms a MB beside 4.7 in ASCII)."""
    current = using or engine()
    if b"\xcc" in data and not data.isascii():  # a mark U+0300-033F: one memchr
        unmarked = compat.unmarked(data)
        if unmarked is not None:
            ascii_, back = unmarked
            inner = json_triggers(ascii_, current, allowance=allowance)
            starts = back.starts  # each list ascending: mapped in one pass
            return JsonTriggers(
                starts(inner.secrets), starts(inner.uris), starts(inner.payloads),
                starts(inner.dispositions), [(back.start(a), back.start(b))
                                             for a, b in inner.dense])
    dense: list[tuple[int, int]] = []
    found = current.scan(data, keys=True, dense=dense)
    most = DENSE_ALLOWANCE if allowance < 0 else allowance
    if dense and _covered(dense) <= DENSE_WINDOW * most:
        dense = []
        found = current.scan(data, keys=True)
    secrets = found[_SECRET]
    if found[_FIELD]:
        secrets = secrets + found[_FIELD]
    if _holds_wide(current, data):
        # A name or a token may be spelled with chars that fold to ASCII: a look-alike
        # letter (folding), full-width forms, invisible chars (compat). Each string that
        # holds one is judged, folded, as one that holds a trigger is.
        secrets = secrets + first_per_stretch(compat.spots(), data, JSON_STOP)
    secrets.sort()
    return JsonTriggers(secrets, sorted(found[_URI]), sorted(found[_PAYLOAD]),
                        sorted(found[_DISPOSITION]), dense)


def orjson_slashes(body: bytes) -> bytes:
    """``body`` (raw JSON) with each ``\\/`` escape written ``/``, as orjson writes it: the
    same value, spelled as the serialization the triggers read is. ``body`` itself (no copy)
    where it holds no ``\\/``, one ``bytes.replace`` where it holds no ``\\\\`` either. A run of
    backslashes pairs from its start (JSON's own reading), as ``bytes.replace`` finds
    ``\\\\`` (left to right, never overlapping): the pairs are set aside as two NULs (a JSON
    text holds none raw), the ``\\/`` left written ``/``, and the pairs put back: three passes
    in C (4 ms a MB) where a ``re`` pattern that looks behind each ``\\/`` took 40 ms and one
    that reads each escape 90 ms, two copies held at once (bench/README.md)."""
    if b"\\" not in body or b"\\/" not in body:  # the first in C at memchr speed
        return body
    if b"\\\\" not in body or b"\0" in body:
        # No escaped backslash (no \/ follows one); or no JSON text: each \/ read as "/" (a
        # superset's reading: the triggers hold no backslash to lose).
        return body.replace(b"\\/", b"/")
    return body.replace(b"\\\\", b"\0\0").replace(b"\\/", b"/").replace(b"\0\0", b"\\\\")


def body_may_need_redaction(body: bytes) -> bool | None:
    """Whether a raw JSON body, as a tool sent it (any spacing), may hold anything to withhold.

    ``False`` is certain: the value parsed from ``body`` needs no serialization and no walk.
    ``None`` when this cannot be told for the price of one pass: with the regex passes (the
    serialized value is searched instead), or when the body spells characters as ``\\u``
    escapes, which may hide a trigger from a byte search. A ``\\/`` escape (PHP's
    ``json_encode`` writes every ``/`` so) is read as the ``/`` orjson writes
    (:func:`orjson_slashes`): the triggers read the serialization's spelling, and read as it
    was, ``:\\\\\\/`` (JSON-in-JSON's ``\\/``) hid a URL's userinfo from them.
    """
    current = engine()
    if not isinstance(current, _Hyperscan) or (b"\\" in body and b"\\u" in body):
        return None
    if _holds_wide(current, body):
        # Only the folded text can tell (folding, compat), but of ASCII and marks it is the
        # ASCII (compat.unmarked).
        unmarked = compat.unmarked(body) if b"\xcc" in body else None
        if unmarked is None:
            return None
        body = unmarked[0]
    kinds = current.body_kinds(body)
    return bool(kinds & {_SECRET, _DISPOSITION, _FIELD}) or {_URI, _PAYLOAD} <= kinds


def holds_wide(data: bytes | AsciiBytes) -> bool:
    """Whether UTF-8 ``data`` holds a run of chars that :func:`elision.redact.compat.folded`
    folds (a look-alike letter of :mod:`elision.redact.folding` is one): one hyperscan pass
    (0.7 ms a MB of CJK prose), or the regex engine's search."""
    return _holds_wide(engine(), data)


def text_holds_wide(text: str, data: bytes | None) -> tuple[bool | None, bytes | None]:
    """:func:`holds_wide` of a text past ASCII, and its UTF-8 (``data`` when given, else
    encoded here, for the trigger search to read in turn); None with the regex passes,
    where the fold's own search tells in the text (no encoding)."""
    current = engine()
    if not isinstance(current, _Hyperscan):
        return None, data
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    return current.holds_wide(data), data


def _holds_wide(current: _Hyperscan | _Regex, data: bytes | AsciiBytes) -> bool:
    if isinstance(data, AsciiBytes) or data.isascii():
        return False
    if isinstance(current, _Hyperscan):
        return current.holds_wide(data)
    return compat.holds_wide(data)


def run_end(text: str, start: int) -> int | None:
    """Where the first char at or after ``start`` in the ASCII ``text`` that no base64 run
    holds is (its length where there is none), told by one hyperscan pass of the text's own
    buffer (0.06 ms a MB); None with the regex passes. A run as long as a line of an image's
    base64 (1 MB) was ended by translating all of it, a block at a time (0.5 ms a MB)."""
    current = engine()
    if not isinstance(current, _Hyperscan):
        return None
    return current.run_end(text_bytes(text), start)


def quiet_runs(text: str) -> bool | None:
    """Whether no run of base64 chars in the ASCII ``text`` opens with a keyword's head (a
    head at its start or after a char no run holds: a superset of the :data:`keywords.B64_RUN`
    matches that open with one) and no window (:data:`keywords.B64_WINDOWS`) is anywhere in
    it, told by one hyperscan pass a block of :data:`_QUIET_BLOCK` chars (each read on by
    :data:`_QUIET_REACH`: a window or a head across a block's end is in the next; a block's
    first chars are asked as a head, a superset); None with the regex passes. Asking each run
    in Python was most of the base64 runs' cost where there are many and none opens with a
    head: an object's 60-char keys of ``A``, the keys of a chunk of NDJSON records (issue
    23). In blocks, so the copies the passes read (its bytes) are small."""
    current = engine()
    if not isinstance(current, _Hyperscan):
        return None
    return all(current.quiet_runs(text[at:at + _QUIET_BLOCK + _QUIET_REACH].encode("ascii"))
               for at in range(0, len(text), _QUIET_BLOCK))


_QUIET_BLOCK = 1 << 14
#: Longer than any window's match and a head with the char before it.
_QUIET_REACH = 64



def utf8_text_has_triggers(body: bytes) -> bool | None:
    """Whether ``text_triggers(body.decode())`` finds any, told from a UTF-8 body's bytes, which
    are the ones that text would encode to: no decoded copy, no re-encoded one. ``None`` when
    only the text can tell: the regex engine, bytes that are not UTF-8 (the text would hold
    U+FFFD where they were), or a char that folds to ASCII where it can spell a name or a
    token (only the folded text holds it: :mod:`elision.redact.folding`,
    :mod:`elision.redact.compat`). With the regex engine only an ASCII body is told (and not
    one where a pass that reads without a bound would run: ``_Prefilter.in_ascii_windows``);
    ``True`` there may be a JSON row's name (the bytes passes'), which costs only the search."""
    current = engine()
    if not isinstance(current, _Hyperscan):
        # An ASCII body is its text's chars: the regex passes read it a lowered window at a
        # time (a clean 1 MB log was decoded and lowered whole, 2x it, to find nothing).
        return rules.bytes_prefilter().in_ascii_windows(body) if body.isascii() else None
    if not body.isascii() and (_holds_wide(current, body) or not is_utf8(body)):
        return None
    return bool(current.scan(body, keys=False, first=True)[_SECRET])


def text_triggers(
    text: str, using: _Hyperscan | _Regex | None = None,
    data: bytes | AsciiBytes | None = None,
) -> list[int]:
    """Offsets (in chars) of the credential triggers in ``text``, sorted (``data``, when
    given, is the unfolded ``text`` in UTF-8)."""
    current = using or engine()
    # A Kelvin sign is a "k" to the precise rules (re.IGNORECASE), so "api_\u212aey=" is a
    # credential parameter: the folded text (same offsets) is searched (folding).
    folded = fold(text)
    if folded is not text:
        text, data = folded, None
    if isinstance(current, _Regex):
        return rules.text_positions(text)
    if data is None:
        data = text_bytes(text)  # no copy of an ASCII text
    positions = current.scan(data, keys=False)[_SECRET]
    positions.sort()
    return _chars(data, text, positions)


def dense_text_triggers(
    text: str, using: _Hyperscan | _Regex | None = None,
    data: bytes | AsciiBytes | None = None,
) -> tuple[Sequence[int], list[tuple[int, int]]]:
    """:func:`text_triggers`, and the credential-dense stretches of ``text`` as sorted char
    ranges, each from a :data:`DENSE_WINDOW` to at least its line's end: none when they cover
    :data:`DENSE_ALLOWANCE` windows' bytes or less, and then every position; past that, the
    positions inside them may be missing (the search left them). ``data``, when given, is the
    unfolded ``text`` in UTF-8.

    With the regex passes the keyword passes count their matches instead, a char at most
    once a pass (:mod:`elision.redact.density`): the same bound, on a grid of chars."""
    current = using or engine()
    if len(text) <= DENSE_WINDOW * DENSE_ALLOWANCE:
        return text_triggers(text, current, data), []
    folded = fold(text)
    if folded is not text:
        text, data = folded, None
    if isinstance(current, _Regex):
        return _regex_dense_triggers(text)
    if data is None:
        data = text_bytes(text)  # no copy of an ASCII text
    dense: list[tuple[int, int]] = []
    found: Sequence[int] = current.scan(data, keys=False, dense=dense, compact=True)[_SECRET]
    if dense and _covered(dense) <= DENSE_WINDOW * DENSE_ALLOWANCE:
        # a few: searched whole, as before
        found = current.scan(data, keys=False, compact=True)[_SECRET]
    found = _ascending(found)
    positions = _chars(data, text, found)
    if _covered(dense) <= DENSE_WINDOW * DENSE_ALLOWANCE:
        return positions, []
    edges = sorted({_char_start(data, pos) for pair in dense for pos in pair})
    at = dict(zip(edges, _chars(data, text, edges), strict=True))
    return positions, [(at[_char_start(data, a)], at[_char_start(data, b)]) for a, b in dense]


def _regex_dense_triggers(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """:func:`dense_text_triggers` with the regex passes, their matches counted
    (:mod:`elision.redact.density`): the same bound, its grid in chars."""
    passes = rules.text_prefilter()
    low = lowered(text)
    positions, dense = density.counted_search(
        passes.keyword_passes(text, low), text, "\n", DENSE_WINDOW, DENSE_LIMIT, DENSE_GOES_ON,
        confirms=passes.confirms)
    if _covered(dense) <= DENSE_WINDOW * DENSE_ALLOWANCE:
        # A few: searched whole, as before, in the same lowered copy (a second one beside
        # it was 2x the text at the peak).
        return rules.text_positions(text, low), []
    positions.extend(passes.other_positions(text, low, "\n"))
    positions.sort()
    return positions, dense


def _covered(ranges: list[tuple[int, int]]) -> int:
    """The bytes that sorted ``ranges`` cover (apart: :func:`.density.join` joins those
    that meet)."""
    return sum(b - a for a, b in ranges)


def _char_start(data: bytes | AsciiBytes, pos: int) -> int:
    """``pos``, or the start of the next char when ``pos`` is inside one (UTF-8)."""
    pos = min(pos, len(data))
    while pos < len(data) and data[pos] & 0xC0 == 0x80:
        pos += 1
    return pos


def _ascending(positions: Sequence[int]) -> Sequence[int]:
    """``positions`` in ascending order: themselves when they are (told in C), else a sorted
    array of them."""
    if all(map(le, positions, islice(positions, 1, None))):
        return positions
    return array("q", sorted(positions))


_Positions = TypeVar("_Positions", bound=Sequence[int])


def _chars(
    data: bytes | AsciiBytes, text: str, positions: _Positions,
) -> _Positions | list[int]:
    """Byte offsets (sorted, each at a char's start) to char offsets."""
    if len(data) == len(text) or not positions:
        return positions
    assert isinstance(data, bytes)  # an AsciiBytes is as long as its text
    # The bytes between two positions decode on their own: each is at a char's start.
    chars: list[int] = []
    at = char = 0
    for pos in positions:
        char += len(data[at:pos].decode("utf-8", "surrogatepass"))
        at = pos
        chars.append(char)
    return chars


def engines() -> list[_Hyperscan | _Regex]:
    """Every engine this process can use (for a differential test)."""
    fast = _hyperscan()
    return [_Regex()] if fast is None else [_Regex(), fast]
