"""The message ceiling on an HTTP upstream's JSON bodies 
(elision.mcp.upstream.httpbound), in process.

A body is either read whole, byte for byte, or refused with a StreamError (which the SDK
turns into a JSON-RPC error for that request alone) whose text names the size or how far it
got, the ceiling and the flag; never read past the ceiling, whatever its Content-Length says.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import AsyncIterator

import anyio
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.upstream.httpbound import MessageOverCeiling, ceiling_hook, refusal, refusal_in

LIMIT = 1000


def _read(
    chunks: list[bytes], headers: dict[str, str], limit: int = LIMIT, sent: list[int] | None = None
) -> tuple[bytes, int]:
    """What a client with the hook reads of a body sent as ``chunks``, and how many bytes the
    server got to send before the client stopped reading (also left in ``sent``)."""
    sent = [0] if sent is None else sent

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            sent[0] += len(chunk)
            yield chunk

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, content=body())

    async def main() -> bytes:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(answer),
                                    event_hooks={"response": [ceiling_hook(limit)]})
        async with client, client.stream("POST", "http://127.0.0.1/mcp") as response:
            return await response.aread()

    return anyio.run(main), sent[0]


JSON = {"content-type": "application/json"}


@pytest.mark.parametrize(("chunks", "headers", "fits"), [
    ([b"x" * LIMIT], JSON, True),  # exactly at the ceiling
    ([b"x" * 400] * 2 + [b"x" * 200], JSON, True),
    ([b"x" * (LIMIT + 1)], JSON, False),
    ([b"x" * 600, b"x" * 600], JSON, False),  # over only with the second piece
    ([b"x"] * (LIMIT + 1), JSON, False),  # one byte at a time
    ([b"x" * 5000], {**JSON, "content-length": "5000"}, False),
    # A Content-Length that lies low does not buy more than the ceiling.
    ([b"x" * 5000], {**JSON, "content-length": "10"}, False),
    ([b"x" * 5000], {"content-type": "Application/JSON; charset=utf-8"}, False),
    # SSE has the SDK's own per-event cap; other bodies are not messages.
    ([b"x" * 5000], {"content-type": "text/event-stream"}, True),
    ([b"x" * 5000], {"content-type": "text/plain"}, True),
    ([b""], JSON, True),
])
def test_a_json_body_is_read_whole_or_refused(
    chunks: list[bytes], headers: dict[str, str], fits: bool
) -> None:
    body = b"".join(chunks)
    if fits:
        assert _read(chunks, headers) == (body, len(body))
        return
    with pytest.raises(MessageOverCeiling) as refused:
        _read(chunks, headers)
    text = str(refused.value)
    assert f"{LIMIT:,}-byte ceiling (--max-message-bytes)" in text
    assert refusal_in(f"Failed to parse JSON response: {text}") == text


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "GZip", "identity, gzip"])
def test_a_compressed_body_is_held_to_the_ceiling_once_inflated(encoding: str) -> None:
    # 50 KB of zeros is a few dozen bytes on the wire: the wire count alone let a small
    # compressed body inflate to any size in the proxy (a zip bomb).
    for size, fits in ((LIMIT, True), (50_000, False)):
        plain = b"0" * size
        packed = gzip.compress(plain) if "gzip" in encoding.lower() else zlib.compress(plain)
        headers = {**JSON, "content-encoding": encoding, "content-length": str(len(packed))}
        assert len(packed) < LIMIT
        if fits:
            assert _read([packed], headers)[0] == plain
            continue
        with pytest.raises(MessageOverCeiling) as refused:
            _read([packed], headers)
        assert f"more than {LIMIT:,} bytes" in str(refused.value)


def test_a_declared_length_over_the_ceiling_is_refused_unread() -> None:
    with pytest.raises(MessageOverCeiling) as refused:
        _read([b"x" * 5000], {**JSON, "content-length": "5000"})
    assert "a message of 5,000 bytes" in str(refused.value)
    assert "dropped unread" in str(refused.value)


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 700), max_size=8), limit=st.integers(1, 2000),
       declared=st.booleans())
def test_never_more_than_the_ceiling_is_read(sizes: list[int], limit: int, declared: bool) -> None:
    chunks = [bytes([65 + i % 26]) * n for i, n in enumerate(sizes)]
    body = b"".join(chunks)
    headers = {**JSON, "content-length": str(len(body))} if declared else JSON
    sent = [0]
    try:
        got, _ = _read(chunks, headers, limit, sent)
    except MessageOverCeiling as exc:
        assert len(body) > limit and "(--max-message-bytes)" in str(exc)
        # Nothing past the piece that crossed the ceiling was read; none, if it was declared.
        assert sent[0] <= (0 if declared else limit + max(sizes))
    else:
        assert len(body) <= limit and got == body and sent[0] == len(body)


@pytest.mark.parametrize("message", [
    "Failed to parse JSON response: Expecting value",
    "a message of 9 bytes",  # the opening without the flag
    "",
])
def test_other_parse_errors_are_not_taken_for_a_refusal(message: str) -> None:
    assert refusal_in(message) is None


def test_the_words_say_what_happened() -> None:
    assert refusal(2048, 1024, whole=True).startswith(
        "a message of 2,048 bytes, over the proxy's 1,024-byte ceiling")
    partial = refusal(1500, 1024, whole=False)
    assert "more than 1,024 bytes" in partial and "once 1,500 bytes had arrived" in partial
