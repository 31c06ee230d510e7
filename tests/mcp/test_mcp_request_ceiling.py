"""The HTTP endpoint's request ceiling (elision.mcp.agent.requestbound), in process, as ASGI.

A POST body reaches the SDK exactly as it came (same pieces, same bytes) when it is at most
the ceiling; past it the SDK is never called, nothing of the body is kept, and the answer is
a 413 whose JSON-RPC error names the size, the ceiling and the flag.
"""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.agent.requestbound import request_ceiling

LIMIT = 1000


def _run(
    pieces: list[bytes], *, limit: int = LIMIT, method: str = "POST",
    length: str | None = None, leave: bool = False,
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """What the wrapped app received (``None``: never called) and what was sent back."""
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
        for i, piece in enumerate(pieces)
    ]
    if leave:  # the client goes away half way
        messages = [*messages[: len(messages) // 2], {"type": "http.disconnect"}]
    messages.append({"type": "http.disconnect"})
    queue = list(messages)
    got: list[dict[str, Any]] | None = None
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal got
        got = []
        while True:
            message = await receive()
            got.append(message)
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})

    headers = [] if length is None else [(b"content-length", length.encode())]
    scope = {"type": "http", "method": method, "headers": headers}
    anyio.run(request_ceiling(app, limit), scope, receive, send)
    return got, sent


def _refused(sent: list[dict[str, Any]]) -> str:
    assert sent[0]["status"] == 413
    error = orjson.loads(sent[1]["body"])["error"]
    assert error["code"] == -32600
    message: str = error["message"]
    assert f"{LIMIT:,}-byte ceiling (--max-request-bytes)" in message
    return message


@pytest.mark.parametrize(("pieces", "length", "fits"), [
    ([b"x" * LIMIT], str(LIMIT), True),
    ([b"x" * 300] * 3, None, True),
    ([b""], None, True),
    ([b"x" * (LIMIT + 1)], str(LIMIT + 1), False),
    ([b"x" * 600] * 2, None, False),
    ([b"x" * 600] * 2, "10", False),  # a length that lies low buys nothing
    ([b"x" * 600] * 2, "lots", False),  # one that is not a number is ignored
    ([b"x"] * (LIMIT + 1), None, False),
])
def test_a_post_is_passed_on_whole_or_refused(
    pieces: list[bytes], length: str | None, fits: bool
) -> None:
    got, sent = _run(pieces, length=length)
    if fits:
        assert got is not None and [m.get("body") for m in got if m["type"] == "http.request"] \
            == pieces
        assert sent[0]["status"] == 200
    else:
        assert got is None
        _refused(sent)


def test_a_declared_size_is_named() -> None:
    got, sent = _run([b"x" * 5000], length="5000")
    assert got is None and "a request of 5,000 bytes" in _refused(sent)


def test_a_client_that_leaves_gets_no_answer() -> None:
    got, sent = _run([b"x" * 600] * 4, leave=True)
    assert got is None and sent == []


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_the_stream_and_the_session_end_pass_untouched(method: str) -> None:
    got, sent = _run([b"x" * 5000], method=method)
    assert got is not None and sent[0]["status"] == 200


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 700), min_size=1, max_size=8), limit=st.integers(1, 2000),
       declared=st.booleans())
def test_the_app_sees_the_body_iff_it_fits(sizes: list[int], limit: int, declared: bool) -> None:
    pieces = [bytes([65 + i % 26]) * n for i, n in enumerate(sizes)]
    total = sum(sizes)
    got, sent = _run(pieces, limit=limit, length=str(total) if declared else None)
    if total <= limit:
        assert got is not None
        assert b"".join(m.get("body", b"") for m in got) == b"".join(pieces)
    else:
        assert got is None and sent[0]["status"] == 413
