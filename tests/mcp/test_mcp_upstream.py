"""Upstream sessions: one long-lived session, timeouts that restart it, no stale restarts."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from elision.errors import UpstreamError
from elision.mcp.upstream.config import ServerSpec
from elision.mcp.upstream.link import Link
from elision.mcp.upstream.upstream import Upstream
from mcp import Client


def in_process_server() -> MCPServer:
    server = MCPServer("in-process")

    @server.tool()
    def echo(text: str) -> str:
        """Returns its argument."""
        return text

    @server.tool()
    async def stall() -> str:
        """Never answers in time."""
        await anyio.sleep(3600)
        return "late"

    return server


class InProcessUpstream(Upstream):
    """An Upstream whose server runs in this process: no subprocess, same session logic."""

    server = in_process_server()

    def _make_client(self, link: Link) -> Client:
        # In process there is no transport to watch: the link stays up.
        return Client(self.server, mode="legacy", cache=None)


def run_with_upstream(test: object, timeout: float = 0.5) -> None:
    async def main() -> None:
        async with anyio.create_task_group() as tg:
            upstream = InProcessUpstream(
                ServerSpec("ledger", command="unused", timeout=timeout), tg
            )
            try:
                await test(upstream)  # type: ignore[operator]
            finally:
                await upstream.aclose()
                tg.cancel_scope.cancel()

    anyio.run(main)


async def echo(upstream: Upstream, text: str) -> str:
    result = await upstream.call("tools/call echo", lambda s: s.call_tool("echo", {"text": text}))
    return result.content[0].text  # type: ignore[union-attr,no-any-return]


def test_one_session_serves_many_calls() -> None:
    async def test(upstream: Upstream) -> None:
        for i in range(5):
            assert await echo(upstream, f"call {i}") == f"call {i}"
        assert upstream.starts == 1

    run_with_upstream(test)


def test_a_timeout_names_the_server_and_the_next_call_restarts_it() -> None:
    async def test(upstream: Upstream) -> None:
        assert await echo(upstream, "before") == "before"
        with pytest.raises(UpstreamError, match=r"server 'ledger' did not answer .* within 0.5 s"):
            await upstream.call("tools/call stall", lambda s: s.call_tool("stall", {}))
        assert await echo(upstream, "after") == "after"
        assert upstream.starts == 2

    run_with_upstream(test)


def test_a_stale_failure_does_not_stop_the_fresh_session() -> None:
    async def test(upstream: Upstream) -> None:
        old = await upstream.session()
        await upstream.restart()
        fresh = await upstream.session()
        assert fresh is not old
        await upstream._discard(old)  # a late failure report about the dead session
        assert await upstream.session() is fresh
        assert await echo(upstream, "still") == "still"

    run_with_upstream(test)
