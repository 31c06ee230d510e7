"""An object of many keys (an id map) costs no Python step a key, and no lookup, join or lowered
copy more than its judging needs (issue 23).

Found by profiling ``bench/redact.py --worst json-keys-A`` (60-char keys of ``A``, number
members; 6.5x prose at 1 MB, redaction alone): after the keys were told together, what was
left a key was the check of each key in the per-process cache of keys' answers (twice: once
for an answer known false, once for one known at all, though the cache held none of them),
an ``isinstance`` a member value (to find the strings among numbers), each block of keys
joined twice (once for the secrets' pass, once for the names'), and a lowered copy of each
block for a names' search that a memchr of each core's rarest letter answers.

What is withheld is the same: ``test_redact_keys_batch.py``'s differential against the code
before and its in-process comparison with each key judged alone cover these objects; the
property below compares the cache's shortcut with the cache asked a key at a time.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import generic, keywords, redact_value, walk
from elision.redact.families import FAMILIES, sample
from elision.shape.jsonparse import parse_json
from support.calls import builtin_calls

KEYS = 3000


def _keys_of_a(count: int, value: Any = 0) -> bytes:
    return orjson.dumps({f"{'A' * 60}{i:08d}": value or i for i in range(count)})


class _CountedCache(dict[str, bool]):
    """The keys' answers, counting each lookup a key the walk makes from Python or C."""

    asked = 0

    def get(self, key: str, default: Any = None) -> Any:
        _CountedCache.asked += 1
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        _CountedCache.asked += 1
        return super().__contains__(key)


def test_keys_none_of_which_is_known_are_not_looked_up_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: 6,000 lookups for 3,000 keys (``False in map(cache.get, …)`` and the filter
    of the fresh ones), for a cache that held none of them."""
    cache = _CountedCache({"id": True, "password": False})
    monkeypatch.setattr(walk, "_key_inert", cache)
    monkeypatch.setattr(_CountedCache, "asked", 0)
    body = _keys_of_a(KEYS)
    assert redact_value(parse_json(body), body=body).withheld == ()
    assert _CountedCache.asked < 50


@pytest.mark.skipif(not isinstance(keywords._engine(), keywords._Hyperscan),
                    reason="the regex passes read the members another way (a call each)")
def test_number_members_are_not_asked_a_member_whether_they_are_strings() -> None:
    """Red before: 3,000 ``isinstance`` calls, one a member, and 3,000 builtins' calls in all
    beside the keys' own."""
    body = _keys_of_a(KEYS)
    value = parse_json(body)
    walk._key_inert.clear()
    calls, got = builtin_calls(lambda: redact_value(value, body=body))
    assert got.withheld == ()
    assert calls["isinstance"] < 50, calls.most_common(5)
    assert sum(calls.values()) < KEYS // 2, calls.most_common(5)


def test_each_block_of_keys_is_joined_once() -> None:
    """Red before: each block joined twice, for the secrets' pass and the names' (a copy of
    the keys each time)."""
    keys = [f"{'A' * 60}{i:08d}" for i in range(4 * generic.JOIN_BLOCK // 69)]
    blocks = len(list(generic.join_blocks(keys, generic.JOIN_BLOCK)))
    assert blocks > 2
    calls, inert = builtin_calls(lambda: walk._fresh_inert(keys))
    assert inert
    assert calls["str.join"] == blocks, calls.most_common(5)


def test_the_names_search_makes_no_lowered_copy_of_keys_without_a_cores_letter() -> None:
    """Red before: a block of keys of ``A`` was lowered whole (its size again) before the
    names' cores were looked for."""
    names = [f"{'A' * 60}{i:08d}" for i in range(900)]
    joined = "\n".join(names)
    tracemalloc.start()
    try:
        found = generic.naming_block(names, joined)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == []
    assert peak < len(joined) // 4, (peak, len(joined))


NAME_PARTS = st.sampled_from(["A" * 20, "pwd", "PASS", "Secret", "KEY", "toKen", "AUTH",
                              "credential", "Cookie", "JWT", "w", "W", "p", "é", "x", "_", " "])


@settings(max_examples=300, deadline=None)
@given(names=st.lists(st.lists(NAME_PARTS, max_size=4).map("".join), max_size=40))
def test_the_names_search_with_its_letters_asked_first_flags_what_each_name_does(
    names: list[str],
) -> None:
    """Each core's rarest letter asked in both cases before the block is lowered: the names
    flagged are those :func:`~elision.redact.generic.names_nothing` flags one by one."""
    assert generic.naming_block(names) == [i for i, n in enumerate(names)
                                           if not generic.names_nothing(n)]


NAMES = ["id", "password", "token", "api_key", "note", "k0", "A" * 40, "sk_live_x"]


@settings(max_examples=200, deadline=None)
@given(count=st.integers(0, 80), extra=st.lists(st.sampled_from(NAMES), max_size=3),
       seeded=st.lists(st.sampled_from(NAMES), max_size=4), seeded_keys=st.integers(0, 40))
def test_whether_names_are_inert_is_told_alike_with_the_cache_or_a_key_at_a_time(
    count: int, extra: list[str], seeded: list[str], seeded_keys: int,
) -> None:
    """The shortcut (the keys the cache knows found over the smaller of the two, the rest
    told together with them) answers what the keys judged one by one do, whatever of them
    the cache holds: some of the object's keys, names it holds or not, or none."""
    node: dict[str, Any] = {f"{'A' * 60}{i:08d}": i for i in range(count)}
    node.update(dict.fromkeys(extra, 1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "_key_inert", {})
        alone = all(walk.key_inert(k) for k in node)
        answers = dict(walk._key_inert)
        mp.setattr(walk, "_key_inert", {})
        for key in [*seeded, *list(node)[:seeded_keys]]:
            walk.key_inert(key)
        assert all(answers.get(k, v) == v for k, v in walk._key_inert.items())
        assert walk.names_inert(node) == alone


FAKES = [sample(f, 0, "steps")[0] for f in FAMILIES if f.finder != "field"][:40]
STRINGS = st.one_of(st.sampled_from(FAKES), st.integers(0, 999).map(lambda i: f"sk-{i}"),
                    st.sampled_from(["", "note", "ghp_", "sk-"]))
OTHERS = st.one_of(st.integers(-3, 10**6), st.booleans(), st.none(), st.floats(allow_nan=False),
                   STRINGS)
# A string with a trigger at least every other item: the walk reads them by their distinct
# values (``Walker._scalars``), not by pinning each.
MIXED = st.lists(st.tuples(STRINGS, OTHERS), min_size=40, max_size=80).map(
    lambda pairs: [item for pair in pairs for item in pair])


@settings(max_examples=25, deadline=None)
@given(items=MIXED, keyed=st.booleans())
def test_mixed_scalar_members_are_redacted_as_each_walked_alone(
    items: list[Any], keyed: bool,
) -> None:
    """The strings among numbers, booleans and nulls (found by the kinds of the distinct
    values, not an ``isinstance`` each) are the ones judged: the same document walked an
    item at a time withholds the same at the same paths."""
    doc: Any = ({f"{'A' * 60}{i:08d}": v for i, v in enumerate(items)} if keyed else items)
    body = orjson.dumps(doc)
    fast = redact_value(parse_json(body), body=body)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk.Walker, "_scalars", lambda self, frame: False)
        slow = redact_value(parse_json(body), body=body)
    assert [(e["path"], e["reason"]) for e in fast.withheld] == [
        (e["path"], e["reason"]) for e in slow.withheld]
    assert fast.value == slow.value
