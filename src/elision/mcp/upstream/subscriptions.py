"""The proxy's own subscriptions on its upstreams, for the uris agents want.

Resource subscriptions of both agent eras share one count per uri (:meth:`Subscriptions.count`):
the first agent to want a uri (``resources/subscribe``, or a listen stream that lists it)
subscribes the upstreams, the last one to let it go unsubscribes them. An upstream of the
handshake era gets ``resources/subscribe``; one of protocol 2026-07-28 (``"mode": "auto"``)
announces nothing unless the client listens, so the proxy holds a listen stream open on each
such session (:class:`Follower`), asking for every list-changed kind and for the wanted uris,
and reopens it when that set changes (the new stream is acknowledged before the old one
closes, so no event falls between). Its events reach the proxy as ordinary notifications and
go on from there like any other (:mod:`elision.mcp.agent.notify`).

A restarted upstream is a new session: it is subscribed again, or listened to again, as soon
as it is up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.client.session import ClientSession
from mcp.client.subscriptions import SubscriptionLost, listen
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.errors import UpstreamError
from elision.mcp.upstream.upstream import Upstream
from elision.redact.messages import describe

logger = logging.getLogger("elision.proxy")


class Follower:
    """The proxy's listen stream on one upstream session of protocol 2026-07-28."""

    def __init__(self, upstream: Upstream, session: ClientSession, tg: TaskGroup) -> None:
        self.upstream = upstream
        self.session = session
        self._tg = tg
        self._lock = anyio.Lock()
        self._stop: anyio.Event | None = None
        #: The uris of the stream that is open, once one is.
        self.uris: frozenset[str] | None = None

    async def listen(self, uris: Iterable[str]) -> bool:
        """Open a stream for every list-changed kind and ``uris``, then close the previous one.

        False when the upstream did not acknowledge it in time (the previous stream stays).
        """
        wanted = frozenset(uris)
        async with self._lock:
            ready, stop, scope = anyio.Event(), anyio.Event(), anyio.CancelScope()
            opened: list[bool] = []
            self._tg.start_soon(self._hold, sorted(wanted), ready, stop, scope, opened)
            taken = False
            try:
                with anyio.move_on_after(self.upstream.spec.timeout):
                    await ready.wait()
                if opened:
                    previous, self._stop, self.uris = self._stop, stop, wanted
                    if previous is not None:
                        previous.set()
                    taken = True
            finally:
                if not taken:  # timed out or cancelled: no stream may be left open unowned
                    scope.cancel()
            return taken

    def close(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _hold(
        self, uris: list[str], ready: anyio.Event, stop: anyio.Event, scope: anyio.CancelScope,
        opened: list[bool],
    ) -> None:
        name = self.upstream.name
        with scope:
            try:
                async with listen(
                    self.session, tools_list_changed=True, prompts_list_changed=True,
                    resources_list_changed=True, resource_subscriptions=uris,
                ) as subscription:
                    opened.append(True)
                    ready.set()
                    async with anyio.create_task_group() as holding:

                        async def drain() -> None:
                            # The events also reach the session's message handler, which
                            # forwards them; here they are only taken off the backlog.
                            try:
                                async for _ in subscription:
                                    pass
                            except SubscriptionLost:
                                # Its session ended (a crash says so itself, and a restart
                                # listens again), or the proxy is closing.
                                logger.debug("server %r: the proxy's listen stream ended", name)
                            holding.cancel_scope.cancel()

                        holding.start_soon(drain)
                        await stop.wait()
                        holding.cancel_scope.cancel()
            except (MCPError, SubscriptionLost, UpstreamError, anyio.BrokenResourceError,
                    anyio.ClosedResourceError) as exc:
                logger.warning("server %r did not accept the proxy's subscriptions/listen (%s); "
                               "its list-changed and resource events will not reach agents",
                               name, describe(exc))
            finally:
                ready.set()


class Subscriptions:
    """What the agents want of the upstreams, and what each upstream session was asked for."""

    def __init__(
        self, upstreams: dict[str, Upstream], owner: Callable[[str], Upstream | None]
    ) -> None:
        """``upstreams`` is the proxy's own (filled as it starts); ``owner`` names the
        upstream that listed a uri, if one did."""
        self.upstreams = upstreams
        self._owner = owner
        #: uri -> how many listen streams and handshake-era agents want it.
        self._wanted: dict[str, int] = {}
        #: server -> the uris it was sent resources/subscribe for (handshake-era sessions).
        self._held: dict[str, set[str]] = {}
        self._followers: dict[str, Follower] = {}
        self._lock = anyio.Lock()
        self._tg: TaskGroup | None = None

    def start(self, tg: TaskGroup) -> None:
        self._tg = tg

    def close(self) -> None:
        for follower in self._followers.values():
            follower.close()

    def upstream_started(self, upstream: Upstream, session: ClientSession) -> None:
        """A new session with ``upstream``: follow it, or subscribe it again to what is wanted."""
        self._spawn(self._follow, upstream, session)

    async def _follow(self, upstream: Upstream, session: ClientSession) -> None:
        if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            old = self._followers.get(upstream.name)
            self._followers[upstream.name] = Follower(upstream, session, self._task_group())
            if old is not None:
                old.close()
        else:
            self._held[upstream.name] = set()  # a new session holds no subscriptions yet
        await self.sync()

    def count(self, uris: Iterable[str], step: int) -> None:
        """One more (or one fewer) agent wanting each of ``uris``: counted at once, in the
        caller's task, so a cancelled caller never leaves a count behind."""
        for uri in uris:
            left = self._wanted.get(uri, 0) + step
            if left > 0:
                self._wanted[uri] = left
            else:
                self._wanted.pop(uri, None)

    async def sync(self) -> frozenset[str]:
        """Bring every upstream's subscriptions to the wanted uris; the uris some server took.

        It compares what is wanted with what each server holds, so calls that overlap, run
        in another order than the changes they follow, or are cancelled halfway (the agent
        gave up), still leave the next one to end in the right state.
        """
        taken: set[str] = set()
        async with self._lock:
            wanted = frozenset(self._wanted)
            for upstream in list(self.upstreams.values()):
                taken |= await self._sync_one(upstream, wanted)
        return frozenset(taken)

    async def _sync_one(self, upstream: Upstream, wanted: frozenset[str]) -> set[str]:
        follower = self._followers.get(upstream.name)
        if follower is not None:  # of protocol 2026-07-28: its listen stream takes the set
            if follower.uris != wanted:
                await follower.listen(wanted)
            return set(follower.uris or ())
        held = self._held.get(upstream.name)
        caps = upstream.capabilities
        if held is None or caps is None or caps.resources is None or not caps.resources.subscribe:
            return set()
        for uri in sorted(wanted - held):
            owner = self._owner(uri)
            if owner is not None and owner is not upstream:
                continue  # behind several servers: only the one that listed it
            if await self._subscribe_upstream(upstream, uri, "resources/subscribe"):
                held.add(uri)
        for uri in sorted(held - wanted):
            held.discard(uri)
            await self._subscribe_upstream(upstream, uri, "resources/unsubscribe")
        return set(held)

    async def _subscribe_upstream(self, upstream: Upstream, uri: str, method: str) -> bool:
        request: Any = (
            types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
            if method == "resources/subscribe"
            else types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
        )
        try:
            await upstream.call(method, lambda s: s.send_request(request, types.EmptyResult))
        except (MCPError, UpstreamError) as exc:
            logger.debug("server %r: %s %r: %s", upstream.name, method, uri, describe(exc))
            return False
        return True

    def _task_group(self) -> TaskGroup:
        if self._tg is None:
            raise RuntimeError("subscriptions are used before the proxy started")
        return self._tg

    def _spawn(self, work: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        self._task_group().start_soon(work, *args)
