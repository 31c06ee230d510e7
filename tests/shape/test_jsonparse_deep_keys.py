"""The iterative parser keeps one str per distinct short key, as orjson's key cache does.

Found by ``bench/fuzz_linear.py``'s ``json-deep-wide`` (9,000 levels around a record array,
issue 23): past the C parsers' depth the whole body is read by ``parse_deep``, which held a new
str for each key of each record (two of 56 bytes beside a 200-byte dict, for a 19-byte
``{"id":1,"ok":true}``): ``shape()`` peaked at 18x the input, where JSON's target is 3x (12x
now; what is left is the dicts themselves, see bench/README.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.shape import jsonparse
from elision.shape.jsonparse import parse_deep, parse_json
from support.traced import peak


@pytest.fixture(autouse=True, scope="module")
def _token_walk_only() -> Iterator[None]:
    # The token walk's own sharing: the C scanner, which reads shallow containers whole when it
    # may, keeps one str per key of each read (its memo), and is tested in test_jsonparse_deep.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonparse, "C_READS", False)
        yield


def _deep_records(count: int, depth: int = 1100) -> bytes:
    rows = b",".join([b'{"id":1,"ok":true}'] * count)
    return b'{"k":' * depth + b"[" + rows + b"]" + b"}" * depth


def _records(value: Any, depth: int = 1100) -> list[dict[str, Any]]:
    for _ in range(depth):
        value = value["k"]
    return value  # type: ignore[no-any-return]


def test_a_deep_record_array_shares_its_keys() -> None:
    """Red before: each record's ``id`` was a str of its own."""
    records = _records(parse_deep(_deep_records(500)))
    firsts = {id(next(iter(record))) for record in records}
    assert len(firsts) == 1


def test_a_deep_record_array_parses_in_less_memory() -> None:
    """Red before (17.1x the body traced at 8,000 records, 16.8x at 16,000; 12.0x now, 11.3x
    at 64,000: the ratio hardly moves with the count, and tracing 64,000 took 9.6 s)."""
    body = _deep_records(8_000)
    assert peak(lambda: parse_deep(body)) < 14 * len(body)


def test_sharing_is_bounded() -> None:
    # Past the cap, and past the length, a key is kept as read: the memo never grows past it.
    count = jsonparse._SHARED_KEYS + 500
    long = "L" * (jsonparse._SHARED_KEY + 1)
    members = ",".join(f'"k{i}":[{{"{long}":{i}}},{{"{long}":{i}}}]' for i in range(count))
    value = parse_deep(("[" * 1100 + "{" + members + "}" + "]" * 1100).encode())
    for _ in range(1100):
        (value,) = value
    assert list(value) == [f"k{i}" for i in range(count)]
    pairs = list(value.values())
    assert all(a.keys() == b.keys() == {long} for a, b in pairs)
    assert next(iter(pairs[0][0])) is not next(iter(pairs[0][1]))


_KEYS = st.sampled_from(["id", "ok", "A", "\\u0041", "\u0130", "\u0131", "\u212a", "\u017f",
                         "\u00df", "k" * 64, "k" * 65, "", "\\\"", "a\\u0000b"])


def _value(draw: st.DrawFn, depth: int) -> str:
    kind = draw(st.sampled_from(["obj", "arr", "num", "str"] if depth < 4 else ["num", "str"]))
    if kind == "obj":
        keys = draw(st.lists(_KEYS, max_size=4))  # repeats included: the last one wins
        return "{" + ",".join(f'"{k}":{_value(draw, depth + 1)}' for k in keys) + "}"
    if kind == "arr":
        return "[" + ",".join(_value(draw, depth + 1)
                              for _ in range(draw(st.integers(0, 3)))) + "]"
    return draw(st.sampled_from(["1", "1.10", "-0", "true", "null", '"id"']))


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    inner = _value(draw, 0)
    return ("[" * 1100 + inner + "]" * 1100).encode("utf-8")


def _parsed(body: bytes) -> tuple[str, list[str]]:
    shadowed: list[str] = []
    return repr(parse_deep(body, shadowed)), shadowed


@settings(max_examples=200, deadline=None)
@given(_documents())
def test_shared_keys_parse_as_unshared_ones(body: bytes) -> None:
    """The same values, key order, repeated keys' paths and numbers with sharing on and off,
    and the same as the exact parser's read of the document under its wrapping."""
    got = _parsed(body)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonparse, "_SHARED_KEYS", 0)
        assert _parsed(body) == got
    assert repr(_unwrap(parse_deep(body))) == repr(parse_json(body[1100:-1100]))


def _unwrap(value: Any) -> Any:
    for _ in range(1100):
        (value,) = value
    return value
