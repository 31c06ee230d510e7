"""End to end: upstream notifications reach agents of both protocol eras through the proxy.

A real upstream (``notify_server.py``) behind a real ``elision proxy``, driven by the official
``mcp.Client`` as an agent of a handshake-era protocol (``mode="legacy"``) and as one of
protocol 2026-07-28, over stdio and over HTTP, with the upstream's own session in either era
(``"mode": "legacy"`` or ``"auto"`` in the proxy's config). Each agent checks:

* a tool that changes the tool list: the agent hears ``tools/list_changed`` and lists the
  new tool;
* ``resources/updated`` for a uri it subscribed to (``resources/subscribe``, or a listen
  stream's ``resourceSubscriptions``) and not for another uri;
* a log message at the level it asked for reaches it during the call, one below it does not;
* a log message that carries a credential arrives with the credential withheld;
* after the upstream dies and is restarted, its changes still reach the agent (stdio);
* agents of both eras on one proxy share a subscription, and an HTTP proxy stopped while an
  agent listens ends the stream and exits (HTTP).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.subscriptions import ResourceUpdated, Subscription, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, StdioServerParameters
from support.ports import free_port, wait_for_port
from support.processes import Started, started

pytestmark = [
    pytest.mark.e2e,
    # logging/setLevel and resources/subscribe are deprecated at 2026-07-28; the agents of an
    # older protocol here use them on purpose.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "notify_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
FEED = "test://feed"
OTHER = "test://other"
SECRET = "ghp_" + "k3F9q2Lm7Zx8Rt4Wv6Yb1Nc5Hd0Js3Pa9Ue2"
NEWEST = MODERN_PROTOCOL_VERSIONS[-1]
#: How long a notification may take to arrive.
WAIT = 10.0


def write_config(tmp_path: Path, mode: str, url: str | None = None) -> Path:
    entry: dict[str, Any] = {"url": url} if url else {"command": UPSTREAM[0], "args": UPSTREAM[1:]}
    config = tmp_path / f"servers-{mode}.json"
    config.write_text(json.dumps({"mcpServers": {"feed": {**entry, "mode": mode}}}))
    return config


def proxy_command(config: Path, *extra: str) -> list[str]:
    return [*ELISION, "proxy", "--config", str(config), "--store", ":memory:", *extra]


class Agent:
    """One agent's client and everything it heard."""

    def __init__(self, era: str) -> None:
        self.era = era
        self.modern = era != "legacy"
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.heard: list[types.ServerNotification] = []
        self.events: list[Any] = []

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_message(self, message: Any) -> None:
        if not isinstance(message, Exception):
            self.heard.append(message)

    def client(self, server: Any) -> Client:
        return Client(server, mode=self.era, logging_callback=self.on_log,
                      message_handler=self.on_message)

    def updated(self) -> list[str]:
        return [str(n.params.uri) for n in self.heard
                if isinstance(n, types.ResourceUpdatedNotification)]

    def tools_changed(self) -> int:
        return sum(isinstance(n, types.ToolListChangedNotification) for n in self.heard)

    async def call(self, client: Client, name: str, args: dict[str, Any],
                   level: types.LoggingLevel | None = None) -> str:
        # An agent of protocol 2026-07-28 asks for log messages on each call; one of an older
        # protocol asked once, with logging/setLevel.
        meta: Any = {types.LOG_LEVEL_META_KEY: level} if level and self.modern else None
        result = await client.call_tool(f"feed__{name}", args, meta=meta)
        assert not result.is_error, result
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text


async def until(check: Callable[[], bool], what: str) -> None:
    with anyio.fail_after(WAIT):
        while not check():
            await anyio.sleep(0.02)


async def drain(subscription: Subscription, agent: Agent) -> None:
    async for event in subscription:
        agent.events.append(event)


