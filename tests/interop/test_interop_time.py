"""``mcp-server-time`` (PyPI) behind the proxy: the proxy advertises only what its servers serve.

Found by an interop run (issue 23): at protocol 2026-07-28 the proxy advertised
``resources.subscribe`` in front of this server, which serves no resources at all, and its
``subscriptions/listen`` acknowledged a resource subscription no server would ever feed, so an
agent waited for updates that could not come. The SDK derives that era's ``subscribe`` from
whether ``subscriptions/listen`` is served, and the proxy serves it always (it is how that era
hears of tool changes).
"""

from __future__ import annotations

import os
import sys

import anyio
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

pytest.importorskip("mcp_server_time", reason="mcp-server-time comes with elision's test extra")

ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def through_proxy() -> StdioServerParameters:
    command = [*ELISION, "proxy", "--store", ":memory:", "--no-audit", "--", *TIME_SERVER]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


def direct() -> StdioServerParameters:
    return StdioServerParameters(command=TIME_SERVER[0], args=TIME_SERVER[1:],
                                 env=dict(os.environ))


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["newest-era", "handshake-era"])
def test_subscribe_is_advertised_only_where_the_server_offers_it(mode: str) -> None:
    async def advertised(params: StdioServerParameters) -> bool:
        async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
            resources = client.server_capabilities.resources
            return bool(resources is not None and resources.subscribe)

    async def main() -> None:
        with anyio.fail_after(60):
            assert not await advertised(direct())  # the server's own word
            assert not await advertised(through_proxy())

    anyio.run(main)


def test_a_listen_stream_does_not_acknowledge_a_subscription_nobody_feeds() -> None:
    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(through_proxy()) as client, client.listen(
                tools_list_changed=True, resource_subscriptions=["time://utc"]
            ) as subscription:
                assert not subscription.honored.resource_subscriptions
                # What the proxy does serve is still acknowledged.
                assert subscription.honored.tools_list_changed

    anyio.run(main)
