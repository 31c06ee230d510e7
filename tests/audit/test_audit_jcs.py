"""The fast JCS path writes exactly what rfc8785 writes, and refuses exactly what it refuses."""

from __future__ import annotations

import enum
import hashlib
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.audit.chain import canonical_content, tool_result_entry
from elision.audit.jcs import _fast_levels, _number, canonical
from elision.audit.recheck import jcs_bytes
from elision.audit.verify import recompute_hash
from elision.errors import AuditError
from support.calls import counted

# Keys and strings over the whole of Unicode, lone surrogates included, with extra weight on
# the characters where the two paths could part: controls, escapes, the U+E000-U+FFFF block
# that sorts differently in UTF-16, and characters above U+FFFF.
_tricky = st.sampled_from(
    ["\x00", "\x1f", "\x7f", '"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\u2028",
     "\ud800", "\udfff", "\ue000", "\uffff", "\ufb01", "\U00010000", "\U0001f600", "é"]
)
texts = st.lists(st.characters(codec=None) | _tricky, max_size=8).map("".join)
integers = st.integers(-(2**53) + 1, 2**53 - 1) | st.integers() | st.sampled_from(
    [2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 2**64, -(2**63)]
)
floats = st.floats(allow_nan=True, allow_infinity=True)
scalars = st.none() | st.booleans() | integers | texts | floats
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(texts, inner, max_size=5),
    max_leaves=20,
)


def _outcome(encode: Any, value: Any) -> tuple[str, bytes | type[BaseException]]:
    try:
        return "ok", encode(value)
    except (rfc8785.CanonicalizationError, ValueError, TypeError) as exc:
        # rfc8785 refuses some values with a UnicodeEncodeError (a lone surrogate in a key).
        return "refused", type(exc)


@given(values)
@settings(max_examples=400)
def test_fast_path_is_byte_identical_to_rfc8785(value: Any) -> None:
    assert _outcome(canonical, value) == _outcome(rfc8785.dumps, value)


@given(st.dictionaries(texts, st.none() | st.booleans() | texts | integers, max_size=6))
@settings(max_examples=400)
def test_objects_of_scalars_match(value: dict[str, Any]) -> None:
    # The shape of an audit entry, where the fast path matters: keys sorted, scalars only.
    assert _outcome(canonical, value) == _outcome(rfc8785.dumps, value)


class _Color(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize(
    ("value", "fast"),
    [
        ({"a": 1, "b": [True, None, "x"]}, True),  # the common shape
        ({"\ue000": 1, "\U0001f600": 2}, False),  # UTF-16 order differs from code points
        ({"é": 1, "z": 2}, True),  # non-ASCII but below U+D800: orders agree
        ({"a": 1.0}, False),  # an integral float: JCS writes 1, orjson 1.0
        ({"a": 0.5, "b": [-123.456, 1e-4]}, True),  # plain decimal for both
        ({"a": 1.5e-5}, False),  # repr (the deep path) writes 1.5e-05
        ({"a": 2.5e-6}, False),  # orjson writes 2.5e-6, JCS 0.0000025
        ({"a": -0.0}, False),  # JCS writes 0
        ({"a": float("inf")}, False),  # refused; orjson would write null
        ({"a": 5e-324}, False),  # subnormal: exponent form
        ({"a": 2**53}, False),  # past the exact integers: rfc8785 refuses
        ({"a": _Color.RED}, False),  # a subclass may serialize differently
        ({1: "a"}, False),  # a non-string key
        ([[[]]], True),
    ],
)
def test_what_takes_the_fast_path(value: Any, fast: bool) -> None:
    assert (_fast_levels(value) is not None) is fast
    assert _outcome(canonical, value) == _outcome(rfc8785.dumps, value)


def _nested(depth: int, leaf: Any) -> Any:
    for level in range(depth):
        leaf = {"k": leaf, "f": 0.25} if level % 2 else [leaf, 12.5]
    return leaf


@pytest.mark.parametrize(
    ("depth", "fast"),
    [
        (300, True),  # past orjson's 255 levels: the standard library writes it
        (450, False),  # past the check's 400: rfc8785 decides
    ],
)
def test_deep_nesting_matches(depth: int, fast: bool) -> None:
    deep = _nested(depth, "leaf")
    assert (_fast_levels(deep) is not None) is fast
    assert canonical(deep) == rfc8785.dumps(deep)


# Floats over the whole double range, weighted to where the spellings part: integral values,
# the edges of the plain-decimal range, subnormals, -0.0 and the largest doubles.
edge_floats = st.sampled_from(
    [0.0, -0.0, 1.0, -1.0, 1e-4, 9.999999999999999e-5, 1.0000000000000002e-4, 1e-5, 1e-6,
     1e-7, 2.5e-6, 1e15 + 0.5, 2.0**52 + 0.5, 2.0**53, 1e16, 1e20, 1e21, 1e22, 5e-324,
     2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, 1e-9, 9.99e-10, 1.5e-9,
     9.999999999999999e-7, 9.999999999999999e20, 123456789012345680000.0, 2.0**60]
)
all_floats = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=1e-4, max_value=1e16)
    | st.floats(min_value=-1e16, max_value=-1e-4)
    | st.floats(allow_subnormal=True, min_value=-1e-300, max_value=1e-300)
    | edge_floats
)
float_values = st.recursive(
    st.none() | texts | integers | all_floats,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=16,
)


