"""An array of big documents that repeat is searched a document at a time (walk._repeated).

Found by ``bench/redact.py --worst json-deep-wide-keys`` (issue 23): an array of one 6 KB
document, arrays 139 deep around 65 records each keyed by ``"NudHJ5dV"`` (a base64 form of a
keyword), took 15-19x prose to redact alone. The walk shared every copy after the first
unwalked, but the search of the whole serialization had made a Python call for each of the
10,595 keys first. Each distinct document is searched alone now, and a copy of one walked
clean is not searched. What is withheld must be what the search of the whole array gave.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, walk
from elision.redact.families import FAMILIES, sample
from elision.shape import lazyjson
from elision.shape.jsonparse import parse_json
from support.before import assert_json_as_before
from support.calls import counted
from support.lazy_json import assert_redacts_as, normalized, redact_lazily


def _wide(copies: int, space: bytes = b",") -> bytes:
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    wide = orjson.dumps({f"{'K' * 40}{i}": record for i in range(65)})
    doc = b"[" * 139 + wide + b"]" * 139
    return b"[" + space.join([doc] * copies) + b"]"


def _secrets_found(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the trigger positions the searches hand the walk (each was a Python
    call of the search's match handler)."""
    count = [0]
    search = walk.json_triggers

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = search(*args, **kwargs)
        count[0] += len(found.secrets)
        return found

    monkeypatch.setattr(walk, "json_triggers", counted)
    return count


@pytest.mark.parametrize("space", [b",", b",\n  "])  # compact, or as a server spaced it
def test_copies_of_a_document_with_a_trigger_in_each_record_are_searched_once(
    monkeypatch: pytest.MonkeyPatch, space: bytes,
) -> None:
    """Red before: 160 copies x 65 keys, 10,400 positions found and handed on."""
    body = _wide(160, space)
    found = _secrets_found(monkeypatch)
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert found[0] <= 2 * 65, found[0]


def test_lazy_pieces_of_one_big_document_each_are_searched_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: through ``shape()`` a body read lazily came to the walk a piece at a time,
    each piece one 12 KB document, and each piece was searched (a piece of one element was
    never remembered clean): 60 pieces x 130 keys. 5 MB of them: 526 -> 82 ms of CPU."""
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    doc = b"[" * 3 + orjson.dumps({f"{'K' * 40}{i}": record for i in range(130)}) + b"]" * 3
    body = b"[" + b",".join([doc] * 60) + b"]"
    monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0)
    document = lazyjson.lazy_document(body)
    found = _secrets_found(monkeypatch)
    done = redact_value(document, body=body)
    assert done.withheld == ()
    assert found[0] <= 2 * 130, found[0]


def test_small_or_unequal_elements_are_searched_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The split is asked only where it pays: elements of a few hundred bytes, or an array
    whose first and last documents differ, are one search, as before."""
    calls = counted(monkeypatch, walk, "json_triggers")
    small = orjson.dumps([{"NudHJ5dV": i} for i in range(50)])
    redact_value(parse_json(small), body=small)
    assert len(calls) == 1
    calls.clear()
    body = _wide(5)
    unequal = body.replace(b"3.39e16", b"3.39e17", 1)  # the first document differs
    redact_value(parse_json(unequal), body=unequal)
    assert len(calls) == 1


_TOKENS = [sample(family)[0] for family in FAMILIES][:40]
_NAMES = ["password", "api_key", "token", "pass\u017fword", "\u0130d_token", "\u212aey", "note"]


def _escaped(text: str) -> str:
    """``text`` as a JSON string body with every char a ``\\u`` escape (a byte search sees
    none of it)."""
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in text)


@st.composite
def _document(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A document of 4 KB or more (the size the split asks for), and a variant of it that
    differs by one byte: credentials at any depth, in keys and values, escaped or not."""
    depth = draw(st.integers(0, 40))
    members: list[str] = []
    for i in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(_NAMES))
        value = draw(st.sampled_from([*_TOKENS, "x", "hunter2", "sk-", "NudHJ5dV"]))
        text = orjson.dumps(value).decode()
        if draw(st.booleans()):
            text = '"' + _escaped(value) + '"'
        key = orjson.dumps(f"{name}{i}").decode()
        if draw(st.integers(0, 4)) == 0:
            key = orjson.dumps(draw(st.sampled_from(_TOKENS)) + str(i)).decode()
        members.append(f"{key}:{text}")
    members.append('"filler":' + orjson.dumps("prose " * 700).decode())
    inner = "{" + ",".join(members) + "}"
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"k":', "}")]))
    doc = (opener * depth + inner + closer * depth).encode()
    at = doc.index(b"prose") + draw(st.integers(0, 4000))
    variant = doc[:at] + b"Q" + doc[at + 1:]
    return doc, variant


_ARRAYS = st.tuples(_document(), st.lists(st.integers(0, 2), min_size=2, max_size=8),
                    st.sampled_from([b",", b" ,\n ", b", "]))
_Drawn = tuple[tuple[bytes, bytes], list[int], bytes]


def _array(drawn: _Drawn) -> bytes:
    (doc, variant), picks, space = drawn
    other = b'{"id":1}'
    # The first and last are the document, so the split is asked for; the elements are
    # split by the body's own bytes, spaced as a server spaced them.
    return b"[" + space.join([doc, *((doc, variant, other)[p] for p in picks), doc]) + b"]"


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ARRAYS)
def test_the_search_a_document_at_a_time_withholds_what_the_whole_search_does(
    drawn: _Drawn,
) -> None:
    """A differential against the search of the whole array (the split switched off)."""
    body = _array(drawn)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "REPEATS", False)
        whole = redact_value(parse_json(body), body=body)
    assert_redacts_as(body, whole)


def test_a_credential_in_every_copy_is_withheld_in_every_copy() -> None:
    token = _TOKENS[0]
    doc = orjson.dumps({"a": [{"password": "hunter2", "n": "x" * 5000}], "b": token})
    body = b"[" + b",".join([doc] * 4) + b"]"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "REPEATS", False)
        whole = redact_value(parse_json(body), body=body)
    now = redact_value(parse_json(body), body=body)
    assert len(now.withheld) == len(whole.withheld) >= 8
    assert normalized(now.value, now.withheld) == normalized(whole.value, whole.withheld)
    assert token.encode() not in lazyjson.serialize(now.value)
    lazy = redact_lazily(body)  # each copy a large lazy element: not one remembered clean
    assert lazy is not None
    assert normalized(lazy.value, lazy.withheld) == normalized(whole.value, whole.withheld)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ARRAYS)
def test_the_same_as_the_code_before(drawn: _Drawn) -> None:
    assert_json_as_before(_array(drawn).decode())
