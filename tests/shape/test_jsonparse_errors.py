"""What parse_json and dumps_value refuse, how they say it, and how duplicate keys are handled."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest
from hypothesis import given

from elision.errors import DepthError, InputError
from elision.shape.jsonparse import MAX_DEPTH, RawNumber, default, dumps_value, parse_json
from support.built import strategies_built
from support.hostile_json import hostile_documents, shadowed_count

DEEP = 1100  # past orjson's 1024 levels and the stdlib's recursion limit: the deep path


@pytest.mark.parametrize(
    ("body", "error", "expected"),
    [
        # nothing to read
        (b"", InputError, ["body is empty", "check that the tool returned"]),
        (b" \n\t", InputError, ["body is empty", "3 bytes of whitespace"]),
        # encoding: the offset is in bytes, the column in characters
        (b"[1,\xff]", InputError, ["not valid UTF-8", "b'\\xff'", "byte 3 (line 1, column 4)",
                                   "re-encode"]),
        ('{"é":\n "\u00e9'.encode() + b"\xc3\"}", InputError,
         ["not valid UTF-8", "byte 11 (line 2, column 4)"]),
        (b"\xef\xbb\xbf{}", InputError, ["byte order mark", "strip its first 3 bytes"]),
        # lone surrogates: orjson refuses them, the stdlib would not; both paths must
        (b'["\\ud800"]', InputError, ["lone UTF-16 surrogate", "'\\\\ud800'", "byte 2"]),
        (b'["\\udc00\\ud800"]', InputError, ["lone UTF-16 surrogate", "'\\\\udc00'", "byte 2"]),
        (b'[1E5, "ok", "\\uDBFF!"]', InputError, ["'\\\\uDBFF'", "byte 13"]),
        (b"[" * DEEP + b'"\\ud800"' + b"]" * DEEP, InputError, ["surrogate", f"byte {DEEP + 1}"]),
        # not JSON numbers
        (b"[NaN]", InputError, ["NaN is not JSON", "byte 1 (line 1, column 2)", "null"]),
        (b'{"a": Infinity}', InputError, ["Infinity is not JSON", "byte 6"]),
        (b"[1,\n-Infinity]", InputError, ["-Infinity is not JSON", "line 2, column 1"]),
        (b"[" * DEEP + b"NaN" + b"]" * DEEP, InputError, ["NaN is not JSON", f"byte {DEEP}"]),
        (b"NaN", InputError, ["NaN is not JSON", "byte 0"]),
        (b'{"note": "x:NaN", "v": NaN}', InputError, ["byte 23"]),  # not the one in a string
        # more than one value
        (b"[1] [2]", InputError, ["trailing data", "byte 4", "format='ndjson'"]),
        (b'{"a":1}\n{"a":2}\n', InputError, ["trailing data", "line 2, column 1"]),
        (b"[" * DEEP + b"]" * DEEP + b"x", InputError, ["trailing data", f"byte {2 * DEEP}"]),
        # cut off: a head slice of a JSON body
        (b"[1, 2", InputError, ["cut off", "fetch the complete result"]),
        (b'{"a": "abc', InputError, ["cut off", "byte 6"]),
        (b"[1e400, ", InputError, ["cut off"]),
        (b"[" * DEEP + b"1,", InputError, ["cut off"]),
        # plain syntax errors
        (b"[1,]", InputError, ["not valid JSON", "byte 3", "format='text'"]),
        (b"{'a': 1}", InputError, ["not valid JSON", "property name", "byte 1"]),
        (b"[01]", InputError, ["not valid JSON", "byte 2"]),
        (b'["a\tb"]', InputError, ["not valid JSON", "control character", "byte 3"]),
        (b"[" * DEEP + b'"a\tb"' + b"]" * DEEP, InputError, ["control character"]),
        (b"[" * DEEP + b"1 2" + b"]" * DEEP, InputError, ["delimiter", f"byte {DEEP + 2}"]),
        (b"[" * DEEP + b"1}" + b"]" * DEEP, InputError, ["delimiter", f"byte {DEEP + 1}"]),
        (b'[{"a":1]' + b"]" * DEEP, InputError, ["delimiter", "byte 7"]),  # brackets must pair
        (b"[" * DEEP + b"{1:2}" + b"]" * DEEP, InputError, ["property name", f"byte {DEEP + 1}"]),
        # too deep for elision to walk
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), DepthError,
         [f"deeper than {MAX_DEPTH} levels", f"byte {MAX_DEPTH}", "flatten"]),
    ],
)
def test_bad_bodies_are_refused_clearly(
    body: bytes, error: type[Exception], expected: list[str]
) -> None:
    with pytest.raises(error) as caught:
        parse_json(body)
    for fragment in expected:
        assert fragment in str(caught.value)


@pytest.mark.parametrize(
    "after",
    [b', "x": NaN}', b', "x": 1} trailing', b', "x": "\\ud800"}', b', "x": [1, 2', b", x}"],
)
def test_errors_never_quote_the_body(after: bytes) -> None:
    # A body can carry credentials; an error message is logged and shown.
    body = b'{"token": "sk_live_SECRET"' + after
    with pytest.raises(InputError) as caught:
        parse_json(body)
    assert "SECRET" not in str(caught.value)


def test_parse_json_wants_bytes() -> None:
    with pytest.raises(InputError, match="as bytes, got str"):
        parse_json("{}")  # type: ignore[arg-type]


def test_lone_surrogates_behind_an_escaped_backslash_are_just_text() -> None:
    # "\\ud800" is a backslash followed by the letters ud800, not an escape.
    assert parse_json(b'["\\\\ud800", "\\ud83d\\ude00"]') == ["\\ud800", "\U0001f600"]


def _nested_dup(depth: int) -> bytes:
    return b"[" * depth + b'{"a":1,"a":2}' + b"]" * depth


@pytest.mark.parametrize(
    ("body", "paths", "compact"),
    [
        (b'{"a":1,"a":2}', ["$.a"], b'{"a":2}'),  # the last value wins
        (b'{"a":1,"b":2,"a":3}', ["$.a"], b'{"a":3,"b":2}'),  # at the first key's place
        (b'{"x":[{"k":1},{"k":1,"k":2,"k":3}]}', ["$.x[1].k", "$.x[1].k"],
         b'{"x":[{"k":1},{"k":3}]}'),  # each repeat is reported, with its path
        (b'{"a b":1,"a b":2}', ["$['a b']"], b'{"a b":2}'),  # keys that are not names
        (b'{"a":1E5,"a":1.10}', ["$.a"], b'{"a":1.10}'),  # on the exact path too
        (_nested_dup(DEEP), ["$" + "[0]" * DEEP + ".a"],
         b"[" * DEEP + b'{"a":2}' + b"]" * DEEP),  # and on the deep path
        (b'{"a":{"a":1},"b":{"a":2}}', [], b'{"a":{"a":1},"b":{"a":2}}'),  # not duplicates
        # orjson's fast path sees none of these: it counts colons, and must not be fooled
        (b'{"a":"x","a":"y"}', ["$.a"], b'{"a":"y"}'),  # fast path, one repeat
        (b'{"a":"x:y","a":"y"}', ["$.a"], b'{"a":"y"}'),  # a colon in the shadowed value
        (b'{"a":"\\u003a","a":"y"}', ["$.a"], b'{"a":"y"}'),  # an escaped colon in it
        (b'{"a":"y","b":"\\u003a"}', [], b'{"a":"y","b":":"}'),  # one that is not a repeat
        (b'[{"t":[1,{"u":2}],"t":0}]', ["$[0].t"], b'[{"t":0}]'),  # a shadowed container
    ],
)
def test_duplicate_keys(body: bytes, paths: list[str], compact: bytes) -> None:
    found: list[str] = []
    value = parse_json(body, duplicates=found)
    assert found == paths
    assert dumps_value(value) == compact
    # Without asking, the value is the same, and the same as orjson's (where orjson can read it).
    assert dumps_value(parse_json(body)) == compact
    if body.count(b"[") < 1024 and b"E" not in body:
        assert list(parse_json(body)) == list(orjson.loads(body))


def test_drawing_a_hostile_document_builds_no_strategy() -> None:
    """Red before: each string drawn built its spellings' strategy again (2,068 for 20
    documents; the test below spent most of its CPU doing it, not testing)."""
    assert strategies_built(hostile_documents()) < 20


@given(hostile_documents())
def test_every_repeated_key_is_found_on_every_path(text: str) -> None:
    """Asking for duplicates finds every member a last-wins parse drops, whichever path
    (orjson and a colon count, the stdlib, the deep parser) read the body; the value is the
    one a parse that does not ask gives."""
    body = text.encode("utf-8")
    found: list[str] = []
    value = parse_json(body, duplicates=found)
    assert len(found) == shadowed_count(text)
    assert dumps_value(value) == dumps_value(parse_json(body))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ((1, [2, (3,)]), b"[1,[2,[3]]]"),  # tuples are arrays
        (2**64, b"18446744073709551616"),  # past orjson's 64 bits
        ({"n": -(2**63) - 1}, b'{"n":-9223372036854775809}'),
        ([RawNumber(b"1E5"), RawNumber(b"-0")], b"[1E5,-0]"),  # raw spellings verbatim
        ([[RawNumber(b"1.10")]], b"[[1.10]]"),
        ({"é": "東京\u2028"}, '{"é":"東京\u2028"}'.encode()),  # unicode written raw
        ([-0.0, 1.0, 1e-6, 1e16], b"[-0.0,1.0,1e-6,1e+16]"),  # orjson's float spellings
        ({"a": None, "b": [None]}, b'{"a":null,"b":[null]}'),  # null is fine, NaN is not
        ({"big": [2**70, 1.5], "ok": True}, b'{"big":[1180591620717411303424,1.5],"ok":true}'),
    ],
)
def test_dumps_value_writes_what_orjson_would(value: Any, expected: bytes) -> None:
    assert dumps_value(value) == expected


def _deep(leaf: Any, depth: int = DEEP) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": [1, math.nan]}, ["nan at $.a[1]", "NaN or Infinity"]),  # orjson writes null
        (math.inf, ["inf at $ "]),
        ([{"x": -math.inf}], ["-inf at $[0].x"]),
        (_deep(math.nan), ["nan at $" + "[0]" * DEEP]),  # deep: the slow writer checks too
        ([_deep(1), {"k": math.nan}], ["nan at $[1].k"]),  # beside a deep subtree
        ([2**64, math.nan], ["nan at $[1]"]),  # a leaf of a list orjson gave up on
        ({1: 2}, ["object key 1 at $ is of type int", "str()"]),
        # A tuple key is not quoted: it may hold a credential (red before: it was).
        ({("ghp_" + "k" * 36,): 2}, ["object key at $ is of type tuple", "str()"]),
        (_deep({None: 1}), ["object key None", "$" + "[0]" * DEEP]),
        ({"t": "ok\ud800"}, ["lone surrogate '\\ud800' at char 2", "$.t"]),
        ([{"\udfff": 1}], ["lone surrogate"]),
        ({"o": object()}, ["$.o is of type object", "not a JSON type"]),
        ([10**5000], ["$[0]", "RawNumber"]),  # past Python's int-to-str limit
        ([2**64, {1, 2}], ["$[1] is of type set"]),  # the slow writer names the type too
    ],
)
def test_dumps_value_refuses_what_is_not_json(value: Any, expected: list[str]) -> None:
    with pytest.raises(InputError) as caught:
        dumps_value(value)
    for fragment in expected:
        assert fragment in str(caught.value)


def test_a_key_that_is_not_a_string_is_named_but_never_quoted() -> None:
    """Red before: ``object key ('ghp_…',) at $``, a credential in an error message."""
    secret = "ghp_" + "k" * 36
    for value in ({(secret,): 1}, {"a": {frozenset({secret}): 1}}, [{b"x" + secret.encode(): 2}]):
        with pytest.raises(InputError) as caught:
            dumps_value(value)
        assert secret not in str(caught.value)
        assert "JSON keys are strings" in str(caught.value)


def test_default_hook() -> None:
    assert orjson.dumps({"n": RawNumber(b"1E5")}, default=default) == b'{"n":1E5}'
    with pytest.raises(TypeError, match="not JSON serializable: set"):
        default({1})


def test_deep_values_round_trip_at_max_depth() -> None:
    body = b"[" * MAX_DEPTH + b"1.10" + b"]" * MAX_DEPTH
    value = parse_json(body)
    assert dumps_value(value) == body
    assert dumps_value(value) == dumps_value(value)  # deterministic
