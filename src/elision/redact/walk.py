"""The walk over a parsed JSON value: iterative (10,000 levels deep is fine), never mutating.

Speed comes from not walking. The value is serialized once by orjson and searched once for
every trigger the pre-filter knows (:class:`Hits`, found by :mod:`elision.redact.triggers`).
A node's byte range in that serialization is known as the walk reaches it (orjson's compact
output is canonical, so a run of siblings serialized on its own is exactly the bytes it spans
in the whole), and a node or a run of siblings whose range holds no trigger is shared with the
input unchanged. A run reaches as far as the next trigger is likely to be (it gallops), so one
secret in a million rows costs a few serializations and a walk of one row.

A uri and an inline payload only matter together, in one object (an inline-with-uri lane), so
each uri key is paired with the payload keys of its own object by reading the serialization's
brackets around it; a uri in one record and a thumbnail in the next cost nothing.

A value orjson cannot serialize (nested deeper than it will go, say) is walked node by node
with the per-string pre-filter instead: slower, same result. An array of such values is
walked an element at a time, each by its own raw bytes (:mod:`elision.redact.repeats`).

Where the serialization is credential-dense (:func:`elision.redact.triggers.json_triggers`),
its dense ranges count as a trigger at every byte, and an array walked without offsets that
holds only scalars is judged by its distinct strings: what is withheld is what the walk of
every node withholds, at the same paths. An array whose every element holds a trigger and
whose elements are big (records, nested documents) is split into its elements' spans by one
pass over its bytes instead, so each keeps its offsets.

A container among siblings of :data:`SUBTREE_BYTES` or more whose bytes equal those of one
the walk already found clean is that subtree again and is shared unwalked (equal bytes parse
to equal values, which the walk treats alike): an array of the same deep, wide document, a
trigger in every copy that nothing withholds, was every node walked in every copy (80-170x
prose, issue 23). A trigger in a short key that names and holds nothing is left out before
the walk (:mod:`elision.redact.flagged`), and an array of one document written n times is
walked as that one (:mod:`elision.redact.uniform`).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate, filterfalse, islice, repeat
from operator import attrgetter, is_
from typing import Any

import orjson

from elision._lazyre import lazy_compile
from elision.envelope import format_path, spell_parts
from elision.redact import generic as _generic
from elision.redact.batch import (
    BATCH,
    judged_together,
    may_withhold,
    may_withhold_block,
    none_may_withhold,
)
from elision.redact.fields import unique_key, withhold_inside
from elision.redact.flagged import judged_flags, last_quote, next_quote
from elision.redact.foreign import JSON_TYPES, as_json, check_keys, members_as_json, plain
from elision.redact.generic import (
    JOIN_BLOCK,
    join_blocks,
    name_shape,
    name_strength,
    names_nothing,
    naming_block,
)
from elision.redact.kept import keep
from elision.redact.pairs import paired_value
from elision.redact.references import LANE_TYPES, govern_lane, lane_kind
from elision.redact.rules import Span, credential_stub, may_match_bytes, without_stubs
from elision.redact.scan import DENSE, dense_bytes, find_spans, redact_spans, stubbed
from elision.redact.secrets import CREDENTIAL_FIELDS, credential_pairs, is_credential_field
from elision.redact.triggers import holds_wide, json_triggers, orjson_slashes
from elision.withheld import PathEntries

CREDENTIAL_FIELD = "credential-field"
#: The fewest siblings serialized and looked up together; a run with no trigger is skipped
#: whole, and a run that has one is halved until it is pinned to its sibling.
RUN = 64
_PAYLOAD_MARKERS = (b'"blob"', b'"data"', b'"text"')
#: Member keys repeat across results ("id", "name"), so what the rules make of a short key is
#: kept for the process: the rules are fixed, so an answer never goes stale.
_KEY_CACHE_LIMIT = 4096
_KEY_CACHE_LONGEST = 128
_key_rule: dict[str, str | None] = {}

_RULE = attrgetter("rule")


def _whole_rule(text: str, spans: list[Span]) -> str | None:
    """The rule of ``spans`` when they are one span that is the whole ``text`` (not a dense
    stretch): the text is then that rule's stub (:func:`~elision.redact.scan.stubbed`)."""
    if len(spans) == 1 and (span := spans[0]).start == 0 and span.end == len(text):
        return None if span.rule == DENSE else span.rule
    return None

# A path is a linked list (parent, part) so a node 10,000 levels deep costs one tuple.
_Path = tuple[Any, Any] | None
#: How many paths a walk keeps spelled (:meth:`Walker._where`), and how many chars of them:
#: a document 9,000 deep keeps at most 1 M chars of its spine's paths, not each level's.
_SPELLED = 1024
_SPELLED_CHARS = 1 << 20
#: Every how many levels a path spelled from far up keeps its containers' paths too.
_MARKED = 32


def serialized(value: Any) -> bytes | None:
    """Compact JSON by orjson, or ``None`` when orjson cannot write ``value``."""
    try:
        return orjson.dumps(value, default=_fragment)
    except (orjson.JSONEncodeError, TypeError):
        return None  # too deep, a lone surrogate, or a foreign type: walk it instead


def _lazy(node: Any) -> bool:
    """Whether ``node`` is a lazy node (:mod:`elision.shape.lazyjson`): only the bottom of a
    deep spine (:mod:`elision.shape.lazyspine`) is one inside a parsed value; none exists
    before that module is imported."""
    lazyjson = sys.modules.get("elision.shape.lazyjson")
    return lazyjson is not None and bool(lazyjson.is_lazy(node))


def _materialized(node: dict[str, Any]) -> dict[str, Any]:
    from elision.shape.lazyjson import materialize

    return {key: materialize(value) for key, value in node.items()}


def walk_parsed(
    walker: Walker, value: Any, *, raw: bytes | None = None, path: _Path = None, first: int = 0,
    piece: bool = False, inert: bool = False, split: bool = True, patches: bool = False,
) -> Any:
    """``value`` redacted by ``walker`` (which collects what was withheld): serialized once
    and searched once, and returned as it is when the search finds nothing. ``raw``, when
    given, is the bytes ``value`` was parsed from: for a value too deep for orjson, one search
    of them can say there is nothing to find. ``path`` and ``first``: see :meth:`Walker.run`.
    A ``piece`` of a larger document keeps its credential-dense windows as ranges however few
    (:func:`~elision.redact.triggers.json_triggers`): searched whole again, each piece of
    ``["sk-", …]`` was searched twice and each of its triggers kept (8x the time). ``inert``:
    the caller found :func:`names_inert` of ``value`` (an object) true. ``split``: an array
    too deep for orjson, with its ``raw`` bytes, is walked an element at a time
    (:mod:`elision.redact.repeats`); an element is walked with ``split`` false. ``patches``:
    see :meth:`Walker.run` (a lazy array's piece, walked whole: not when split)."""
    if (raw is not None and split and not walker.foreign and REPEATS
            and isinstance(value, list) and len(value) > 1):
        # One document written n times: the walk of the first stands for all.
        from elision.redact.uniform import walk_uniform

        if walk_uniform(walker, value, raw, path=path, first=first, piece=piece) is value:
            return value
    if raw is not None and split and not walker.foreign and REPEATS and _repeated(value, raw):
        # Split by the bytes it was parsed from: no serialization of the whole is needed.
        from elision.redact.repeats import walk_elements

        got = walk_elements(walker, value, raw, path=path, first=first, piece=piece)
        if got is not None:
            return got
    data = serialized(value)
    hits = Hits(data, allowance=0 if piece else -1) if data is not None else None
    if hits is not None and not hits:
        return value
    # Too deep (or odd) for orjson, so every node would be walked: the raw bytes can still
    # say there is nothing to find. Not trusted when they spell characters as \u escapes,
    # which may hide a trigger from a byte search; read with each \/ written "/", as the
    # patterns read a serialization (orjson_slashes).
    if (data is None and raw is not None and b"\\u" not in raw
            and not may_need_redaction(orjson_slashes(raw))):
        return value
    if data is None and raw is not None and split and isinstance(value, list) and len(value) > 1:
        from elision.redact.repeats import walk_elements

        got = walk_elements(walker, value, raw, path=path, first=first, piece=piece)
        if got is not None:
            return got
    return walker.run(value, data, hits, path=path, first=first, inert=inert,
                      parsed=raw is not None, patches=patches)


