"""End to end: an agent that gives up on a call cancels it upstream, through the proxy.

The official mcp.Client sends ``notifications/cancelled`` when a call is abandoned; the proxy's
handler is cancelled with it and its upstream session sends its own cancel, so a slow tool
stops working for nobody. The proxy stays up and answers the next call.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


def test_an_abandoned_call_is_cancelled_upstream(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    command = [*ELISION, "proxy", "--store", ":memory:", "--no-audit", "--", *UPSTREAM]

    async def main() -> None:
        params = StdioServerParameters(command=command[0], args=command[1:],
                                       env=dict(os.environ))
        async with Client(params) as client:
            with anyio.move_on_after(30) as waited:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(client.call_tool, "wait_for_cancel", {"marker": str(marker)})
                    while not marker.exists() or marker.read_text() != "started":
                        await anyio.sleep(0.05)
                    tg.cancel_scope.cancel()  # the agent gives up on the call
            assert not waited.cancelled_caught, "the upstream tool never started"
            deadline = time.monotonic() + 20
            while marker.read_text() != "cancelled" and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            assert marker.read_text() == "cancelled"
            after = await client.call_tool("crash", {})
            block = after.content[0]
            assert isinstance(block, types.TextContent) and block.text == "still here"

    anyio.run(main)
