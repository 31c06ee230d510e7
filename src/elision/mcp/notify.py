"""Upstream notifications to agents of every protocol era, and the proxy's own listening.

An upstream's notifications reach the agent in the form the agent's era expects:

* **Handshake era** (protocols up to 2025-11-25): list-changed and log messages go out on each
  agent's connection, as they always did; a log message below the level the agent set with
  ``logging/setLevel`` is not sent to it. A ``resources/updated`` goes to the agents that
  subscribed to its uri (or to one above it: ``test://dir`` covers ``test://dir/file``).
* **Protocol 2026-07-28**: there is no standing stream. Change events (tools, prompts and
  resources list-changed, ``resources/updated``) are published on a subscription bus and reach
  the ``subscriptions/listen`` streams whose filter asked for them (the SDK's
  :class:`~mcp.server.subscriptions.ListenHandler`); a ``resources/updated`` reaches a stream
  whose ``resourceSubscriptions`` lists exactly its uri. A log message rides the stream of
  each call (``tools/call``, ``resources/read``, ``prompts/get``) that was in flight to the
  same upstream when it arrived and whose ``_meta["io.modelcontextprotocol/logLevel"]`` asked
  for its level or a lower one; the call's result waits until such messages are written, so
  they come before it.

  A log message that arrives while no such call is in flight reaches no agent of this era:
  the protocol allows a log message only on the stream of a request that opted in, and one
  that is not in flight cannot be told apart from one that never asked. Handshake-era agents
  still get it. (An upstream's session carries no request id on its log messages, so with
  several calls to one upstream in flight at once, each opted-in call gets the message.)

Every log message is redacted first, ``data`` and ``logger`` alike: a credential or signed
URL in it reaches no agent, of either era.

Resource subscriptions of both eras share one count per uri: the first agent to want a uri
(``resources/subscribe``, or a listen stream that lists it) subscribes the upstreams, the last
one to let it go unsubscribes them. Upstreams of the handshake era get ``resources/subscribe``;
an upstream of protocol 2026-07-28 (``"mode": "auto"``) announces nothing unless the client
listens, so the proxy holds a listen stream open on each such session (:class:`Follower`),
asking for every list-changed kind and for the uris agents want, and reopens it when that set
changes (the new stream is acknowledged before the old one closes, so no event falls between).
Its events reach the proxy as ordinary notifications and go on from there like any other.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, get_args

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.client.session import ClientSession
from mcp.client.subscriptions import SubscriptionLost, listen
from mcp.server.connection import Connection, allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated, event_from_wire
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.errors import UpstreamError
from elision.mcp.upstream import Upstream

logger = logging.getLogger("elision.proxy")

Ctx = ServerRequestContext[Any, Any]
#: `_meta` keys that belong to one hop (a subscription id, the client's era), never forwarded.
_RESERVED = "io.modelcontextprotocol/"
_LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)
#: How long a call's result waits for the log messages still being written to its stream.
_FLUSH_SECONDS = 2.0


def forwarded_params(params: Any) -> dict[str, Any] | None:
    """A notification's params as sent on, without the upstream hop's reserved ``_meta``."""
    if params is None:
        return None
    dumped: dict[str, Any] = params.model_dump(by_alias=True, mode="json", exclude_none=True)
    meta = dumped.pop("_meta", None)
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if not k.startswith(_RESERVED)}
        if kept:
            dumped["_meta"] = kept
    return dumped


def redacted_log(params: dict[str, Any]) -> dict[str, Any]:
    """A log message's params with every credential in ``data`` and ``logger`` withheld."""
    from elision.mcp.tools import redact_message
    from elision.redact import redact_value

    out = dict(params)
    if "data" in out:
        out["data"] = redact_value(out["data"]).value
    if isinstance(out.get("logger"), str):
        out["logger"] = redact_message(out["logger"])
    return out


