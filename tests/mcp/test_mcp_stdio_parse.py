"""The stdio transport's fast reader gives the message the SDK's own parser gives, or its error."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.upstream.stdio import _parse


def _sdk(line: bytes) -> tuple[str, Any]:
    try:
        text = line.decode("utf-8", "replace")
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as exc:
        return "error", type(exc)
    return "ok", message


def _ours(line: bytes) -> tuple[str, Any]:
    parsed = _parse(line)
    if isinstance(parsed, Exception):
        return "error", type(parsed)
    return "ok", parsed.message


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> None:
    assert a[0] == b[0]
    if a[0] == "ok":
        assert type(a[1]) is type(b[1])
        # repr tells 1 from 1.0 and True from 1, which == does not.
        assert repr(a[1]) == repr(b[1])


# Number spellings where two JSON parsers could part: long integers around 2**63 and 2**64,
# exponents, long mantissas, negative zero, non-finite words.
_numbers = st.sampled_from([
    "0", "-0", "1", "-1", "0.1", "1e5", "1E+5", "1.0", "-0.0", "5e-324", "1e308", "1e400",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "123456789012345678901234567890", "0.30000000000000000000000001", "1e19", "NaN",
    "Infinity", "01",
]) | st.integers().map(str) | st.floats(allow_nan=False, allow_infinity=False).map(repr)
_strings = st.text().map(lambda s: json.dumps(s, ensure_ascii=False)) | st.sampled_from([
    '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\u0000"', '"tab\\there"', '"é"',
])


def _objects(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.lists(st.tuples(_strings, inner), max_size=4)
    return pairs.map(lambda ps: "{" + ",".join(f"{k}:{v}" for k, v in ps) + "}")


_values = st.recursive(
    _numbers | _strings | st.sampled_from(["true", "false", "null"]),
    lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]")
    | _objects(inner),
    max_leaves=15,
)
_ids = st.sampled_from(["1", "7", '"a"', "1.0", "true", "null", "-3", "9223372036854775808"])


@st.composite
def _messages(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["request", "notification", "response", "error", "odd"]))
    params = draw(_objects(_values))
    if kind == "request":
        body = f'"jsonrpc":"2.0","id":{draw(_ids)},"method":"tools/call","params":{params}'
    elif kind == "notification":
        body = f'"jsonrpc":"2.0","method":"notifications/progress","params":{params}'
    elif kind == "response":
        body = f'"jsonrpc":"2.0","id":{draw(_ids)},"result":{params}'
    elif kind == "error":
        body = (f'"jsonrpc":"2.0","id":{draw(_ids)},"error":{{"code":{draw(_numbers)},'
                f'"message":"no","data":{draw(_values)}}}')
    else:
        body = f'"jsonrpc":"1.0","id":1,"result":{params},"result":[]'
    return ("{" + body + "}").encode("utf-8", "surrogatepass")


@given(_messages())
@settings(max_examples=250)
def test_fast_reader_matches_the_sdk_parser(line: bytes) -> None:
    _same(_ours(line), _sdk(line))


@pytest.mark.parametrize(
    "line",
    [
        # A result with a 64-bit-plus integer: orjson would make it a float.
        b'{"jsonrpc":"2.0","id":1,"result":{"n":123456789012345678901234567890}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"n":-9223372036854775809}}',
        # Invalid UTF-8 becomes U+FFFD, as before.
        b'{"jsonrpc":"2.0","id":1,"result":{"s":"\xff\xfe"}}',
        # Duplicate keys: the last one wins in both.
        b'{"jsonrpc":"2.0","id":1,"id":2,"result":{"a":1,"a":2}}',
        # Not JSON at all, and JSON that is not a message.
        b"garbage",
        b'{"jsonrpc":"2.0"}',
        # A JSON text inside a result, the shape the fast path is for.
        orjson.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [
            {"type": "text", "text": json.dumps({"rows": list(range(50)), "w": "\"q\""})}]}}),
    ],
)
def test_edge_lines_read_as_the_sdk_reads_them(line: bytes) -> None:
    _same(_ours(line), _sdk(line))


def test_big_integers_stay_exact() -> None:
    parsed = _parse(b'{"jsonrpc":"2.0","id":1,"result":{"n":18446744073709551616}}')
    assert not isinstance(parsed, Exception)
    assert isinstance(parsed.message, types.JSONRPCResponse)
    assert parsed.message.result["n"] == 2**64
