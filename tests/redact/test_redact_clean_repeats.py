"""Hostile review of the walk that shares repeated deep elements unwalked (elision.redact.repeats).

Found by mutating the optimization (review, 2026-12-04): ``known_clean`` with ``any`` in
place of ``all`` (a lazily read run skipped unparsed when *one* of its elements had been
walked clean) left every existing test green. The invariant the skip relies on: a run is
passed over only when each of its elements' bytes equals those of an element the walk
already found clean; equal bytes parse to equal values and the walk of an element reads
nothing but the element. These tests put a secret beside, after and among such repeats,
differing from the clean element only deep inside it (past any prefix), under keys that make
a value a credential, and read lazily at the real piece size.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value
from elision.redact.families import FAMILIES, sample
from elision.shape import lazyjson
from elision.shape.jsondump import dumps_value
from elision.shape.jsonparse import parse_json

_TOKEN = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
_DEPTH = 300  # past orjson's 255 levels: the walk goes an element at a time


def _deep(leaf: bytes, key: bytes = b"k") -> bytes:
    return b'{"' + key + b'":' + b'{"k":' * (_DEPTH - 1) + leaf + b"}" * _DEPTH


#: A clean element, and one equal to it byte for byte but for the leaf, 1.5 KB in.
_CLEAN = _deep(orjson.dumps("sk-x value"))
_SECRET = _deep(orjson.dumps("sk-x " + _TOKEN))


def _lazily(body: bytes) -> lazyjson.LazyArray:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lazyjson, "LAZY_BYTES", 0)
        document = lazyjson.lazy_document(body)
    assert lazyjson.walks_lazily(document)
    return document


def _leaked(done: object) -> bool:
    return _TOKEN.encode() in lazyjson.serialize(done)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.booleans(), min_size=2, max_size=24).filter(any),
       st.sampled_from([b",", b", ", b" ,\n "]))
def test_a_secret_among_repeats_of_a_clean_deep_document_is_withheld_read_lazily(
    secret_at: list[bool], space: bytes,
) -> None:
    """Each secret element is withheld wherever it falls among the clean repeats (in a run
    of 8 KB beside ones the walk remembered as clean), and nothing else is."""
    items = [_SECRET if secret else _CLEAN for secret in secret_at]
    body = b"[" + space.join(items) + b"]"
    done = redact_value(_lazily(body), body=body)
    assert not _leaked(done.value)
    assert [w["path"].split(".")[0] for w in done.withheld] == [
        f"$[{i}]" for i, secret in enumerate(secret_at) if secret]
    eager = redact_value(parse_json(body), body=body)
    assert _TOKEN.encode() not in dumps_value(eager.value)
    assert len(eager.withheld) == len(done.withheld)


@pytest.mark.parametrize("key", [
    "password",  # a strong name: every string inside is withheld
    "api_key",
    "secret",
])
@pytest.mark.parametrize("lazy", [False, True])
def test_a_repeat_walked_clean_under_one_key_is_withheld_under_a_credential_name(
    key: str, lazy: bool,
) -> None:
    """The same deep array, clean under ``a``, is a credential under a key that names one:
    what the walk remembered as clean is not taken for clean there."""
    value = _deep(orjson.dumps("hunter2hunter2"))
    array = b"[" + b",".join([value] * 12) + b"]"
    body = b'{"a":' + array + b',"' + key.encode() + b'":' + array + b"}"
    document = _lazily(body) if lazy else parse_json(body)
    done = redact_value(document, body=body)
    assert len(done.withheld) == 12
    assert all(w["path"].startswith(f"$.{key}[") for w in done.withheld)
    out = lazyjson.serialize(done.value)
    assert b"hunter2hunter2" not in out[out.index(b'"' + key.encode() + b'":'):]