@dataclass(eq=False)
class _Call:
    """A modern agent's call in flight that asked for log messages."""

    session: ServerSession
    request_id: types.RequestId
    levels: frozenset[types.LoggingLevel]
    upstream: str | None
    writing: int = 0
    idle: anyio.Event = field(default_factory=anyio.Event)

    async def send(self, params: dict[str, Any]) -> None:
        try:
            await self.session.send_notification(
                types.LoggingMessageNotification(
                    params=types.LoggingMessageNotificationParams.model_validate(params)
                ),
                related_request_id=self.request_id,
            )
        except Exception as exc:  # the call may have ended meanwhile; the proxy stays up
            logger.debug("a log message for call %r was not delivered: %s",
                         self.request_id, type(exc).__name__)
        finally:
            self.writing -= 1
            if not self.writing:
                self.idle.set()

    async def flushed(self) -> None:
        if self.writing:
            with anyio.move_on_after(_FLUSH_SECONDS):
                await self.idle.wait()


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
            with anyio.move_on_after(self.upstream.spec.timeout):
                await ready.wait()
            if not opened:
                scope.cancel()
                return False
            previous, self._stop, self.uris = self._stop, stop, wanted
            if previous is not None:
                previous.set()
            return True

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
                               name, _described(exc))
            finally:
                ready.set()


