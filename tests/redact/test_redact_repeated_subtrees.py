"""A subtree whose bytes equal those of one the walk already found clean is that subtree again,
and is not walked (issue 23).

Found by ``bench/fuzz_linear.py --drawn-json``: an array of the same deep, wide document
(``json-deep-wide-keys``: 139 arrays deep around 65 members of one small record;
``json-deep-escaped-keys``: 96 objects keyed ``"/\\u001f"`` around 100 members) cost 80-170x
prose to redact. A trigger in every record (``"NudHJ5dV"``, an escape in a key) sent the walk
into every node of every copy, a Python step each, though none withheld anything.

The differential runs this code with the look-up of clean subtrees off (its own slow path,
always) and the code before (``ELISION_BEFORE_SRC``, a checkout's ``src``; skipped when unset)
on the same drawn documents.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, walk
from elision.redact.families import FAMILIES, sample
from elision.shape.jsonparse import parse_json
from support.built import strategies_built

FAKES = [sample(f, 0, "subtrees")[0] for f in FAMILIES if f.finder != "field"][:12]
NAMES = ["password", "api_key", "token", "id", "note", "uri", "data", "type", "disposition",
         "NudHJ5dV", ":", "/\x1f", "K" * 40]
WORDS = ["ok", "//6k", "x", "", "hunter2", "sk-", "resource", "text"]

SCALARS = st.one_of(st.integers(-5, 10**6), st.booleans(), st.none(), st.just(3.39e16),
                    st.sampled_from(WORDS), st.sampled_from(FAKES))


# The composites' parts are built once (per index, for a key): built on every draw they were
# most of drawing's CPU (8,508 strategies for 20 documents).
@functools.cache
def _key(i: int) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(NAMES), st.sampled_from(NAMES).map(lambda n: f"{n}{i}"),
                     st.sampled_from(FAKES), st.text(max_size=6))


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 4))
    return {draw(_key(i)): draw(SCALARS) for i in range(n)}


_RECORDS = records()
_FAKE_NOTES = st.sampled_from(FAKES)
_LEVEL_NAMES = st.sampled_from([None, *NAMES])


@st.composite
def units(draw: st.DrawFn) -> list[Any]:
    """A deep, wide document: arrays or objects nested around an object of many members; and
    its twin, the same bytes up to a fake in its last member."""
    record = draw(_RECORDS)
    wide_count = draw(st.integers(2, 30))
    same = draw(st.booleans())  # each member the same record, or each its own
    wide = {f"{draw(_key(i))}{i}": record if same else draw(_RECORDS)
            for i in range(wide_count)}
    twin = {**wide, "zz": {"note": draw(_FAKE_NOTES)}}
    levels = [draw(_LEVEL_NAMES) for _ in range(draw(st.integers(0, 20)))]
    out = []
    for value in (wide, twin):
        for name in levels:
            value = [value] if name is None else {name: value}
        out.append(value)
    return out


_UNIT_PAIRS = st.lists(units(), min_size=1, max_size=2)


@functools.cache
def _orders(kinds: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, kinds - 1), min_size=1, max_size=8)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    """An array of a few units, each repeated: mostly clean copies, at times one with a fake
    in it; at times its keys spelled with an escape (``\\u0070assword``)."""
    kinds = [u for pair in draw(_UNIT_PAIRS) for u in pair]
    order = draw(_orders(len(kinds)))
    doc: Any = [kinds[i] for i in order]
    if draw(st.booleans()):
        doc = {"rows": doc, "more": draw(_RECORDS)}
    body = orjson.dumps(doc)
    if draw(st.booleans()):
        body = body.replace(b'"pass', b'"\\u0070ass').replace(b'"tok', b'"\\u0074ok')
    return body


def _here(body: bytes) -> Any:
    walk._key_rule.clear()
    walk._key_inert.clear()
    got = redact_value(parse_json(body), body=body)
    answer = orjson.dumps([got.value, list(got.withheld), got.references], default=str)
    # A reference's id is drawn at random (a resource's signed URI): named by its order here.
    ids = dict.fromkeys(re.findall(rb"ref_[a-z0-9]+", answer))
    for n, ref in enumerate(ids):
        answer = answer.replace(ref, b"ref_%d" % n)
    return orjson.loads(answer)


@pytest.mark.parametrize("run", [walk.RUN, 2])  # 2: even a few elements are a dense array
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=documents())
def test_repeated_subtrees_are_redacted_as_the_walk_of_every_node_does(
    run: int, body: bytes,
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "RUN", run)
        fast = _here(body)
        # No subtree looked up, no dense array split by its bytes: every node walked.
        mp.setattr(walk, "SUBTREE_BYTES", 1 << 62)
        mp.setattr(walk.Walker, "_elements", lambda *_: None)
        slow = _here(body)
    assert fast == slow


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=documents())
def test_repeated_subtrees_are_redacted_as_before(
    code_before_answers: Callable[[str, str], Any], body: bytes,
) -> None:
    before = code_before_answers("json+references", body.decode())
    assert orjson.loads(orjson.dumps(_here(body))) == before


def _deep_wide_keys(copies: int) -> bytes:
    # bench/fuzz_linear.py's json-deep-wide-keys: a trigger in every record, nothing withheld.
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    wide = orjson.dumps({f"{'K' * 40}{i}": record for i in range(65)})
    unit = b"[" * 139 + wide + b"]" * 139
    return b"[" + b",".join([unit] * copies) + b"]"


def _deep_escaped_keys(copies: int) -> bytes:
    # bench/hostile.py's json-deep-escaped-keys.
    wide = orjson.dumps({f"/\x1f{i}": [i, "x"] for i in range(100)})
    unit = b'{"/\\u001f":' * 96 + wide + b"}" * 96
    return b"[" + b",".join([unit] * copies) + b"]"


@pytest.mark.parametrize("make", [_deep_wide_keys, _deep_escaped_keys])
def test_copies_of_a_deep_wide_document_are_walked_once(
    monkeypatch: pytest.MonkeyPatch, make: Any,
) -> None:
    """The nodes walked do not grow with the copies: the first is walked, the rest are it."""
    calls = {"enter": 0}
    enter = walk.Walker._enter

    def counted(self: walk.Walker, *args: Any) -> Any:
        calls["enter"] += 1
        return enter(self, *args)

    monkeypatch.setattr(walk.Walker, "_enter", counted)
    once = []
    for copies in (2, 40, 100):  # 100: past a run, the array is dense with triggers
        calls["enter"] = 0
        body = make(copies)
        got = redact_value(parse_json(body), body=body)
        assert got.withheld == ()
        assert got.value == parse_json(body)
        once.append(calls["enter"])
    assert once[1] <= once[0] + 40, once
    assert once[2] <= once[0] + 100, once


def test_a_secret_in_one_copy_is_withheld_there_alone() -> None:
    """A copy that differs by one fake is not the clean one: it is walked, and what it holds
    is withheld at its own path."""
    record = {"note": "ok", "NudHJ5dV": 1}
    clean = [[{f"K{i}": record for i in range(40)}]]
    dirty = [[{**{f"K{i}": record for i in range(40)}, "K7": {"note": FAKES[0]}}]]
    body = orjson.dumps([clean, clean, dirty, clean])
    got = redact_value(parse_json(body), body=body)
    assert [e["path"] for e in got.withheld] == ["$[2][0][0].K7.note"]
    assert FAKES[0] not in orjson.dumps(got.value).decode()


def test_drawing_documents_builds_no_strategy() -> None:
    """Red before: each draw built its keys, records and units again (8,508 strategies for 20
    documents), most of the CPU of drawing them."""
    assert strategies_built(documents(), examples=5) < 5
