"""Many distinct credentials in JSON strings: each is judged once, each is one entry.

Found by ``bench/fuzz_paths.py`` (family ``envelope``, class ``many-withheld``): 24,000
distinct ``ghp_`` tokens in an array took 1.38 s through ``shape()`` at 1 MB (534x prose, time
exponent 1.21). Past the walker's cache of short strings' answers (4,096), each token was
judged twice: once to learn it changes, again as it was delivered.
"""

from __future__ import annotations

import random
import string
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, walk
from elision.redact.families import FAMILIES, sample
from elision.shape.jsonparse import parse_json
from redact.test_redact_prefilter_differential import _no_prefilter, _normalized
from support.before import code_before, redacted

_ALNUM = string.ascii_letters + string.digits


def _tokens(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["ghp_" + "".join(rng.choice(_ALNUM) for _ in range(36)) for _ in range(count)]


def test_each_of_many_distinct_tokens_is_judged_once() -> None:
    calls: list[str] = []
    real = walk.redact_spans

    def counting(text: str) -> Any:
        calls.append(text)
        return real(text)

    tokens = _tokens(walk._KEY_CACHE_LIMIT + 1000)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "redact_spans", counting)
        done = redact_value(tokens, body=orjson.dumps(tokens))
    assert len(calls) == len(tokens)  # was 2x less the cache's 4,096
    assert [w["path"] for w in done.withheld] == [f"$[{i}]" for i in range(len(tokens))]
    assert {w["reason"] for w in done.withheld} == {"github-token"}


_FAKE = [sample(f, 0, seed)[0] for f in FAMILIES[:30] if f.finder != "field"
         for seed in range(3)]
#: Keys a path must quote (a dot, a bracket, a quote, a space), plain ones, and names.
_KEYS = st.sampled_from(["a", "id", "x.y", "a b", "q'uote", "[0]", 'dq"', "note", "ünï",
                         "token", "value", "k-1"])
_LEAF = st.one_of(st.sampled_from(_FAKE), st.sampled_from(["ok", "sk-", "the dog", ""]),
                  st.integers(0, 9))


@st.composite
def _documents(draw: st.DrawFn) -> Any:
    """Arrays of strings, objects of strings and records with a token member, nested at
    random, credentials of several families repeated."""
    leaves = st.one_of(_LEAF, st.lists(st.sampled_from(_FAKE), min_size=1, max_size=80))
    return draw(st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=40),
                                st.dictionaries(_KEYS, inner, max_size=8)),
        max_leaves=200,
    ))


@settings(max_examples=80, deadline=None)
@given(_documents(), st.sampled_from([0, 3, walk._KEY_CACHE_LIMIT]))
def test_many_credentials_are_withheld_as_the_simple_walk_does(doc: Any, cache: int) -> None:
    # A small cache of answers (0, 3) drives the walk past it, as 24,000 tokens do.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "_KEY_CACHE_LIMIT", cache)
        got = _normalized(redact_value(doc, body=orjson.dumps(doc)))
    with _no_prefilter():
        assert got == _normalized(redact_value(doc))


@settings(max_examples=40, deadline=None)
@given(_documents())
def test_many_credentials_are_withheld_as_the_code_before_did(doc: Any) -> None:
    payload = orjson.dumps(doc).decode()
    with code_before() as before:
        assert redacted("json", payload) == before("json", payload)


def test_a_token_array_is_withheld_as_the_code_before_did() -> None:
    body = orjson.dumps({"rows": [{"id": i, "token": t} for i, t in enumerate(_tokens(300))],
                         "plain": _tokens(5000, seed=8)})
    with code_before() as before:
        assert redacted("json", body.decode()) == before("json", body.decode())
    assert len(redact_value(parse_json(body), body=body).withheld) == 5300
