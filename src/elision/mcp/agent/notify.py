"""Upstream notifications to agents of every protocol era.

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

Resource subscriptions of both eras are counted together, and the upstreams subscribed or
listened to accordingly, by :mod:`elision.mcp.upstream.subscriptions`.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, get_args

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.client.session import ClientSession
from mcp.server.connection import Connection, allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated, event_from_wire
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.mcp.gate.meta import without_reserved
from elision.mcp.upstream.subscriptions import Subscriptions
from elision.mcp.upstream.upstream import Upstream

logger = logging.getLogger("elision.proxy")

Ctx = ServerRequestContext[Any, Any]
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
        kept = without_reserved(meta)
        if kept:
            dumped["_meta"] = kept
    return dumped


def redacted_log(params: dict[str, Any]) -> dict[str, Any]:
    """A log message's params with every credential in ``data`` and ``logger`` withheld."""
    from elision.redact import redact_value
    from elision.redact.messages import redact_message

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
        self.subscriptions = Subscriptions(upstreams, owner)
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
        self._tg: TaskGroup | None = None

    def start(self, tg: TaskGroup) -> None:
        self._tg = tg
        self.subscriptions.start(tg)

    def close(self) -> None:
        """End every agent's listen stream gracefully and the proxy's own on upstreams."""
        self._listener.close()
        self.subscriptions.close()

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
        """``subscriptions/listen``: the upstreams are subscribed to its uris before the ack,
        which honours only the uris some upstream took: an acknowledged subscription that no
        server feeds would have the agent wait for updates that cannot come."""
        uris = sorted(set(params.notifications.resource_subscriptions or ()))
        self.subscriptions.count(uris, +1)
        try:
            if uris:
                taken = await self.subscriptions.sync()
                untaken = [uri for uri in uris if uri not in taken]
                if untaken:
                    self.subscriptions.count(untaken, -1)
                    uris = [uri for uri in uris if uri in taken]
                    notifications = params.notifications.model_copy(
                        update={"resource_subscriptions": uris or None})
                    params = params.model_copy(update={"notifications": notifications})
            return await self._listener(ctx, params)
        finally:
            # Usually reached by cancellation (the agent went away): the work goes elsewhere.
            self.subscriptions.count(uris, -1)
            if uris:
                self._spawn(self.subscriptions.sync)

    async def on_subscribe(self, ctx: Ctx, params: types.SubscribeRequestParams) -> Any:
        """A handshake-era agent's ``resources/subscribe``."""
        uri = str(params.uri)
        connection = _legacy_connection(ctx)
        if connection is not None:
            self._connections.add(connection)  # it gets the updates on its connection
        held = self._held_by(connection) if connection is not None else set()
        if uri in held:
            return types.EmptyResult()
        held.add(uri)
        self.subscriptions.count([uri], +1)
        if uri not in await self.subscriptions.sync():
            held.discard(uri)
            self.subscriptions.count([uri], -1)
            await self.subscriptions.sync()
            raise MCPError(
                types.INVALID_PARAMS,
                f"no server accepted a subscription to the resource {uri!r}; list the "
                "resources to see which uris the servers offer",
            )
        return types.EmptyResult()

    def _held_by(self, connection: Connection) -> set[str]:
        """The uris ``connection`` subscribed to; when it closes without unsubscribing (an
        agent that went away), they are let go as if it had."""
        held = self._subscribed.get(connection)
        if held is None:
            held = self._subscribed[connection] = set()
            connection.exit_stack.push_async_callback(self._closed, connection)
        return held

    async def _closed(self, connection: Connection) -> None:
        self._connections.discard(connection)
        held = self._subscribed.pop(connection, None)
        if held:
            self.subscriptions.count(held, -1)
            held.clear()
            # Not awaited: a connection's teardown is bounded, an upstream may be slow.
            with contextlib.suppress(RuntimeError):  # the proxy itself is shutting down
                self._spawn(self.subscriptions.sync)

    async def on_unsubscribe(self, ctx: Ctx, params: types.UnsubscribeRequestParams) -> Any:
        uri = str(params.uri)
        connection = _legacy_connection(ctx)
        held = self._subscribed.get(connection) if connection is not None else None
        if held is not None and uri in held:
            held.discard(uri)
            self.subscriptions.count([uri], -1)
            await self.subscriptions.sync()
        return types.EmptyResult()

    async def _broadcast(self, method: str, params: dict[str, Any] | None) -> None:
        for connection in list(self._connections):
            await connection.notify(method, params)

    # -- upstreams -------------------------------------------------------------------------

    def upstream_started(self, upstream: Upstream, session: ClientSession) -> None:
        """A new session with ``upstream``: follow it, or subscribe it again to what is wanted."""
        self.subscriptions.upstream_started(upstream, session)

    def _spawn(self, work: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        if self._tg is None:
            raise RuntimeError("the notifier is used before the proxy started")
        self._tg.start_soon(work, *args)


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

