"""A JSON document dense with triggers is judged in bulk, and withholds exactly what the full
judge does (issue 23).

Found by ``bench/fuzz_linear.py`` and ``bench/redact.py``: ``["sk-", "sk-", …]`` was 50x prose
redacted alone and 10.5x its size in memory. The trigger search kept one position a string
(a Python call and a list entry each) and the walk stepped through every item. Now a
credential-dense window of the serialization is kept as a range, as a text's is, and an
array of scalars is judged by its distinct strings. Neither may change what is withheld: the
property below compares every document with the walk of every node that runs every string
through the precise rules (the per-string judge).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, walk
from elision.redact.families import FAMILIES, sample
from redact.test_redact_prefilter_differential import _no_prefilter, _normalized
from support.built import strategies_built
from support.calls import counted

#: Units that each hold a trigger of some class, and plain ones.
UNITS = [
    "sk-", "ghp_", "AKIA", "eyJ", "xoxb-", "glpat-", "password=x", "token: abc", "api_key=",
    "\\u0041", "%41", "%2541", "-----BEGIN ", "A" * 40, "QUFB" * 8, "Bearer ", "https://u:p@h/",
    "authorization: Token abcdefgh12", "login", "ok", "", "the dog", "://", "@",
]
FAKES = [sample(f, 0, "jsonlin")[0] for f in FAMILIES if f.finder != "field"][:60]
KEYS = ["id", "note", "name", "password", "api_key", "dbPassword", "client_secret", "token",
        "page_token", "type", "uri", "data", "text", "disposition", "secretName", "sk-key",
        "A" * 60, "ghp_" + "x" * 36, "value", "sensitive"]
_SCALARS = st.one_of(
    st.sampled_from(UNITS),
    st.sampled_from(FAKES),
    st.builds(lambda a, b: a + b, st.sampled_from(UNITS), st.sampled_from(UNITS + FAKES)),
    st.integers(-5, 10**9),
    st.sampled_from([True, False, None, 1.5]),
)
_SMALL = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    ),
    max_leaves=8,
)
# Built once: built on every draw (one a key, for keyed blocks), they were most of drawing's CPU.
_TRIGGER_UNITS = st.sampled_from([u for u in UNITS if u])
_BLOCK_COUNTS = st.integers(1500, 6000)
_HOWS = st.sampled_from(["same", "numbered", "keys", "mixed", "deep"])
_LEAF_LISTS = st.lists(_SCALARS, min_size=1, max_size=40)
_DEPTHS = st.integers(256, 300)
_KEY_DRAWS = st.sampled_from(KEYS)


@functools.cache
def _held(i: int, unit: str) -> st.SearchStrategy[int | str | None]:
    # Per (index, unit), not an index into a tuple: a strategy's label comes from its elements,
    # and the same labels keep the same examples.
    return st.sampled_from([i, unit, None])


@st.composite
def dense_blocks(draw: st.DrawFn) -> Any:
    """A block past the density bound (more than four windows of over 100 triggers each):
    one unit repeated, or numbered, with a few fakes and small records sprinkled in it; or an
    object of many keys that each hold a trigger."""
    unit = draw(_TRIGGER_UNITS)
    count = draw(_BLOCK_COUNTS)
    how = draw(_HOWS)
    if how == "deep":
        # Past orjson's depth: walked node by node, its keys and strings judged there.
        node: Any = draw(_LEAF_LISTS)
        for _ in range(draw(_DEPTHS)):
            node = {draw(_KEY_DRAWS): node} if draw(st.booleans()) else [node]
        return node
    if how == "mixed":
        # Distinct strings of every unit and fake, each its own: judged in one pass.
        pool = UNITS + FAKES
        return [f"{pool[(i * 7) % len(pool)]}{i}" for i in range(count // 4)]
    if how == "keys":
        block: Any = {f"{unit}{i:06d}": draw(_held(i, unit)) for i in
                      range(count // 4)}
        for _ in range(draw(st.integers(0, 3))):
            block[draw(_KEY_DRAWS)] = draw(_SMALL)
        return block
    items: list[Any] = [unit] * count if how == "same" else [f"{unit}{i}" for i in range(count)]
    for _ in range(draw(st.integers(0, 4))):
        items[draw(st.integers(0, count - 1))] = draw(_SMALL)
    return items


DOCUMENTS = st.dictionaries(
    st.sampled_from(KEYS), st.one_of(dense_blocks(), _SMALL), min_size=1, max_size=4,
).map(lambda members: {"rows": list(members.values()), **members})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(doc=DOCUMENTS)
def test_a_dense_document_withholds_what_the_full_judge_does(doc: Any) -> None:
    # Either engine: the regex passes count their matches in a serialization too (issue 23).
    body = _body(doc)
    got = _normalized(redact_value(doc, body=body))
    with _no_prefilter(), _judged_alone():
        assert got == _normalized(redact_value(doc))


def _body(doc: Any) -> bytes:
    try:
        return orjson.dumps(doc)
    except orjson.JSONEncodeError:  # past orjson's depth: as a tool would send it
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


@contextmanager
def _judged_alone() -> Iterator[None]:
    """Every string and key judged by itself: no pass over many at once
    (elision.redact.batch), no quick answer for a name."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "may_withhold", lambda texts, blocks=None: set(range(len(texts))))
        mp.setattr(walk, "names_nothing", lambda name: False)
        yield


