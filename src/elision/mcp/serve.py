"""Run a :class:`~elision.mcp.proxy.Proxy`: over stdio, or as a streamable HTTP endpoint."""

from __future__ import annotations

import contextlib
import gc
import inspect
import os
import signal
import stat
import sys
import threading
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import runner as sdk_runner
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError, JSONRPCRequest

from elision._malloc import pin_mmap_threshold
from elision.errors import ElisionError
from elision.mcp.agent.arrivals import FALLBACK_SECONDS, Arrivals, falls_back, unconfirmed_since
from elision.mcp.agent.requestbound import DEFAULT_MAX_REQUEST_BYTES, request_ceiling
from elision.mcp.gate.transports import OFF_LOOP_BYTES, GatedStream, gated_app, kind_of_model
from elision.mcp.proxy import Proxy
from elision.mcp.upstream.offer import Offer
from elision.mcp.upstream.stdio import MessageReader, stdio_server_transport
from elision.mcp.upstream.upstream import stderr_log_handler

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream

#: What a proxy on HTTP prints on stderr once it accepts connections (tests wait for it).
LISTENING = "elision proxy: listening on "
#: What a stdio proxy says on stderr when its stdin is a terminal: a person ran it by hand,
#: and a silent process looks hung.
WAITING = (
    "elision proxy: waiting for an MCP client on stdin (JSON-RPC, one message per line). "
    "An agent or MCP host starts this command itself; to try it by hand, see `elision proxy "
    "--help` or use --listen. Ctrl-D ends it."
)


def run_proxy(
    proxy: Proxy, *, listen: tuple[str, int] | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES, arrivals: Arrivals | None = None,
) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (HTTP). Over HTTP
    a client's request body is held to ``max_request_bytes`` (elision.mcp.agent.requestbound).
    On stdio, ``arrivals`` is stdin as a thread has read it since the process began (it tells
    when a client fell back to ``initialize``: elision.mcp.agent.arrivals)."""
    stderr_log_handler()
    # A result of a few MB is then held once, not twice, while its buffer grows.
    pin_mmap_threshold()
    # Upstreams of every protocol era are served, including ones whose features the newest
    # era deprecates; that is the proxy's job, not something to warn about on each call.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    try:
        anyio.run(_serve, proxy, listen, max_request_bytes, arrivals)
    except BaseExceptionGroup as group:
        raise _first_elision_error(group) or group from None


async def _serve(
    proxy: Proxy, listen: tuple[str, int] | None, max_request_bytes: int,
    arrivals: Arrivals | None,
) -> None:
    async with anyio.create_task_group() as tg:
        try:
            if listen is None:
                # uvicorn stops cleanly on SIGTERM by itself; on stdio that is done here, so
                # the audit log is closed and its final checkpoint written.
                tg.start_soon(_cancel_on_sigterm, tg.cancel_scope)
                if os.isatty(0):
                    print(WAITING, file=sys.stderr, flush=True)
                async with _stdio(proxy, arrivals) as (read, write, fast):
                    try:
                        # One agent: its first request says what it can answer, and the
                        # upstreams start offering just that (elision.mcp.upstream.offer).
                        lead, opening = await _read_opening(read)
                        offer = Offer.of_request(
                            opening.method if opening is not None else "",
                            opening.params if opening is not None else None,
                        )
                        await proxy.start(tg, offer)
                        server, options = _built(proxy)
                        unconfirmed = None
                        if arrivals is not None:
                            lines = arrivals.stop()
                            if falls_back(lines):
                                lead, opening = await _fallen_back(lead, read, write)
                            else:
                                unconfirmed = unconfirmed_since(lines)
                        replayed = _Replayed(lead, read)
                        if fast:
                            await serve_connection(
                                server, replayed, write, options, opening=opening,
                                unconfirmed=unconfirmed,
                            )
                        else:
                            await server.run(replayed, write, options)
                    finally:
                        # Also when an upstream failed to start: no stream is left open.
                        await read.aclose()
                        await write.aclose()
            else:
                await proxy.start(tg)
                _built(proxy)
                await _serve_http(proxy, listen, tg.start_soon, max_request_bytes)
        finally:
            # Stopping the upstreams takes at most a few grace periods
            # (elision.mcp.upstream.reap); a second signal meanwhile would leave them running,
            # orphaned.
            _ignore_stop_signals()
            with anyio.CancelScope(shield=True):  # a SIGTERM cancelled the rest, not this
                await proxy.aclose()
            tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def _stdio(
    proxy: Proxy, arrivals: Arrivals | None = None
) -> AsyncIterator[tuple[Any, Any, bool]]:
    """stdin and stdout as streams, and whether the event loop reads them itself. Every
    message written passes the proxy's egress gate (elision.mcp.gate.egress).

    The event loop reads pipes itself (after what ``arrivals`` read, when given); a regular
    file, or ``/dev/null`` (which it cannot watch), needs the SDK's threads.
    """
    scope = proxy.stdio_scope()
    proxy.serves_owner = True

    async def gate(message: Any, data: bytes) -> bytes:
        return await proxy.egress.gate_bytes_off_loop(data, kind_of_model(message), scope)

    if _stdin_is_a_pipe():
        read_first = None if arrivals is None else arrivals.receive
        async with stdio_server_transport(gate, read_first, OFF_LOOP_BYTES) as (read, write):
            yield read, write, True
    else:
        async with stdio_server() as (read, write):
            yield read, GatedStream(write, proxy.egress, scope), False


def _built(proxy: Proxy) -> tuple[Server[Any], InitializationOptions]:
    """The proxy's server, once its upstreams are up (it serves what they serve)."""
    server = proxy.build_server()
    options = server.create_initialization_options(proxy.notification_options())
    # What startup made (~85,000 objects of imported modules) lives as long as the
    # process: out of the collector's sight, a full collection set off by a large
    # result walks what that result made instead of all of them (100 ms -> 10 ms).
    gc.freeze()
    return server, options


class _Unread:
    """The client's first request has not been read yet."""


_UNREAD = _Unread()


async def serve_connection(
    server: Server[Any],
    read: ReadStream[SessionMessage | Exception],
    write: WriteStream[SessionMessage],
    options: InitializationOptions,
    *,
    opening: JSONRPCRequest | _Unread | None = _UNREAD,
    unconfirmed: float | None = None,
) -> None:
    """``server.run`` over the proxy's own stdio streams, minus a task hop per message.

    The SDK's loop peeks at the client's first request (it decides the protocol era), then
    relays every later message through a memory stream fed by a task of its own: an extra
    event-loop turn for each message received. Here the peeked messages are replayed and the
    rest read straight from the pipe. That needs two private functions of the SDK (one loop
    per era); when they are missing or take other arguments, ``server.run`` does it all.
    A caller that peeked already passes ``read`` replaying it, and the request as ``opening``.

    ``unconfirmed`` is when a 2026-07-28 opening came, while the client has sent nothing
    since (elision.mcp.agent.arrivals.unconfirmed_since): an ``initialize`` that comes
    next, late enough to be a fallback, ends that era's loop and opens the handshake's.
    """
    loops = _era_loops()
    if loops is None:
        await server.run(read, write, options)
        return
    serve_modern, serve_legacy, is_modern = loops
    async with server.lifespan(server) as state:
        try:
            try:
                replayed: MessageReader | ReadStream[SessionMessage | Exception] = read
                if isinstance(opening, _Unread):
                    lead, opening = await _read_opening(read)
                    replayed = _Replayed(lead, read)
                if opening is not None and opening.method != "initialize" and is_modern(
                    opening.params
                ):
                    if unconfirmed is None:
                        await serve_modern(
                            server, replayed, write, lifespan_state=state,
                            raise_exceptions=False,
                        )
                        return
                    watched = _Unconfirmed(replayed, unconfirmed)
                    await serve_modern(
                        server, watched, _Unclosed(write), lifespan_state=state,
                        raise_exceptions=False,
                    )
                    if watched.fallback is None:
                        return
                    # Its answer to the discover crossed the client's fallback: the client
                    # never took it, and wants the handshake.
                    await serve_legacy(
                        server, _Replayed([watched.fallback], replayed), write,
                        lifespan_state=state, session_id=None, init_options=options,
                        raise_exceptions=False,
                    )
                else:
                    await serve_legacy(
                        server, replayed, write, lifespan_state=state, session_id=None,
                        init_options=options, raise_exceptions=False,
                    )
            finally:
                await read.aclose()
        finally:
            await write.aclose()


#: What each private SDK function must accept for :func:`serve_connection` to call it.
_ERA_LOOP_PARAMS = {
    "_serve_modern_stream": {"lifespan_state", "raise_exceptions"},
    "_serve_legacy_stream": {"lifespan_state", "session_id", "init_options", "raise_exceptions"},
}


def _era_loops() -> tuple[Any, Any, Callable[[Any], bool]] | None:
    """The SDK's per-era serving loops and its era test, or None when this SDK has other ones."""
    found = []
    for name, needed in _ERA_LOOP_PARAMS.items():
        loop = getattr(sdk_runner, name, None)
        if loop is None or not inspect.iscoroutinefunction(loop):
            return None
        try:
            params = set(inspect.signature(loop).parameters)
        except (TypeError, ValueError):
            return None
        if not needed <= params:
            return None
        found.append(loop)
    is_modern = getattr(sdk_runner, "_has_modern_envelope", None)
    if not callable(is_modern):
        return None
    return found[0], found[1], is_modern


#: Messages kept from before the client's first request (the SDK keeps as many).
_LEAD_LIMIT = 8


async def _read_opening(
    read: ReadStream[SessionMessage | Exception],
) -> tuple[list[SessionMessage | Exception], JSONRPCRequest | None]:
    """Messages up to and including the client's first request, and that request (None if
    the pipe closed before one came)."""
    lead: list[SessionMessage | Exception] = []
    async for item in read:
        request = item.message if isinstance(item, SessionMessage) else None
        if isinstance(request, JSONRPCRequest):
            lead.append(item)
            return lead, request
        if len(lead) < _LEAD_LIMIT:
            lead.append(item)
    return lead, None


#: What a request the agent gave up on is answered once it falls back to ``initialize``: an
#: error that is no 2026-07-28 error, so a client of both eras takes the server for a
#: handshake-era one, which on this connection it now is.
FELL_BACK = (
    "not served: the client sent initialize after this request, so this connection serves "
    "the initialize handshake (a request of protocol 2026-07-28 is refused on it)"
)


async def _fallen_back(
    lead: list[SessionMessage | Exception],
    read: MessageReader | ReadStream[SessionMessage | Exception],
    write: WriteStream[SessionMessage],
) -> tuple[list[SessionMessage | Exception], JSONRPCRequest | None]:
    """The messages up to the agent's ``initialize``, and that request, once it fell back
    to the handshake (elision.mcp.agent.arrivals): each request it sent before is answered
    :data:`FELL_BACK` and left out, so ``initialize`` opens the connection in its era."""
    kept: list[SessionMessage | Exception] = []
    while True:
        for item in lead:
            request = item.message if isinstance(item, SessionMessage) else None
            if not isinstance(request, JSONRPCRequest):
                if len(kept) < _LEAD_LIMIT:
                    kept.append(item)
                continue
            if request.method == "initialize":
                kept.append(item)
                return kept, request
            await write.send(SessionMessage(JSONRPCError(
                jsonrpc="2.0", id=request.id,
                error=ErrorData(code=INVALID_REQUEST, message=FELL_BACK),
            )))
        lead, opening = await _read_opening(read)
        if opening is None:
            return kept + lead, None


class _Unconfirmed(MessageReader):
    """The 2026-07-28 loop's read stream while the era its opening chose is unconfirmed: the
    client's next request, when it is an ``initialize`` that came :data:`FALLBACK_SECONDS` or
    more after the opening (``since``), ends the loop (its stream ends) and is kept as
    ``fallback``. Any other request confirms the era. Closing it leaves ``read`` open."""

    def __init__(
        self, read: MessageReader | ReadStream[SessionMessage | Exception], since: float
    ) -> None:
        self._read = read
        self._since: float | None = since
        self._opened = False  # the opening itself comes first (replayed)
        self.fallback: SessionMessage | None = None

    async def receive(self) -> SessionMessage | Exception:
        if self.fallback is not None:
            raise anyio.EndOfStream
        item = await self._read.receive()
        request = item.message if isinstance(item, SessionMessage) else None
        if self._since is None or not isinstance(request, JSONRPCRequest):
            return item
        if not self._opened:
            self._opened = True
            return item
        since, self._since = self._since, None
        if request.method == "initialize" and time.monotonic() - since >= FALLBACK_SECONDS:
            assert isinstance(item, SessionMessage)
            self.fallback = item
            raise anyio.EndOfStream
        return item

    async def aclose(self) -> None:
        pass  # the caller closes ``read``, once the handshake's loop too is done with it


class _Unclosed:
    """A write stream the 2026-07-28 loop cannot close: the handshake's loop may follow."""

    def __init__(self, write: WriteStream[SessionMessage]) -> None:
        self._write = write

    async def send(self, item: SessionMessage, /) -> None:
        await self._write.send(item)

    async def aclose(self) -> None:
        pass

    async def __aenter__(self) -> _Unclosed:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass


class _Replayed(MessageReader):
    """The read stream the era's loop gets: the peeked messages again, then the pipe."""

    def __init__(
        self, lead: list[SessionMessage | Exception], rest: ReadStream[SessionMessage | Exception]
    ) -> None:
        self._lead = lead
        self._rest = rest

    async def receive(self) -> SessionMessage | Exception:
        if self._lead:
            return self._lead.pop(0)
        return await self._rest.receive()

    async def aclose(self) -> None:
        self._lead.clear()
        await self._rest.aclose()


def _ignore_stop_signals() -> None:
    if threading.current_thread() is threading.main_thread():
        for stop in (signal.SIGINT, signal.SIGTERM):
            signal.signal(stop, signal.SIG_IGN)


async def _cancel_on_sigterm(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM) as signals:
        async for _ in signals:
            scope.cancel()
            return


async def _serve_http(
    proxy: Proxy, listen: tuple[str, int], spawn: Callable[..., object], max_request_bytes: int
) -> None:
    import uvicorn

    host, port = listen
    server = proxy.build_server()
    # Every message an agent is sent passes the egress gate, a JSON body or an SSE event.
    gated = gated_app(server.streamable_http_app(host=host), proxy.egress, proxy.http_scope)
    app = request_ceiling(gated, max_request_bytes)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    web = _uvicorn_server(config, on_shutdown=proxy.notifier.close)

    async def announce() -> None:
        while not web.started:
            await anyio.sleep(0.02)
        bound = web.servers[0].sockets[0].getsockname()
        print(f"{LISTENING}http://{host}:{bound[1]}/mcp", file=sys.stderr, flush=True)

    spawn(announce)
    await web.serve()


def _uvicorn_server(config: Any, on_shutdown: Callable[[], None]) -> Any:
    """uvicorn's server, minus re-raising the stop signal once it has shut down.

    uvicorn sends a captured SIGTERM to the process again after its own shutdown, which killed
    the proxy before it closed its audit log, so the final signed checkpoint was never written.
    Here a stop signal only ends serving; the proxy then closes and exits by itself.

    ``on_shutdown`` runs as shutdown begins: uvicorn waits for every open response, and an
    agent's ``subscriptions/listen`` stream stays open until it is ended.
    """
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[Any] | None = None) -> None:
            on_shutdown()
            await super().shutdown(sockets=sockets)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            stops = (signal.SIGINT, signal.SIGTERM)
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in stops}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return Server(config)


def _stdin_is_a_pipe() -> bool:
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    # A character device is pollable only as a terminal: epoll refuses /dev/null, and the
    # event loop then hangs on a read that never starts. Other stdins take the SDK's threads.
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(0))


def _first_elision_error(group: BaseExceptionGroup[BaseException]) -> ElisionError | None:
    for exc in group.exceptions:
        if isinstance(exc, ElisionError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first_elision_error(exc)
            if found is not None:
                return found
    return None
