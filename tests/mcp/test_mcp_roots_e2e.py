"""End to end: a server that confines itself to its client's roots, behind the proxy.

Found with the reference filesystem server: it asks ``roots/list`` right after the
handshake, the proxy refused ("no agent call was in flight"), and the server went on serving
the wider directories of its command line, so an agent that had narrowed its roots got access
it never granted. Here the agent (the official client, with a roots callback) narrows its
roots, and the server must report exactly them on the agent's first call, for agents of both
eras; after the agent changes its roots and says so, the new ones; with two agents on one
HTTP proxy, only what both granted.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.processes import Started, started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
#: What the server would serve on its own: wider than any agent grants.
WIDE = "file:///"


def config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(HERE / "roots_server.py"), WIDE],
             "timeout": 20}
    path.write_text(json.dumps({"mcpServers": {"files": entry}}))
    return path


def stdio_proxy(tmp_path: Path) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--config", str(config(tmp_path)), "--store", ":memory:",
               "--no-audit"]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


class Agent:
    """An agent's roots, which it may change."""

    def __init__(self, *uris: str) -> None:
        self.uris = list(uris)

    async def roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=uri) for uri in self.uris]  # type: ignore[arg-type]
        )


async def serving(client: Client) -> list[str]:
    result = await client.call_tool("files__roots", {})
    block = result.content[0]
    assert isinstance(block, types.TextContent), result
    assert not result.is_error, block.text
    state = json.loads(block.text)
    served: list[str] = state["serving"]
    return served


async def until_serving(client: Client, expected: list[str]) -> None:
    with anyio.fail_after(15):
        while await serving(client) != expected:
            await anyio.sleep(0.05)


def test_a_handshake_era_agent_narrows_the_servers_roots_and_changes_them(
    tmp_path: Path,
) -> None:
    agent = Agent("file:///work/project")

    async def main() -> None:
        async with Client(stdio_proxy(tmp_path), mode="legacy",
                          list_roots_callback=agent.roots) as client:
            # The first call already runs on the agent's roots, not on the server's own.
            assert await serving(client) == ["file:///work/project"]
            agent.uris = ["file:///work/other", "file:///tmp/scratch"]
            await client.session.send_notification(types.RootsListChangedNotification())
            await until_serving(client, ["file:///work/other", "file:///tmp/scratch"])

    anyio.run(main)


def test_a_newest_era_agent_narrows_the_servers_roots(tmp_path: Path) -> None:
    agent = Agent("file:///work/project")

    async def main() -> None:
        async with Client(stdio_proxy(tmp_path), list_roots_callback=agent.roots) as client:
            assert await serving(client) == ["file:///work/project"]
            # Its roots changed: the newest era has no notification for it, so the proxy asks
            # on each call to a server that uses roots.
            agent.uris = ["file:///work/other"]
            assert await serving(client) == ["file:///work/other"]

    anyio.run(main)


@pytest.fixture(scope="module")
def http_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Started]:
    """One HTTP proxy for the tests of several agents (a proxy start is ~1.2 s of CPU, most of
    it importing the SDK). Each test's agents connect, and all of them leave before it ends, so
    the next test's first agent finds a proxy with no agent, as a fresh one; a proxy that kept
    any departed agent's roots would narrow that agent's first call, and its check fails."""
    command = [*ELISION, "proxy", "--config", str(config(tmp_path_factory.mktemp("roots"))),
               "--store", ":memory:", "--no-audit", "--listen", "127.0.0.1:0"]
    with started(command) as proxy:
        yield proxy


def test_two_agents_on_one_http_proxy_grant_the_server_only_what_both_granted(
    http_proxy: Started,
) -> None:
    first = Agent("file:///p", "file:///q/sub", "file:///r")
    second = Agent("file:///p/x", "file:///q")
    url = http_proxy.url

    async def main() -> None:
        async with Client(url, mode="legacy", list_roots_callback=first.roots) as a:
            assert await serving(a) == ["file:///p", "file:///q/sub", "file:///r"]
            async with Client(url, mode="legacy", list_roots_callback=second.roots) as b:
                both = ["file:///p/x", "file:///q/sub"]
                assert await serving(b) == both
                assert await serving(a) == both
                # One agent narrows further: the server follows, for both.
                first.uris = ["file:///p/x/deeper"]
                await a.session.send_notification(types.RootsListChangedNotification())
                await until_serving(b, ["file:///p/x/deeper"])
                first.uris = ["file:///p", "file:///q/sub"]
                await a.session.send_notification(types.RootsListChangedNotification())
                await until_serving(b, both)
            # The second agent left: the server gets back all that the first one grants.
            await until_serving(a, ["file:///p", "file:///q/sub"])

    try:
        anyio.run(main)
    finally:
        print("STDERR", http_proxy.stderr())


def test_a_newest_era_agents_call_is_held_to_what_both_eras_granted(http_proxy: Started) -> None:
    handshake = Agent("file:///p")
    newest = Agent("file:///p/x", "file:///q")
    url = http_proxy.url

    async def main() -> None:
        async with Client(url, mode="legacy", list_roots_callback=handshake.roots) as a:
            assert await serving(a) == ["file:///p"]
            async with Client(url, list_roots_callback=newest.roots) as n:
                # Its call runs on what both agents grant, asked for as its first round.
                assert await serving(n) == ["file:///p/x"]
            # Its call is over: the handshake-era agent gets back all it granted.
            await until_serving(a, ["file:///p"])

    anyio.run(main)
