"""End to end: a result over --max-message-bytes is refused with a clear isError, not an
out-of-memory kill, and the proxy (and its upstream session) serve the next call as before.

A real upstream (``upstream_server.py``) answers ``huge`` with several MB; a real proxy with
a 4 MB message ceiling sits in front of it; the official ``mcp.Client`` calls through it.
Issue 17, item 2.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.ports import free_port, wait_for_port

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
CEILING = 4_000_000


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_a_message_over_the_ceiling_is_refused_and_the_proxy_stays_up() -> None:
    params = StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", "--budget", "4096",
        "--no-store", "--no-audit", "--max-message-bytes", str(CEILING),
        "--", sys.executable, str(HERE / "upstream_server.py"),
    ], env=dict(os.environ))

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            for _ in range(2):  # refused twice: the first refusal broke nothing
                refused = await client.call_tool("huge", {"megabytes": 5})
                assert refused.is_error
                text = text_of(refused)
                size = re.search(r"a message of ([\d,]+) bytes", text)
                assert size is not None, text
                assert int(size[1].replace(",", "")) > CEILING
                assert f"{CEILING:,}-byte ceiling" in text
                assert "--max-message-bytes" in text and "'upstream'" in text
                # a result under the ceiling is shaped as ever, on the same session
                fits = await client.call_tool("huge", {"megabytes": 1})
                assert not fits.is_error, text_of(fits)
                assert '"__elision__"' in text_of(fits)

    anyio.run(main)


@contextmanager
def _proxy_before_http_upstream(mode: str) -> Iterator[StdioServerParameters]:
    """A real HTTP upstream (``--http``: SSE events, ``--http-json``: one JSON body each) and
    the parameters of a proxy in front of it with the 4 MB ceiling."""
    port = free_port()
    upstream = subprocess.Popen(
        [sys.executable, str(HERE / "upstream_server.py"), mode, str(port)],
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield StdioServerParameters(command=sys.executable, args=[
            "-c", "from elision.cli import main; main()", "proxy", "--budget", "4096",
            "--no-store", "--no-audit", "--max-message-bytes", str(CEILING),
            "--upstream-url", f"http://127.0.0.1:{port}/mcp",
        ], env=dict(os.environ))
    finally:
        upstream.terminate()
        upstream.wait(10)


def test_an_http_upstreams_event_over_the_ceiling_is_refused_by_name() -> None:
    """HTTP upstreams were not bounded at all: the proxy read any SSE event whole
    (``max_sse_event_size=None``). Now the ceiling is the SDK's event cap, and the agent is
    told which flag it is (issue 17)."""

    async def main(params: StdioServerParameters) -> None:
        async with Client(params, mode="legacy") as client:
            refused = await client.call_tool("huge", {"megabytes": 5})
            assert refused.is_error
            text = text_of(refused)
            assert f"{CEILING:,}-byte ceiling (--max-message-bytes)" in text, text
            assert "'upstream'" in text
            fits = await client.call_tool("huge", {"megabytes": 1})  # a new session
            assert not fits.is_error, text_of(fits)
            assert '"__elision__"' in text_of(fits)

    with _proxy_before_http_upstream("--http") as params:
        anyio.run(main, params)


def test_an_http_upstreams_json_body_over_the_ceiling_is_refused_and_the_session_kept() -> None:
    """A server that answers in JSON mode sends each result as one application/json body,
    which the SDK read whole before the proxy saw it: --max-message-bytes did not bound it at
    all, so a 5 MB result went through a 4 MB ceiling (issue 17). Now the body is dropped
    unread on its Content-Length, and the same session answers the next call."""

    async def main(params: StdioServerParameters) -> None:
        async with Client(params, mode="legacy") as client:
            for _ in range(2):
                refused = await client.call_tool("huge", {"megabytes": 5})
                assert refused.is_error
                text = text_of(refused)
                size = re.search(r"a message of ([\d,]+) bytes", text)
                assert size is not None, text
                assert int(size[1].replace(",", "")) > CEILING
                assert f"{CEILING:,}-byte ceiling (--max-message-bytes)" in text, text
                assert "dropped unread" in text and "'upstream'" in text
                assert "went away" not in text  # not taken for a lost session
                fits = await client.call_tool("huge", {"megabytes": 1})
                assert not fits.is_error, text_of(fits)
                assert '"__elision__"' in text_of(fits)

    with _proxy_before_http_upstream("--http-json") as params:
        anyio.run(main, params)
