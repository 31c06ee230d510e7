"""An array of one document written n times is searched as one document (redact/uniform.py).

Found by ``bench/redact.py --worst json-deep-escaped-keys json-deep-wide-keys`` (issue 23): an
array of one deep document, each of whose keys holds a trigger (``"/\\u001f"``, 96 objects
deep around 100 members; or ``"NudHJ5dV"`` in each of 65 records 139 arrays deep), cost 6.1x
and 2.7x prose redacted alone: the whole serialization searched (its every window dense), or
the raw bytes split into elements by ``msgspec`` and each copied and hashed, before the first
document's walk told that nothing is withheld. What is withheld must be what the walk of the
whole array gives, entry for entry.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value, repeats, walk
from elision.redact.families import FAMILIES, sample
from elision.shape import lazyjson
from elision.shape.jsonparse import parse_json
from support.before import assert_json_as_before
from support.calls import counted
from support.lazy_json import normalized


def _escaped_keys(copies: int) -> bytes:
    # bench/hostile.py's json-deep-escaped-keys.
    key = orjson.dumps("/\x1f")
    wide = orjson.dumps({f"/\x1f{i}": [i, "x"] for i in range(100)})
    doc = (b"{" + key + b":") * 96 + wide + b"}" * 96
    return b"[" + b",".join([doc] * copies) + b"]"


def _wide_keys(copies: int) -> bytes:
    # bench/fuzz_linear.py's json-deep-wide-keys.
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    wide = orjson.dumps({f"{'K' * 40}{i}": record for i in range(65)})
    doc = b"[" * 139 + wide + b"]" * 139
    return b"[" + b",".join([doc] * copies) + b"]"


def _searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes the trigger searches read (each position they find is a Python call)."""
    read = [0]
    search = walk.json_triggers

    def counted(data: bytes, *args: Any, **kwargs: Any) -> Any:
        read[0] += len(data)
        return search(data, *args, **kwargs)

    monkeypatch.setattr(walk, "json_triggers", counted)
    return read


@pytest.mark.parametrize("make", [_escaped_keys, _wide_keys])
def test_copies_of_one_document_are_searched_and_walked_once(
    monkeypatch: pytest.MonkeyPatch, make: Any,
) -> None:
    """Red before: the escaped keys' 200 copies were searched whole (every byte read), the
    wide keys' were split by msgspec, each element copied and hashed."""
    body = make(200)
    one = len(make(1)) - 2
    read = _searched(monkeypatch)
    splits = counted(monkeypatch, repeats, "walk_elements")
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert read[0] <= one, (read[0], one)
    assert not splits


_TOKENS = [sample(family)[0] for family in FAMILIES][:40]
#: Keys and values as a server may write them (JSON string bodies): escaped (a char as
#: \uXXXX, a surrogate pair, \" and \\), some decoding to a credential's name or a token.
_KEYS = ["/\\u001f", "\\ud83d\\ude00k", 'a\\"b', "a\\\\u0041", "note", "NudHJ5dV", "K" * 40,
         "\\u00e9t\\u00e9", "id"]
_NAMED = ["api\\u005fkey", "pass\\u0077ord", "\\u0074oken", "password"]
_VALUES = ["x", "ok", "\\u001f", "sk-", "a\\\\u0073k-"]
_SECRETS = [*(orjson.dumps(t).decode()[1:-1] for t in _TOKENS), "\\u0073k-live"]


@st.composite
def _document(draw: st.DrawFn) -> bytes:
    """A deep document whose keys hold escapes, a credential in some."""
    members = []
    dirty = draw(st.booleans())  # else nothing in it is withheld: the copies are one walk
    for i in range(draw(st.integers(1, 8))):
        key = draw(st.sampled_from(_KEYS + _NAMED if dirty else _KEYS)) + str(i)
        value = draw(st.sampled_from(_VALUES + _SECRETS if dirty else _VALUES))
        text = f'"{value}"' if draw(st.booleans()) else f'[{i},"{value}"]'
        members.append(f'"{key}":{text}')
    inner = "{" + ",".join(members) + "}"
    levels = draw(st.lists(st.sampled_from(["[", '{"/\\u001f":', '{"k\\"":']), max_size=60))
    closers = "".join("]" if o == "[" else "}" for o in reversed(levels))
    return ("".join(levels) + inner + closers).encode()


_ARRAYS = st.tuples(_document(), st.integers(2, 6), st.booleans(),
                    st.sampled_from([b",", b", "]))


def _array(drawn: tuple[bytes, int, bool, bytes]) -> bytes:
    doc, copies, compact, space = drawn
    if compact:  # as orjson writes it: the copies are told alike by their bytes
        doc = orjson.dumps(parse_json(doc))
    return b"[" + space.join([doc] * copies) + b"]"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ARRAYS)
def test_one_document_repeated_withholds_what_the_walk_of_the_whole_does(
    drawn: tuple[bytes, int, bool, bytes],
) -> None:
    """A differential against the search and walk of the whole array (splits switched off)."""
    body = _array(drawn)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "REPEATS", False)
        whole = redact_value(parse_json(body), body=body)
    now = redact_value(parse_json(body), body=body)
    assert now.withheld == whole.withheld
    assert normalized(now.value, now.withheld) == normalized(whole.value, whole.withheld)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ARRAYS)
def test_the_same_as_the_code_before(drawn: tuple[bytes, int, bool, bytes]) -> None:
    assert_json_as_before(_array(drawn).decode())


def test_a_credential_in_the_first_copy_leaves_the_walker_as_it_was() -> None:
    """The first document withholds: its entries are made once a copy, at each copy's path,
    not once more for the try."""
    doc = orjson.dumps({"a": [{"password": "hunter2"}], "b": _TOKENS[0], "n": "x" * 300})
    body = b"[" + b",".join([doc] * 3) + b"]"
    done = redact_value(parse_json(body), body=body)
    paths = [entry["path"] for entry in done.withheld]
    assert len(paths) == len(set(paths)) == 6, paths
    assert _TOKENS[0].encode() not in orjson.dumps(done.value)


# The last, the second, and (past a block of copies compared at once) one in the first
# block, one in a later block, and the last.
@pytest.mark.parametrize(("at", "copies"), [(-1, 3), (1, 3), (1, 600), (400, 600), (-1, 600)])
def test_a_copy_that_differs_by_a_byte_is_walked(at: int, copies: int) -> None:
    """Every copy is compared, not the length alone: the one that names a credential is
    withheld wherever it is."""
    clean = orjson.dumps({"pas_word": "hunter2", "k": "/\x1f" * 40})
    named = clean.replace(b"pas_word", b"password")
    docs = [clean] * copies
    docs[at] = named
    body = b"[" + b",".join(docs) + b"]"
    done = redact_value(parse_json(body), body=body)
    assert [entry["reason"] for entry in done.withheld] == ["credential-field"]
    assert b"hunter2" in orjson.dumps(done.value)  # the clean copies are shown


def test_lazy_runs_of_copies_after_the_first_are_known_clean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through ``shape()`` a body read lazily comes to the walk a run of elements at a time:
    the first run's copy is remembered clean, so the later runs are not parsed or searched
    (the bench found ``shape()`` of the escaped keys 31 -> 151 ms before it was)."""
    body = _escaped_keys(200)
    one = len(_escaped_keys(1)) - 2
    monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0)
    document = lazyjson.lazy_document(body)
    read = _searched(monkeypatch)
    done = redact_value(document, body=body)
    assert done.withheld == ()
    assert read[0] <= 2 * one, (read[0], one)