async def exercise(client: Client, agent: Agent, *, upstream_era: str) -> None:
    """Every check, for one agent; the upstream's era is checked too, so a fallback shows."""
    assert (client.protocol_version in MODERN_PROTOCOL_VERSIONS) == agent.modern
    era = await agent.call(client, "era", {})
    assert (era in MODERN_PROTOCOL_VERSIONS) == (upstream_era != "legacy"), era

    async with anyio.create_task_group() as tg:
        if agent.modern:
            listening = client.listen(tools_list_changed=True, resource_subscriptions=[FEED])
            subscription = await listening.__aenter__()
            assert subscription.honored.resource_subscriptions == [FEED]
            tg.start_soon(drain, subscription, agent)
        else:
            await client.set_logging_level("warning")
            await client.subscribe_resource(FEED)

        # Logs: one below the level asked for, then one at it; only the second arrives, and
        # during the call (before its result) for an agent of protocol 2026-07-28.
        assert await agent.call(client, "say", {"message": "quiet", "level": "info"},
                                level="warning") == "said"
        assert await agent.call(client, "say", {"message": "loud", "level": "warning"},
                                level="warning") == "said"
        if agent.modern:
            assert [p.data for p in agent.logs] == ["loud"]
        await until(lambda: any(p.data == "loud" for p in agent.logs), "the warning")
        assert [p.data for p in agent.logs] == ["loud"]
        assert agent.logs[0].level == "warning" and agent.logs[0].logger == "feed/notify"
        if agent.modern:
            # A call that asked for no log messages gets none.
            await agent.call(client, "say", {"message": "unasked", "level": "error"})
            # A resource read that asked for them gets its own, before the result.
            read = await client.read_resource(
                FEED, meta={types.LOG_LEVEL_META_KEY: "notice"}, cache_mode="bypass"
            )
            assert read.contents and [p.data for p in agent.logs] == ["loud", f"read {FEED}"]
            agent.logs.pop()
        # A credential in a log message is withheld.
        await agent.call(client, "say", {"message": f"token={SECRET} ok", "level": "error"},
                         level="warning")
        await until(lambda: len(agent.logs) == 2, "the error")
        assert SECRET not in json.dumps([p.model_dump() for p in agent.logs])
        assert "credential withheld" in str(agent.logs[1].data)
        assert str(agent.logs[1].data).endswith(" ok")

        # resources/updated: for the subscribed uri, not for another one.
        await agent.call(client, "touch", {"uri": OTHER})
        await agent.call(client, "touch", {"uri": FEED})
        await until(lambda: FEED in agent.updated(), "resources/updated")
        assert agent.updated() == [FEED]
        if agent.modern:
            await until(lambda: ResourceUpdated(uri=FEED) in agent.events, "the listen event")
            assert ResourceUpdated(uri=OTHER) not in agent.events
        if upstream_era == "legacy":
            # The proxy subscribed the upstream itself.
            assert json.loads(await agent.call(client, "subscribed", {})) == [FEED]

        # A tool that changes the tool list: heard, and the new tool is listed at once.
        assert "feed__grown" not in {t.name for t in (await client.list_tools()).tools}
        await agent.call(client, "grow", {})
        await until(lambda: agent.tools_changed() > 0, "tools/list_changed")
        assert "feed__grown" in {t.name for t in (await client.list_tools()).tools}
        assert await agent.call(client, "grown", {}) == "grown"
        if agent.modern:
            await until(lambda: ToolsListChanged() in agent.events, "the listen event")
            await listening.__aexit__(None, None, None)
        else:
            await client.unsubscribe_resource(FEED)
        tg.cancel_scope.cancel()
    if upstream_era == "legacy":
        # Nobody wants the uri any more: the proxy unsubscribed the upstream.
        await until_subscribed(client, agent, [])


async def until_subscribed(client: Client, agent: Agent, uris: list[str]) -> None:
    with anyio.fail_after(WAIT):
        while json.loads(await agent.call(client, "subscribed", {})) != uris:
            await anyio.sleep(0.05)


@pytest.mark.parametrize("upstream_era", ["legacy", "auto"])
def test_stdio_agents_of_both_eras_hear_every_notification(
    tmp_path: Path, upstream_era: str
) -> None:
    config = write_config(tmp_path, upstream_era)
    command = proxy_command(config)
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

    async def one(era: str) -> None:
        agent = Agent(era)
        async with agent.client(server) as client:
            await exercise(client, agent, upstream_era=upstream_era)
            await check_restart(client, agent)

    async def main() -> None:
        # Each stdio agent has its own proxy (and upstream): started side by side.
        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "legacy")
            tg.start_soon(one, NEWEST)

    anyio.run(main)


async def check_restart(client: Client, agent: Agent) -> None:
    """The upstream dies; the next call starts it again, and the proxy subscribes the new
    session (or listens to it) again, so changes still reach the agent."""
    agent.heard.clear()
    agent.events.clear()
    async with anyio.create_task_group() as tg:
        if agent.modern:
            listening = client.listen(tools_list_changed=True, resource_subscriptions=[FEED])
            tg.start_soon(drain, await listening.__aenter__(), agent)
        else:
            await client.subscribe_resource(FEED)
        crashed = await client.call_tool("feed__crash", {})
        assert crashed.is_error
        with anyio.fail_after(WAIT):
            # The first call starts the server; its subscription follows in the background.
            while FEED not in agent.updated():
                await agent.call(client, "touch", {"uri": FEED})
                await anyio.sleep(0.1)
        await agent.call(client, "grow", {})
        await until(lambda: agent.tools_changed() > 0, "tools/list_changed")
        if agent.modern:
            await until(lambda: ToolsListChanged() in agent.events, "the listen event")
            await listening.__aexit__(None, None, None)
        tg.cancel_scope.cancel()


@pytest.fixture(scope="module")
def legacy_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Started]]:
    """The HTTP proxy in front of a handshake-era stdio upstream, shared by the tests of this
    file that need one (a proxy and an SDK upstream are ~1.2 s of CPU to start): ``live()``
    gives the running one, or starts another where a test stopped it. Each test connects
    agents (sessions) of its own. The agent that goes away leaves the upstream subscribed to
    nothing and its tool list as it was; the agents of both eras grow the list, and end by
    stopping the proxy, so a test after them gets a new one."""
    config = write_config(tmp_path_factory.mktemp("notify"), "legacy")
    with ExitStack() as stack:
        running: list[Started] = []

        def live() -> Started:
            if not running or running[-1].proc.poll() is not None:
                command = proxy_command(config, "--listen", "127.0.0.1:0")
                running.append(stack.enter_context(started(command)))
            return running[-1]

        yield live


