"""An array too deep for orjson is walked an element at a time (elision.redact.repeats).

Found by ``bench/redact.py --worst json-deep`` (issue 23): a 1 MB array of 300-deep documents
with ``"sk-x"`` at the bottom of each took 92x the time of prose to redact, the walk stepping
through every one of its 166,000 objects. An element equal to one already walked to no effect
is shared unwalked now, and any other is walked alone, after a search of its own bytes. What
is withheld must be what the walk of the whole array withheld.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, repeats, walk
from elision.redact.families import FAMILIES, sample
from elision.redact.walk import Walker
from elision.shape import lazyjson
from elision.shape.jsondump import dumps_value
from elision.shape.jsonparse import parse_json
from support.built import strategies_built
from support.lazy_json import assert_redacts_as

_TOKEN = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
_DEPTH = 300  # past orjson's 255 levels: no serialization, so no offsets for the walk


def _deep(leaf: bytes, depth: int = _DEPTH) -> bytes:
    return b'{"k":' * depth + leaf + b"}" * depth


def _visits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the nodes the walk enters."""
    count = [0]
    enter = Walker._enter

    def counted(self: Walker, *args: Any) -> Any:
        count[0] += 1
        return enter(self, *args)

    monkeypatch.setattr(Walker, "_enter", counted)
    return count


def test_equal_deep_documents_with_a_trigger_are_walked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: each of the 60 documents was walked, 60 x 301 nodes entered."""
    body = b"[" + b",".join([_deep(b'"sk-x"')] * 60) + b"]"
    value = parse_json(body)
    visits = _visits(monkeypatch)
    done = redact_value(value, body=body)
    assert done.value is value
    assert done.withheld == ()
    assert visits[0] <= 2 * (_DEPTH + 1), visits[0]


def test_a_clean_deep_document_beside_one_with_a_trigger_is_not_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: one trigger anywhere in the array walked all 41 distinct documents."""
    docs = [_deep(orjson.dumps(f"value {i}")) for i in range(40)] + [_deep(b'"sk-x"')]
    body = b"[" + b",".join(docs) + b"]"
    visits = _visits(monkeypatch)
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert visits[0] <= 2 * (_DEPTH + 1), visits[0]


def test_a_lazy_run_of_deep_documents_walked_before_is_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: through ``shape()`` each 8 KB run of the lazily read array was parsed for
    the walk (most of its cost for 300-deep documents), though every run was the same."""
    body = b"[" + b",".join([_deep(b'"sk-x"')] * 60) + b"]"
    monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0)
    document = lazyjson.lazy_document(body)
    parsed = [0]
    parse = lazyjson.LazyArray._parse_piece

    def counted(self: Any, raw: bytes) -> Any:
        parsed[0] += 1
        return parse(self, raw)

    monkeypatch.setattr(lazyjson.LazyArray, "_parse_piece", counted)
    done = redact_value(document, body=body)
    assert done.withheld == ()
    assert done.value is document
    assert parsed[0] <= 2, parsed[0]


def test_a_secret_in_equal_deep_documents_is_withheld_in_each() -> None:
    """An element the walk changed is never taken as a clean one: each copy is withheld."""
    body = b"[" + b",".join([_deep(orjson.dumps("key " + _TOKEN))] * 3) + b"]"
    done = redact_value(parse_json(body), body=body)
    paths = [w["path"] for w in done.withheld]
    assert paths == [f"$[{i}]" + ".k" * _DEPTH for i in range(3)]
    assert _TOKEN.encode() not in dumps_value(done.value)


def test_small_elements_beside_a_deep_document_are_searched_as_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1,000 short strings beside a deep document: a few searches, not one a string (a
    guard on the split itself: the walk of the whole array searched nothing and entered
    every node)."""
    body = orjson.dumps([f"sk-{i}" for i in range(500)])[:-1] + b"," + _deep(b'"sk-x"') + (
        b"," + orjson.dumps([f"v{i}" for i in range(500)])[1:])
    searches = [0]
    init = walk.Hits.__init__

    def counted(self: walk.Hits, *args: Any, **kwargs: Any) -> None:
        searches[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(walk.Hits, "__init__", counted)
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert searches[0] <= 4, searches[0]


def test_what_a_walk_remembers_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``REMEMBER_BYTES`` of clean elements, the rest are walked and nothing is kept."""
    monkeypatch.setattr(repeats, "REMEMBER_BYTES", 1)
    body = b"[" + b",".join([_deep(b'"sk-x"')] * 3) + b"]"
    visits = _visits(monkeypatch)
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert visits[0] >= 3 * _DEPTH


_SECRETS = [_TOKEN, "key " + _TOKEN, "AKIAIOSFODNN7EXAMPLE", "sk-x", "sk-1", "plain", "é\n\\",
            "pad " * 80 + _TOKEN]
_KEYS = ["k", "id", "password", "api_key", "note", "uri", "data", "type", _TOKEN]
# Built once: built on every draw (twice a level), they were most of drawing's CPU.
_SECRET_DRAWS = st.sampled_from(_SECRETS)
_KEY_DRAWS = st.sampled_from(_KEYS)
_SCALAR_DRAWS = st.sampled_from([0, 1.5, True, None, 12345678901234567890])


@st.composite
def _leaf(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(_SCALAR_DRAWS)
    if kind == 1:
        return {"uri": "https://example.com/a.png", "data": "aGk=",
                "mimeType": "image/png"}  # an inline lane: a stub with a random id
    if kind == 2:
        return {draw(_KEY_DRAWS): draw(_SECRET_DRAWS)}
    return draw(_SECRET_DRAWS)


_LEAVES = _leaf()


@st.composite
def _deep_document(draw: st.DrawFn) -> Any:
    """A leaf wrapped in objects (random keys, siblings) and arrays to a depth near orjson's
    bound, past it or not."""
    inner = draw(_LEAVES)
    for _ in range(draw(st.integers(240, 300))):
        wrap = draw(st.integers(0, 9))
        if wrap == 0:
            inner = [inner, draw(_SECRET_DRAWS)]
        elif wrap == 1:
            inner = [inner]
        elif wrap == 2:
            inner = {draw(_KEY_DRAWS): inner, "n": draw(_SECRET_DRAWS)}
        else:
            inner = {"k": inner}
    return inner


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_deep_document(), min_size=1, max_size=3), st.data())
def test_the_walk_an_element_at_a_time_withholds_what_the_whole_walk_does(
    pool: list[Any], data: st.DataObject,
) -> None:
    """A differential against the walk of the whole array (the split switched off), over
    arrays that repeat a few deep documents among small and long shallow elements, with
    spaces between elements, eager and lazy."""
    picks = data.draw(st.lists(st.sampled_from(pool) | _leaf(), min_size=2, max_size=12))
    space = data.draw(st.sampled_from([b",", b" ,\n ", b", "]))
    body = b"[" + space.join(dumps_value(item) for item in picks) + b"]"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(repeats, "walk_elements", lambda *a, **k: None)
        whole = redact_value(parse_json(body), body=body)
    assert_redacts_as(body, whole)


def test_drawing_deep_documents_builds_no_strategy() -> None:
    """Red before: each draw built a strategy or two a level (2,050 for 20 documents)."""
    assert strategies_built(_deep_document(), examples=5) < 5