@given(st.floats(allow_nan=False, allow_infinity=False) | edge_floats)
@settings(max_examples=1000)
def test_ecmascript_spelling_of_every_finite_float(value: float) -> None:
    assert _number(value).encode() == rfc8785.dumps(value)


@given(float_values)
@settings(max_examples=600)
def test_floats_are_byte_identical_to_rfc8785(value: Any) -> None:
    assert _outcome(canonical, value) == _outcome(rfc8785.dumps, value)


@given(float_values, st.integers(200, 460))
@settings(max_examples=60)
def test_deep_values_are_byte_identical_to_rfc8785(value: Any, depth: int) -> None:
    # Around orjson's 255 levels and the check's 400, with floats and keys on the way down.
    deep = _nested(depth, value)
    assert _outcome(canonical, deep) == _outcome(rfc8785.dumps, deep)


@pytest.mark.parametrize(
    "entry",
    [
        {"step_id": "s", "values": [i + 0.5 for i in range(200)]},
        {"step_id": "s", "args": _nested(300, "x")},
        {"step_id": "s", "values": [float(i) for i in range(200)] + [-0.0, 1e21, 2.5e-7]},
        {"step_id": "s", "args": {"\ue000": 1.0, "\U0001f600": [2, {"\uffff": 1e300}]}},
        {"step_id": "s", "args": _nested(253, "x")},  # 254 levels: orjson's most
        {"step_id": "s", "args": _nested(254, "x")},  # 255: the standard library's
    ],
    ids=["floats", "300-deep", "integral-and-exponent-floats", "utf16-keys", "254-levels",
         "255-levels"],
)
def test_floats_and_depth_do_not_take_the_pure_python_writer(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """fuzzhunt's bench/fuzz_paths.py measured these at 729x and 1,512x prose: rfc8785."""
    expected = rfc8785.dumps(entry)

    def refuse(value: Any) -> bytes:
        raise AssertionError("took the pure-Python rfc8785 writer")

    monkeypatch.setattr(rfc8785, "dumps", refuse)
    assert canonical(entry) == expected


def test_lone_surrogate_is_refused_as_rfc8785_refuses_it() -> None:
    with pytest.raises(rfc8785.CanonicalizationError):
        canonical({"a": "\ud800"})
    with pytest.raises(AuditError, match="cannot be canonicalized"):
        canonical_content({"entry_id": "1", "a": "\udfff"})


@given(
    tool=texts, server=st.none() | texts, nbytes=st.integers(0, 2**40),
    withheld=st.dictionaries(texts, st.integers(0, 5), max_size=3),
    policies=st.lists(texts, max_size=3),
)
def test_tool_result_entries_hash_as_rfc8785_would(
    tool: str, server: str | None, nbytes: int, withheld: dict[str, int], policies: list[str]
) -> None:
    digest = hashlib.sha256(tool.encode("utf-8", "surrogatepass")).hexdigest()
    entry = tool_result_entry(
        step_id="s", tool=tool, server=server, full_sha256=digest, full_bytes=nbytes,
        shown_sha256=digest, shown_bytes=nbytes, complete=True, decision="allow",
        withheld=withheld, policy_ids=policies, timestamp="2026-11-30T12:00:00.000Z",
    )
    expected = _outcome(rfc8785.dumps, entry)
    if expected[0] == "ok":
        assert canonical_content(entry) == expected[1]
    else:
        with pytest.raises(AuditError):
            canonical_content(entry)


# The verifier's own JCS bytes (elision.audit.recheck: the standard library's encoder where it
# writes JCS, else rfc8785), held to rfc8785 as the writer's are.

#: Floats at the edges of the plain decimal range, whole ones, and the standard library's
#: neighbours of each.
_edge_floats = st.sampled_from(
    [1e-4, 9.999999999999999e-05, 1e16, 9999999999999998.0, 0.5, 1.0, -2.0, 2.0**53, 1e21,
     1e-7, 5e-324, -0.0, 0.0, 1.5e-5, 123456.789, 9.999999999999999e20, 2.0**53 - 1, 2.0**53 + 2,
     -(2.0**53) - 2, 1e17 + 64]
) | st.floats(1e-5, 1e17) | st.floats(-1e17, -1e-5)


@given(values)
@settings(max_examples=150)
def test_the_verifiers_own_jcs_is_byte_identical_to_rfc8785(value: Any) -> None:
    assert _outcome(jcs_bytes, value) == _outcome(rfc8785.dumps, value)


@given(st.dictionaries(texts, st.lists(_edge_floats | integers, max_size=6), max_size=4))
@settings(max_examples=150)
def test_the_verifiers_own_jcs_writes_numbers_as_rfc8785(value: dict[str, Any]) -> None:
    assert _outcome(jcs_bytes, value) == _outcome(rfc8785.dumps, value)


@pytest.mark.parametrize(
    "value",
    [
        {"\ue000": 1, "\U0001f600": 2},  # UTF-16 order is not code point order here
        {"é": 1, "z": 2, "": 3},  # non-ASCII below U+D800, and an empty key: orders agree
        {"a": 1.0},  # whole: JCS writes 1, the standard library 1.0
        {"a": [2.0**53, 9.999999999999999e20, -0.0]},  # whole past 2**53: shortest digits
        {"a": [1.5e-5, 2.5e-6, 1e16, 1e21, -0.0]},  # exponents and signs of ECMAScript's
        {"a": 2**53},  # past the exact integers: refused
        {"a": float("nan")},  # refused
        {"a": "\ud800"},  # a lone surrogate: refused
        {"a": (1, 2)},  # a tuple: rfc8785's to write
        {"a": _Color.RED},  # a subclass may write otherwise
        {"a": "\x00\x1f\x7f\u2028\"\\/"},  # the escapes
    ],
)
def test_the_verifiers_own_jcs_where_the_encoders_part(value: Any) -> None:
    assert _outcome(jcs_bytes, value) == _outcome(rfc8785.dumps, value)


@pytest.mark.parametrize("levels", [1, 199, 200, 201, 400])
def test_the_verifiers_own_jcs_of_a_deep_value(levels: int) -> None:
    value: Any = [0.5, "x"]
    for _ in range(levels):
        value = {"a": [value, 0.75]}
    assert jcs_bytes(value) == bytes(rfc8785.dumps(value))


def test_a_log_of_numbers_is_verified_without_rfc8785(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by ``bench/fuzz_paths.py --families audit``: the writer's JCS of an entry of
    floats is orjson's, but the verifier spelled each float in rfc8785's Python (~1 us a
    float), so a log of numbers took ten times as long to verify as to write."""
    entry = {"entry_id": "1", "step_id": "s", "values": [i + 0.25 for i in range(500)],
             "note": "é\n\x01\"", "count": 2**53 - 1, "previous_hash": None}
    expected = hashlib.sha256(bytes(rfc8785.dumps(
        {k: v for k, v in entry.items() if k != "previous_hash"}))).hexdigest()
    calls = counted(monkeypatch, rfc8785, "dumps")
    assert recompute_hash(entry) == expected
    assert calls == []
