"""Trigger positions in strings the walk would judge to no effect are left out before the
walk (redact/flagged.py).

Found by ``bench/redact.py --worst json-deep-escaped-keys json-deep-wide-keys`` (issue 23):
one document 96 objects deep keyed ``"/\\u001f"`` around 100 members keyed ``"/\\u001fN"``
had every node entered, framed and judged, each key's ``\\u`` escape (a control char) a
trigger; so had 65 records keyed ``"NudHJ5dV"`` (a base64 form of a keyword) 139 arrays deep.
What is withheld must be what the walk with every position gives, entry for entry.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import flagged, redact_value, walk
from elision.redact.families import FAMILIES, sample
from elision.redact.kept import LONGEST
from elision.shape.jsonparse import parse_json
from support.before import assert_json_as_before
from support.built import strategies_built
from support.calls import counted
from support.lazy_json import normalized


def _escaped_keys() -> bytes:
    key = orjson.dumps("/\x1f")
    wide = orjson.dumps({f"/\x1f{i}": [i, "x"] for i in range(100)})
    return (b"{" + key + b":") * 96 + wide + b"}" * 96


def _wide_keys() -> bytes:
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    return b"[" * 139 + orjson.dumps({f"{'K' * 40}{i}": record for i in range(65)}) + b"]" * 139


@pytest.mark.parametrize("make", [_escaped_keys, _wide_keys])
def test_a_document_whose_triggers_are_all_in_inert_keys_is_not_walked(
    monkeypatch: pytest.MonkeyPatch, make: Any,
) -> None:
    """Red before: 197 and 205 nodes entered, each to learn that nothing is withheld."""
    body = make()
    entered = counted(monkeypatch, walk.Walker, "_enter")  # a few Python calls each
    done = redact_value(parse_json(body), body=body)
    assert done.withheld == ()
    assert len(entered) == 0, len(entered)


# Keys whose only trigger is inside the string (not a whole key name in quotes): each names
# a credential, so its value is withheld; the filter must leave their positions in.
@pytest.mark.parametrize("key", ["my_password", "x-api-key", "db\x1fpassword", "client_secret_"])
def test_a_key_that_names_a_credential_is_not_left_out(key: str) -> None:
    body = orjson.dumps({"a": {key: "hunter2hunter2"}, "/\x1f": [1, "x"]})
    done = redact_value(parse_json(body), body=body)
    assert [entry["path"] for entry in done.withheld] == [
        "$.a" + walk.format_path([key], root="")]
    assert b"hunter2" not in orjson.dumps(done.value)


_TOKENS = [orjson.dumps(sample(family)[0]).decode()[1:-1] for family in FAMILIES][:40]
#: String bodies as a server may write them: escapes (\uXXXX, a surrogate pair, \" and \\),
#: some decoding to a credential's name (api\u005fkey) or to a token, some inert.
_STRINGS = ["/\\u001f", "\\ud83d\\ude00k", 'a\\"b', "a\\\\u0041", "note", "NudHJ5dV", "K" * 40,
            "\\u00e9t\\u00e9", "id", "api\\u005fkey", "pass\\u0077ord", "\\u0074oken",
            "my_password", "x", "ok", "sk-", "a\\\\u0073k-", "\\u0073k-live", "uri", "type",
            "image", "disposition", "never", "data", "\\u001f\\u0041KIA", *_TOKENS[:12]]


# Built once, not at every node: a list's sampled_from is a new strategy each time it is built
# (a list is not a key of Hypothesis's cache), and a document has hundreds of nodes.
_A_STRING = st.sampled_from(_STRINGS)
_KIND, _LEAF_KIND = st.integers(0, 3), st.integers(0, 0)
_ITEMS, _MEMBERS = st.integers(0, 3), st.integers(0, 4)


def _json(draw: st.DrawFn, depth: int) -> str:
    kind = draw(_KIND if depth < 12 else _LEAF_KIND)
    if kind == 0:
        return '"' + draw(_A_STRING) + '"'
    if kind == 1:
        return "[" + ",".join(_json(draw, depth + 1) for _ in range(draw(_ITEMS))) + "]"
    members = [f'"{draw(_A_STRING)}{i}":{_json(draw, depth + 1)}' for i in range(draw(_MEMBERS))]
    if kind == 3:  # a key that is a whole string of the list, no suffix (a name, a lane)
        members.append(f'"{draw(_A_STRING)}":{_json(draw, depth + 1)}')
    return "{" + ",".join(members) + "}"


@st.composite
def _document(draw: st.DrawFn) -> bytes:
    """A deep document whose keys and strings hold escapes, some that hide a credential."""
    return _json(draw, 0).encode()


def _parsed(body: bytes) -> Any:
    try:
        return parse_json(body)
    except Exception:  # a repeated key, say: not a case for this property
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(_document())
def test_leaving_inert_strings_out_withholds_what_every_position_does(body: bytes) -> None:
    """A differential against the walk handed every position (the filter switched off)."""
    value = _parsed(body)
    if value is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(flagged, "SKIP_INERT", False)
        every = redact_value(value, body=body)
    now = redact_value(value, body=body)
    assert normalized(now.value, now.withheld) == normalized(every.value, every.withheld)
    assert len(now.references) == len(every.references)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(_document())
def test_the_same_as_the_code_before(body: bytes) -> None:
    if _parsed(body) is None:
        return
    assert_json_as_before(body.decode())


@pytest.mark.parametrize("at", [b"1", b'"a"', b","])  # a number, a whole key's quote, ","
def test_a_position_outside_a_string_or_on_its_quote_is_kept(at: bytes) -> None:
    """Only a position inside a key is asked about: read from outside, the bytes between two
    strings, ``":1,"`` (the next key opening with ":"), would be judged as a key."""
    data = b'{"a":1,":b\\u001f":2}'
    pos = data.index(at) + len(at) - 1
    assert flagged.judged_flags(data, [pos]) == [pos]
    inside = data.index(b"\\u") + 1
    assert flagged.judged_flags(data, [inside]) == []


def test_keys_that_each_name_something_are_asked_about_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past a few more kept than left out, the rest are kept unread: each key asked about is
    a judgement, which the walk's look at many names at once spares (a 7x cost through
    ``shape()`` for many distinct flagged strings, found by the bench)."""
    members: dict[str, str] = {}
    for i in range(500):
        members[f"k{i} {sample(FAMILIES[0])[0]}"] = "x"  # a key that holds a secret
        members[f"note{i}"] = "some words " * 10  # spaced: no window is credential-dense
    body = orjson.dumps(members)
    asked = counted(monkeypatch, flagged, "_judged_inert")
    done = redact_value(parse_json(body), body=body)
    assert len(done.withheld) == 500
    assert len(asked) <= flagged._GIVE_UP + 1, len(asked)


