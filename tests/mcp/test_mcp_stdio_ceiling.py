"""The stdio reader's --max-message-bytes ceiling: a line over it is counted, never kept.

A refused line becomes a JSON-RPC error for the request it answers, found at either end of the
line (SDKs write the id first or last); every line within the ceiling reads as it always did.
"""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.upstream.stdio import MESSAGE_TOO_LARGE
from support.linereader import read_all


def _result_line(request_id: int | str, text: str, *, id_last: bool = False) -> bytes:
    result = {"content": [{"type": "text", "text": text}]}
    message: dict[str, object] = (
        {"result": result, "jsonrpc": "2.0", "id": request_id} if id_last
        else {"jsonrpc": "2.0", "id": request_id, "result": result}
    )
    return json.dumps(message).encode()


def _refusal(item: object) -> types.JSONRPCError:
    message = getattr(item, "message", None)
    assert isinstance(message, types.JSONRPCError), item
    assert message.error.code == MESSAGE_TOO_LARGE
    return message


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=6),
    limit=st.integers(200, 2500),
    cut=st.lists(st.integers(0, 20_000), max_size=12),
    id_last=st.booleans(),
)
def test_lines_over_the_ceiling_are_refused_and_the_rest_read_whole(
    sizes: list[int], limit: int, cut: list[int], id_last: bool
) -> None:
    lines = [_result_line(i, "x" * size, id_last=id_last) for i, size in enumerate(sizes)]
    data = b"".join(line + b"\n" for line in lines)
    items = read_all(data, [c % (len(data) + 1) for c in cut], limit)
    assert len(items) == len(lines)
    for index, (line, item) in enumerate(zip(lines, items, strict=True)):
        if len(line) <= limit:
            message = getattr(item, "message", None)
            assert isinstance(message, types.JSONRPCResponse), item
            assert message.id == index
            assert message.result["content"][0]["text"] == "x" * sizes[index]
        else:
            refusal = _refusal(item)
            assert refusal.id == index
            assert f"{len(line):,} bytes" in refusal.error.message
            assert f"{limit:,}-byte ceiling" in refusal.error.message
            assert "--max-message-bytes" in refusal.error.message


@pytest.mark.parametrize(
    ("line", "request_id"),
    [
        # the Python SDK's order: jsonrpc, id, result
        (b'{"jsonrpc":"2.0","id":7,"result":{"t":"' + b"a" * 9000 + b'"}}', 7),
        # the id first of all, spaced out
        (b'{ "id" : "req-1" , "result": {"t": "' + b"a" * 9000 + b'"}, "jsonrpc": "2.0"}', "req-1"),
        # the TypeScript SDK's order: result, jsonrpc, id
        (b'{"result":{"t":"' + b"a" * 9000 + b'"},"jsonrpc":"2.0","id":12}', 12),
        # id last but one, before "jsonrpc"
        (b'{"result":{"t":"' + b"a" * 9000 + b'"},"id":-3,"jsonrpc":"2.0"}', -3),
        # an "id" inside the result, at its end, is not the message's: none found
        (b'{"result":{"t":"' + b"a" * 9000 + b'","id":5}}', None),
        # an "id" inside the result at the start, behind another key: none found
        (b'{"result":{"id":5,"t":"' + b"a" * 9000 + b'"}}', None),
    ],
)
def test_the_request_id_is_found_at_either_end(line: bytes, request_id: object) -> None:
    (item,) = read_all(line + b"\n", [100, 5000], 1000)
    if request_id is None:
        assert isinstance(item, ValueError), item
        assert "no request id" in str(item)
    else:
        assert _refusal(item).id == request_id


def test_no_ceiling_keeps_every_line() -> None:
    line = _result_line(1, "y" * 100_000)
    (item,) = read_all(line + b"\n", list(range(0, len(line), 65536)), None)
    message = getattr(item, "message", None)
    assert isinstance(message, types.JSONRPCResponse)
