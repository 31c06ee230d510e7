"""Rule ids, stubs and the cheap pre-filter every precise rule sits behind.

A rule id is the ``reason`` written into the envelope's ``withheld`` entries. The pre-filter is a
superset test: a text it rejects cannot match any precise rule in :mod:`~elision.redact.urls` or
:mod:`~elision.redact.secrets`, so most of a large result is never looked at twice. Every
precise pattern must therefore contain at least one of the pre-filter's triggers (the fixture
corpus checks that each true positive passes the pre-filter).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any, NamedTuple, cast

from elision._lazyre import lazy_compile
from elision.redact.commands import GLUED_CURL_GROUP, SPELLED_CURL_TAIL

#: Reasons for values withheld by the reference-lane rules (:mod:`elision.redact.references`).
SIGNED_URI = "signed-uri"
INLINE_WITH_URI = "inline-with-uri"
DISPOSITION_REF = "disposition-ref"
DISPOSITION_NEVER = "disposition-never"


class Span(NamedTuple):
    """A stretch ``text[start:end]`` that a rule withholds."""

    start: int
    end: int
    rule: str


#: ``Span(*fields)`` made in C: a NamedTuple's ``__new__`` is a Python function, a call for
#: each of the 25,000 spans a MB of assignments just under the density bound holds (issue 23).
make_span = cast(Callable[[tuple[int, int, str]], Span], partial(tuple.__new__, Span))


# The pre-filter is built from literals and from regexes that open with a literal, because
# the regex engine searches for a leading literal quickly and tries an alternation of letters
# at every position (30x slower on a JSON body). Each group runs over the text as it is
# (key prefixes, written one way only) or over its lower-cased copy (parameter names and auth
# schemes, which come in any case).

#: Every credential parameter the URL rules know ends in one of these, just before its "=":
#: "token" covers access_token and X-Amz-Security-Token, "key" covers api_key.
PARAM_SUFFIXES = (
    "token", "sig", "signature", "credential", "keyid", "accessid", "pair-id", "key", "secret",
    "password", "passwd", "pass", "pwd", "code",
)


def names_behind(names: list[str], tail: str, *, capture: bool = False) -> str:
    """A regex that, placed right after ``tail``, asserts one of ``names`` comes before it.

    The names are tried as a tree of look behinds: one char class of last letters, then the
    last two letters, then whole names, so a position where no name ends fails in one step
    (this is the hot loop of a search anchored on a common literal such as ``":``). With
    ``capture``, each name gets an empty group, numbered in :func:`names_behind_order`.
    """
    by_two: dict[str, list[str]] = {}
    for name in names:
        by_two.setdefault(name[-2:], []).append(name)
    group = "()" if capture else ""
    lasts = "".join(sorted({re.escape(name[-1]) for name in names}))
    branches = [
        f"(?<={re.escape(two + tail)})(?:"
        + "|".join(f"(?<={re.escape(name + tail)}){group}" for name in named)
        + ")"
        for two, named in sorted(by_two.items())
    ]
    return f"(?<=[{lasts}]{re.escape(tail)})(?:{'|'.join(branches)})"


def names_behind_order(names: list[str]) -> list[str]:
    """The names in the order :func:`names_behind` numbers their groups."""
    by_two: dict[str, list[str]] = {}
    for name in names:
        by_two.setdefault(name[-2:], []).append(name)
    return [name for _, named in sorted(by_two.items()) for name in named]


def _after_param(*eqs: str) -> str:
    # Anchored on the "=" (one literal to search for); the names are checked behind it, so
    # that most "=" in a URL-heavy body (page=, sort=) fail on one one-char look behind.
    heads = "|".join(re.escape(eq[1:]) for eq in eqs if eq[1:])
    head = f"(?:{heads})" if heads else ""
    behind = "|".join(names_behind(list(PARAM_SUFFIXES), eq) for eq in eqs)
    return f"{re.escape(eqs[0][0])}{head}(?:{behind})"


_EXACT_LITERALS: tuple[str, ...] = ()
# Each opens with one char and checks what came before it: "-" (sk-, xoxb-, -----BEGIN),
# "_" (sk_live_, ghp_, github_pat_), "J" (eyJ) and "A" (AKIA and kin, AIza). One pass each,
# where a plain search for every prefix would be one pass per prefix.
_EXACT_PATTERNS = (
    r"-(?:(?<=sk-)|(?<=xox[abposre]-)|----BEGIN)",
    r"_(?:(?<=[sr]k_)(?:live|test)_|(?<=gh[pousr]_)|(?<=github_)pat_)",
    r"J(?<=eyJ)",
    r"A(?:KIA|SIA|BIA|CCA|Iza)",
)
_LOWER_LITERALS = ("hooks.slack.com",)
_LOWER_PATTERNS = (
    # No \s after "basic": in a serialized string a newline is the two chars \n.
    # Both percent-encoded spellings in one pass: they share the "%" a search starts from.
    _after_param("="), _after_param("%3d", "%253d"), r"b(?:earer|asic)",
    # Anchored on "cc" rather than on "s", which starts every other English word.
    r"cc(?:(?<=secret_acc)|(?<=secretacc))",
)
# scheme://user:password@, plain; then JSON-escaped (\/, \\/ once serialized, and more
# backslashes a level of JSON-in-JSON deeper) or
# percent-encoded, which only run when their gate literal is there at all.
# The user part stops at the first ":" and the password at the first "@": no backtracking, so
# the ordinary URLs that make up most hits fail within a few chars.
# The password may hold a "'" (RFC 3986 allows it; urls.find_signed_urls decides).
# A user alone (no ":"), a token's 16 letters and digits or more (urls.classify_url judges it).
_USERINFO_TAIL = (r"(?:[^\s/?#@\"'<>:]{0,256}(?::|%3a)[^\s/?#@\"<>]{0,256}|[a-z0-9]{16,256})"
                  r"(?:@|%40)")
_USERINFO_PLAIN = "://" + _USERINFO_TAIL
_USERINFO_ODD = r"(?::\\*/\\*/|%3a%2f%2f)" + _USERINFO_TAIL
_USERINFO_GATES = ("\\/", "%2f%2f")


#: White space too: a name at its line's end (``password\n``) anchored on a letter of it was a
#: pass at each ``p``, ``k``, ``c`` of the text (prose 33% slower without hyperscan). And
#: ``;``: an HTML-escaped tag's name (``password&gt;``) anchored on a letter or its ``-`` was
#: a pass at each ``w`` or each ``-`` (1.8x a MB of ``x |-`` without hyperscan).
_PUNCT_ANCHORS = "_-.:=/\"'\\~$!%>\n\r\t;"
#: Letters from the most to the least frequent in English text.
_BY_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz"


def _rarity(char: str) -> int:
    # The anchor a regex pass stops at: punctuation, then the rarest letter or digit.
    if char in _PUNCT_ANCHORS:
        return 100
    low = char.lower()
    if low in _BY_FREQUENCY:
        return 20 + _BY_FREQUENCY.index(low) + (30 if char.isupper() else 0)
    return 40 if char.isdigit() and char not in "01" else 10


def anchored(literals: list[str]) -> list[tuple[str, str]]:
    """Regexes that together find every one of ``literals``, one pass per anchor char.

    A literal is anchored on its last punctuation char when it has one (``ghp_`` on ``_``,
    ``password=`` on ``=``), else on its rarest-looking char (``AKIA`` on ``K``); the rest is
    checked by a look behind and a literal after the anchor. A search for a leading literal char is
    fast in the regex engine, so the families' hundreds of keywords cost a pass per anchor,
    not a pass each. Each regex comes with its anchor: a text without it is not searched.
    """
    tails: dict[str, list[str]] = {}
    others: dict[str, list[str]] = {}
    for lit in sorted(set(literals)):
        at = max(range(len(lit)), key=lambda i: (_rarity(lit[i]), i))
        before, anchor, after = lit[:at], lit[at], lit[at + 1:]
        if before and not after:  # the common case: a name, then its anchor
            tails.setdefault(anchor, []).append(before)
        else:
            branch = (f"(?<={re.escape(before + anchor)})" if before else "") + re.escape(after)
            others.setdefault(anchor, []).append(branch)
    out = []
    for anchor in sorted(tails.keys() | others.keys()):
        branches = sorted(others.get(anchor, []), key=len, reverse=True)
        if anchor in tails:
            branches.insert(0, names_behind(tails[anchor], anchor))
        out.append((anchor, f"{re.escape(anchor)}(?:{'|'.join(branches)})"))
    return out


class _Prefilter:
    """The same test over ``str`` or over ``bytes``: compiled once per type.

    Each pattern opens with a literal char, and each literal and pattern is paired with a char
    it cannot match without (its gate): ``char in text`` is a memchr, about twenty times faster
    than a regex pass, so a pattern whose gate is absent costs nearly nothing.
    """

    def __init__(self, encode: bool) -> None:
        def conv(text: str) -> Any:
            return text.encode() if encode else text

        def gated(pattern: str) -> tuple[Any, re.Pattern[Any]]:
            return conv(pattern[0]), re.compile(conv(pattern))

        from elision.redact import keywords, weak
        from elision.redact.generic import AFFIX_PATTERNS, ROW_NAME_TRIGGERS

        exact_names = [*keywords.FAMILY_EXACT, *keywords.ESCAPE_EXACT]
        lower_names = [*keywords.FAMILY_ANY_CASE,
                       *(lit for lit in keywords.GENERIC if lit not in weak.LITERALS),
                       *keywords.ESCAPE_ANY_CASE]
        exact, lower = anchored(exact_names), anchored(lower_names)
        self.exact_literals = tuple((conv(x[0]), conv(x)) for x in _EXACT_LITERALS)
        self.exact = tuple(gated(x) for x in _EXACT_PATTERNS) + tuple(
            (conv(a), re.compile(conv(p))) for a, p in exact)
        self.lower_literals = tuple((conv(x[0]), conv(x)) for x in _LOWER_LITERALS)
        # An affixed name's own passes (``password_2``): each gated on its word, where its
        # 104 literals among the others were as many look-behinds at each ``_`` or ``.``.
        self.lower = tuple(gated(x) for x in _LOWER_PATTERNS) + tuple(
            (conv(a), re.compile(conv(p))) for a, p in lower) + tuple(
            (conv(word), re.compile(conv(p))) for word, p in AFFIX_PATTERNS)
        # The weak literals' passes (elision.redact.weak): a table's delimiter row, counted
        # towards the density bound only where weak.counts confirms it; curl's switch group
        # read whole, from its "-" after white space, so a word that ends as one (haiku) is
        # none.
        tables, groups = weak.table_pattern(), weak.curl_group_pattern()
        self.lower += ((conv("|"), re.compile(conv(tables))),
                       (conv("-"), re.compile(conv(groups))))
        #: A pass's confirmation of a match before the density bound counts it.
        self.confirms: dict[re.Pattern[Any], Callable[[Any, re.Match[Any]], bool]] = {
            self.lower[-2][1]: weak.table_match_counts}
        if encode:
            # A JSON serialization's: a row's name (generic.ROW_NAME_TRIGGERS), so the walk
            # judges a string that holds a key/value row; a text reads its rows whole.
            self.lower += ((conv("|"), re.compile(conv("|".join(
                re.escape(lit) for lit in sorted(ROW_NAME_TRIGGERS, key=len, reverse=True))))),)
        # The name passes that find a literal closed by its quote (``password"``, and
        # ``"private_key"`` anchored on its ``_``) count such a match only where something
        # may be assigned to its name (weak.quoted_counts): ``{"m": "tokens"}`` lines, each
        # counted, were withheld whole.
        for found, names, passes in (
                (self.exact[len(_EXACT_PATTERNS):], exact_names, exact),
                (self.lower[len(_LOWER_PATTERNS):len(_LOWER_PATTERNS) + len(lower)],
                 lower_names, lower)):
            quoted = {anchor for anchor, _ in anchored(
                [name for name in names if name[-1] in weak.QUOTE_ENDS])}
            self.confirms.update((pattern, weak.quoted_match_counts)
                                 for (_, pattern), (anchor, _) in zip(found, passes, strict=True)
                                 if anchor in quoted)
        # A base64 run that decodes to text may hide any keyword (one pass, then a probe of
        # each run's first bytes).
        self.b64 = re.compile(conv(keywords.B64_RUN.pattern))
        self.b64_text = keywords.b64_probe(encode)
        self.heads = frozenset(conv(h) for h in keywords.B64_HEADS)
        self.backslash = conv("\\")
        # Passes of their own, outside the keyword passes: no density counts them.
        slashed, deep = keywords.slashed_patterns()
        self.slashed = re.compile(conv(slashed))
        self.deep_run = conv(keywords.DEEP_RUN)
        self.slashed_deep = re.compile(conv(deep))
        self.at = ((conv("@"), conv("@")), (conv("%"), conv("%40")))
        self.userinfo = re.compile(conv(_USERINFO_PLAIN))
        self.userinfo_gates = tuple((conv(x[0]), conv(x)) for x in _USERINFO_GATES)
        self.userinfo_odd = re.compile(conv(_USERINFO_ODD))
        self.line_stop = conv("\n")
        # curl's -u glued after its switches (commands.GLUED_CURL_GROUP), or after a spelled
        # gap (commands.SPELLED_CURL_USER), as written: a keyword pass of its own, led by its
        # dash, counted as the others are, where a text holds curl.
        self.curl = conv("curl")
        self.glued = re.compile(conv(
            "-(?:(?<=[ \t]-)" + GLUED_CURL_GROUP
            + r"|(?:(?<=\t-)|(?<=\\t-)|(?<=%20-)|(?<=%09-))" + SPELLED_CURL_TAIL
            + r"|(?<=[ \t]-)" + SPELLED_CURL_TAIL + r"(?:\t|%20|%09))"))

    def __call__(self, text: Any) -> bool:
        if self._exact_hit(text):
            return True
        low = text.lower()
        if any(g in low and lit in low for g, lit in self.lower_literals):
            return True
        if any(g in low and p.search(low) for g, p in self.lower):
            return True
        if any(self._b64_hit(text, m) for m in self.b64.finditer(text)):
            return True
        if self.curl in text and self.glued.search(text):
            return True
        if self.backslash in low and (self.slashed.search(low) or (
                self.deep_run in low and self.slashed_deep.search(low))):
            return True
        if not any(g in low and a in low for g, a in self.at):
            return False
        if self.userinfo.search(low):
            return True
        return any(g in low and lit in low for g, lit in self.userinfo_gates) and bool(
            self.userinfo_odd.search(low)
        )

    def in_ascii_windows(self, data: bytes, window: int = 64 << 10) -> bool | None:
        """:meth:`__call__` of ASCII ``data`` without a lowered copy of all of it: each
        case-insensitive pass searched in a lowered window at a time, read on either side by
        the most its pattern reads around a match (:func:`_reach`), so each match that starts
        in a window is judged on the same chars as in the whole lowered text. A lowered copy of
        a clean 1 MB log was 1x it beside its decoding under the regex passes, where hyperscan
        tells it clean from its bytes (issue 23). ``None`` where a pass that reads without a
        bound (the backslash runs, the userinfo after an odd scheme) or the userinfo passes'
        gate would run: the caller decodes and searches whole, as before."""
        # Told first, by a memchr each: where the whole search runs anyway, the other passes
        # here were 20% of a clean MB more.
        unbounded = {g for g, p in self.lower if _reach(p) is None}
        if any(g in data or g.upper() in data
               for g in (self.backslash, b"@", b"%", *unbounded)):
            return None
        if self._exact_hit(data) or any(self._b64_hit(data, m) for m in self.b64.finditer(data)):
            return True
        if self.curl in data and self.glued.search(data):
            return True
        size = len(data)
        gates = {g for g, _ in (*self.lower_literals, *self.lower)} - unbounded
        longest = max(map(len, gates))
        present: set[Any] = set()
        for at in range(0, size, window):  # each window lowered once for every gate
            low = data[max(0, at - longest + 1):at + window].lower()
            present.update(g for g in gates - present if g in low)
            del low  # let go before the next slice and its lowering: two at once, not three
        literals = [lit for g, lit in self.lower_literals if g in present]
        passes = [p for g, p in self.lower if g in present]
        reaches = [reach for reach in map(_reach, passes) if reach is not None]  # all of them
        back = max([longest, *(r[0] for r in reaches)])
        ahead = max([longest, *(r[1] for r in reaches)])
        windows = [(at, max(0, at - back), min(size, at + window + ahead))
                   for at in range(0, size, window)]
        for at, lo, hi in windows:
            low = data[lo:hi].lower()
            if any(lit in low for lit in literals):
                return True
            cut = min(at + window, size) - lo  # a match starting here or after is the next's
            for pattern in passes:
                match = pattern.search(low, at - lo)
                if match is not None and match.start() < cut:
                    return True
            del low
        return False

    def _exact_hit(self, text: Any) -> bool:
        """Whether a pass that reads ``text`` as written, case and all, matches in it."""
        return (any(g in text and lit in text for g, lit in self.exact_literals)
                or any(g in text and p.search(text) for g, p in self.exact))

    def _b64_hit(self, text: Any, run: re.Match[Any]) -> bool:
        # In a serialization, a value after a line break reads "\\naGZf…": the run takes the
        # "n" and its bytes are off by one, so a head one char in counts too.
        value = run.group()
        return bool(self.b64_text(value)) or value[:4] in self.heads or (
            text[run.start() - 1:run.start()] == self.backslash
            and bool(self.b64_text(value[1:]))
        )

    def positions(self, text: Any, low: Any = None, stop: Any = None) -> list[int]:
        """Where in ``text`` anything that :meth:`__call__` tests for starts, sorted: each
        pass's first match in each stretch of ``text`` up to a ``stop`` (a line, or a JSON
        string), as the callers only ask which stretches hold one. A run of one base64
        digit holds a keyword at every offset; a position for each cost a match object and
        a list entry per char.

        ``low`` is ``text.lower()`` when the caller has it already.
        """
        from elision.redact.triggers import first_per_stretch

        if stop is None:
            stop = self.line_stop
        if low is None:
            low = text.lower()
        found: list[int] = []
        for pattern, target in self.keyword_passes(text, low):
            found.extend(first_per_stretch(pattern, target, stop))
        found.extend(self.other_positions(text, low, stop))
        found.sort()
        return found

    def keyword_passes(self, text: Any, low: Any) -> list[tuple[re.Pattern[Any], Any]]:
        """The keyword passes whose gate ``text`` holds, each with what it searches
        (``text``, or ``low``: ``text.lower()``)."""
        passes: list[tuple[re.Pattern[Any], Any]] = []
        for gate, lit in self.exact_literals:
            if gate in text:
                passes.append((_literal(lit), text))
        passes.extend((pattern, text) for gate, pattern in self.exact if gate in text)
        for gate, lit in self.lower_literals:
            if gate in low:
                passes.append((_literal(lit), low))
        passes.extend((pattern, low) for gate, pattern in self.lower if gate in low)
        if self.curl in text:  # the judge reads the flag only after it
            passes.append((self.glued, text))
        return passes

    def other_positions(self, text: Any, low: Any, stop: Any) -> list[int]:
        """The base64 runs' and the userinfo passes' positions, one a stretch each."""
        from elision.redact.triggers import first_per_stretch

        found = self._b64_positions(text, stop)
        if self.backslash in low:
            found.extend(first_per_stretch(self.slashed, low, stop))
            if self.deep_run in low:
                found.extend(first_per_stretch(self.slashed_deep, low, stop))
        if any(g in low and a in low for g, a in self.at):
            found.extend(first_per_stretch(self.userinfo, low, stop))
            if any(g in low and lit in low for g, lit in self.userinfo_gates):
                found.extend(first_per_stretch(self.userinfo_odd, low, stop))
        return found

    def _b64_positions(self, text: Any, stop: Any) -> list[int]:
        # Runs never overlap and each is twenty chars or more; a stretch with a hit is left.
        found: list[int] = []
        until = -1
        for run in self.b64.finditer(text):
            if run.start() < until or not self._b64_hit(text, run):
                continue
            found.append(run.start())
            until = text.find(stop, run.start() + 1)
            if until < 0:
                break
        return found


@lru_cache(maxsize=256)
def _reach(pattern: re.Pattern[Any]) -> tuple[int, int] | None:
    """How far before and after a match's start ``pattern`` reads (its look-behinds, and its
    widest match plus its look-aheads), plus one char each side (``\\b``, ``^``): a bound,
    over-counted where looks nest. ``None`` where it has none (a run without a bound)."""
    from importlib import import_module

    # The standard library's own parse of a pattern (typeshed lists neither module).
    sre: Any = import_module("re._constants")
    parser: Any = import_module("re._parser")

    behind, extra = 1, 1
    parsed = parser.parse(pattern.pattern, pattern.flags)
    todo = [parsed]
    while todo:
        for op, av in todo.pop():
            if op in (sre.ASSERT, sre.ASSERT_NOT):
                width = av[1].getwidth()[1]
                if av[0] < 0:
                    behind += width
                else:
                    extra += width
                todo.append(av[1])
            elif op is sre.BRANCH:
                todo.extend(av[1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                todo.append(av[2])
            elif op is sre.SUBPATTERN:
                todo.append(av[3])
            elif op is sre.ATOMIC_GROUP:
                todo.append(av)
    ahead = parsed.getwidth()[1] + extra
    if max(ahead, behind) >= sre.MAXREPEAT:
        return None
    return behind, ahead


def _literal(lit: Any) -> re.Pattern[Any]:
    return re.compile(re.escape(lit))


_FILTERS: dict[bool, _Prefilter] = {}


def _filter(encode: bool) -> _Prefilter:
    # Built on first use: the families' keywords come from a module that imports this one.
    built = _FILTERS.get(encode)
    if built is None:
        built = _FILTERS[encode] = _Prefilter(encode)
    return built


def may_match(text: str) -> bool:
    """False when no precise rule can match anywhere in ``text``."""
    return _filter(False)(text)


def may_match_bytes(data: bytes) -> bool:
    """:func:`may_match` over UTF-8 bytes (a JSON serialization, say), without decoding."""
    return _filter(True)(data)


def text_positions(text: str, low: str | None = None) -> list[int]:
    """Where in ``text`` :func:`may_match` would see a trigger start, the first in each line
    (each pass's) that holds one (``low``: ``text.lower()``, when the caller has it)."""
    return _filter(False).positions(text, low)


def text_prefilter() -> _Prefilter:
    """The regex passes over ``str``: for a text's counted search (:mod:`~.density`)."""
    return _filter(False)


def bytes_prefilter() -> _Prefilter:
    """The regex passes over UTF-8 bytes: for a serialization's counted search."""
    return _filter(True)


def match_positions(data: bytes, low: bytes | None = None, stop: bytes = b"\n") -> list[int]:
    """Where in ``data`` :func:`may_match_bytes` would see a trigger start, the first in each
    stretch up to a ``stop`` (each pass's) that holds one."""
    return _filter(True).positions(data, low, stop)


# The id alphabet avoids look-alikes so a stub id can be read back off a screen.
_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_stub_id() -> str:
    """A random stub id (``ref_…``): never derived from the value it stands for."""
    # secrets.choice without importing secrets (and random behind it) on a hook's start: a
    # byte below the largest multiple of the alphabet's size, modulo that size, is uniform.
    limit = 256 - 256 % len(_ID_ALPHABET)
    chars: list[str] = []
    while len(chars) < 10:
        chars.extend(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in os.urandom(16) if b < limit)
    return "ref_" + "".join(chars[:10])


@lru_cache(maxsize=512)
def credential_stub(rule: str) -> str:
    """The stub for a secret that has no reference meaning: nothing to fetch. One string a
    rule, shared (a MB of pairs made 25,000 copies of one stub: 2x the body)."""
    return f"[credential withheld: {rule}]"


def withheld_stub(reason: str) -> str:
    """The stub for a payload withheld on the tool's own word (``disposition: never``)."""
    return f"[withheld: {reason}]"


def reference_stub(stub_id: str, mime_type: str | None, size: int | None) -> str:
    """The stub for a reference: ``[ref_k3f9] image/png, ~120 KB — fetch with …``."""
    what = mime_type or "resource"
    if size is not None:
        what += f", ~{human_size(size)}"
    return f"[{stub_id}] {what} — fetch with elision_fetch_reference"


_STUB = lazy_compile(
    r"\[(?:credential withheld: [a-z0-9-]+\]|withheld: [a-z0-9-]+\]"
    r"|credential-dense text withheld: [0-9,]+ bytes\]"
    r"|ref_[a-z0-9]+\] [^\n]* — fetch with elision_fetch_reference)\Z"
)


_STUB_IN_TEXT = re.compile(
    r"\[(?:(?:credential withheld|withheld): [a-z0-9-]+"
    r"|credential-dense text withheld: [0-9,]+ bytes)\]"
)


def without_stubs(text: str) -> str:
    """``text`` with the credential stubs this stage wrote into it taken out (a name holding
    one is judged by its own words, not the stub's)."""
    return _STUB_IN_TEXT.sub(" ", text) if "withheld: " in text else text


def is_stub(value: object) -> bool:
    """Whether ``value`` is a string this stage wrote in place of something withheld."""
    return isinstance(value, str) and value.startswith("[") and _STUB.match(value) is not None


def human_size(size: int) -> str:
    """``120 KB``, ``3 MB``: rounded, because the stub only needs to say roughly how much."""
    if size < 1024:
        return f"{size} B"
    scaled = float(size)
    for unit in ("KB", "MB", "GB"):
        scaled /= 1024
        if scaled < 1024 or unit == "GB":
            return f"{round(scaled)} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover
