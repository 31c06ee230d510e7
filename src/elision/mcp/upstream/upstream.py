"""One long-lived client session per upstream server, restarted after a failure.

The SDK's ``Client`` owns task groups, so it must be entered and left by one task: each
upstream has an owner task that holds the session open; request handlers (other tasks) only
send through it. A call that fails, hangs past its timeout or gets garbage marks the session
dead and raises :class:`UpstreamError`; the next call starts a fresh one. A JSON-RPC error the
server sends is that call's answer, whatever its code: only a failed transport ends a session
(:mod:`elision.mcp.upstream.link`).

A server's own requests during a call (``elicitation/create``, ``sampling/createMessage``,
``roots/list``) go to the ``asker`` the proxy gives (:mod:`elision.mcp.asking`); while the
agent is answering one, the call's timeout is stopped (:class:`Deadline`), since the time a
person takes to answer is not the server being slow.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, PARSE_ERROR
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic_core import PydanticSerializationError

from elision.errors import UpstreamError
from elision.mcp.upstream.config import ServerSpec
from elision.mcp.upstream.inflight import HELD, ByteRoom
from elision.mcp.upstream.link import Link, watched
from elision.mcp.upstream.offer import Offer, offering
from elision.mcp.upstream.stdio import MESSAGE_TOO_LARGE, stdio_transport
from elision.redact.messages import RedactingFormatter, describe
from mcp import Client

logger = logging.getLogger("elision.proxy")

#: How the SDK says an SSE event outgrew ``max_sse_event_size`` (httpx2's SSEError text).
_SSE_OVER = re.compile(r"event exceeded the \d+ byte limit")

T = TypeVar("T")

NotificationSink = Callable[["Upstream", types.ServerNotification], Awaitable[None]]
#: Answers one request the server sends during a call: the agent's answer, or an error.
Asker = Callable[["Upstream", types.InputRequest], Awaitable[types.InputResponse | types.ErrorData]]


class Deadline:
    """The timeout of one upstream call, stopped while the agent answers a question.

    The clock starts over when the last question is answered: what is left of the call is
    the server's work again.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._scope: anyio.CancelScope | None = None
        self._paused = 0

    def bind(self, scope: anyio.CancelScope) -> None:
        self._scope = scope
        if self._paused:
            scope.deadline = math.inf

    def pause(self) -> None:
        self._paused += 1
        if self._scope is not None:
            self._scope.deadline = math.inf

    def resume(self) -> None:
        self._paused = max(0, self._paused - 1)
        if not self._paused and self._scope is not None:
            self._scope.deadline = anyio.current_time() + self.timeout