#: Whether a moved object of scalars alone is judged with no frame (off: walked in a frame of
#: its own, as before; the tests' differential).
FLAT = True
#: The types of a member :meth:`Walker._enter` reads with no frame of its own: a string is
#: judged, the rest hold no text.
_FLAT = frozenset({str, int, float, bool, type(None)})
#: Whether an array of big documents whose first and last are equal is walked an element at a
#: time (off: the whole serialization searched once, as before; the tests' differential).
REPEATS = True
#: Whether a run of scalars' many flagged short strings are judged together where they can
#: be (:func:`~elision.redact.batch.judged_together`; off: each alone, the tests' differential).
TOGETHER = True
#: Whether an array of name/value records is walked a window of them at a time
#: (:meth:`Walker._pairs`; off: each record walked alone, as before; the tests' differential).
PAIRS = True
#: The most records of such an array told and judged together: what is held for them (the
#: strings told clean, the pairs' names and answers) is this many records', not the array's.
PAIR_WINDOW = 2048
#: The fewest bytes an element of such an array averages: each walked alone costs a
#: serialization and a search of its own (some 10-20 us), so smaller ones are searched whole.
REPEAT_BYTES = 4096


def _repeated(value: Any, raw: bytes) -> bool:
    """Whether ``value`` (parsed from ``raw``) is an array of big documents that repeat:
    its first and last elements serialize alike. Then each is searched alone and a copy of
    one walked clean is not searched at all (:func:`~elision.redact.repeats.walk_elements`):
    searched whole, every copy's triggers were a Python call each, though the walk then
    shared the copies unwalked (an array of one deep, wide document with a trigger in each of
    its 65 records: 11,600 calls, 15-19x prose, issue 23). Two small serializations ask."""
    if not isinstance(value, list) or not value or len(raw) < REPEAT_BYTES * len(value):
        return False
    head, tail = value[0], value[-1]
    if not (isinstance(head, dict | list) and isinstance(tail, dict | list)):
        return False
    first = serialized(head)  # None past orjson's depth: the caller splits such an array
    return first is not None and (head is tail or first == serialized(tail))


def _fragment(obj: Any) -> Any:
    raw = getattr(obj, "raw", None)
    if isinstance(raw, bytes):  # elision.shape.jsonparse.RawNumber, or anything shaped like it
        return orjson.Fragment(raw)
    raise TypeError


def _field_judge() -> Callable[[Any, Any], bool]:
    """:func:`is_credential_field` for the members of one big object, its answer for a string
    kept by the name's shape and the value (:func:`name_shape`: a name and its shape are
    judged alike), at most :data:`_KEY_CACHE_LIMIT` at a time: 50,000 keys ``password_N``
    over ``"x"`` were each judged afresh (2 us a key, most of their walk, issue 23)."""
    if not _generic.NAME_SHAPES:
        return is_credential_field
    answers: dict[tuple[str, str], bool] = {}

    def judge(name: Any, value: Any) -> bool:
        if type(name) is not str or type(value) is not str:
            return is_credential_field(name, value)
        key = (name_shape(without_stubs(name)), value)
        known = answers.get(key)
        if known is None:
            if len(answers) >= _KEY_CACHE_LIMIT:
                answers.clear()
            known = answers[key] = is_credential_field(name, value)
        return known

    return judge


def may_need_redaction(data: bytes) -> bool:
    """Whether JSON bytes (any spacing) might hold anything the redaction stage withholds."""
    return (
        may_match_bytes(data)
        or b'"disposition"' in data
        or (b'"uri"' in data and any(m in data for m in _PAYLOAD_MARKERS))
        or _FIELD_KEYS_LOOSE.search(data.lower()) is not None
        # A name spelled with a look-alike (elision.redact.folding), a full-width form or
        # an invisible char (elision.redact.compat).
        or holds_wide(data)
    )


# The same names in raw JSON of any spacing (only for a body too deep for orjson).
_FIELD_KEYS_LOOSE = lazy_compile(
    ('"(?:' + "|".join(re.escape(n) for n in sorted(CREDENTIAL_FIELDS)) + ')"').encode()
)


class Hits:
    """Where the triggers are in one serialization: credential triggers, dispositions, and
    lanes (a "uri" key whose object also has a payload key); and the credential-dense ranges,
    read as if they held a trigger at every byte (the search left their positions out)."""

    def __init__(self, data: bytes, *, allowance: int = -1) -> None:
        found = json_triggers(data, allowance=allowance)
        self.secrets = judged_flags(data, found.secrets)
        self.dispositions = found.dispositions
        self.lanes = _lanes(data, found.uris, found.payloads)
        #: All of them, in order: what the walk asks about most.
        self.all = sorted(self.secrets + self.dispositions + self.lanes)
        self._dense = found.dense
        #: Where each dense range ends, for a bisect (the ranges are sorted and never overlap).
        self._dense_ends = [b for _, b in found.dense]
        self._dense_starts = [a for a, _ in found.dense]
        self._dense_sums = [0, *accumulate(b - a for a, b in found.dense)]

    def __bool__(self) -> bool:
        return bool(self.all) or bool(self._dense)

    def _dense_from(self, start: int) -> int:
        """The first byte at or after ``start`` that a dense range holds."""
        i = bisect_left(self._dense_ends, start + 1)
        return max(start, self._dense[i][0]) if i < len(self._dense) else _NEVER

    def next_from(self, start: int) -> int:
        """The least ``end`` for which :meth:`any_in` of ``(start, end)`` could be true: a
        run of siblings that ends at or before it holds nothing to look at."""
        return min(_at_or_after(self.all, start), self._dense_from(start)) + 1

    def secret_in(self, start: int, end: int) -> bool:
        return _at_or_after(self.secrets, start) < end or self._dense_from(start) < end

    def any_in(self, start: int, end: int) -> bool:
        return _at_or_after(self.all, start) < end or self._dense_from(start) < end

    def dense(self, start: int, end: int, items: int) -> bool:
        """Whether ``start:end`` holds a trigger for every other one of its ``items`` or more
        (a trigger is kept once a string), or is half credential-dense, and they are more
        than a run."""
        if items <= RUN:
            return False
        ahead = bisect_left(self.all, end) - bisect_left(self.all, start)
        return 2 * ahead >= items or 2 * self._dense_bytes(start, end) >= end - start

    def _dense_bytes(self, start: int, end: int) -> int:
        """The bytes of ``start:end`` the dense ranges cover (by prefix sums: a frame asks
        once a run)."""
        ranges = self._dense
        i = bisect_left(self._dense_ends, start + 1)
        j = bisect_left(self._dense_starts, end)
        if i >= j:
            return 0
        total = self._dense_sums[j] - self._dense_sums[i]
        total -= max(0, start - ranges[i][0])
        total -= max(0, ranges[j - 1][1] - end)
        return total


