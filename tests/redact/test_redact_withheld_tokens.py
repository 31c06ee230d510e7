"""Many distinct credentials in JSON strings: each is judged once, each is one entry.

Found by ``bench/fuzz_paths.py`` (family ``envelope``, class ``many-withheld``): 24,000
distinct ``ghp_`` tokens in an array took 1.38 s through ``shape()`` at 1 MB (534x prose, time
exponent 1.21). Past the walker's cache of short strings' answers (4,096), each token was
judged twice: once to learn it changes, again as it was delivered.
"""

from __future__ import annotations

import base64
import random
import string
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import batch, redact_value, scan, walk
from elision.redact.families import FAMILIES, sample
from elision.redact.rules import credential_stub
from elision.shape.jsonparse import parse_json
from redact.test_redact_prefilter_differential import _no_prefilter, _normalized
from support.before import code_before, redacted
from support.calls import counted
from support.engines import hyperscan_only

_ALNUM = string.ascii_letters + string.digits


def _tokens(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["ghp_" + "".join(rng.choice(_ALNUM) for _ in range(36)) for _ in range(count)]

#: The walk's blocks told together are hyperscan's own.
_TOGETHER = hyperscan_only(
    "a block of strings is told together only where hyperscan's pass tells its base64 runs"
    " quiet (triggers.quiet_runs); with the regex passes each string is judged alone")


def _judged_alone(value: Any, together: bool) -> tuple[int, Any]:
    """How many strings the walk of ``value`` judged alone, and its redaction."""
    with pytest.MonkeyPatch.context() as mp:
        calls = counted(mp, walk, "redact_spans")
        mp.setattr(walk, "TOGETHER", together)
        done = redact_value(value, body=orjson.dumps(value))
    return len(calls), done


@pytest.mark.parametrize("together", [False, pytest.param(True, marks=_TOGETHER)])
def test_tokens_in_many_records_are_judged_together(together: bool) -> None:
    records = [{"id": i, "note": token} for i, token in enumerate(_tokens(3000))]
    alone, done = _judged_alone(records, together)
    assert alone == (0 if together else len(records))
    assert [w["path"] for w in done.withheld] == [f"$[{i}].note" for i in range(len(records))]
    assert done.value[-1] == {"id": 2999, "note": credential_stub("github-token")}


@_TOGETHER
def test_a_string_judged_alone_sends_only_a_few_beside_it_alone() -> None:
    tokens = _tokens(1500)
    tokens[700] = "password=hunter2"  # a generic name: its block cannot be told together
    alone, done = _judged_alone(tokens, True)
    assert alone <= 2 * batch.BATCH  # was the whole block's 1,500
    assert len(done.withheld) == 1500


@pytest.mark.parametrize("together", [False, pytest.param(True, marks=_TOGETHER)])
def test_each_of_many_distinct_tokens_is_judged_once(together: bool) -> None:
    tokens = _tokens(walk._KEY_CACHE_LIMIT + 1000)
    alone, done = _judged_alone(tokens, together)
    # Alone: each once (was 2x less the cache's 4,096); together: none alone.
    assert alone == (0 if together else len(tokens))
    assert [w["path"] for w in done.withheld] == [f"$[{i}]" for i in range(len(tokens))]
    assert {w["reason"] for w in done.withheld} == {"github-token"}
    assert done.value == [credential_stub("github-token")] * len(tokens)


#: Fakes of every family's first shape, two of each.
_FAKE = [sample(f, 0, seed)[0] for f in FAMILIES if f.finder != "field" for seed in range(2)]
#: The fakes whose blocks are told together (those of families like AWS's or Azure's, whose
#: fakes hold "=" or a DSN, are judged alone).
_TOLD = [fake for fake in _FAKE
         if next(batch.judged_together([fake] * batch.BATCH))[2] is not None]


def _any_of(items: list[str]) -> st.SearchStrategy[str]:
    # By index, through a function: a strategy of hundreds of fakes drawn from a list (or a
    # list's method) shows them all in its repr, which Hypothesis warns of.
    def fake(i: int) -> str:
        return items[i]

    return st.integers(0, len(items) - 1).map(fake)


#: Chars that touch a family's boundary, a template, a keyword's line; and (in the second)
#: chars that send a block to be judged a string at a time (a URL mark, an escape, non-ASCII).
_AROUND = st.text(alphabet="ab_-+/<>{}$ :.\nx9", max_size=4)
_BREAKING = st.text(alphabet="=%@\\é", min_size=1, max_size=2)
_KEYWORDS = st.sampled_from(["ghp_", "sk-", "xoxb-", "AKIA", "glpat-", "password", "token",
                             "github", "npm_", "${", "<key>", "{{"])


@st.composite
def _texts(draw: st.DrawFn) -> list[str]:
    """Short strings around fakes of several families and their keywords; now and then one
    that no block holding it is told together for."""
    breaking = draw(st.booleans())
    fakes = _any_of(_FAKE if breaking else _TOLD)
    part = st.one_of(fakes, _KEYWORDS, st.one_of(_AROUND, _BREAKING) if breaking else _AROUND)
    one = st.lists(part, min_size=1, max_size=4).map("".join)
    return draw(st.lists(st.one_of(fakes, one), min_size=batch.BATCH, max_size=120))


@_TOGETHER
@settings(max_examples=150, deadline=None)
@given(_texts())
def test_strings_judged_together_are_judged_as_each_alone(texts: list[str]) -> None:
    for i, spans in _told(texts).items():
        assert spans == scan.find_spans(texts[i]), texts[i]


_GHP = _tokens(1)[0]


@pytest.mark.parametrize("odd", [
    # A pattern whose \s* reads a line break: "key:" and its value in the next string would
    # be one match in the joined text, and is none in either alone.
    ["DD-APPLICATION-KEY:", "886d557d08568bf9e9a3a1b54f779f9266054ae2"],
    # A base64 run (unpadded: "=" is a URL mark) that opens with a keyword's head, or holds
    # a keyword's window, and decodes to a credential; one after an escape's letter.
    [base64.b64encode(f"token: {_GHP}.".encode()).decode()],
    [base64.b64encode(f"{_GHP} .".encode()).decode()],
    ["a\\n" + base64.b64encode(f"{_GHP} .".encode()).decode()],
    # Marks that let the URL rules, generic names or escapes run.
    [f"password={_GHP}"], [f"https://x:{_GHP}@h.example/"], [f"\\u0067hp_{_GHP[4:]}"],
    # A look-alike the judge folds to the letter a keyword needs (LONG S for "s").
    ["amzn.mw\u017f.7a863453-5412-8cc6-04d7-aecac747027e"],
    # Families with a DSN's category, no URL in them.
    ["pscale_tkn_9SN3wgjcWmlR7G5OVw2CNQeDZm0DmieBQJCMK7yckc5"],
    ["napi_sue96b5x5tk1gwyem0sar9kdivbxmnm0ka2zkfhmjc4f9m36mmu4auk1ts1qguy0"],
])
def test_strings_beside_many_tokens_are_judged_as_each_alone(odd: list[str]) -> None:
    texts = [*_tokens(batch.BATCH), *odd]
    told = _told(texts)
    if not odd[0].startswith("DD-"):
        assert any(scan.find_spans(text) for text in odd)  # the case holds something to find
    for i, spans in told.items():
        assert spans == scan.find_spans(texts[i]), texts[i]


def _told(texts: list[str]) -> dict[int, list[Any]]:
    """What :func:`batch.judged_together` tells of each of ``texts`` it tells of."""
    return {i: told.get(i, []) for lo, hi, told in batch.judged_together(texts)
            if told is not None for i in range(lo, hi)}


@_TOGETHER
def test_tokens_are_judged_together() -> None:
    tokens = _tokens(100)
    told = _told(tokens)
    assert sorted(told) == list(range(100))
    assert all(spans == scan.find_spans(t) for t, spans in zip(tokens, told.values(),
                                                                strict=True))


#: Keys a path must quote (a dot, a bracket, a quote, a space), plain ones, and names.
_KEYS = st.sampled_from(["a", "id", "x.y", "a b", "q'uote", "[0]", 'dq"', "note", "ünï",
                         "token", "value", "k-1"])
_LEAF = st.one_of(_any_of(_FAKE), st.sampled_from(["ok", "sk-", "the dog", ""]),
                  st.integers(0, 9))


@st.composite
def _documents(draw: st.DrawFn) -> Any:
    """Arrays of strings, objects of strings and records with a token member, nested at
    random, credentials of several families repeated; arrays of more than a run of fakes
    whose blocks are told together (:func:`~elision.redact.batch.judged_together`)."""
    leaves = st.one_of(_LEAF, st.lists(_any_of(_FAKE), min_size=1, max_size=80),
                       st.lists(_any_of(_TOLD), min_size=walk.RUN + 1, max_size=120),
                       st.lists(st.builds(lambda i, key, fake: {"id": i, key: fake},
                                          st.integers(0, 9), _KEYS, _any_of(_TOLD)),
                                min_size=walk.RUN + 1, max_size=120))
    return draw(st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=40),
                                st.dictionaries(_KEYS, inner, max_size=8)),
        max_leaves=100,
    ))


@_TOGETHER
@settings(max_examples=80, deadline=None)
@given(_documents(), st.sampled_from([0, 3, walk._KEY_CACHE_LIMIT]))
def test_many_credentials_are_withheld_as_the_simple_walk_does(doc: Any, cache: int) -> None:
    # A small cache of answers (0, 3) drives the walk past it, as 24,000 tokens do.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "_KEY_CACHE_LIMIT", cache)
        got = _normalized(redact_value(doc, body=orjson.dumps(doc)))
    with _no_prefilter(), pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "TOGETHER", False)  # each string judged alone
        assert got == _normalized(redact_value(doc))


@_TOGETHER
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
