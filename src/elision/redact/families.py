"""The credential families: one row each in ``elision/data/families.toml``, loaded once.

A row is data, not code: an ``id`` (the ``reason`` a stub names), the ``provider``, a ``pattern``
(a Python regex; the named group ``secret`` is what is withheld, else the whole match), the
``keywords`` a match cannot do without (the trigger search looks for these, in one pass over a
result, and only then does the pattern run; a match counts only with one in it or just before
it on its line), an optional ``entropy`` floor (Shannon bits per char of the withheld part), an
optional ``check`` for what a regex cannot say (a JWT's header decodes
to JSON naming an algorithm), and ``shapes``: the example the docs show and the tests fill in.

A shape is text with placeholders, ``{alnum:36}`` for 36 random chars of a class (see
:data:`CLASSES`), so the docs show ``ghp_<alnum:36>`` (nothing that looks like a live secret) and a
test draws a fresh fake of exactly the right form for every family. ``negatives`` are near misses
that must be kept exactly; a row with an entropy floor also gets one for free: its shape filled
with one repeated char. Rows with a ``finder`` are matched by code (the URL rules, the
credential-named assignments, cookies, JSON members) and are in the table for their docs and tests.

The patterns are elision's own, written from the providers' published token formats; none is
copied from a secret scanner's rule file.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property, lru_cache
from itertools import repeat
from operator import mul
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from elision._cache import kept_json
from elision._lazyre import lazy_compile
from elision._record import record_class
from elision.redact.placeholders import placeholder

if TYPE_CHECKING:
    import random

#: Placeholder classes a shape may use: ``{class:length}``.
CLASSES = {
    "alnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "lower": "abcdefghijklmnopqrstuvwxyz",
    "digit": "0123456789",
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "updig": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "lowdig": "abcdefghijklmnopqrstuvwxyz0123456789",
    "b64": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "b64url": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
    "bech32": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}
#: Placeholders filled by code: a JWT, a UUID, a base64 ``user:password`` pair.
SPECIAL = ("jwt", "uuid", "basicpair")
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9]+)(?::(\d+))?\}")
#: No word char (or one of these) right before a token: it would be the tail of something else,
#: a base64 image's bytes say. Checked in Python: a leading look behind stops the regex engine
#: from searching for the literal prefix. Not ``/``: it opens a token in a path or a URL
#: (``https://host/ghp_…``, ``s3://bucket/AKIA…``), and 197 of the families' shapes were shown
#: after one; a base64 run's ``/`` before a whole match is as rare as any other place in it.
_BEFORE = frozenset("_-+")
#: How far before a token the credential it is glued to (:func:`_glued_to`) is looked for.
_GLUE_REACH = 1024
#: How far before its closing armour a key's header is looked for (:func:`_key_before`): an
#: RSA key of 8192 bits is some 6.5 KB, a PGP key block with its subkeys more.
_KEY_REACH = 1 << 14
#: How many credentials glued end to end are followed back; a longer chain is withheld whole
#: (a chain is of matches that each pass their family's tests).
_GLUE_DEPTH = 32
#: How many values one call of :meth:`Family.accepted` accepts before their copies are let
#: go ahead of the steps that follow their chains (fewer cost a comprehension for nothing).
_MANY_VALUES = 32
#: How many of a row's heads inside a match its boundary refused are asked whether a
#: credential ends there (:meth:`Family._opened_inside`): a run of ``A`` a ClickUp key ends
#: with opens an X bearer token's that many chars early.
_INSIDE_TRIES = 4
#: What :func:`_glued_to` found at each place of one text: the spans of the credentials that
#: end there (from, to, family id, and where the match opens: the next link back), or None.
Glue = dict[int, list[tuple[int, int, str, int]] | None]
_TAIL = r"(?![A-Za-z0-9_])"
_STUB_HEADS = ("[credential", "[withheld", "[ref_")
#: How far before a match its keyword may be, on the match's line (a secret scanner ties a
#: keyword to the value it names: ``ASANA_ACCESS_TOKEN = "1/…"``, ``"mailgun": {"key": "…"}``).
KEYWORD_REACH = 64
#: A value written as a template: ``<your key>``, ``${KEY}``, ``{{ key }}``.
TEMPLATE = _TEMPLATE = re.compile(r"<[A-Za-z0-9 :_.-]+>|\$\{|\{\{")


@record_class(frozen=True)
class Family:
    """One credential family (a row of the table)."""

    id: str
    provider: str
    category: str
    #: The regex as written (with the tail that ends a token), compiled on first use.
    source: str | None
    flags: int
    keywords: tuple[str, ...]
    any_case: bool
    entropy: float | None
    check: Callable[[str], bool] | None
    shapes: tuple[str, ...]
    negatives: tuple[str, ...]
    boundary: bool
    broad: bool
    finder: str | None
    #: A match that spans lines: literals its last line holds (a key's closing armour).
    closing: tuple[str, ...]

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """The compiled regex. Compiled when first asked for, not when the table loads: the
        225 rows cost every command's start about 50 ms, and a result with none of a family's
        keywords never runs its pattern (:mod:`elision.redact.keywords`)."""
        return None if self.source is None else re.compile(self.source, self.flags)

    def secret_span(self, match: re.Match[str]) -> tuple[int, int]:
        """The part of a match that is withheld."""
        if self.pattern is not None and "secret" in self.pattern.groupindex:
            return match.span("secret")
        return match.span()

    def accepts(self, text: str, match: re.Match[str], memo: Glue | None = None) -> bool:
        """Whether a pattern match is this family's credential (boundary, entropy, check);
        ``memo``: what :func:`_glued_to` found at each place, for the matches of one text
        (keys glued end to end: each followed back once, not 32 links a key)."""
        start = match.start()
        before = text[start - 1] if start > 0 else " "
        if self.boundary and (before.isalnum() or before in _BEFORE) and not _escaped_break(
                text, start - 1) and not _glued_to(text, start, 0, self.id,
                                                   {} if memo is None else memo):
            return False  # unless a credential ends right there (see accepted)
        a, b = self.secret_span(match)
        value = text[a:b]
        if value.startswith(_STUB_HEADS) or (not self.closing and _TEMPLATE.search(text, a, b + 1)):
            return False  # a stub this stage wrote, or a template (``<your key>``): see accepted
        if self.entropy is not None and entropy(value) < self.entropy:
            return False
        return (self.check is None or self.check(value)) and self.keyword_near(text, match)

    def accepted(
        self, text: str, matches: Iterable[re.Match[str]],
        glued: list[tuple[int, int, str]] | None = None, depth: int = 0, ahead: bool = True,
        bounded: bool = True, memo: Glue | None = None,
    ) -> list[tuple[int, int]]:
        """The secret spans of those of ``matches`` (this family's, in ``text``) that
        :meth:`accepts`, in their order: its tests asked in comprehensions over all of them,
        the entropy of all the values at once, no call a match but the family's check (NDJSON
        with a key a line was some ten Python calls a key here, issue 23).

        A match after a word char is still this family's where a credential of any family
        ends right there (``ghp_…ghp_…``: two tokens pasted together, where the first one's
        tail and the second one's boundary refused both): that credential's spans, and those
        it is glued to in turn, are added to ``glued`` (span and family id), when given;
        ``ahead``: and the tokens of this row glued after an accepted match too;
        ``bounded`` off: the boundary is not asked (a match glued to one already accepted);
        ``memo``: what :func:`_glued_to` found at each place, for the matches of one text."""
        group = self.pattern is not None and "secret" in self.pattern.groupindex
        memo = {} if memo is None else memo
        if self.boundary and bounded:
            # No word char, nor one of _BEFORE, right before the match (what accepts asks),
            # unless a credential ends there (asked only of a match so refused).
            listed = matches if isinstance(matches, list) else list(matches)
            matches = [m for m in listed
                       if not ((at := m.start()) and ((before := text[at - 1]).isalnum()
                                                      or before in _BEFORE)
                               and not _escaped_break(text, at - 1)
                               and not _glued_to(text, at, depth, self.id, memo))]
            if len(matches) < len(listed):
                matches = self._opened_inside(text, listed, matches, depth, memo)
        spans = [(m, *(m.span("secret") if group else m.span())) for m in matches]
        # A stub this stage wrote, or a template (``<your key>``), is no credential. Not asked
        # of a key that spans lines: its pattern wants a body (base64, or a header) after its
        # armour, and one with no closing armour runs to the text's end, where a template in
        # a later line (an NDJSON record's ``<AKIA…>``) showed the key.
        values = [(m, a, b, text[a:b]) for m, a, b in spans
                  if not (text.startswith(_STUB_HEADS, a, b)
                          or (not self.closing and _TEMPLATE.search(text, a, b + 1)))]
        del spans  # a tuple a match: 0.6x a MB of FCM keys glued end to end (issue 23)
        check = self.check
        if check in _TOLD_IN_C:
            # Both are tests of the value alone: the one told by set tests in C first, so
            # the entropy is asked only of what it lets through (``sk-`` keys of one case:
            # the distinct chars' set a value was half of judging them, issue 23).
            values = [item for item in values if check(item[3])]
            check = None
        if self.entropy is not None:
            values = [item for item, enough in zip(
                values, at_least(self.entropy, [v[3] for v in values]), strict=True) if enough]
        if check is not None:
            values = [item for item in values if check(item[3])]
        # keyword_near, read from each match's own line within KEYWORD_REACH chars before it.
        keyword = self._keyword
        found = [(a, b) for m, a, b, _ in values
                 if keyword.search(text, max(
                     lo := max(0, (at := m.start()) - KEYWORD_REACH),
                     text.rfind("\n", lo, at) + 1, text.rfind("\r", lo, at) + 1), m.end())]
        if len(found) >= _MANY_VALUES:
            # No step after this reads a value: each a copy of its chars, as long as the
            # text together where keys are glued end to end, held while their chains are
            # followed (0.7x a MB at the peak, issue 23).
            values = [(m, a, b, "") for m, a, b, _ in values]
        # Whether anything may be glued on, told of the values before the keyword test (a
        # superset) with no Python call an accepted match (24,000 distinct ``ghp_`` tokens in
        # an array; NDJSON's keys, one a judgement: issue 23).
        if glued is not None and found and (memo or (not self.boundary and any([
                (at := m.start()) and ((before := text[at - 1]).isalnum() or before in _BEFORE)
                for m, _, _, _ in values])) or (ahead and self._takes_in_next and (
                    # A head inside a match: one match without a comprehension's frame.
                    (hit := self._head.search(text, (one := values[0][0]).start() + 1,
                                              one.end() + self._longest)) is not None
                    and hit.start() < one.end() if len(values) == 1 else any([
                        (hit := self._head.search(text, m.start() + 1, m.end() + self._longest))
                        is not None and hit.start() < m.end() for m, _, _, _ in values])))):
            kept = set(found)
            chosen = [item for item in values if (item[1], item[2]) in kept]
            # Each chosen match passed where no two share a secret span (a match's keyword
            # test is its own): their verdicts, for the steps ahead that reach one of them.
            self._glue(text, chosen, glued, depth, ahead, memo, len(chosen) == len(kept))
        return found

    def accepted_one(
        self, text: str, match: re.Match[str], depth: int = 0, bounded: bool = True,
        memo: Glue | None = None,
    ) -> list[tuple[int, int]]:
        """:meth:`accepted` of one match, with nothing glued on asked (``glued`` None, no
        step ahead): the same tests in the same order, without a comprehension a test. What
        a chain's link costs: each key of FCM keys glued end to end was judged by a call of
        :meth:`accepted` of its one match, twice a key, most of judging them (issue 23). A
        match its boundary may refuse is judged by :meth:`accepted` itself (a credential
        that ends inside it is asked for)."""
        at = match.start()
        if self.boundary and bounded and at and (
                (before := text[at - 1]).isalnum() or before in _BEFORE):
            return self.accepted(text, [match], depth=depth, ahead=False, memo=memo)
        if self.pattern is not None and "secret" in self.pattern.groupindex:
            a, b = match.span("secret")
        else:
            a, b = match.span()
        if text.startswith(_STUB_HEADS, a, b) or (
                not self.closing and _TEMPLATE.search(text, a, b + 1)):
            return []
        value = text[a:b]
        check = self.check
        if check in _TOLD_IN_C:
            if not check(value):
                return []
            check = None
        if self.entropy is not None and not at_least(self.entropy, [value])[0]:
            return []
        if check is not None and not check(value):
            return []
        lo = max(0, at - KEYWORD_REACH)
        lo = max(lo, text.rfind("\n", lo, at) + 1, text.rfind("\r", lo, at) + 1)
        return [(a, b)] if self._keyword.search(text, lo, match.end()) else []

    def _opened_inside(
        self, text: str, listed: list[re.Match[str]], kept: list[re.Match[str]], depth: int,
        memo: Glue,
    ) -> list[re.Match[str]]:
        """``kept``, with, for each of ``listed`` its boundary refused, the match of this row
        that opens at one of its heads inside it where a credential ends (glued to it): a
        match that opened inside the token before it (``csk-…sk-…``: OpenAI's ``sk-`` inside
        Cerebras' ``csk-``; an X bearer token's run of ``A`` opened by a ClickUp key's last
        ones) read on over the next one's head, so no search found that one. The first
        :data:`_INSIDE_TRIES` heads inside each are tried (each asks what ends there); where
        the heads are a run of one char (X's ``A``s), the last ones of that run the row's
        match opens at too: a ClickUp key that ends in five ``A``s or more put the X token's
        head past the first four."""
        assert self.pattern is not None
        ids = {id(m) for m in kept}
        found: list[re.Match[str]] = []
        for m in listed:
            if id(m) in ids:
                continue
            pos, end = m.start() + 1, m.end()
            first = -1
            for _ in range(_INSIDE_TRIES):
                hit = self._head.search(text, pos, end)
                if hit is None:
                    break
                at = hit.start()
                first = at if first < 0 else first
                if _glued_to(text, at, depth, self.id, memo) and (
                        inner := self.pattern.match(text, at)) is not None:
                    found.append(inner)
                    break
                pos = at + 1
            else:
                if (inner := self._last_in_run(text, first, pos, end, depth, memo)) is not None:
                    found.append(inner)
        return sorted([*kept, *found], key=lambda m: m.start()) if found else kept

    def _last_in_run(
        self, text: str, first: int, tried: int, end: int, depth: int, memo: Glue,
    ) -> re.Match[str] | None:
        """The match of this row at one of the last :data:`_INSIDE_TRIES` places, before
        ``end`` and from ``tried`` on, that it opens at in the run of its one-char head that
        opens at ``first`` (its heads are that run's places: a credential that ends in the
        char puts the next token's head anywhere in it), where a credential ends; or
        ``None``. One match of the run's char: what the run costs is its length, once."""
        run = self._head_run
        if run is None:
            return None
        last = run.match(text, first, end)
        assert last is not None  # the first head opens it
        asked = 0
        for at in range(last.end() - 1, tried - 1, -1):
            if asked >= _INSIDE_TRIES:
                break
            inner = self.pattern.match(text, at) if self.pattern is not None else None
            if inner is None:
                continue  # too few of the char left for the row's match: nothing asked
            asked += 1
            if _glued_to(text, at, depth, self.id, memo):
                return inner
        return None

    @cached_property
    def _head_run(self) -> re.Pattern[str] | None:
        """A run of the one char every head of this row is made of (X's ``A``s), or
        ``None``: a row whose heads are words."""
        if self._opening is not None or len({*"".join(self.keywords)}) != 1:
            return None
        return re.compile(re.escape(self.keywords[0][0]) + "+")

    def _glue(
        self, text: str, chosen: list[tuple[re.Match[str], int, int, str]],
        glued: list[tuple[int, int, str]], depth: int, ahead: bool, memo: Glue, exact: bool,
    ) -> None:
        """Add to ``glued`` the credentials that the accepted matches (``chosen``: each with
        its secret span and value) are glued to: the
        ones a refused boundary found (in ``memo``); for a row whose boundary lets a word
        char stand before it, those ending right at an accepted match after a letter, a digit
        or one of ``_-+`` (``…4_-9918771875:AA…``, two Telegram tokens); and tokens of this
        row whose head the greedy match before it took in (``ya29.…ya29.…``: the first match
        ends at the second's ``.``, and a search goes on after it); ``exact``: each of
        ``chosen`` passed, so a step ahead that reaches one takes its verdict (:class:`_Judged`).
        """
        longest = self._longest
        head = self._head
        judged = _Judged(chosen if exact else [])
        reach = -1  # how far the steps ahead have read: a match before it was read by them
        back: list[int] = []
        for m, _, _, _ in chosen:
            start, end = m.span()
            if start in memo:
                back.append(-start)  # a heap of the places, last first (see below)
            elif not self.boundary and _word_before(text, start):
                _glued_to(text, start, depth, self.id, memo)
                back.append(-start)
            # A step a token glued on ahead: glued to the match before it, so its boundary is
            # not asked (a search back from each link read the chain again, N² of it).
            stepping = ahead and start >= reach and self._takes_in_next
            while stepping and (taken := self._taken_in(text, start, end, head, longest,
                                                         judged)):
                inner, spans = taken
                glued.extend([(a, b, self.id) for a, b in spans])
                start, end = inner.span()
                reach = end
        # Each chain back read once: a link's own spans, then the links before it. A link is
        # before the place it is read from, so the places, taken last first from a heap,
        # come again only right after one another: no set of those read (a hash table of a
        # link each, 0.5x a MB of FCM keys glued end to end at the peak, issue 23).
        heapq.heapify(back)
        last = -1
        while back:
            at = -heapq.heappop(back)
            if at == last:
                continue
            last = at
            for a, b, rule, link in memo.get(at) or ():
                glued.append((a, b, rule))
                heapq.heappush(back, -link)

    def _taken_in(
        self, text: str, start: int, end: int, head: re.Pattern[str], longest: int,
        judged: _Judged,
    ) -> tuple[re.Match[str], list[tuple[int, int]]] | None:
        """The first match of this row that opens at one of its heads (:attr:`_head`) inside
        the match ``start:end``, reads past its end and is accepted (glued to that one: its
        boundary is not asked), and its spans (a JWT's signature took in the next one's
        header; the match its own payload's ``eyJ`` opens is no JWT). A match ``judged``
        holds (its span and secret span) is accepted without asking again: its verdict is
        the same tests of the same chars, its boundary aside (FCM keys glued end to end:
        each step reached a match the text's own search had judged, every other key)."""
        assert self.pattern is not None
        group = "secret" in self.pattern.groupindex
        pos = start + 1
        while (hit := head.search(text, pos, end + longest)) is not None and hit.start() < end:
            inner = self.pattern.match(text, hit.start())
            if inner is not None and inner.end() > end:
                secret = inner.span("secret") if group else inner.span()
                if judged.holds(inner, secret):
                    return inner, [secret]
                if spans := self.accepted_one(text, inner, bounded=False):
                    return inner, spans
            pos = hit.start() + 1
        return None

    @cached_property
    def _opening(self) -> tuple[str, ...] | None:
        """The literals a match opens with, where its keyword is inside it rather than its
        head (an FCM key's ``:APA91b`` after ``AAAA`` and 7 chars, a Teams hook's host
        after ``https://``): what a match that took in the next one's head holds of it."""
        head = self._keyword
        if self.pattern is None or all(head.match(flat(shape)) for shape in self.shapes):
            return None
        from elision.redact.secrets import leading_runs  # secrets reads this module's table

        # As short as a keyword may be at least: a shorter one opens too many tries.
        runs = leading_runs(self.pattern)
        return tuple(runs) if runs and min(map(len, runs)) >= 3 else None

    @cached_property
    def _head(self) -> re.Pattern[str]:
        """What a match opens with: its keyword, or its :attr:`_opening` literals."""
        if self._opening is None:
            return self._keyword
        return re.compile("|".join(map(re.escape, self._opening)), self.pattern.flags & re.I
                          if self.pattern is not None else 0)

    @cached_property
    def _longest(self) -> int:
        return max(map(len, self._opening or self.keywords))

    @cached_property
    def _takes_in_next(self) -> bool:
        """Whether a match of this row can take in the head of one of its tokens glued after
        it (``ya29.…ya29``: its class holds the keyword's chars), asked of each shape filled
        flat before each; a shape with a placeholder filled by code is taken to. A row that
        cannot (``ghp_``: no ``_`` in its body) costs no step ahead: a keyword search an
        accepted match was 4% of judging 24,000 distinct ``ghp_`` tokens."""
        if self.pattern is None:
            return False
        for shape in self.shapes:
            if any("{" + special in shape for special in SPECIAL):
                return True
        # Each shape before each (Datadog's any-case hex reads the ``DD`` of the next name).
        for first in map(flat, self.shapes):
            for then in map(flat, self.shapes):
                match = self.pattern.search(first + then)
                if match is not None and match.start() < len(first) < match.end():
                    return True
        return False

    def keyword_near(self, text: str, match: re.Match[str]) -> bool:
        """Whether one of the keywords is in the match or in the :data:`KEYWORD_REACH` chars
        of its line before it: what ties a keyword to the value of a row whose pattern need not
        hold it (Asana's ``1/<digits>:<hex>`` needs ``asana``, ``co_apikey=`` is not in
        Cohere's list). Read from the match's own line, never from the rest of the text, so a
        whole text and each piece the pre-filter cuts from it judge a match alike."""
        start, end = match.span()
        lo = max(0, start - KEYWORD_REACH)
        lo = max(lo, text.rfind("\n", lo, start) + 1, text.rfind("\r", lo, start) + 1)
        return self._keyword.search(text, lo, end) is not None

    @cached_property
    def _keyword(self) -> re.Pattern[str]:
        # One search in C a match: a test per keyword, and a lowered copy of the window for
        # the any-case rows, cost a third more on a line of nothing but such matches.
        flags = re.IGNORECASE | re.ASCII if self.any_case else 0
        return re.compile("|".join(map(re.escape, self.keywords)), flags)


class _Judged:
    """The matches one call of :meth:`Family.accepted` accepted, each with its secret span,
    in their order: :meth:`holds` tells whether a step ahead reached one. Read forward only,
    as the steps go, so no set of them is made (2,500 tuples for a MB of glued FCM keys
    were 0.6x the input at the peak). Out of order, a match is passed over: the step asks
    afresh, as it did before."""

    __slots__ = ("_items", "_next")

    def __init__(self, items: list[tuple[re.Match[str], int, int, str]]) -> None:
        self._items = items
        self._next = 0

    def holds(self, inner: re.Match[str], secret: tuple[int, int]) -> bool:
        """Whether ``inner``, whose secret span is ``secret``, is one of the matches."""
        items, i, at = self._items, self._next, inner.start()
        while i < len(items) and items[i][0].start() < at:
            i += 1
        self._next = i
        if i == len(items):
            return False
        m, a, b, _ = items[i]
        return m.start() == at and m.end() == inner.end() and (a, b) == secret


def _glued_to(text: str, at: int, depth: int, rule: str, memo: Glue) -> bool:
    """Whether a credential of some family ends at ``at`` (a match of its pattern read as if
    the text ended there, that its family accepts): its spans, family ids and starts (the
    links back, asked in turn) are put in ``memo[at]``, so a chain is followed back once, not
    again from each of its links. Asked only of a match its boundary refused: a token in a
    word or a base64 run has none. A chain followed back :data:`_GLUE_DEPTH` links is
    withheld (as ``rule``) from its run's first char (its last space's next)."""
    if at in memo:
        return memo[at] is not None
    if depth >= _GLUE_DEPTH:
        run = max(text.rfind(space, 0, at) for space in " \t\n\r") + 1
        memo[at] = [(run, at, rule, run)]
        return True
    from elision.redact.keywords import families_in  # keywords reads this module's table

    lo = max(0, at - _GLUE_REACH)
    lo = max(lo, text.rfind("\n", lo, at) + 1, text.rfind("\r", lo, at) + 1)
    found: list[tuple[int, int, str, int]] = []
    for index in families_in(text[max(0, lo - KEYWORD_REACH):at]):
        family = PATTERN_FAMILIES[index]
        assert family.pattern is not None
        # The pattern's tail reads the end of the text at ``at``: what follows is the token.
        # Searched from each match's next char, not after it: the one ending at ``at`` may
        # open inside another (``hvs.…hvs.…hvs.…``: the first match takes in the second head).
        pos = lo
        while (m := family.pattern.search(text, pos, at)) is not None:
            if m.end() == at and family.closing and not any(
                    text.find(closing, m.start(), at) >= 0 for closing in family.closing):
                # A key with no closing armour is open to the text's end, and read as ending
                # at ``at`` any key ends there: the token after it is inside it, not glued on
                # (a cut PEM key in an NDJSON record took in the next member's name).
                break
            if m.end() == at:
                spans = family.accepted_one(text, m, depth=depth + 1, memo=memo)
                found.extend([(a, b, family.id, m.start()) for a, b in spans])
                if spans and not family.boundary and _word_before(text, m.start()):
                    # Its boundary asked for nothing: what it is glued to is asked here.
                    _glued_to(text, m.start(), depth + 1, family.id, memo)
                break
            pos = m.start() + 1
    if not found:
        found = _key_before(text, lo, at, depth, memo)
    memo[at] = found or None
    return bool(found)


def _key_before(
    text: str, lo: int, at: int, depth: int, memo: Glue,
) -> list[tuple[int, int, str, int]]:
    """The spans of a key (a row whose match spans lines) that ends at ``at``, where its
    closing armour is on the line ``lo:at``: its keyword is lines back, out of that line
    (``…-----END RSA PRIVATE KEY----------BEGIN RSA PRIVATE KEY-----``: both keys were
    shown). Its header is the last one of its keywords within :data:`_KEY_REACH` before the
    armour: a key holds one."""
    found: list[tuple[int, int, str, int]] = []
    for family in _SPANNING:
        # Each literal's search in C, no generator's step a literal (a step a key's line).
        closes = max(map(text.rfind, family.closing, repeat(lo), repeat(at)))
        if closes < 0:
            continue
        bound = max(0, at - _KEY_REACH)
        opens = max(map(text.rfind, family.keywords, repeat(bound), repeat(closes)))
        if opens < 0:
            continue
        assert family.pattern is not None
        m = family.pattern.match(text, opens, at)
        if m is not None and m.end() == at:
            # accepted itself: a key glued after armour has ``-`` before it (its boundary).
            spans = family.accepted(text, [m], depth=depth + 1, ahead=False, memo=memo)
            found.extend([(a, b, family.id, m.start()) for a, b in spans])
    return found


def read_closings(
    family: Family, text: str, matches: Iterable[re.Match[str]],
) -> Iterator[re.Match[str]]:
    """``matches`` of a key that spans lines (a row with ``closing``), each read on to the
    closing armour it has spelled in escapes (``-----EN\\u0044 …``, ``%2D----END…``), where
    its pattern reads the armour only as written: such a key ran on to the next armour
    written plainly (a later NDJSON record's key) or the text's end, and a text spelled
    otherwise withheld other lines (equal values must withhold alike). A match that holds a
    ``\\u`` or a ``%`` (told in C) is read decoded once, and each key the decoding finds
    in it that opens with its keyword as written is given as its own match, read in ``text``
    up to where that key's armour ends; a key whose keyword is escaped too is the decoded
    reading's (``scan._precise``), as before. The rest are given as they are."""
    from elision.redact.encodings import decode_escapes  # not on the table's import

    pattern = family.pattern
    assert pattern is not None
    for match in matches:
        start, end = match.span()
        if text.find("\\u", start, end) < 0 and text.find("%", start, end) < 0:
            yield match
            continue
        view = decode_escapes(text[start:end])
        # Spans, not matches: a match holds the decoded text, a key's span two ints.
        keys = [] if view is None else [key.span() for key in pattern.finditer(view.text)]
        if view is None or not keys or keys[0][0] or keys[0][1] == len(view.text):
            yield match  # no armour spelled in escapes ends it sooner
            continue
        for a, b in view.originals(keys):
            found = pattern.match(text, start + a, start + b)
            if found is not None and found.end() == start + b:
                yield found
            elif not a:
                yield match  # the key as written, whole (fail closed): not read so


def _word_before(text: str, at: int) -> bool:
    """Whether a word char, or one of :data:`_BEFORE`, is right before ``at``."""
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] in _BEFORE)


def _escaped_break(text: str, at: int) -> bool:
    """Whether ``text[at]`` is the letter of a line break or tab a text of JSON holds as an
    escape (``\\n``, ``\\r``, ``\\t``; a level of JSON-in-JSON down ``\\\\\\n``): what
    precedes a match so is a break, no letter (a key's line in JSON-in-JSON,
    ``"…\\n-----BEGIN…"``)."""
    return at > 0 and text[at] in "nrt" and text[at - 1] == "\\"


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per char (0 for an empty string)."""
    if not value:
        return 0.0
    n = len(value)
    counts: Iterable[int] | None = None
    if n > _COUNT_ABOVE:
        # Counter steps through the string a char at a time (0.24 s a MB); str.count is one
        # pass in C per distinct char, so a long match (a run of one digit) costs a few.
        chars = set(value)
        if len(chars) <= _COUNT_CHARS:
            # In the order Counter gives them (first seen first): the same float sum.
            counts = [value.count(c) for c in sorted(chars, key=value.index)]
    if counts is None:
        counts = Counter(value).values()
    if n <= _COUNT_ABOVE:
        # Each term read from a list of the terms for this length, in C: the same float as
        # _term's (the same expression), where a cache keyed by a tuple hashed it a char, half
        # of an NDJSON record's key's entropy (issue 23).
        return -sum(map(_terms(n).__getitem__, counts))
    # Each char's term looked up in C (a hit adds no Python frame), summed in the same order:
    # the same float, where a generator's step a char was a third of judging an NDJSON
    # record's key (issue 23).
    return -sum(map(_term, counts, repeat(n)))


def entropies(values: list[str]) -> list[float]:
    """:func:`entropy` of each of ``values``, the same floats: a short value's chars counted
    in C (``str.count`` of each distinct char, first seen first, as Counter orders them) and
    its terms summed in one comprehension, no Python call a value."""
    return [-sum(map(_terms(len(value)).__getitem__, map(value.count, dict.fromkeys(value))))
            if 0 < len(value) <= _COUNT_EACH else entropy(value) for value in values]


def at_least(floor: float, values: list[str]) -> list[bool]:
    """``not entropy(value) < floor`` for each of ``values``, mostly told from its length and
    its count of distinct chars (a set made in C): ``d`` distinct chars in ``n`` hold at most
    ``log2(d)`` bits a char and at least what ``n - d + 1`` of one and one each of the rest
    hold (:func:`_told`); a value longer than :data:`_COUNT_EACH` by its parts too
    (:func:`_told_long`). Only a value between the two, within :data:`_MARGIN` of the floor
    (a float sum may be off in its last bits), is counted char by char (:func:`entropies`):
    that was a quarter of judging NDJSON records of a key each (issue 23)."""
    if not _BOUNDED:
        return [not bits < floor for bits in entropies(values)]
    if any(map(_COUNT_EACH.__lt__, map(len, values))):
        told = [_told_long(value, floor) if len(value) > _COUNT_EACH
                else _told(len(value), len(set(value)), floor) for value in values]
    else:
        told = list(map(_told, map(len, values), map(len, map(set, values)), repeat(floor)))
    if None in told:
        asked = [i for i, enough in enumerate(told) if enough is None]
        for i, bits in zip(asked, entropies([values[i] for i in asked]), strict=True):
            told[i] = not bits < floor
    return told  # type: ignore[return-value]  # each None was filled just above


def enough(floor: float, value: str) -> bool:
    """``not entropy(value) < floor``, told as :func:`at_least` tells each of its values: one
    value without the lists (a URL's user a URL, issue 23)."""
    if not _BOUNDED:
        return not entropy(value) < floor
    told = (_told_long(value, floor) if len(value) > _COUNT_EACH
            else _told(len(value), len(set(value)), floor))
    return not entropy(value) < floor if told is None else told


def _told_long(value: str, floor: float) -> bool | None:
    """:func:`_told` of a value longer than :data:`_COUNT_EACH`, or True where its parts hold
    the floor (:func:`_parts_hold`). Up to :data:`_COUNT_ABOVE` chars the parts are read
    first, each part's chars put in a set once: where they hold, the whole's set is never
    made (each of an FCM key's chars went into two sets, the whole's and its part's: a
    fifth of judging FCM keys glued end to end, issue 23), and where they do not, the
    whole's distinct chars are their sets' union. Parts that hold tell no more than the
    whole's bounds would: a whole of ``d`` distinct chars under ``2 ** floor`` has parts of
    at most ``d`` each, whose least is under the floor too."""
    n = len(value)
    if n > _COUNT_ABOVE:
        # A long run (a MB of one char) is told by one set: its parts would be a slice each.
        told = _told(n, len(set(value)), floor)
        return True if told is None and _parts_hold(value, floor) else told
    step = _COUNT_EACH
    sets = list(map(set, map(value.__getitem__, map(slice, range(0, n, step),
                                                        range(step, n + step, step)))))
    sizes = [step] * (len(sets) - 1) + [n - step * (len(sets) - 1)]
    if _held(sizes, sets) / n >= floor + _MARGIN:
        return True
    return _told(n, len(set().union(*sets)), floor)


def _held(sizes: list[int], sets: list[set[str]]) -> float:
    """The least bits the parts of ``sizes`` chars, ``sets`` their distinct chars, hold, each
    part's least times its length, summed in C (a call a part is the cache's)."""
    held: float = sum(map(mul, sizes, map(_least, sizes, map(len, sets))))
    return held


def _parts_hold(value: str, floor: float) -> bool:
    """Whether ``value`` holds ``floor`` bits a char by the least its parts of
    :data:`_COUNT_EACH` chars hold (:func:`_least`, their distinct chars alone): a text's
    distribution is the mix of its parts', and entropy is concave, so it holds at least their
    mean, weighted by length. A long random value (an FCM key of 140 chars and more, 44
    distinct) is told so with a set a part, where counting its chars (``Counter``, in C but
    a dict's update a char) was the most of judging FCM keys glued end to end (issue 23)."""
    step = _COUNT_EACH
    parts = [value[at:at + step] for at in range(0, len(value), step)]
    return _held(list(map(len, parts)), list(map(set, parts))) / len(value) >= floor + _MARGIN


@lru_cache(maxsize=1 << 12)
def _least(n: int, distinct: int) -> float:
    """The fewest bits a char any value of ``n`` chars, ``distinct`` of them different, holds:
    one char ``n - d + 1`` times and each other once."""
    rest = n - distinct + 1
    return -(rest / n * math.log2(rest / n)) + (distinct - 1) / n * math.log2(n)


#: Whether :func:`at_least` tells a value by its distinct chars (the tests turn it off to
#: compare with every value's entropy).
_BOUNDED = True
#: How far a bound must be from the floor to tell a value: a computed entropy may differ from
#: the true one in its last bits, never by this.
_MARGIN = 1e-9


@lru_cache(maxsize=1 << 12)
def _told(n: int, distinct: int, floor: float) -> bool | None:
    """Whether any value of ``n`` chars, ``distinct`` of them different, holds ``floor`` bits
    a char or more (True), none does (False), or that depends on its counts (None)."""
    if n == 0:
        return None  # entropy() says 0.0: asked, not told
    if math.log2(distinct) < floor - _MARGIN:
        return False  # d equal counts are the most a value of d chars holds
    rest = n - distinct + 1  # one char n - d + 1 times, each other once: the least
    least = -(rest / n * math.log2(rest / n)) + (distinct - 1) / n * math.log2(n)
    return True if least >= floor + _MARGIN else None


#: Values up to this long have their chars counted a distinct char at a time by
#: :func:`entropies`; a longer one's distinct chars would each read all of it.
_COUNT_EACH = 64


@lru_cache(maxsize=1 << 12)
def _term(count: int, n: int) -> float:
    return count / n * math.log2(count / n)


@lru_cache(maxsize=1 << 8)
def _terms(n: int) -> list[float]:
    """``_term(count, n)`` at index ``count``, for each count a value of ``n`` chars can hold."""
    return [0.0, *(count / n * math.log2(count / n) for count in range(1, n + 1))]


_COUNT_ABOVE = 512
_COUNT_CHARS = 96


def _jwt_header(token: str) -> bool:
    # Every JWT header is a JSON object naming its algorithm; a pagination cursor ("eyJ…" that
    # decodes to plain JSON) and random "eyJ…" runs are not.
    head = token.split(".", 1)[0]
    try:
        header = orjson.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and ("alg" in header or "typ" in header or "enc" in header)


def _basic_pair(value: str) -> bool:
    # "Basic authentication" is prose; a real Basic value decodes to "user:password". One
    # glued to the next header with no line break between (``…OA==Host:``: the padding ends
    # it; ``…OAHost:``: the run takes in the header's first word) is read without that word.
    if _decodes_to_pair(value):
        return True
    glued = _HEADER_WORD.search(value)
    return glued is not None and glued.start() > 0 and _decodes_to_pair(value[:glued.start()])


def _decodes_to_pair(value: str) -> bool:
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in text and text.isprintable()


#: A header name's first word at the end of a Basic value's run (``Host``, ``User``, ``X``).
_HEADER_WORD = lazy_compile(r"[A-Z][a-z]*\Z")


def _mixed(value: str) -> bool:
    # Generated keys mix cases and digits; "sk-learn-style-names" do not. An ASCII value is
    # tested in C (a digit, an upper and a lower ASCII letter are the only such ASCII chars):
    # a Python step a char was most of judging NDJSON lines that each hold a key (issue 23).
    if value.isascii():
        return not (_DIGITS.isdisjoint(value) or _UPPER.isdisjoint(value)
                    or _LOWER.isdisjoint(value))
    return (
        any(c.isdigit() for c in value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
    )


def _digit(value: str) -> bool:
    # "Bearer of bad news" has no digit; opaque tokens practically always carry one.
    if value.isascii():
        return not _DIGITS.isdisjoint(value)
    return any(c.isdigit() for c in value)


#: How long a run of letters alone is, and how many bits of entropy a char it holds or how
#: many times its case turns, where it looks generated: ``authheader.generated``'s length and
#: bits (``generic.opaque``'s, which asks a digit too); a word's case turns twice at most
#: (``SharedAccessSignature``), a random run's about once in four chars.
_LETTERS_LEAST = 16
_LETTERS_BITS = 3.0
_LETTERS_TURNS = 3
#: How much of a run of letters is judged: a token is shorter; a longer run is judged by its
#: head, which a generated run's is as well (a MB of letters judged whole cost 90 ms).
_LETTERS_JUDGED = 1024
#: A turn of case: a lower-case letter before a capital (no two of them share a char).
_TURN = lazy_compile(r"[a-z][A-Z]")


#: The fewest letters of a Bearer token of letters alone that is read shorter than
#: :data:`_LETTERS_LEAST`, or parted by ``-``, ``_`` or ``.``: both only where its case is
#: scattered as dice scatter it (:func:`scattered_case`). Shorter, a random run's case turns
#: too seldom to tell it from a name (``MyApiKey``).
_LETTERS_SHORTEST = 12
#: A word of a run of letters: a capital and small letters, or capitals alone.
_CASE_WORD = lazy_compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
#: How long a random run's words are on average at most (its capitals open one each, half
#: its chars: some 2); a person's camel case (``MyAccessToken``) is 3 or more.
_SCATTERED_WORD_CHARS = 3.0
_TOKEN_PARTINGS = str.maketrans("", "", "-_.")


def _bearer(value: str) -> bool:
    """A Bearer token: one of 16 chars or more with a digit (as :func:`_digit`), or a run of
    letters alone that looks generated (:func:`generated_letters`); or letters parted by
    ``-``, ``_`` or ``.`` (``kXvQ-mRtb_LpWz.NyHd``), or 12 to 15 of them
    (``kXvQmRtbLpWz``), whose case is scattered (:func:`scattered_case`).
    ``Bearer abcdefghijklmnop`` is a placeholder's, ``Bearer kXvQmRtbLpWzNyHd`` a token's,
    ``Bearer my-access-token`` and ``Bearer Authentication`` words'."""
    token = value.rstrip("=")
    if len(token) >= _LETTERS_LEAST and (_digit(token) or generated_letters(token)):
        return True
    letters = token.translate(_TOKEN_PARTINGS)
    return (len(letters) >= _LETTERS_SHORTEST and (letters != token or len(token) < _LETTERS_LEAST)
            and scattered_case(letters))


def scattered_case(letters: str) -> bool:
    """Whether ``letters`` (ASCII letters alone) scatter their case as a generator does: the
    case turning :data:`_LETTERS_TURNS` times or more, words shorter than
    :data:`_SCATTERED_WORD_CHARS` on average, and no placeholder. A run of one case, or a
    person's camel case, is not told from words so."""
    if not (letters.isascii() and letters.isalpha()):
        return False
    head = letters[:_LETTERS_JUDGED]
    if len(_TURN.findall(head)) < _LETTERS_TURNS:
        return False
    words = len(_CASE_WORD.findall(head))
    return words * _SCATTERED_WORD_CHARS > len(head) and not placeholder(head)


def generated_letters(value: str) -> bool:
    """Whether ``value``, ASCII letters alone, looks generated: as long as
    :data:`_LETTERS_LEAST`, high in entropy or its case turning often, and no placeholder
    (:func:`placeholders.placeholder`: an alphabet's or a keyboard row's run, a repeat, a word
    that says so), its first :data:`_LETTERS_JUDGED` letters judged. Its set tests first, in
    C: most values a Bearer rule meets hold a digit and never get here."""
    if len(value) < _LETTERS_LEAST or not (value.isascii() and value.isalpha()):
        return False
    head = value[:_LETTERS_JUDGED]
    # The turns first, in C: a random run of both cases has one in four chars, and its
    # entropy is not asked then.
    return (len(_TURN.findall(head)) >= _LETTERS_TURNS or entropy(head) >= _LETTERS_BITS
            ) and not placeholder(head)


_DIGITS = frozenset("0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


CHECKS: dict[str, Callable[[str], bool]] = {
    "jwt": _jwt_header, "basic": _basic_pair, "mixed": _mixed, "digit": _digit,
    "bearer": _bearer,
}
#: The checks told by a few set tests in C (an ASCII value's), cheaper than its entropy.
_TOLD_IN_C = frozenset({_mixed, _digit})


#: The table, beside this package's code (elision/data/).
TABLE = Path(__file__).resolve().parent.parent / "data" / "families.toml"
#: Part of the cache key: a change to what a kept table holds must not meet an older file.
_KEPT_FORM = b"families-v1\0"


def rows(toml: bytes) -> list[dict[str, Any]]:
    """The ``[[family]]`` rows of ``toml``, parsed, or read from the cache where this same
    table (by its SHA-256) was parsed before: parsing the TOML costs every command's start
    10-30 ms, reading its JSON well under one. A kept file that is torn, altered or foreign
    is not used (:mod:`elision._cache`), nor one that is not a list of tables."""

    def parse() -> list[dict[str, Any]]:
        import tomllib

        parsed: list[dict[str, Any]] = tomllib.loads(toml.decode("utf-8"))["family"]
        return parsed

    return kept_json("families", _KEPT_FORM + toml, parse, lambda parsed: parsed, _table)


def _table(kept: Any) -> list[dict[str, Any]]:
    if not (isinstance(kept, list) and all(isinstance(row, dict) for row in kept)):
        raise ValueError("not a list of tables")
    return kept


def _load() -> tuple[Family, ...]:
    loaded = [_row(entry) for entry in rows(TABLE.read_bytes())]
    # Broad rows (an "sk-" key of any vendor) are tried after the precise ones, so that on a
    # tie the precise name is the one a stub shows.
    return tuple(sorted(loaded, key=lambda f: f.broad))


def _row(entry: dict[str, Any]) -> Family:
    source = entry.get("pattern")
    if source is not None:
        source += "" if entry.get("open_end", False) else _TAIL
    check = entry.get("check")
    return _made(
        id=entry["id"],
        provider=entry["provider"],
        category=entry["category"],
        source=source,
        flags=re.DOTALL if entry.get("dotall") else 0,
        keywords=tuple(entry.get("keywords", ())),
        any_case=entry.get("any_case", False),
        entropy=entry.get("entropy"),
        check=None if check is None else CHECKS[check],
        shapes=tuple(entry["shapes"]),
        negatives=tuple(entry.get("negatives", ())),
        boundary=entry.get("boundary", True),
        broad=entry.get("broad", False),
        finder=entry.get("finder"),
        closing=tuple(entry.get("closing", ())),
    )


def _made(**fields: Any) -> Family:
    """The row ``Family(**fields)`` makes, made without its ``__init__``: a frozen
    dataclass's sets each field through ``object.__setattr__``, and for 225 rows that was
    about 7 M instructions of every start (issue 24). A test holds the two alike."""
    row = object.__new__(Family)
    vars(row).update(fields)
    return row


FAMILIES: tuple[Family, ...] = _load()
#: The families matched by their pattern (the rest have a ``finder``).
PATTERN_FAMILIES: tuple[Family, ...] = tuple(f for f in FAMILIES if f.source is not None)
BY_ID: dict[str, Family] = {f.id: f for f in FAMILIES}
#: The rows whose match spans lines (a private key's), looked for past a line by _key_before.
_SPANNING: tuple[Family, ...] = tuple(f for f in PATTERN_FAMILIES if f.closing)


def fill(shape: str, rng: random.Random) -> str:
    """A fresh fake credential of ``shape``: each placeholder filled from ``rng``."""

    def one(match: re.Match[str]) -> str:
        kind, size = match.group(1), match.group(2)
        if kind == "uuid":
            return "-".join(
                "".join(rng.choice(CLASSES["hex"]) for _ in range(n)) for n in (8, 4, 4, 4, 12)
            )
        if kind == "jwt":
            def part(data: bytes) -> str:
                return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

            claims = {"sub": "".join(rng.choice(CLASSES["alnum"]) for _ in range(12))}
            sig = "".join(rng.choice(CLASSES["b64url"]) for _ in range(43))
            return ".".join([part(b'{"alg":"HS256","typ":"JWT"}'), part(orjson.dumps(claims)), sig])
        if kind == "basicpair":
            pair = "user:" + "".join(rng.choice(CLASSES["alnum"]) for _ in range(12))
            return base64.b64encode(pair.encode()).decode()
        return _random_run(CLASSES[kind], int(size), rng)

    return _PLACEHOLDER.sub(one, shape)


def sample(family: Family, index: int = 0, seed: object = 0) -> tuple[str, tuple[str, ...]]:
    """A fake of ``family``'s shape ``index``, drawn from ``seed``, and the random values in it
    of eight chars or more: every one of them must be withheld wherever the fake is put."""
    import random  # only tests and benches draw fakes: not on a hook's start

    shape = family.shapes[index]
    rng = random.Random(f"{family.id}/{index}/{seed}")
    values: list[str] = []

    def one(match: re.Match[str]) -> str:
        value = fill(match.group(), rng)
        values.append(value)
        return value

    return _PLACEHOLDER.sub(one, shape), tuple(v for v in values if len(v) >= 8)


def _random_run(alphabet: str, size: int, rng: random.Random) -> str:
    chars = [rng.choice(alphabet) for _ in range(size)]
    # A run of a mixed class holds one of each kind it allows, as generated keys do (the
    # "mixed" check asks for it); the places are drawn too.
    kinds = [k for k in (str.isupper, str.islower, str.isdigit) if any(k(c) for c in alphabet)]
    if size >= 2 * len(kinds):
        places = rng.sample(range(size), len(kinds))
        for place, kind in zip(places, kinds, strict=True):
            chars[place] = rng.choice([c for c in alphabet if kind(c)])
    return "".join(chars)


def flat(shape: str) -> str:
    """``shape`` with every placeholder filled with one repeated char: a placeholder secret
    such as ``ghp_xxxx…``, which a family with an entropy floor must keep."""

    def one(match: re.Match[str]) -> str:
        kind, size = match.group(1), match.group(2)
        if kind in SPECIAL:
            return match.group()
        alphabet = CLASSES[kind]
        return ("x" if "x" in alphabet else alphabet[0]) * int(size)

    return _PLACEHOLDER.sub(one, shape)


def render(shape: str) -> str:
    """``shape`` as the docs show it: ``ghp_<alnum:36>``."""

    def one(match: re.Match[str]) -> str:
        kind, size = match.group(1), match.group(2)
        return f"<{kind}>" if size is None else f"<{kind}:{size}>"

    return _PLACEHOLDER.sub(one, shape)


def negatives(family: Family) -> tuple[str, ...]:
    """Near misses of ``family`` that must come out unchanged: its own, and with an entropy
    floor, each shape filled flat."""
    derived = tuple(flat(s) for s in family.shapes) if family.entropy is not None else ()
    return family.negatives + derived