def test_a_dense_array_keeps_a_few_positions_and_takes_one_step() -> None:
    """Red before: 20,000 positions (one a string) and 20,001 steps of the walk (with the
    regex passes, red before their counted search of a serialization)."""
    value = ["sk-"] * 20_000
    body = orjson.dumps(value)
    hits = walk.Hits(body)
    assert len(hits.all) < 2_000
    assert hits.any_in(0, len(body))
    steps: list[Any] = []
    real = walk.Walker._enter

    def counting(self: walk.Walker, node: Any, *args: Any) -> Any:
        steps.append(node)
        return real(self, node, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk.Walker, "_enter", counting)
        done = redact_value(value, body=body)
    assert done.value is value and not done.withheld
    assert len(steps) < 10


def test_a_credential_among_dense_strings_is_withheld_at_its_path() -> None:
    token = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
    value = ["sk-"] * 9_000 + [token] + ["sk-"] * 9_000
    done = redact_value(value, body=orjson.dumps(value))
    assert [w["path"] for w in done.withheld] == ["$[9000]"]
    assert token not in orjson.dumps(done.value).decode()
    assert done.value[:9_000] == value[:9_000]


def test_an_object_whose_keys_name_nothing_skips_the_name_rules() -> None:
    """A document past orjson's depth is walked node by node: a key that names nothing is
    judged once for the process, not once an object (red before: 600 judgements)."""
    calls: list[Any] = []
    real = walk.is_credential_field

    def counting(key: object, value: object) -> bool:
        calls.append(key)
        return real(key, value)

    doc: Any = "sk-x"
    for _ in range(300):
        doc = {"k": doc}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "is_credential_field", counting)
        done = redact_value([doc, doc])
    assert done.value == [doc, doc] and not done.withheld
    assert len(calls) == 0


def test_a_lazily_read_document_is_not_walked_child_by_child() -> None:
    """``shape()`` of ``["sk-", …]`` with redaction on took 2.6 s a MB where the redaction
    took 26 ms: the lazily read document was read child by child for the walk (red before:
    a child parse a string). It is read a piece at a time now (elision.redact.lazywalk)."""
    from elision.shape import lazyjson

    value = ["sk-"] * 9_000 + [sample(next(f for f in FAMILIES if f.id == "github-token"))[0]]
    body = orjson.dumps(value)
    lazy = lazyjson.lazy_document(body)
    assert lazyjson.is_lazy(lazy)
    with pytest.MonkeyPatch.context() as mp:
        calls = counted(mp, lazyjson, "_parse_child")
        done = redact_value(lazy, body=body)
    assert len(calls) < 100
    assert [w["path"] for w in done.withheld] == ["$[9000]"]
    assert lazyjson.materialize(done.value)[:9_000] == value[:9_000]


def test_drawing_dense_blocks_builds_no_strategy() -> None:
    """Red before: each draw built a strategy a key of a keyed block (11,434 for 20 blocks)."""
    assert strategies_built(dense_blocks(), examples=5) < 5