def test_drawing_a_document_builds_no_strategy() -> None:
    """Red before: a new sampled_from at every node of every document, 2.4x the drawing."""
    assert strategies_built(_document(), examples=5) < 20


def test_a_long_value_of_escaped_quotes_is_not_read_back_a_quote_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: 85,000 reads of a quote's backslashes (each trigger's string read back to
    its start, a quote at a time). Found by ``bench/fuzz_paths.py --families govern``
    (``error-data-controls``, an error's data of ``\\x01\\x02\\\\"`` a million times: 90x
    prose through the egress gate, issue 23)."""
    read = counted(monkeypatch, flagged, "_escaped")
    value = {"data": "\x01\x02\\\"" * 5_000, "/\x1f": 1}
    body = orjson.dumps(value)
    assert redact_value(parse_json(body), body=body).withheld == ()
    assert len(read) <= 2 * LONGEST, len(read)


_QUOTED = st.text(st.sampled_from(['"', "\\", "a", "\x01", "\u00e9", ":", "K"]), max_size=12)


@st.composite
def _quoted_documents(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    """Keys and values of quotes, backslashes and control chars, some about
    :data:`~elision.redact.kept.LONGEST` bytes long written, and positions in them."""
    def text() -> str:
        return draw(_QUOTED) * draw(st.sampled_from([1, 2, 5, 11, 20, 40]))

    value = {text(): [text(), {text(): text()}] for _ in range(draw(st.integers(1, 6)))}
    data = orjson.dumps(value)
    positions = draw(st.sets(st.integers(0, len(data) - 1), max_size=40))
    return data, sorted(positions)


@given(_quoted_documents())
@settings(max_examples=200, deadline=None)
def test_a_trigger_s_string_is_found_as_the_quotes_read_whole_find_it(
    drawn: tuple[bytes, list[int]],
) -> None:
    data, positions = drawn

    def read_whole(data: bytes, pos: int) -> tuple[int, int]:
        start, end = flagged.last_quote(data, pos), flagged.next_quote(data, pos)
        if start < 0 or end < 0 or end - start - 1 > LONGEST:
            return -1, -1
        return start, end

    fast = flagged.judged_flags(data, positions)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flagged, "_short_string", read_whole)
        assert flagged.judged_flags(data, positions) == fast