class Upstream:
    """The proxy's one session with one upstream server."""

    def __init__(
        self,
        spec: ServerSpec,
        task_group: TaskGroup,
        on_notification: NotificationSink | None = None,
        asker: Asker | None = None,
        room: ByteRoom | None = None,
    ) -> None:
        self.spec = spec
        #: The proxy's room for large messages read and not yet sent on (back-pressure:
        #: elision.mcp.upstream.inflight); None reads on regardless.
        self.room = room
        self._tg = task_group
        self._on_notification = on_notification
        self._asker = asker
        #: What the proxy tells the server it can do, before the config's cut (offer.py).
        self.offer = Offer.everything()
        self._client: Client | None = None
        #: The transport under ``_client``: whether it failed tells an error answer from a
        #: dead session.
        self._link = Link()
        self._closing: anyio.Event | None = None
        #: The start in flight, if any: closing the proxy ends it rather than waiting for it.
        self._attempt: anyio.CancelScope | None = None
        #: Set by :meth:`aclose`: the proxy is stopping, and nothing starts any more.
        self._closed = False
        self._lock = anyio.Lock()
        self._failure: str | None = None
        self.starts = 0
        self._capabilities: types.ServerCapabilities | None = None
        self._instructions: str | None = None
        #: Called with each new session once it is up (the proxy's notifier follows it).
        self.on_start: list[Callable[[Upstream, ClientSession], None]] = []
        #: Called as each session starts, before the server can send anything on it (what
        #: the proxy knows of the last one, its roots say, is gone with it).
        self.on_starting: list[Callable[[Upstream], None]] = []

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def closed(self) -> bool:
        """Whether the proxy stopped this upstream for good (:meth:`aclose`)."""
        return self._closed

    @property
    def capabilities(self) -> types.ServerCapabilities | None:
        """What the server said it serves, the last time it was started."""
        return self._capabilities

    @property
    def instructions(self) -> str | None:
        """The instructions for the model the server gave, the last time it was started
        (ungoverned: the proxy passes them on through the pipeline)."""
        return self._instructions

    async def session(self) -> ClientSession:
        """The live session, starting the upstream if it is not running."""
        return (await self._live())[0]

    async def _live(self) -> tuple[ClientSession, Link]:
        """The live session and its transport, taken together (a restart replaces both)."""
        client = self._client
        if client is not None:
            # The common case takes no lock: acquiring one yields to the event loop, a turn
            # on every call. A session that dies meanwhile fails the call like any other.
            return client.session, self._link
        async with self._lock:
            if self._client is None:
                await self._start()
            assert self._client is not None
            return self._client.session, self._link

    @property
    def modern(self) -> bool:
        """Whether the live session speaks the newest era, where a server asks by result."""
        client = self._client
        return client is not None and client.session.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def call(
        self,
        what: str,
        request: Callable[[ClientSession], Awaitable[T]],
        *,
        deadline: Deadline | None = None,
    ) -> T:
        """Run one request with the per-call timeout; failures become UpstreamError.

        ``deadline``, when given, is the handle that stops the timeout while the agent answers
        a question the server asked during this call.
        """
        session, link = await self._live()
        try:
            with anyio.fail_after(self.spec.timeout) as scope:
                if deadline is not None:
                    deadline.bind(scope)
                return await request(session)
        except TimeoutError:
            await self._discard(session)
            raise UpstreamError(
                f"server {self.name!r} did not answer {what} within {self.spec.timeout:g} s; "
                "it was stopped and will be restarted on the next call (raise its timeout in "
                "the config if it is just slow)"
            ) from None
        except MCPError as exc:
            over = exc.error.message if exc.code == MESSAGE_TOO_LARGE else (
                _refusal_in(exc.error.message) if exc.code == PARSE_ERROR else None)
            if over is not None:
                # Dropped unread by the reader (stdio) or as it streamed in (an HTTP JSON
                # body): the session is fine, the next call works.
                raise UpstreamError(f"server {self.name!r} answered {what} with {over}") from None
            if not self._transport_failed(link, exc):
                raise  # an error the server chose to send: the caller forwards it
            await self._discard(session)
            limit = self.spec.max_message_bytes
            if self.spec.url is not None and limit and _SSE_OVER.search(exc.error.message):
                # The SDK stopped buffering the event at the ceiling and failed the stream.
                raise UpstreamError(
                    f"server {self.name!r} answered {what} with an event over the proxy's "
                    f"{limit:,}-byte ceiling (--max-message-bytes); it was dropped as it "
                    "arrived, so nothing of it reached the agent. Ask the tool for less (a "
                    "filter, a smaller page), or raise --max-message-bytes"
                ) from None
            raise UpstreamError(
                f"server {self.name!r} went away during {what} ({exc.error.message}); "
                "it will be restarted on the next call"
            ) from None
        except PydanticSerializationError as exc:
            # Raised while this request is turned into its line, before a byte of it is
            # written: the session every other client shares is fine, so it stays up.
            raise UpstreamError(
                f"elision proxy: {what} for server {self.name!r} could not be written "
                f"({describe(exc)}), so nothing was sent; send its arguments as UTF-8 JSON"
            ) from None
        except Exception as exc:
            await self._discard(session)
            raise UpstreamError(
                f"server {self.name!r} failed during {what}: {describe(exc)}; "
                "it will be restarted on the next call"
            ) from None

    def _transport_failed(self, link: Link, exc: MCPError) -> bool:
        """Whether ``exc`` is the end of the session rather than the server's answer.

        Over HTTP the SDK also answers a single request itself, with the code of a closed
        connection, when the response stream it was reading ends or fails ("SSE stream ...");
        that stream is gone, and the session is restarted as before.
        """
        if link.failed:
            return True
        return (self.spec.url is not None and exc.code == CONNECTION_CLOSED
                and exc.error.message.startswith("SSE stream "))

    async def notify(self, notification: types.ClientNotification) -> None:
        """Send ``notification`` on the running session of the handshake era, if there is
        one; never raises (a server that is gone has nothing to be told)."""
        client = self._client
        if client is None or self.modern:
            return
        try:
            await client.session.send_notification(notification)
        except Exception as exc:
            logger.warning("could not tell %r %s: %s", self.name, notification.method,
                           describe(exc))

    async def restart(self) -> None:
        """Stop the session; the next call starts a new one."""
        async with self._lock:
            await self._stop()

    async def aclose(self) -> None:
        """Stop the session for good: a start in flight is ended, not waited for (a slow
        server's start, up to its timeout, held the proxy's exit until its host killed it),
        and no call or retry starts the server again."""
        self._closed = True
        if self._attempt is not None:
            self._attempt.cancel()
        await self.restart()

    async def _discard(self, session: ClientSession) -> None:
        """Stop ``session`` if it is still the live one.

        Concurrent calls on a session that died all fail; the first one through stops it, and
        the others must not stop the fresh session a later call may have started meanwhile.
        """
        async with self._lock:
            if self._client is not None and self._client.session is session:
                await self._stop()

    async def _start(self) -> None:
        if self._closed:
            raise UpstreamError(f"server {self.name!r} is not started: the proxy is stopping")
        ready = anyio.Event()
        closing = anyio.Event()
        attempt = self._attempt = anyio.CancelScope()
        self._failure = None
        for starting in self.on_starting:
            starting(self)
        self._tg.start_soon(self._own, ready, closing, attempt)
        # The server's own timeout bounds its start (spawn and handshake) as well as its calls.
        try:
            with anyio.move_on_after(self.spec.timeout) as scope:
                await ready.wait()
        finally:
            self._attempt = None
            if not ready.is_set():  # cancelled from outside: the start must end with it
                closing.set()
                attempt.cancel()
        if scope.cancelled_caught:
            closing.set()
            attempt.cancel()  # a handshake that never ends must not keep its process
            self._client = None
            raise UpstreamError(
                f"server {self.name!r} ({self.spec.target}) did not finish starting within "
                f"{self.spec.timeout:g} s, its timeout; check that the command runs on its own, "
                "or raise its \"timeout\" in the config if it is just slow to start"
            )
        if self._client is None and self._closed:
            raise UpstreamError(f"server {self.name!r} is not started: the proxy is stopping")
        if self._client is None:
            raise UpstreamError(
                f"server {self.name!r} ({self.spec.target}) could not be started: "
                f"{self._failure or 'it exited during the handshake'}; check that the command "
                "(or URL) starts an MCP server on its own"
            )
        self._closing = closing
        self._capabilities = self._client.server_capabilities
        self._instructions = self._client.instructions
        self.starts += 1
        for started in self.on_start:
            started(self, self._client.session)

    async def _stop(self) -> None:
        if self._closing is not None:
            self._closing.set()
        self._closing = None
        self._client = None

    async def _own(
        self, ready: anyio.Event, closing: anyio.Event, attempt: anyio.CancelScope
    ) -> None:
        # Started from whichever agent request found the server down: the session's reads
        # and notifications are no one request's.
        HELD.set(None)
        try:
            with attempt:
                link = Link(self.room)
                async with self._make_client(link) as client:
                    self._link = link
                    self._client = client
                    ready.set()
                    await closing.wait()
        except Exception as exc:
            self._failure = describe(exc)
            logger.warning("upstream %r stopped: %s", self.name, self._failure)
        finally:
            if not closing.is_set():
                self._client = None
                self._closing = None
            ready.set()

    def _make_client(self, link: Link) -> Client:
        spec = self.spec
        server: Any
        if spec.url is not None:
            # The SDK caps one SSE event at 1 MiB by default; results here may be far larger,
            # so the cap is the proxy's own message ceiling (issue 17): past it the SDK stops
            # buffering the event and fails the request it answers. A JSON body is held to
            # the same ceiling as it streams in (elision.mcp.upstream.httpbound).
            # Imported here: a stdio proxy reads no HTTP (issue 24).
            from elision.mcp.upstream.httpbound import http_transport

            server = http_transport(spec.url, spec.max_message_bytes, link.room)
        else:
            assert spec.command is not None
            server = stdio_transport(
                spec.command, spec.args, env=spec.env, inherit_env=spec.inherit_env, cwd=spec.cwd,
                max_message_bytes=spec.max_message_bytes,
            )
        # What the proxy tells the server it can do; see elision.mcp.upstream.offer for why.
        offer = self.offer.allowed(spec)
        asking: dict[str, Any] = {}
        if self._asker is not None:
            if offer.elicitation is not None:
                asking["elicitation_callback"] = self._elicit
            if offer.roots:
                asking["list_roots_callback"] = self._roots
            if offer.sampling is not None:
                asking.update(sampling_callback=self._sample, sampling_capabilities=offer.sampling)
        return offering(offer)(
            watched(server, link), mode=spec.mode, message_handler=self._message, cache=None,
            # Every level: the proxy decides which agent gets which (elision.mcp.agent.notify).
            logging_callback=self._log, log_level="debug", **asking,
        )

    async def _elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        answer = await self._ask(types.ElicitRequest(params=params))
        return answer if isinstance(answer, types.ElicitResult | types.ErrorData) else _mismatch()

    async def _sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        answer = await self._ask(types.CreateMessageRequest(params=params))
        if isinstance(answer, types.ElicitResult | types.ListRootsResult):
            return _mismatch()
        return answer

    async def _roots(
        self, context: ClientRequestContext
    ) -> types.ListRootsResult | types.ErrorData:
        answer = await self._ask(types.ListRootsRequest())
        if isinstance(answer, types.ListRootsResult | types.ErrorData):
            return answer
        return _mismatch()

    async def _ask(self, request: types.InputRequest) -> types.InputResponse | types.ErrorData:
        assert self._asker is not None
        try:
            return await self._asker(self, request)
        except Exception as exc:
            # Never the session's problem: the server gets an error, the proxy stays up.
            logger.warning("answering %s from %r failed: %s", request.method, self.name,
                           describe(exc))
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"elision proxy could not carry {request.method} to the agent "
                        f"({type(exc).__name__})",
            )

    async def _message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            logger.warning("upstream %r sent something unreadable: %s", self.name,
                           describe(message))
            return
        if self._on_notification is not None:
            await self._on_notification(self, message)

    async def _log(self, params: types.LoggingMessageNotificationParams) -> None:
        """Log messages also reach ``_message``, which forwards them; nothing to do twice."""


def _mismatch() -> types.ErrorData:
    return types.ErrorData(
        code=types.INTERNAL_ERROR,
        message="elision proxy: the agent's answer is not of the kind the request asked for",
    )


def stderr_log_handler() -> None:
    """Send the proxy's warnings to stderr, redacted: stdout is the MCP channel."""
    handler = logging.StreamHandler(sys.stderr)
    # Every record redacted, then cut: a log line may quote what an upstream or client sent.
    # On the root logger, so the SDK's own warnings go the same way (not raw, as Python's
    # last-resort handler would write them).
    handler.setFormatter(RedactingFormatter("elision proxy: "))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logger.setLevel(logging.WARNING)


def _refusal_in(message: str) -> str | None:
    """:func:`elision.mcp.upstream.httpbound.refusal_in`, loaded with the HTTP reader only
    when a call fails to parse: a stdio proxy reads no HTTP (issue 24)."""
    from elision.mcp.upstream.httpbound import refusal_in

    return refusal_in(message)
