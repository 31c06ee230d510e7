"""The JSON shaper against docs/design.md invariants 1-7: properties, then the sharp edges."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from elision import Budget, BudgetError, InputError, shape
from elision.envelope import read_envelope
from support.honesty import problems, strict_loads, unwrap

# -- strategies ------------------------------------------------------------------------------

keys = st.sampled_from(
    ["id", "name", "rows", "items", "memo", "tags", "data", "warnings", "total", "count",
     "next_cursor", "status", "é", "key with space", "a'b", "__elision__"]
) | st.text(min_size=0, max_size=8)
scalars = (
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=300)
)
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=40) | st.dictionaries(keys, children, max_size=8),
    max_leaves=400,
)
budgets = st.integers(512, 16_384)


def record(i: int) -> dict[str, Any]:
    return {"id": i, "date": f"2026-11-{i % 28 + 1:02d}", "amount": i * 1.25,
            "memo": f"trade number {i} " + "x" * (i % 17)}


def ledger(n: int = 2000) -> dict[str, Any]:
    """A result that writes its caveats last, as the servers that lose them do."""
    return {"rows": [record(i) for i in range(n)],
            "warnings": ["22405 older trades arrive as 3152 hourly rollups"],
            "total_rows": 22933, "next_cursor": "c_2000"}


# -- properties ------------------------------------------------------------------------------


@given(documents, budgets, st.booleans())
# the dev profile's: a member its random key names "secret" is withheld by redaction, which has
# properties of its own; this one is about what the shaper does with whatever it is given
@example(doc={"secret": 0}, limit=512, pretty=False)
def test_any_document_shapes_honestly_within_budget(doc: Any, limit: int, pretty: bool) -> None:
    body = json.dumps(doc, indent=2 if pretty else None, ensure_ascii=False).encode()
    shaped = shape(body, Budget(limit), format="json", redactor=None)
    out = shaped.text.encode()
    assert len(out) <= limit  # invariant 1
    assert problems(doc, shaped.text) == []  # invariants 2, 3, 6
    envelope, _ = unwrap(doc, shaped.text)
    assert shaped.complete == (envelope is None)
    if envelope is not None:  # invariant 5: the digest is of the original bytes
        assert envelope["sha256"] == hashlib.sha256(body).hexdigest()
        assert envelope["bytes"] == {"shown": len(out), "total": len(body)}
        assert envelope["complete"] is False
    else:
        assert strict_loads(shaped.text) == doc


@given(documents, budgets)
def test_shaping_is_deterministic_and_idempotent(doc: Any, limit: int) -> None:
    body = orjson.dumps(doc)
    first = shape(body, Budget(limit), format="json")
    assert shape(body, Budget(limit), format="json").text == first.text  # invariant 7
    again = shape(first.text, Budget(limit), format="json")
    assert again.text == first.text
    assert again.complete


@given(st.integers(50, 3000), st.integers(1024, 65_536))
def test_records_fill_the_budget_and_keep_caveats_first(n: int, limit: int) -> None:
    doc = ledger(n)
    shaped = shape(orjson.dumps(doc), Budget(limit))
    out = shaped.text.encode()
    assume(not shaped.complete)
    assert len(out) >= 0.9 * limit  # fill: other tools use 20-50% of their budget
    parsed = strict_loads(shaped.text)
    assert list(parsed) == ["__elision__", "warnings", "total_rows", "next_cursor", "rows"]
    assert parsed["warnings"] == doc["warnings"]
    entry = parsed["__elision__"]["elided"][0]
    assert entry == {"path": "$.rows", "kind": "array", "shown": len(parsed["rows"]), "total": n}


@given(st.lists(st.integers(1, 400), min_size=2, max_size=6), st.integers(2048, 16_384))
def test_a_budget_bounds_every_array_not_one_of_them(lengths: list[int], limit: int) -> None:
    doc = {f"list{i}": [record(j) for j in range(n)] for i, n in enumerate(lengths)}
    shaped = shape(orjson.dumps(doc), Budget(limit))
    assume(not shaped.complete)
    parsed = strict_loads(shaped.text)
    shown = [len(parsed[f"list{i}"]) for i in range(len(lengths))]
    cut = [s for s, n in zip(shown, lengths, strict=True) if s < n]
    # Round-robin growth: no array is starved while another takes everything. Records differ
    # in size by less than half, so once one array stops the others get at most one more.
    assert min(shown) >= 1
    assert max(cut) - min(cut) <= 2
    assert problems(doc, shaped.text) == []


@given(documents, budgets)
def test_any_head_slice_keeps_the_envelope_first(doc: Any, limit: int) -> None:
    shaped = shape(orjson.dumps(doc), Budget(limit))
    if not shaped.complete:
        assert shaped.text.startswith('{"__elision__":{"v":1,"complete":false,')


# -- sharp edges -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": 1.0, "b": 1E5, "c": -0.0, "d": 18446744073709551616}',  # spellings kept
        b'[1, 2,\n 3]\n',  # whitespace kept when it fits
        b'"\\u00e9t\\u00e9"',  # escapes kept when it fits
    ],
)
def test_a_body_that_fits_comes_back_byte_for_byte(body: bytes) -> None:
    shaped = shape(body, Budget(512))
    assert shaped.body == body
    assert shaped.complete and shaped.envelope is None


def test_whitespace_only_overflow_comes_back_compact_without_envelope() -> None:
    doc = {"rows": list(range(100)), "note": "é" * 10}
    body = json.dumps(doc, indent=8, ensure_ascii=False).encode()
    assert len(body) > 1024 >= len(orjson.dumps(doc))
    shaped = shape(body, Budget(1024))
    assert shaped.envelope is None and shaped.complete
    assert shaped.body == orjson.dumps(doc)


@pytest.mark.parametrize(
    "doc",
    [
        {"__elision__": "the tool's own", "rows": list(range(2000))},  # own key: wrap
        list(range(5000)),  # array root: wrap
        "x" * 10_000,  # string root: wrap
        [[list(range(300))] * 5] * 5,  # nested arrays
    ],
)
def test_roots_that_cannot_carry_the_envelope_are_wrapped(doc: Any) -> None:
    shaped = shape(orjson.dumps(doc), Budget(1024))
    parsed = strict_loads(shaped.text)
    assert list(parsed) == ["__elision__", "value"]
    assert problems(doc, shaped.text) == []
    if isinstance(doc, dict):
        assert parsed["value"]["__elision__"] == "the tool's own"


def test_strings_are_cut_at_characters_and_declared() -> None:
    doc = {"content": "naïve café 🚀 " * 2000}
    shaped = shape(orjson.dumps(doc), Budget(2048))
    parsed = strict_loads(shaped.text)
    assert doc["content"].startswith(parsed["content"])
    entry = parsed["__elision__"]["elided"][0]
    assert entry["kind"] == "string" and entry["total"] == len(doc["content"])
    assert entry["shown"] == len(parsed["content"])
    assert len(shaped.body) >= 0.9 * 2048


def test_caveats_written_last_come_first_and_whole() -> None:
    doc = ledger()
    shaped = shape(orjson.dumps(doc), Budget(8192))
    parsed = strict_loads(shaped.text)
    assert parsed["warnings"] == doc["warnings"]
    assert parsed["total_rows"] == 22933
    # A consumer that head-slices the shaped text at 600 bytes still sees the caveats.
    assert b"22405 older trades" in shaped.body[:600]


def test_envelope_is_readable_from_the_shaped_text() -> None:
    shaped = shape(orjson.dumps(ledger()), Budget(4096))
    assert read_envelope(shaped.text) == shaped.envelope


def test_nested_trim_paths_and_counts() -> None:
    doc = {"stores": [{"name": f"s{i}", "stock": list(range(1000))} for i in range(50)]}
    shaped = shape(orjson.dumps(doc), Budget(4096))
    assert problems(doc, shaped.text) == []
    paths = [e["path"] for e in shaped.envelope["elided"]] if shaped.envelope else []
    assert "$.stores" in paths and "$.stores[0].stock" in paths


@pytest.mark.parametrize("limit", [0, 1, 511, -5])
def test_budget_below_minimum_is_a_clear_error(limit: int) -> None:
    with pytest.raises(BudgetError, match=r"at least 512 bytes, got"):
        Budget(limit)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"a": NaN}', "NaN is not JSON at byte 6"),  # not JSON
        (b'{"a": 1', r"not valid JSON: .* at byte 7"),  # torn
        # not UTF-8 (FF FE would be UTF-16LE's byte order mark, read as such: issue 22)
        (b'\xff\xff{}', "not valid UTF-8.* at byte 0"),
    ],
)
def test_not_json_is_an_error_when_json_is_asked_for(body: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        shape(body * 300, Budget(512), format="json")


def test_not_json_in_auto_mode_is_shaped_as_text() -> None:
    body = b'{"a": NaN, "b": [' + b"1," * 2000 + b"2]}"
    shaped = shape(body, Budget(1024))
    assert shaped.format == "text"
    assert len(shaped.body) <= 1024


def test_deep_nesting_is_shaped_not_a_recursion_error() -> None:
    body = b"[" * 10_000 + b"]" * 10_000
    shaped = shape(body, Budget(4096))
    assert len(shaped.body) <= 4096
    parsed = orjson.loads(shaped.body)  # orjson's own 1024-level limit: still readable
    assert shaped.envelope is not None and not shaped.complete
    assert parsed["__elision__"]["elided"][0]["kind"] == "array"


def test_exact_values_survive_in_a_cut_document() -> None:
    body = (b'{"big": 18446744073709551616, "one": 1.0, "negzero": -0.0, "exp": 1E5, '
            b'"text": "\\u00e9", "rows": [' + b",".join(b"%d" % i for i in range(5000)) + b"]}")
    shaped = shape(body, Budget(1024))
    for spelling in (b'"big":18446744073709551616', b'"one":1.0', b'"negzero":-0.0',
                     b'"exp":1E5', '"text":"é"'.encode()):
        assert spelling in shaped.body


def test_a_body_of_30_mb_is_shaped() -> None:
    doc = ledger(150_000)
    body = orjson.dumps(doc)
    assert len(body) > 10_000_000
    shaped = shape(body, Budget(8192))
    assert len(shaped.body) <= 8192
    assert problems(doc, shaped.text) == []


# -- caveat keys -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "caveat"),
    [
        ("warnings", True),  # prefix warning*
        ("Total_Rows", True),  # case does not matter
        ("totalrows", True),  # camel case lower-cased
        ("next_cursor", True),  # exact
        ("cursor_x", False),  # exact entries are not prefixes
        ("rows", False),
        ("subtotal", False),  # a prefix pattern matches at the start only
        ("", False),
    ],
)
def test_caveat_keys(key: str, caveat: bool) -> None:
    from elision.shape import DEFAULT_CAVEAT_KEYS
    from elision.shape.keys import caveat_matcher

    assert caveat_matcher(DEFAULT_CAVEAT_KEYS)(key) is caveat


@given(st.lists(st.sampled_from(["total", "Count_x", "rows", "a", "warnings", "İx", "note"])
                | st.text(max_size=6), min_size=0, max_size=1200, unique=True))
def test_member_order_fast_scan_agrees_with_one_call_per_key(keys: list[str]) -> None:
    from elision.shape import DEFAULT_CAVEAT_KEYS
    from elision.shape.keys import caveat_matcher, member_order

    obj = {k: None for k in keys}
    is_caveat = caveat_matcher(DEFAULT_CAVEAT_KEYS)
    expected = [(i, k, True) for i, k in enumerate(keys) if is_caveat(k)]
    expected += [(i, k, False) for i, k in enumerate(keys) if not is_caveat(k)]
    assert list(member_order(obj, DEFAULT_CAVEAT_KEYS)) == expected


@pytest.mark.parametrize(
    "extra",
    [
        ["Count", "total_rows", "WARNINGS"],  # caveats scattered through a big object
        ["total\x00x", "warnings"],  # a key holding the scan's separator: the slow path
        ["İstanbul", "total"],  # lower-casing changes the length of a key before a caveat
    ],
)
def test_member_order_on_big_objects(extra: list[str]) -> None:
    from elision.shape import DEFAULT_CAVEAT_KEYS
    from elision.shape.keys import caveat_matcher, member_order

    keys = [f"k{i}" for i in range(700)]
    for n, key in enumerate(extra):
        keys.insert(100 + 250 * n, key)
    is_caveat = caveat_matcher(DEFAULT_CAVEAT_KEYS)
    order = list(member_order(dict.fromkeys(keys), DEFAULT_CAVEAT_KEYS))
    caveats = [k for _, k, c in order if c]
    assert caveats == [k for k in keys if is_caveat(k)]
    assert [k for _, k, _ in order] == caveats + [k for k in keys if not is_caveat(k)]
    assert all(keys[i] == k for i, k, _ in order)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_parsed_value_holding_nan_is_refused_not_written_as_null(bad: float) -> None:
    from elision.shape import ShapeContext, fit
    from elision.shape.json import value_shaper

    value = {"rows": list(range(2000)), "x": bad}
    ctx = ShapeContext(sha256="0" * 64, total_bytes=10_000, body=b"{}", page="$")
    with pytest.raises(InputError, match="is not a JSON number"):
        fit(value_shaper(value, ctx), Budget(1024))


def test_auto_format_finds_ndjson_and_text() -> None:
    records = b"".join(orjson.dumps(record(i)) + b"\n" for i in range(500))
    assert shape(records, Budget(1024)).format == "ndjson"
    assert shape(b"plain log line\n" * 500, Budget(1024)).format == "text"
    assert shape(orjson.dumps(ledger(200)), Budget(1024)).format == "json"


def test_an_object_shown_whole_keeps_its_key_order_even_when_opened() -> None:
    # With many siblings growing, the object's fair share is too small to show it whole in one
    # step, so it is opened member by member; every member ends up shown, so its caveat key
    # must not have moved.
    inner = {"memo": "m" * 40, "id": 7, "warnings": None}
    doc: dict[str, Any] = {f"list{i}": [record(j) for j in range(50)] for i in range(20)}
    doc["obj"] = inner
    for limit in range(1024, 4096, 128):
        shaped = shape(orjson.dumps(doc), Budget(limit))
        assert problems(doc, shaped.text) == [], limit