def _lanes(data: bytes, uris: list[int], payloads: list[int]) -> list[int]:
    """The uri keys that may share an object with a payload key (each position is a key's
    ":"). A superset: a payload key in an object nested inside the uri's counts too.

    A lane needs both in one object; a uri in one record and a thumbnail's data in the next
    are not one, and counting them as one would make the walk narrow a run down to each.
    The reading is bounded as a whole (:data:`_PAIR_BUDGET`): past it, a uri counts as a lane.
    """
    if not uris or not payloads:
        return []
    reader = _Reader(data, max(_PAIR_BUDGET, len(data) // 512))
    lanes: list[int] = []
    for uri in uris:
        start, end = reader.start(uri), reader.end(uri)
        if data[max(0, start - len(_EMBEDDED)):start] == _EMBEDDED:
            # The embedded form: {"type": "resource", "resource": {"uri": …}} with the payload
            # beside "resource" is one lane too, so the record around it is looked at.
            start, end = reader.start(start), reader.end(end - 1)
        i = bisect_left(payloads, start)
        if i < len(payloads) and payloads[i] < end:
            lanes.append(uri)
    return lanes


_EMBEDDED = b'"resource":'
#: Strings and brackets the pairing of all uris of one document may step over: at least this
#: many, and one per 512 bytes (a few microseconds a step, so a fraction of a parse).
_PAIR_BUDGET = 1 << 10
_OPEN = frozenset(b"{[")
_BRACKETS = (b"{", b"}", b"[", b"]")


class _Reader:
    """Finds the object around a member key in compact JSON, reading strings whole.

    Compact JSON can be read backwards as well as forwards: every quote inside a string is
    escaped, so from a position outside any string the unescaped quotes pair up either way.
    Between two strings only brackets matter, found with ``bytes.find`` (memchr speed, so a
    long array of numbers is a few steps too). Each string or bracket is a step; when the
    steps run out, an object reaches as far as the document does (a superset).
    """

    def __init__(self, data: bytes, steps: int) -> None:
        self.data = data
        self.steps = steps

    def end(self, key: int) -> int:
        """Just past the object whose member key has its ":" at ``key``."""
        data, depth, pos = self.data, 0, key + 1
        while self.steps > 0:
            self.steps -= 1
            quote = next_quote(data, pos)
            stop = len(data) if quote < 0 else quote
            bracket = _first_bracket(data, pos, stop)
            if bracket >= 0:  # a bracket comes before the next string
                depth += 1 if data[bracket] in _OPEN else -1
                if depth < 0:
                    return bracket + 1
                pos = bracket + 1
                continue
            if quote < 0:
                break
            close = next_quote(data, quote + 1)
            if close < 0:
                break
            pos = close + 1
        return len(data)

    def start(self, key: int) -> int:
        """Where the object whose member key (or value) starts at ``key`` opens."""
        data, depth, pos = self.data, 0, key
        while self.steps > 0:
            self.steps -= 1
            quote = last_quote(data, pos)
            bracket = _last_bracket(data, quote + 1, pos)
            if bracket >= 0:  # a bracket comes after the string before
                depth += -1 if data[bracket] in _OPEN else 1
                if depth < 0:
                    return bracket
                pos = bracket
                continue
            if quote < 0:
                break
            opening = last_quote(data, quote)
            if opening < 0:
                break
            pos = opening
        return 0


def _first_bracket(data: bytes, lo: int, hi: int) -> int:
    if hi - lo <= _SHORT_GAP:  # between two strings there is usually just ":" or ","
        for i in range(lo, hi):
            if data[i] in _ANY_BRACKET:
                return i
        return -1
    found = [at for at in (data.find(b, lo, hi) for b in _BRACKETS) if at >= 0]
    return min(found) if found else -1


def _last_bracket(data: bytes, lo: int, hi: int) -> int:
    if hi - lo <= _SHORT_GAP:
        for i in range(hi - 1, lo - 1, -1):
            if data[i] in _ANY_BRACKET:
                return i
        return -1
    return max(data.rfind(b, lo, hi) for b in _BRACKETS)


_SHORT_GAP = 8
_ANY_BRACKET = frozenset(b"{}[]")


_NEVER = 1 << 62
#: The fewest bytes of a container, one of several siblings, that the walk looks up among the
#: subtrees it found clean (:attr:`Walker.clean_elements`): equal bytes parse to equal values,
#: which the walk treats alike (it reads no context but a node's own), so a copy of a clean
#: subtree is shared unwalked. A smaller one costs less to walk than its bytes to look up.
SUBTREE_BYTES = 256
#: Splits of one run guessed from a trigger's offset before the rest are halves.
_GUESSES = 4


def _key_rule_of(key: str) -> str | None:
    """The rule a member key is withheld under, or ``None`` (short keys' answers are kept)."""
    cache = _key_rule
    if key in cache:
        return cache[key]
    spans = find_spans(key)
    rule = spans[0].rule if spans else None
    if len(key) <= _KEY_CACHE_LONGEST:
        keep(cache, key, rule)
    return rule


def names_inert(node: dict[Any, Any]) -> bool:
    """Whether no key of ``node`` holds a secret or names a credential: then no member is
    withheld for its name (the walk of a document past orjson's depth asks this of every
    object, and a key's answer is kept for the process as a rule's is)."""
    cache = _key_inert
    if len(node) >= BATCH:
        # The keys the cache knows, told in C over the smaller of the two: a lookup a key,
        # for an answer known false and again for one known at all, was 0.85 ms a MB of
        # 60-char keys of ``A`` (a sixth of their redaction, issue 23), where the cache knew
        # the few that the trigger positions' filter asked (elision.redact.flagged).
        seen = node.keys() & cache.keys()
        if False in map(cache.get, seen):
            return False  # a key known to name something
        if len(node) - len(seen) >= BATCH:
            # Told together with the few known ones (inert: judged again, they are again);
            # a list, not ``node.keys() - cache.keys()``: a set of 14,000 keys is half a MB.
            return _fresh_inert(list(node) if len(seen) <= BATCH
                                else list(filterfalse(seen.__contains__, node)))
    for key in node:
        known = cache.get(key) if isinstance(key, str) else False
        if known is None:
            known = key_inert(key)
        if not known:
            return False
    return True


_key_inert: dict[str, bool] = {}


def key_inert(key: str) -> bool:
    """Whether the key ``key`` holds no secret and names no credential (kept when short)."""
    known = _key_inert.get(key)
    if known is None:
        known = (_key_rule_of(key) is None
                 and (names_nothing(key) or name_strength(without_stubs(key)) == 0))
        if len(key) <= _KEY_CACHE_LONGEST:
            keep(_key_inert, key, known)
    return known


def _fresh_inert(keys: list[Any]) -> bool:
    """Whether none of ``keys`` (new to the cache) holds a secret or names a credential,
    told for all at once: 13,000 keys of sixty ``A`` were each judged alone, a Python step
    a key, so the time grew with the share of keys the cache had not seen (issue 23). Only
    the keys the pass (:func:`elision.redact.batch.may_withhold`) or the names' search
    (:func:`elision.redact.generic.naming`) flag are judged alone. Nothing is kept: keys
    this many at once are a map's ids, never seen again, and the cache is bounded."""
    if not all(map(isinstance, keys, repeat(str))):
        return False
    # Each block (a Python step a key in C: 0.9 ms a MB of them) joined once for both
    # passes: joined for each, a MB of keys of ``A`` was copied twice. The answer is the
    # same whichever block or pass says no first.
    for lo, hi in join_blocks(keys, JOIN_BLOCK):
        block = keys if hi - lo == len(keys) else keys[lo:hi]
        joined = "\n".join(block)
        if any(_key_rule_of(block[i]) is not None for i in may_withhold_block(block, joined)):
            return False
        named = naming_block(block, joined)
        if len(named) > BATCH and "withheld: " not in joined:  # no stub in any (no "\n")
            # Each shape once (generic.name_shape), told of the block at once: 80,000 keys
            # ``key1_N`` were a name's judging each, 3.5x the code before the affixed names
            # through shape() (issue 23). A key that holds a line break splits apart.
            shapes = name_shape(joined).split("\n")
            if len(shapes) == len(block):
                if any(name_strength(shape) != 0 for shape in {shapes[i] for i in named}):
                    return False
                continue
        if any(name_strength(without_stubs(block[i])) != 0 for i in named):
            return False
    return True


def _at_or_after(positions: list[int], start: int) -> int:
    i = bisect_left(positions, start)
    return positions[i] if i < len(positions) else _NEVER


class _Frame:
    __slots__ = (
        "changed", "cursor", "end", "first", "index", "is_dict", "keys", "limit", "marks",
        "node", "out", "pairs", "patches", "path", "run_start", "size", "spans", "subtree",
    )

    def __init__(
        self, node: Any, path: _Path, start: int | None, end: int | None = None
    ) -> None:
        self.node = node
        self.path = path
        self.is_dict = isinstance(node, dict)
        self.keys: list[Any] = list(node) if self.is_dict else []
        self.size = len(node)
        self.index = 0
        #: Offset of the next run's first child (its key, in an object), when known.
        self.cursor = None if start is None else start + 1
        #: Offset of the closing bracket, when known: the last run ends there.
        self.end = None if start is None or end is None else end - 1
        #: Children before ``limit`` belong to the current run; with no offsets, one run of all.
        self.limit = self.size if start is None else 0
        #: For the current run: the value span of each child that needs a look.
        self.run_start = 0
        self.spans: dict[int, tuple[int, int]] | None = None
        self.out: list[Any] = []
        self.changed = False
        #: The path index of element 0 (a piece of a larger array starts further on).
        self.first = 0
        #: This node's bytes, when they may join the walker's clean subtrees once it is
        #: walked, and how many entries and references the walk had before it.
        self.subtree: bytes | None = None
        self.marks = (0, 0)
        #: An array of name/value records: walked a window of them at a time (Walker._pairs).
        self.pairs = False
        #: A lazy array's piece (Walker.run's ``patches``): a record whose pair value alone
        #: was made a stub is delivered as a shared ``lazyjson.Patch``, not a copy.
        self.patches = False


class Walker:
    """One walk: collects withheld entries and reference records as it goes."""

    def __init__(
        self, *, root: str = "$", server: str | None = None, foreign: bool = False
    ) -> None:
        self.root = root
        self.server = server
        #: The value may hold a Python caller's tuples, sets and mappings
        #: (:mod:`elision.redact.foreign`): each is read as the JSON it stands for.
        self.foreign = foreign
        #: Compact: an element's entry is its array's path and its index, no dict (issue 23).
        self.withheld = PathEntries()
        self.references: dict[str, dict[str, Any]] = {}
        self._hits: Hits | None = None
        self._data: bytes | None = None
        #: Short strings' redactions, by their text: an array of the same short string
        #: (``["sk-", "sk-", …]``) ran the rules once a string, 7 s a MB.
        #: An unchanged string is kept as ``None``: the string it is asked about is the answer.
        self._strings: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        #: Short strings judged together before their records were walked (:meth:`_prejudge`),
        #: in the same form: for this walk alone, unbounded (each is one of its strings).
        self._told: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        #: Short strings of such records that the same pass told hold nothing to withhold.
        self._clean: set[str] = set()
        #: The answer to a text that is one credential (its rule's stub), one a rule.
        self._wholes: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._base: _Path = None
        self._first = 0
        #: The paths spelled lately, by their node's id (:meth:`_where`), and their chars.
        self._spelled_paths: dict[int, tuple[tuple[Any, Any], str]] = {}
        self._spelled_chars = 0
        self._inert_root = False
        #: The bytes of too-deep array elements walked to no effect, and their total
        #: (:mod:`elision.redact.repeats`): an equal element is not walked again.
        self.clean_elements: set[bytes] = set()
        self.clean_bytes = 0
        #: Bytes the rest of this run may look up among the clean subtrees, and split into
        #: elements (:meth:`_elements`): bounded, so nested arrays do not each read them.
        self._lookups = 0
        self._splits = 0
        #: The ``lazyjson.Patch`` that makes a record's pair value a stub, by the stub and
        #: the value key (a few: ``pairs.PAIRS``' spellings).
        self._stub_patches: dict[str, dict[str, Any]] = {}

    def run(
        self, value: Any, data: bytes | None = None, hits: Hits | None = None, *,
        path: _Path = None, first: int = 0, inert: bool = False, parsed: bool = False,
        patches: bool = False,
    ) -> Any:
        """The redacted ``value``; ``data`` is its compact serialization, when there is one.

        ``path`` is where ``value`` lies in a larger document and, when ``value`` is a piece
        of a larger array, ``first`` is the index its element 0 has there
        (:mod:`elision.redact.lazywalk` walks a lazy document a piece at a time). ``inert``:
        the caller found :func:`names_inert` of ``value`` true (it is not asked again).
        ``parsed``: ``value`` was parsed from JSON, so it holds JSON's types alone.
        ``patches``: ``value`` is a piece of a lazy array (:mod:`elision.redact.lazywalk`),
        whose changed elements :meth:`~elision.shape.lazyjson.IndexChanges.add_piece` keeps:
        a name/value record of it whose pair value alone the walk made a stub
        (:meth:`_pairs`) is returned as a shared :class:`~elision.shape.lazyjson.Patch` of
        that member, not as a copy of the record (whose diff ``add_piece`` made again, a few
        allocations a record: 7-13% of a MB of pairs' ``shape()``)."""
        if data is not None and hits is None:
            hits = Hits(data)
        self._hits = hits if data is not None else None
        self._data = data
        self._base, self._first, self._inert_root = path, first, inert
        pending = object()
        stack: list[_Frame] = []
        span = (0, len(data)) if data is not None else None
        # Subtrees are looked up only in a value parsed from JSON (``parsed``): a caller's
        # Python value may hold a tuple or a dataclass, read as JSON's containers only as it
        # is walked (:mod:`elision.redact.foreign`), not as the bytes orjson wrote for it.
        # The bytes looked up are bounded by the document's, so a tree of many siblings at
        # every level does not read its bytes once a level.
        self._lookups = 2 * len(data) if data is not None and parsed else 0
        self._splits = 2 * len(data) if data is not None else 0
        result = self._enter(value, path, span, stack, pending)
        if patches and stack and stack[0].node is value and not stack[0].is_dict:
            stack[0].patches = True
        while stack:
            frame = stack[-1]
            if frame.index >= frame.size:
                stack.pop()
                done = self._finish(frame)
                if frame.subtree is not None and done is frame.node:
                    self._remember(frame)
                if not stack:
                    return done
                self._deliver(stack[-1], done, done is not frame.node)
                continue
            if frame.index >= frame.limit:
                self._next_run(frame)
                continue
            if frame.pairs and self._pairs(frame):
                continue
            child_span = None
            if frame.spans is not None:
                child_span = frame.spans.get(frame.index - frame.run_start)
                if child_span is None:
                    self._copy_clean(frame)
                    continue
            key = frame.keys[frame.index] if frame.is_dict else frame.index
            child = frame.node[key]
            part = key if frame.is_dict else key + frame.first
            subtree = None
            if (child_span is not None and frame.size > 1
                    and child_span[1] - child_span[0] >= SUBTREE_BYTES
                    and self._lookups > 0 and isinstance(child, dict | list)):
                # One of many siblings, and big: the copy of one walked clean is clean.
                assert data is not None
                subtree = data[child_span[0]:child_span[1]]
                self._lookups -= len(subtree)
                if subtree in self.clean_elements:
                    self._deliver(frame, child, False)
                    continue
            got = self._enter(child, (frame.path, part), child_span, stack, pending)
            if got is not pending:
                self._deliver(frame, got, got is not child)
            elif subtree is not None and stack[-1].node is child:
                stack[-1].subtree = subtree
                stack[-1].marks = (len(self.withheld), len(self.references))
        return result

    def _remember(self, frame: _Frame) -> None:
        """Keep ``frame``'s bytes as a clean subtree when its walk withheld nothing (within
        :data:`~elision.redact.repeats.REMEMBER_BYTES` for the whole walk)."""
        from elision.redact.repeats import REMEMBER_BYTES  # msgspec: not on a hook's path

        subtree = frame.subtree
        assert subtree is not None
        if (frame.marks == (len(self.withheld), len(self.references))
                and self.clean_bytes + len(subtree) <= REMEMBER_BYTES):
            self.clean_elements.add(subtree)
            self.clean_bytes += len(subtree)

    def _next_run(self, frame: _Frame) -> None:
        """Find which of the next run of siblings hold a trigger, by splitting the run.

        A run whose bytes hold no trigger costs one serialization; one that does is split
        until each trigger is pinned to its sibling (:meth:`_pin`), so a flagged run costs a
        few serializations rather than one per sibling.
        """
        assert frame.cursor is not None
        assert self._hits is not None
        spans: dict[int, tuple[int, int]] = {}
        if frame.end is not None and not self._hits.any_in(frame.cursor, frame.end):
            # Nothing ahead holds a trigger: the rest is shared without serializing it.
            frame.run_start, frame.limit, frame.spans = frame.index, frame.size, spans
            return
        if frame.end is not None and self._hits.dense(
            frame.cursor, frame.end, frame.size - frame.index
        ):
            # Nearly every item holds a trigger (an array of many tiny strings that each hold
            # "sk-", an object whose keys each hold one): pinning each costs more than
            # walking them all without offsets.
            if not frame.is_dict and self._quiet(frame.cursor, frame.end):
                # Only scalars, none of whose strings the judge could change: the bytes
                # said so, so no set of them is built and none is judged.
                if frame.changed:
                    frame.out.extend(frame.node[frame.index:])
                frame.index = frame.limit = frame.size
                return
            if not frame.is_dict and isinstance(frame.node[frame.index], dict | list):
                # Records or nested arrays, each with a trigger: one pass over the bytes
                # tells where each element is, so each is walked with offsets (and a copy
                # of one walked clean is not walked).
                split = self._elements(frame.cursor, frame.end, frame.size - frame.index)
                if split is not None:
                    frame.run_start, frame.limit, frame.spans = frame.index, frame.size, split
                    frame.cursor = frame.end + 1
                    return
            frame.cursor, frame.spans, frame.limit = None, None, frame.size
            self._scalars(frame)
            return
        # Gallop: siblings that end before the next trigger are clean, so a run can reach as
        # far as the bytes per sibling so far say they do, and one serialization skips them.
        size = RUN
        if frame.end is not None and frame.size > frame.index:
            per = max(1, (frame.end - frame.cursor) // (frame.size - frame.index))
            size = max(RUN, (self._hits.next_from(frame.cursor) - frame.cursor) * 7 // (8 * per))
        stop = min(frame.index + size, frame.size)
        # The last run ends at the closing bracket: no serialization needed to know where.
        known = frame.end if stop == frame.size else None
        end = self._pin(frame, frame.index, stop, frame.cursor, spans, known)
        if end is None:  # cannot happen once the whole serialized; stay safe regardless
            frame.cursor, frame.spans, frame.limit = None, None, frame.size
            return
        frame.run_start, frame.limit = frame.index, stop
        frame.spans = spans
        frame.cursor = end + 1  # past the comma

    def _pin(
        self,
        frame: _Frame,
        lo: int,
        hi: int,
        begin: int,
        spans: dict[int, tuple[int, int]],
        end: int | None = None,
        depth: int = 0,
    ) -> int | None:
        """Put the value span of every flagged sibling in ``lo:hi`` into ``spans`` (keyed by
        offset from the run's start) and return where the slice ends.

        ``end``, when the caller knows it, spares the serialization: a split slice
        serializes only its left part, since the right part ends where the whole did.
        """
        hits = self._hits
        assert hits is not None
        if end is None:
            if frame.is_dict:
                keys = frame.keys[lo:hi]
                data = serialized({k: frame.node[k] for k in keys})
            else:
                data = serialized(frame.node[lo:hi])
            if data is None:
                return None
            end = begin + len(data) - 2  # without the brackets
        if not hits.any_in(begin, end):
            return end
        if hi - lo == 1:
            start = begin + (len(orjson.dumps(frame.keys[lo])) + 1 if frame.is_dict else 0)
            spans[lo - frame.index] = (start, end)
            return end
        if depth < _GUESSES:
            # Split where the first trigger is likely to be, by its offset: siblings of similar
            # size (records) put it within one or two, so it is pinned in a few
            # serializations. Siblings of very unequal size can make a guess shave off one
            # sibling at a time, so after a few guesses a slice is halved.
            first = hits.next_from(begin) - 1
            mid = lo + (first - begin) * (hi - lo) // max(1, end - begin)
            mid = min(max(mid, lo + 1), hi - 1)
        else:
            mid = (lo + hi) // 2
        left = self._pin(frame, lo, mid, begin, spans, None, depth + 1)
        if left is None:
            return None
        return self._pin(frame, mid, hi, left + 1, spans, end, depth + 1)

    def _elements(self, start: int, end: int, count: int) -> dict[int, tuple[int, int]] | None:
        """The span of each of the ``count`` array elements that ``start:end`` of the
        serialization holds (keyed by their order), read in one pass; ``None`` when they are
        small (:data:`SUBTREE_BYTES` on average: no copy of one is looked up, and the spans
        would hold more than the elements), when the pass cannot be afforded
        (:attr:`_splits`), or when it does not split them so."""
        data = self._data
        if data is None or self._splits < end - start or end - start < count * SUBTREE_BYTES:
            return None  # small elements: walked without offsets, as they cost less so
        import msgspec  # not on a hook's path (issue 24)

        from elision.redact.repeats import _ELEMENTS
        self._splits -= end - start
        whole = data[start - 1:start] == b"["  # the array's own bytes: read in place
        try:
            parts = _ELEMENTS.decode(memoryview(data)[start - 1:end + 1] if whole
                                     else b"[" + data[start:end] + b"]")
        except (msgspec.DecodeError, RecursionError):
            return None
        if len(parts) != count:
            return None
        spans: dict[int, tuple[int, int]] = {}
        at = start
        for i, part in enumerate(parts):
            spans[i] = (at, at + len(part))
            at += len(part) + 1  # compact JSON: one comma between two elements
        return spans if at - 1 == end else None

    def _quiet(self, start: int, end: int) -> bool:
        """Whether ``start:end`` of the serialization holds only scalars (no bracket, not even
        in a string) and none of its strings could be withheld
        (:func:`~elision.redact.batch.none_may_withhold`)."""
        data = self._data
        return (data is not None and data.find(b"{", start, end) < 0
                and data.find(b"[", start, end) < 0 and none_may_withhold(data, start, end))

    @staticmethod
    def _copy_clean(frame: _Frame) -> None:
        """Copy the siblings up to the next flagged one (or the run's end) as they are."""
        assert frame.spans is not None
        ahead = [frame.run_start + i for i in frame.spans if frame.run_start + i > frame.index]
        stop = min(ahead, default=frame.limit)
        if frame.is_dict:
            frame.out.extend(frame.node[k] for k in frame.keys[frame.index:stop])
        else:
            frame.out.extend(frame.node[frame.index:stop])
        frame.index = stop

    @staticmethod
    def _deliver(frame: _Frame, value: Any, changed: bool) -> None:
        frame.out.append(value)
        frame.changed = frame.changed or changed
        frame.index += 1

    @staticmethod
    def _finish(frame: _Frame) -> Any:
        if not frame.changed:
            return frame.node
        if frame.is_dict:
            return dict(zip(frame.keys, frame.out, strict=True))
        return frame.out

    def _enter(
        self,
        node: Any,
        path: _Path,
        span: tuple[int, int] | None,
        stack: list[_Frame],
        pending: object,
    ) -> Any:
        hits = self._hits
        if span is not None and hits is not None and not hits.any_in(*span):
            return node
        if type(node) not in JSON_TYPES and _lazy(node):  # a JSON type's node is none: no call
            # The bottom of a deep spine (elision.shape.lazyspine): walked a piece at a time.
            from elision.redact.lazywalk import redact_lazy

            return redact_lazy(node, self, path)
        if self.foreign and type(node) not in JSON_TYPES:
            node = as_json(node)
        if isinstance(node, str):
            if span is not None and hits is not None and not hits.secret_in(*span):
                return node
            return self._string(node, path)
        if isinstance(node, dict):
            moved, given = False, node
            if self.foreign:
                check_keys(node, lambda: self._where(path, ()))
            if not (self._inert_root and path is self._base) and not names_inert(node):
                if len(node) == 1 and _lazy(next(iter(node.values()))):
                    # A key that may withhold or govern its value reads it whole.
                    node = _materialized(node)
                if self.foreign:
                    # What a name withholds is read in its member as JSON (a tuple under
                    # "password"); a tuple writes as the array it stands for: the spans hold.
                    node = members_as_json(node)
                node, moved = self._named(node, path)
            paired = paired_value(node)
            if paired is not None:
                withheld = self._paired(node, path, *paired)
                if withheld is not None:
                    node, moved = withheld, True
            if lane_kind(node) in LANE_TYPES or "disposition" in node:
                outcome = govern_lane(node, server=self.server)
                if outcome is not None:
                    for rel, reason, stub_id in outcome.withheld:
                        self._entry(path, rel, reason, stub_id)
                    self.references.update(outcome.references)
                    node, moved = outcome.record, True
            if moved:
                if FLAT and not self.foreign and all(type(v) in _FLAT for v in node.values()):
                    # Scalars alone (a name/value pair): each member judged here as its
                    # frame's walk would judge it, with no frame (a third of a pair's walk),
                    # and the copy the stubs made is the answer when nothing more changed.
                    judged = [self._string(v, (path, key)) if type(v) is str else v
                              for key, v in node.items()]
                    if node is not given and all(map(is_, judged, node.values())):
                        return node
                    return dict(zip(node, judged, strict=True))
                # Stubs moved the bytes, so this object is walked without offsets.
                frame = _Frame(node, path, None)
                frame.changed = True
                stack.append(frame)
                return pending
            if node:
                stack.append(_Frame(node, path, *(span or (None, None))))
                return pending
            return node
        if isinstance(node, list) and node:
            frame = _Frame(node, path, *(span or (None, None)))
            if path is self._base:
                frame.first = self._first
            # A list of lists (a document nested past orjson's depth) is not asked: a call
            # a level was a fifth of its walk.
            if (frame.cursor is None and not isinstance(node[0], dict | list)
                    and self._scalars(frame)):
                return self._finish(frame)
            stack.append(frame)
            return pending
        # Numbers, booleans and null hold no text any rule could match.
        return node

    def _named(self, node: dict[str, Any], path: _Path) -> tuple[dict[str, Any], bool]:
        """``node`` with what its keys and names withhold withheld, and whether it moved."""
        moved = False
        names = list(node)
        if self._bad_key(node):
            # The secret in a key becomes its stub, in the key: the member's value and its
            # siblings stay (and are walked like any other).
            node = self._rekeyed(node, path)
            moved = True
        # A member is judged by the name it came with: a stub's own words ("credential
        # withheld") must not make a harmless value look like one. A key that is itself a
        # secret names nothing: a PEM block's "PRIVATE KEY" armour says what the key is,
        # not what its value is.
        judge = _field_judge() if len(names) >= BATCH else is_credential_field
        fields = [shown for name, (shown, v) in zip(names, node.items(), strict=True)
                  if judge(name, v)
                  and not (moved and isinstance(name, str) and _key_rule_of(name))]
        if fields:
            node = {**node, **{k: credential_stub(CREDENTIAL_FIELD) for k in fields}}
            for k in fields:
                self._entry(path, (k,), CREDENTIAL_FIELD, None)
            moved = True
        # An object or array under a credential name: every scalar in it that could be
        # the secret (terraform's {"value": …, "sensitive": true}, a list of passwords).
        inside: dict[Any, Any] = {}
        for name, (shown, v) in zip(names, node.items(), strict=True):
            if isinstance(v, dict | list) and isinstance(name, str) and not (
                moved and _key_rule_of(name)
            ):
                new, rels = withhold_inside(
                    without_stubs(name), v, credential_stub(CREDENTIAL_FIELD))
                if rels:
                    inside[shown] = new
                    for rel in rels:
                        self._entry(path, (shown, *rel), CREDENTIAL_FIELD, None)
        if inside:
            node = {**node, **inside}
            moved = True
        return node, moved

    def _paired(
        self, node: dict[Any, Any], path: _Path, value_key: str, name: str,
    ) -> dict[Any, Any] | None:
        """``node`` with the value of its name/value pair (:mod:`elision.redact.pairs`)
        withheld as the value of a member so named would be, or ``None`` when it is not."""
        value = node[value_key]
        if isinstance(value, dict | list):
            new, rels = withhold_inside(name, value, credential_stub(CREDENTIAL_FIELD))
            if not rels:
                return None
            for rel in rels:
                self._entry(path, (value_key, *rel), CREDENTIAL_FIELD, None)
        elif is_credential_field(name, value):
            new = credential_stub(CREDENTIAL_FIELD)
            self._entry(path, (value_key,), CREDENTIAL_FIELD, None)
        else:
            return None
        return {**node, value_key: new}

    def _scalars(self, frame: _Frame) -> bool:
        """Walk the rest of an array, or of an object's members, without offsets at once when
        it holds only scalars: each distinct string is judged once, and the items pass in C
        unless one changes.

        An array of 175,000 strings that each hold "sk-" was a Python step an item (0.15 s
        a MB, and a copy of the array); so was an object of 13,000 keys of ``A`` whose
        members are numbers. The same strings, judged in the same order, give the same
        entries at the same paths as the walk of every item does."""
        node, start = frame.node, frame.index
        if frame.is_dict:
            rest = list(islice(node.values(), start, None))
        else:
            rest = node[start:] if start else node
        if isinstance(rest[0], dict | list) or _lazy(rest[0]):
            if TOGETHER and isinstance(rest[0], dict):
                if (PAIRS and not self.foreign and not frame.is_dict
                        and paired_value(rest[0]) is not None):
                    frame.pairs = True  # their strings are told a window at a time
                else:
                    self._prejudge(rest)
            return False  # a record array, or a list nested in a list: walked as before
        try:
            distinct = set(rest)  # an object or an array in it is unhashable: walked as before
        except TypeError:
            return False
        if self.foreign and not plain(distinct):
            return False  # a tuple or a frozenset among them: each is read as a list
        # Each flagged string's answer is held here for the loop below: the walker's cache
        # keeps only :data:`_KEY_CACHE_LIMIT` of them, so past that each string was judged
        # twice, here and again as it was delivered (24,000 distinct tokens: 2x, and a time
        # exponent of 1.2).
        dirty: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        flagged = self._may_change(distinct)
        del distinct  # a set of 24,000 tokens is twice the input: not held beside the entries
        short = [text for text in flagged if len(text) <= _KEY_CACHE_LONGEST]
        dirty.update(dict.fromkeys(  # judged as each is delivered: a long answer is not held
            [text for text in flagged if len(text) > _KEY_CACHE_LONGEST]))
        del flagged
        # A token that is one credential is its rule's stub: its answer is one pair for all
        # of them (24,000 pairs and rules' tuples were 2x the input, issue 23).
        shared: dict[str, tuple[str, tuple[str, ...]]] = {}
        # Many flagged strings (distinct tokens) are told together where they can be.
        blocks = (judged_together(short) if TOGETHER and len(short) >= BATCH
                  else iter([(0, len(short), None)]))
        for lo, hi, told in blocks:
            for i in range(lo, hi):
                text = short[i]
                if told is None:
                    # Not kept past this frame where the block is many strings, as a block
                    # told together is not: under the regex engine no block is told, and
                    # the cache's 4,096 distinct tokens (each string, its answer's pairs and
                    # the dict) were 3.4x an array of 256 KB of them at its peak.
                    (new, rules), _ = self._judge(text, keep=len(short) < BATCH)
                elif i in told:
                    spans = told[i]
                    if (len(spans) == 1 and (span := spans[0]).start == 0
                            and span.end == len(text) and span.rule != DENSE):
                        # The text is its rule's stub (stubbed), one pair for all such.
                        # (Not _whole_rule: a call a token here, where a block is told.)
                        dirty[text] = shared.get(span.rule) or shared.setdefault(
                            span.rule, (stubbed(text, spans), (span.rule,)))
                        continue
                    new, rules = stubbed(text, spans), tuple(dict.fromkeys(map(_RULE, spans)))
                else:
                    continue  # told: nothing in it
                if new is not text or rules:
                    dirty[text] = (new, rules)
        if not dirty:
            if frame.changed:
                frame.out.extend(rest)
            frame.index = frame.size
            return True
        self._deliver_scalars(frame, rest, start, dirty)
        return True

    def _deliver_scalars(
        self, frame: _Frame, rest: list[Any], start: int,
        dirty: dict[str, tuple[str, tuple[str, ...]] | None],
    ) -> None:
        """Deliver ``rest`` (``frame``'s scalars from ``start`` on), each string of ``dirty``
        as its answer, with its entries: the path above them written once, each entry's
        path that and its own part (a call a part of :meth:`_string`, :meth:`_entry`,
        :meth:`_where` and :meth:`_deliver` a token was a third of redacting 24,000 distinct
        tokens, issue 23). The entries are :meth:`_string`'s, in the same order."""
        path, out, withheld = frame.path, frame.out, self.withheld
        above = self._where(path, ())
        keys = frame.keys if frame.is_dict else None
        changed = frame.changed
        # An element's entries: its index and rule, added to the walk's in one call a run.
        indexes: list[int] = []
        reasons: list[str] = []
        for i, item in enumerate(rest, start):
            if not (isinstance(item, str) and item in dirty):
                out.append(item)
                continue
            known = dirty[item]
            if known is None:  # a long string: judged as it is delivered
                part = keys[i] if keys is not None else i + frame.first
                if indexes:  # the entries stay in the order they were made
                    withheld.add_run(above, indexes, reasons)
                    indexes, reasons = [], []
                new = self._string(item, (path, part))
            else:
                new, rules = known
                if rules and keys is None:
                    for rule in rules:
                        indexes.append(i + frame.first)
                        reasons.append(rule)
                elif rules and keys is not None:
                    where = format_path((keys[i],), root=above)
                    for rule in rules:
                        withheld.append({"path": where, "reason": rule})
            out.append(new)
            changed = changed or new is not item
        if indexes:
            withheld.add_run(above, indexes, reasons)
        frame.changed = changed
        frame.index = start + len(rest)

    def _pairs(self, frame: _Frame) -> bool:
        """Walk the next run of name/value records of ``frame`` (an array, walked without
        offsets), up to :data:`PAIR_WINDOW` of them, as :meth:`_enter` walks each; ``False``
        when the next element is no such record (it is walked as any other, and the rest's
        strings are told together as :meth:`_prejudge` tells them).

        A record here is a pair (:func:`paired_value`) of scalars whose keys name nothing
        and mark no lane. Its strings are told together a window at a time (the set of
        those told clean, held for the whole walk, was 2x the body of a MB of pairs), its
        pair judged with the window's (:func:`credential_pairs`), and a string the pass told
        clean is not asked about: a Python step or two a pair, where each was walked as a
        moved object (5 us) and judged alone (7 us, issue 23)."""
        node, start = frame.node, frame.index
        batch: list[tuple[str, str]] = []
        keys: Any = None
        for record in islice(node, start, min(frame.size, start + PAIR_WINDOW)):
            if type(record) is not dict or "type" in record or "disposition" in record:
                break
            paired = paired_value(record)
            if paired is None or not _FLAT.issuperset(map(type, record.values())):
                break
            if record.keys() != keys:
                if not names_inert(record):
                    break
                keys = record.keys()
            batch.append(paired)
        if not batch:
            frame.pairs = False
            self._prejudge(node[start:])
            return False
        records = node[start:start + len(batch)]
        told: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        clean = self._prejudge(records, told)
        fresh = [text for text in told if text not in self._told]
        self._told.update(told)
        del told
        verdicts = credential_pairs(
            [name for _, name in batch],
            [record[key] for record, (key, _) in zip(records, batch, strict=True)])
        stub = credential_stub(CREDENTIAL_FIELD)
        (new, rules), spans = self._judge(stub)
        if new is stub and not rules and spans is None:
            clean.add(stub)  # a stub holds nothing more to withhold
        path, out = frame.path, frame.out
        above = self._where(path, ())
        tails: dict[str, str] = {}
        changed = frame.changed
        at = start + frame.first
        patches = self._stub_patches.setdefault(stub, {}) if frame.patches else None
        # A stubbed record none of whose strings is asked about: its patch, with no copy.
        quick = patches is not None and stub in clean
        # The stubbed values' entries, a run a value key at a time (an entry a call was a
        # tenth of a MB of pairs): added before any a string's judging adds, in their order.
        run: list[int] = []
        run_key = ""
        for record, (key, _), hit in zip(records, batch, verdicts, strict=True):
            given = record
            if hit:
                if key != run_key and run:
                    self._add_pairs(above, run, tails[run_key])
                    run = []
                if key not in tails:
                    tails[key] = "".join(spell_parts((key,)))
                run_key = key
                run.append(at)
                if quick and clean.issuperset(record.values()):
                    assert patches is not None
                    out.append(patches.get(key) or self._stub_patch(patches, key, stub))
                    changed = True
                    at += 1
                    continue
                record = {**record, key: stub}
            judged: list[Any] | None = None
            # Scalars all (hashable): a record whose strings were all told clean, told in C.
            for member, (name, value) in (() if clean.issuperset(record.values())
                                          else enumerate(record.items())):
                if type(value) is str and value not in clean:
                    if run:
                        self._add_pairs(above, run, tails[run_key])
                        run = []
                    new = self._string(value, ((path, at), name))
                    if new is not value:
                        if judged is None:
                            judged = list(record.values())
                        judged[member] = new
            if judged is not None:
                record = dict(zip(record, judged, strict=True))
            elif hit and patches is not None:
                record = patches.get(key) or self._stub_patch(patches, key, stub)
            out.append(record)
            changed = changed or record is not given
            at += 1
        if run:
            self._add_pairs(above, run, tails[run_key])
        for text in fresh:
            self._told.pop(text, None)
        frame.changed = changed
        frame.index = start + len(batch)
        return True

    @staticmethod
    def _stub_patch(patches: dict[str, Any], key: str, stub: str) -> Any:
        """The patch that makes a record's ``key`` member ``stub``, kept in ``patches``."""
        from elision.shape.lazyjson import Patch  # loaded: a lazy read's walk asks

        patch = patches[key] = Patch(((key, stub),))
        return patch

    def _add_pairs(self, above: str, indexes: list[int], tail: str) -> None:
        """The entries of a run of records' pair values made stubs (``tail``: their key)."""
        self.withheld.add_run(above, indexes, [CREDENTIAL_FIELD] * len(indexes), tail)

    def _prejudge(
        self, records: list[Any],
        told: dict[str, tuple[str | None, tuple[str, ...]]] | None = None,
    ) -> set[str]:
        """Judge together the short strings that ``records`` (an array of objects walked
        without offsets, each holding a trigger) hold as members, where they can be
        (:func:`~elision.redact.batch.judged_together`), and keep the answers for this walk
        (in ``told``, when given: the caller's for a window of records): the walk of each
        record then finds its strings judged (16,000 records with a token each were a
        judgement a token, 36 us). The strings told clean are returned, and kept for this
        walk unless ``told`` is given."""
        texts = {value for record in records if isinstance(record, dict)
                 for value in record.values()
                 if isinstance(value, str) and len(value) <= _KEY_CACHE_LONGEST}
        flagged = self._may_change(texts)
        if len(texts) >= BATCH:
            # The pass told the rest clean: each was judged alone as its record was walked,
            # though nothing in it could change (a pair's name, "DB_PASSWORD_7": 12 us each,
            # a third of a document of pairs, issue 23).
            texts.difference_update(flagged)
            if told is None:
                self._clean.update(texts)
        else:
            texts = set()
        if told is None:
            told = self._told
        if len(flagged) < BATCH:
            return texts
        # A token that is one credential is its rule's stub: one answer pair for all such.
        shared: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        for lo, hi, found in judged_together(flagged):
            if found is None:
                continue  # its records' strings are judged alone as they are walked
            for i in range(lo, hi):
                text = flagged[i]
                spans = found.get(i, [])
                if (len(spans) == 1 and (span := spans[0]).start == 0
                        and span.end == len(text) and span.rule != DENSE):
                    told[text] = shared.get(span.rule) or shared.setdefault(
                        span.rule, (stubbed(text, spans), (span.rule,)))
                    continue
                new = stubbed(text, spans)
                told[text] = (None if new is text else new,
                              tuple(dict.fromkeys(map(_RULE, spans))))
        return texts

    def _may_change(self, distinct: set[Any]) -> list[str]:
        """The strings of ``distinct`` that the judge could change, told apart in one pass
        when they are many (:func:`elision.redact.batch.may_withhold`): the flagged ones are
        then judged alone, so ``["sk-0", "sk-1", …]`` is not a judgement a string."""
        # The kinds first, in C: an object of 13,000 number members was an isinstance a member
        # (0.5 ms a MB, issue 23), and strings alone need no step each either.
        kinds = set(map(type, distinct))
        if kinds == {str}:
            texts = list(distinct)
        elif any(issubclass(kind, str) for kind in kinds):
            texts = [text for text in distinct if isinstance(text, str)]
        else:
            return []
        if len(texts) < BATCH:
            return texts
        return [texts[i] for i in may_withhold(texts)]

    def _judge(
        self, text: str, *, keep: bool = True,
    ) -> tuple[tuple[str, tuple[str, ...]], list[Span] | None]:
        """``text`` redacted and the rules that withheld in it, kept for a short string unless
        not ``keep``; and the spans, when the answer was not kept (a long string's dense
        stretches). A text that is one credential is answered by its rule's one pair."""
        known = self._strings.get(text)
        if known is None:
            known = self._told.get(text)
            if known is None and text in self._clean:
                return (text, ()), None
        if known is not None:
            # An equal string is not the same object: handing back the first one made each
            # container above it look changed, and the walk rebuilt the whole document.
            kept, rules = known
            return (text if kept is None else kept, rules), None
        new, spans = redact_spans(text)
        if (rule := _whole_rule(text, spans)) is not None:
            answer = self._wholes.get(rule) or self._wholes.setdefault(rule, (new, (rule,)))
            held: tuple[str | None, tuple[str, ...]] = answer
        else:
            answer = (new, tuple(dict.fromkeys(map(_RULE, spans))))
            held = (None if new is text else new, answer[1])
        if keep and len(text) <= _KEY_CACHE_LONGEST and len(self._strings) < _KEY_CACHE_LIMIT:
            self._strings[text] = held
            return answer, None
        return answer, spans

    def _string(
        self, text: str, path: _Path, judged: tuple[str, tuple[str, ...]] | None = None,
    ) -> str:
        """``text`` redacted, each rule that withheld in it an entry at ``path``; ``judged``:
        its answer from :meth:`_judge`, when the caller has it (a short string's)."""
        known, spans = (judged, None) if judged is not None else self._judge(text)
        if spans is not None and DENSE in known[1]:
            # Too long to be kept: what a credential-dense stretch held, in bytes.
            self._entry(path, (), DENSE, None,
                        sum(dense_bytes(text, s) for s in spans if s.rule == DENSE))
            known = (known[0], tuple(rule for rule in known[1] if rule != DENSE))
        for rule in known[1]:
            self._entry(path, (), rule, None)
        return known[0]

    def _bad_key(self, node: dict[str, Any]) -> bool:
        keys: list[Any] = list(node)
        if len(keys) >= BATCH and all(map(isinstance, keys, repeat(str))):
            # Only the keys the pass flags are judged alone: 60,000 keys ``password_N``
            # (whose names the trigger search counts) were a search each (issue 23).
            keys = [keys[i] for i in sorted(may_withhold(keys))]
        return any(_key_rule_of(key) is not None for key in keys if isinstance(key, str))

    def _rekeyed(self, node: dict[str, Any], path: _Path) -> dict[str, Any]:
        """``node`` with each key that holds a secret replaced by its redacted text, in place.

        Two keys that redact alike get `` (2)``, `` (3)``… so no member is lost; one entry is
        withheld per key, at the member's new path.
        """
        keys = [k for k in node if not (isinstance(k, str) and _key_rule_of(k) is not None)]
        taken = set(keys)
        tried: dict[str, int] = {}
        out: dict[str, Any] = {}
        for key, member in node.items():
            if not isinstance(key, str) or _key_rule_of(key) is None:
                out[key] = member
                continue
            text, spans = redact_spans(key)
            new = unique_key(text, taken, tried)
            out[new] = member
            for rule in dict.fromkeys(span.rule for span in spans):
                self._entry(path, (new,), rule, None)
        return out

    def _where(self, path: _Path, rel: tuple[Any, ...]) -> str:
        """The JSONPath of ``rel`` under ``path``, spelled from the nearest container whose
        path was spelled lately: each entry's path was spelled from the root, a Python step a
        level, so a document 9,000 deep with a value withheld at each level spelled 40 M
        parts. A path is kept by its node (held, so its id is not reused): each path asked,
        and where it was spelled from far up each :data:`_MARKED`-th container above it, cut
        from its spelling (an entry in another branch finds one a few levels up), up to
        :data:`_SPELLED` paths or :data:`_SPELLED_CHARS` chars, then let go together. One
        call of ``spell_parts`` at most, as ``format_path`` was one (issue 23)."""
        kept = self._spelled_paths
        parts: list[Any] = []
        nodes: list[tuple[Any, Any]] = []
        node: _Path = path
        spelled = self.root
        while node is not None:
            hit = kept.get(id(node))
            if hit is not None and hit[0] is node:
                spelled = hit[1]
                break
            nodes.append(node)
            node, part = node
            parts.append(part)
        if not nodes:  # the root, or a path kept
            return spelled + "".join(spell_parts(rel)) if rel else spelled
        parts.reverse()
        pieces = spell_parts([*parts, *rel])
        above = len(spelled)
        depth = len(nodes)
        spelled += "".join(pieces[:depth])
        if len(kept) >= _SPELLED or self._spelled_chars + len(spelled) > _SPELLED_CHARS:
            kept.clear()  # no room for the path asked: the next one will ask from it
            self._spelled_chars = 0
        kept[id(nodes[0])] = (nodes[0], spelled)  # the path asked: the next level's container
        self._spelled_chars += len(spelled)
        if depth > _MARKED:  # a slice a container marked, no part spelled twice
            ends = list(accumulate(map(len, pieces[:depth]), initial=above))
            for back in range(_MARKED, depth, _MARKED):
                text = spelled[:ends[depth - back]]
                if (len(kept) >= _SPELLED
                        or self._spelled_chars + len(text) > _SPELLED_CHARS):
                    break
                kept[id(nodes[back])] = (nodes[back], text)
                self._spelled_chars += len(text)
        return spelled + "".join(pieces[depth:]) if rel else spelled

    def _entry(
        self, path: _Path, rel: tuple[Any, ...], reason: str, stub_id: str | None,
        size: int | None = None,
    ) -> None:
        if stub_id is None and size is None and path is not None and type(path[1]) is int:
            # An element's, or a member's of one (a pair's value): its array's path, its index
            # and the rest of its path (no dict, no path of its own; a MB of pairs' entries
            # as dicts were 6x the body).
            self.withheld.add(self._where(path[0], ()), path[1], reason,
                              "".join(spell_parts(rel)) if rel else "")
            return
        entry: dict[str, Any] = {"path": self._where(path, rel), "reason": reason}
        if stub_id is not None:
            entry["stub"] = stub_id
        if size is not None:
            entry["bytes"] = size
        self.withheld.append(entry)