def test_an_agent_that_goes_away_without_unsubscribing_lets_its_uris_go(
    legacy_proxy: Callable[[], Started],
) -> None:
    """A handshake-era agent over HTTP subscribes, then closes its session: the proxy lets the
    uri go as if it had unsubscribed, so the upstream is not held subscribed for no one."""
    proxy_url = legacy_proxy().url

    async def main() -> None:
        watcher = Agent("legacy")
        async with watcher.client(proxy_url) as watching:
            gone = Agent("legacy")
            async with gone.client(proxy_url) as leaving:
                await leaving.subscribe_resource(FEED)
                assert json.loads(await gone.call(leaving, "subscribed", {})) == [FEED]
            # Its session ended (the client closed it): nobody wants the uri any more.
            await until_subscribed(watching, watcher, [])

    anyio.run(main)


@pytest.mark.parametrize("upstream_era", ["legacy", "auto"])
def test_http_agents_of_both_eras_on_one_proxy_hear_every_notification(
    tmp_path: Path, upstream_era: str, legacy_proxy: Callable[[], Started]
) -> None:
    with ExitStack() as stack:
        if upstream_era == "legacy":
            proxy = legacy_proxy()
        else:
            # The upstream speaks HTTP too when it is of the newest era, so the proxy's own
            # listen stream runs over HTTP; the other case keeps a stdio upstream.
            port = free_port()
            upstream = subprocess.Popen([*UPSTREAM, "--http", str(port)],
                                        stderr=subprocess.DEVNULL)
            stack.callback(upstream.wait, 10)
            stack.callback(upstream.terminate)
            wait_for_port(port)
            config = write_config(tmp_path, upstream_era, f"http://127.0.0.1:{port}/mcp")
            proxy = stack.enter_context(started(proxy_command(config, "--listen", "127.0.0.1:0")))
        proxy_url = proxy.url

        async def main() -> None:
            legacy, modern = Agent("legacy"), Agent(NEWEST)
            async with legacy.client(proxy_url) as old, modern.client(proxy_url) as new:
                await old.list_tools()  # as an agent does first; the proxy knows it now
                # One after the other: both share one upstream, whose tool list grows once.
                await exercise(new, modern, upstream_era=upstream_era)
                await check_legacy_after_growth(old, legacy, upstream_era=upstream_era)
                await check_shared_interest(old, legacy, new, modern, upstream_era=upstream_era)
            # Stopped while an agent listens: the stream ends gracefully and the proxy exits
            # (uvicorn waits for every open response, and a listen stream is one).
            async with modern.client(proxy_url) as late, late.listen(
                tools_list_changed=True
            ) as subscription:
                proxy.proc.terminate()
                with anyio.fail_after(WAIT):
                    async for _ in subscription:
                        pass
                assert await anyio.to_thread.run_sync(proxy.proc.wait, WAIT) == 0

        anyio.run(main)


async def check_legacy_after_growth(client: Client, agent: Agent, *, upstream_era: str) -> None:
    """The handshake-era agent on the same proxy: it heard the growth the other agent caused,
    and gets its own logs and updates."""
    await until(lambda: agent.tools_changed() > 0, "tools/list_changed")
    assert "feed__grown" in {t.name for t in (await client.list_tools()).tools}
    # It also heard what the other agent's calls logged and updated; from here on, its own.
    agent.logs.clear()
    agent.heard.clear()
    await client.set_logging_level("warning")
    await client.subscribe_resource(FEED)
    await agent.call(client, "say", {"message": "quiet", "level": "info"})
    await agent.call(client, "say", {"message": f"token={SECRET}", "level": "warning"})
    await until(lambda: len(agent.logs) > 0, "the warning")
    assert len(agent.logs) == 1 and SECRET not in str(agent.logs[0].data)
    assert "credential withheld" in str(agent.logs[0].data)
    await agent.call(client, "touch", {"uri": FEED})
    await until(lambda: FEED in agent.updated(), "resources/updated")
    if upstream_era == "legacy":
        assert json.loads(await agent.call(client, "subscribed", {})) == [FEED]


async def check_shared_interest(old: Client, legacy: Agent, new: Client, modern: Agent, *,
                                upstream_era: str) -> None:
    """Both eras want the uri; the handshake-era agent lets it go, the other still hears."""
    modern.heard.clear()
    async with new.listen(resource_subscriptions=[FEED]):
        await old.unsubscribe_resource(FEED)
        legacy.heard.clear()
        if upstream_era == "legacy":
            assert json.loads(await legacy.call(old, "subscribed", {})) == [FEED]
        await modern.call(new, "touch", {"uri": FEED})
        await until(lambda: FEED in modern.updated(), "resources/updated")
        # The proxy tells agents of the older era first: had it told this one, it would show.
        await old.send_ping()
        assert legacy.updated() == []
    if upstream_era == "legacy":
        await until_subscribed(new, modern, [])