class Notifier:
    """Carries upstream notifications to the agents of both eras (see the module docstring)."""

    def __init__(
        self,
        upstreams: dict[str, Upstream],
        owner: Callable[[str], Upstream | None],
        connections: weakref.WeakSet[Connection],
    ) -> None:
        """``upstreams`` and ``connections`` are the proxy's own (filled as it runs);
        ``owner`` names the upstream that listed a uri, if one did."""
        self.upstreams = upstreams
        self._owner = owner
        self.bus = InMemorySubscriptionBus()
        self._listener = ListenHandler(self.bus)
        self._connections = connections
        self._levels: weakref.WeakKeyDictionary[Connection, types.LoggingLevel] = (
            weakref.WeakKeyDictionary()
        )
        self._subscribed: weakref.WeakKeyDictionary[Connection, set[str]] = (
            weakref.WeakKeyDictionary()
        )
        self._calls: set[_Call] = set()
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
        """End every agent's listen stream gracefully and the proxy's own on upstreams."""
        self._listener.close()
        for follower in self._followers.values():
            follower.close()

    # -- agents ----------------------------------------------------------------------------

    def around_set_level(
        self, handler: Callable[[Ctx, types.SetLevelRequestParams], Awaitable[Any]]
    ) -> Callable[[Ctx, types.SetLevelRequestParams], Awaitable[Any]]:
        """``handler`` (which passes the level on upstream), remembering the agent's level."""

        async def set_level(ctx: Ctx, params: types.SetLevelRequestParams) -> Any:
            result = await handler(ctx, params)
            connection = _legacy_connection(ctx)
            if connection is not None:
                self._levels[connection] = params.level
            return result

        return set_level

    async def changed(self, method: str, params: dict[str, Any] | None) -> None:
        """A list-changed or ``resources/updated`` notification, to agents of both eras."""
        event = event_from_wire(method, params)
        if isinstance(event, ResourceUpdated):
            # Only to the agents that subscribed to it: a uri may carry a credential (a
            # signed URL), which an agent that did not name it must not learn from here.
            for connection in list(self._connections):
                if _covers(self._subscribed.get(connection, ()), event.uri):
                    await connection.notify(method, params)
        else:
            await self._broadcast(method, params)
        if event is not None:
            await self.bus.publish(event)

    async def log(self, upstream: str, params: dict[str, Any]) -> None:
        """An upstream's log message (already redacted), to every agent that asked for it."""
        level = params.get("level")
        # Chosen before anything is awaited: a call whose result is being written now must
        # still get the messages that arrived before it.
        calls = [c for c in self._calls if level in c.levels and c.upstream in (None, upstream)]
        for call in calls:
            if not call.writing:
                call.idle = anyio.Event()
            call.writing += 1
        for call in calls:
            await call.send(params)
        for connection in list(self._connections):
            floor = self._levels.get(connection)
            if floor is None or _severity(level) >= _LEVELS.index(floor):
                await connection.notify("notifications/message", params)

    def around_call(
        self,
        handler: Callable[[Ctx, Any], Awaitable[Any]],
        upstream_of: Callable[[Any], str | None] = lambda params: None,
    ) -> Callable[[Ctx, Any], Awaitable[Any]]:
        """``handler``, with log messages that arrive during it routed to its stream.

        ``upstream_of`` names the server a request goes to; None (the default) takes log
        messages from any server.
        """

        async def call(ctx: Ctx, params: Any) -> Any:
            if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS or not ctx.meta:
                return await handler(ctx, params)
            levels = allowed_log_levels(ctx.protocol_version, ctx.meta)
            if not levels or ctx.request_id is None:
                return await handler(ctx, params)
            record = _Call(ctx.session, ctx.request_id, levels, upstream_of(params))
            self._calls.add(record)
            try:
                result = await handler(ctx, params)
            finally:
                self._calls.discard(record)
            await record.flushed()
            return result

        return call

    async def serve_listen(
        self, ctx: Ctx, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        """``subscriptions/listen``: the upstreams are subscribed to its uris before the ack."""
        uris = sorted(set(params.notifications.resource_subscriptions or ()))
        self._count(uris, +1)
        try:
            if uris:
                await self._sync()
            return await self._listener(ctx, params)
        finally:
            # Usually reached by cancellation (the agent went away): the work goes elsewhere.
            self._count(uris, -1)
            if uris:
                self._spawn(self._sync)

    async def on_subscribe(self, ctx: Ctx, params: types.SubscribeRequestParams) -> Any:
        """A handshake-era agent's ``resources/subscribe``."""
        uri = str(params.uri)
        connection = _legacy_connection(ctx)
        if connection is not None:
            self._connections.add(connection)  # it gets the updates on its connection
        held = self._subscribed.setdefault(connection, set()) if connection is not None else set()
        if uri in held:
            return types.EmptyResult()
        held.add(uri)
        self._count([uri], +1)
        if uri not in await self._sync():
            held.discard(uri)
            self._count([uri], -1)
            await self._sync()
            raise MCPError(
                types.INVALID_PARAMS,
                f"no server accepted a subscription to the resource {uri!r}; list the "
                "resources to see which uris the servers offer",
            )
        return types.EmptyResult()

    async def on_unsubscribe(self, ctx: Ctx, params: types.UnsubscribeRequestParams) -> Any:
        uri = str(params.uri)
        connection = _legacy_connection(ctx)
        held = self._subscribed.get(connection) if connection is not None else None
        if held is not None and uri in held:
            held.discard(uri)
            self._count([uri], -1)
            await self._sync()
        return types.EmptyResult()

    async def _broadcast(self, method: str, params: dict[str, Any] | None) -> None:
        for connection in list(self._connections):
            await connection.notify(method, params)

    # -- upstreams -------------------------------------------------------------------------

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
        await self._sync()

    def _count(self, uris: Iterable[str], step: int) -> None:
        """One more (or one fewer) agent wanting each of ``uris``: counted at once, in the
        caller's task, so a cancelled caller never leaves a count behind."""
        for uri in uris:
            left = self._wanted.get(uri, 0) + step
            if left > 0:
                self._wanted[uri] = left
            else:
                self._wanted.pop(uri, None)

    async def _sync(self) -> frozenset[str]:
        """Bring every upstream's subscriptions to the wanted uris; the uris some server took.

        It compares what is wanted with what each server holds, so calls that overlap, or
        run in another order than the changes they follow, still end in the right state.
        """
        taken: set[str] = set()
        with anyio.CancelScope(shield=True):  # called as streams end, often by cancellation
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
            logger.debug("server %r: %s %r: %s", upstream.name, method, uri, _described(exc))
            return False
        return True

    def _task_group(self) -> TaskGroup:
        if self._tg is None:
            raise RuntimeError("the notifier is used before the proxy started")
        return self._tg

    def _spawn(self, work: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        self._task_group().start_soon(work, *args)


def _legacy_connection(ctx: Ctx) -> Connection | None:
    """The handshake-era connection behind ``ctx`` (remembered for notifications), if any."""
    connection: Connection | None = getattr(ctx.session, "_connection", None)
    if connection is None or connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    return connection


def _covers(subscribed: Iterable[str], uri: str) -> bool:
    """Whether a handshake-era agent that subscribed to ``subscribed`` gets ``uri``'s updates:
    the uri itself, or one beneath it (the protocol lets a server name a sub-resource)."""
    return any(uri == held or uri.startswith(held.rstrip("/") + "/") for held in subscribed)


def _severity(level: object) -> int:
    """Where ``level`` stands among the log levels; an unknown one as the most severe."""
    return _LEVELS.index(level) if level in _LEVELS else len(_LEVELS)


def _described(exc: BaseException) -> str:
    from elision.mcp.tools import redact_message

    return redact_message(str(exc)) or type(exc).__name__
