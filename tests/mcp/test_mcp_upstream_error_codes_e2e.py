"""End to end: a JSON-RPC error an upstream sends is that request's answer, whatever its code.

Found by an upstream answering a call with error -32000, a code JSON-RPC leaves free for
servers to use (issue 23): the MCP SDK uses the same number for a closed connection, so the
proxy took the answer for a dead upstream and restarted it, and every call in flight on it
failed, another HTTP client's included ("server went away (Connection closed)"). Here one
client holds a call open on the upstream while another gets the error; the held call must
still be answered, by the same upstream process.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client
from support.processes import Started, started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ERRING = [sys.executable, str(HERE / "erring_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


@pytest.fixture(scope="module")
def proxy() -> Iterator[Started]:
    with started([*ELISION, "proxy", "--no-store", "--no-audit", "--timeout", "60",
                  "--listen", "127.0.0.1:0", "--", *ERRING]) as running:
        yield running


ERRORS = [
    pytest.param(-32000, "quota exceeded", id="server-error-32000"),  # the case
    # The SDK's own words for a closed connection, sent by a server as a plain error.
    pytest.param(-32000, "Connection closed", id="connection-closed-words"),
    pytest.param(-32001, "Request timed out", id="request-timeout-code"),  # the SDK's timeout
    pytest.param(-32603, "internal error", id="internal-error"),
    pytest.param(-32099, "server-defined, end of the range", id="server-error-range-end"),
    pytest.param(7, "a positive application code", id="positive-code"),
]


@pytest.mark.parametrize(("code", "message"), ERRORS)
def test_an_error_answer_fails_only_its_own_call(
    proxy: Started, code: int, message: str
) -> None:
    key = f"case{code}{message}"

    async def main() -> None:
        async with Client(proxy.url) as holder, Client(proxy.url) as other:
            before = (await other.call_tool("pid", {})).structured_content
            held: list[str] = []

            async def hold() -> None:
                result = await holder.call_tool("hold", {"key": key})
                assert not result.is_error, result
                held.append("answered")

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(hold)
                    with pytest.raises(MCPError) as caught:
                        await other.call_tool(
                            "fail", {"key": key, "code": code, "message": message})
                    assert caught.value.code == code
                    assert message in caught.value.message
                    # The upstream was not restarted: the same process answers...
                    after = (await other.call_tool("pid", {})).structured_content
                    assert after == before, "the upstream was restarted by an error answer"
                    # ...and the other client's call, in flight all along, is answered.
                    assert not (await other.call_tool("release", {"key": key})).is_error
            assert held == ["answered"]

    anyio.run(main)
