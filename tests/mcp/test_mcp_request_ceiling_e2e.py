"""End to end: one client's oversized request cannot make the shared HTTP proxy hold it.

The SDK's server read a POST body whole before looking at it, so a client could make the
proxy every client shares hold any number of bytes. With ``--max-request-bytes`` the body is
refused with 413 and a JSON-RPC error naming the size, the ceiling and the flag, declared
(refused unread) or streamed without a length (refused at the ceiling), while another
client's session on the same proxy goes on answering.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest

from mcp import Client
from support.processes import started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
CEILING = 200_000
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _call(size: int) -> bytes:
    """A tools/call whose arguments make the request about ``size`` bytes."""
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "one_line", "arguments": {"size": 100, "pad": "x" * size}}}).encode()


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    """``body`` sent chunked: no Content-Length for the proxy to judge it by."""
    for start in range(0, len(body), 65536):
        yield body[start:start + 65536]


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_an_oversized_request_is_refused_and_other_clients_go_on(tmp_path: Path) -> None:
    with started([*ELISION, "proxy", "--budget", "4096", "--no-store", "--no-audit",
                  "--listen", "127.0.0.1:0", "--max-request-bytes", str(CEILING),
                  "--", *UPSTREAM]) as proxy:
        url = proxy.url

        async def main() -> None:
            async with Client(url, mode="legacy") as other:
                before = await other.call_tool("one_line", {"size": 100})
                assert not before.is_error, _text(before)
                big = _call(3 * CEILING)
                async with httpx2.AsyncClient(timeout=30) as raw:
                    declared = await raw.post(url, content=big, headers=HEADERS)
                    streamed = await raw.post(url, content=_chunks(big), headers=HEADERS)
                for answer, words in ((declared, f"a request of {len(big):,} bytes"),
                                      (streamed, f"more than {CEILING:,} bytes")):
                    assert answer.status_code == 413, answer.text
                    error = answer.json()["error"]
                    assert words in error["message"], error
                    assert f"{CEILING:,}-byte ceiling (--max-request-bytes)" in error["message"]
                # The refusals cost the other client nothing: same session, same answers.
                after = await other.call_tool("one_line", {"size": 100})
                assert not after.is_error and _text(after) == _text(before)
                # A new client under the ceiling is served as ever.
                async with Client(url, mode="legacy") as third:
                    fits = await third.call_tool("one_line", {"size": 100})
                    assert not fits.is_error

        anyio.run(main)
