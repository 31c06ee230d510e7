"""Questions a server asks during a tool call, carried to the agent whose call caused them.

A server of the handshake era asks mid-call with a request of its own
(``elicitation/create``, ``sampling/createMessage``, ``roots/list``). The proxy's one
session with that server receives it; :class:`Asking` decides which agent it is for and
carries it there, then the answer (or the error) back:

* an agent of the handshake era gets the same request, on the back-channel of the call
  that caused it (with that call's request id, so streamable HTTP puts it on that call's
  stream);
* an agent of the newest era (2026-07-28) has no back-channel: its call is *bridged*
  (:mod:`elision.mcp.agent.bridge`) into ``InputRequiredResult`` rounds that it answers by calling
  again, while the same upstream call waits.

**Which call asked.** The protocol does not say: a server request carries no id of the call
it belongs to (``ClientRequestContext`` has the server request's own id and ``_meta``; the
SDK's ``related_request_id`` only picks the server's outbound stream and never reaches the
wire, and the server does not echo the call's progress token). So the proxy keeps the agent
calls in flight on each upstream. When they all come from one downstream connection (or
there is one call), that connection is the target: on stdio, and for one agent at a time,
this is every case. When they come from several, the question could be any one's, and the
proxy answers the server with an error and logs a warning instead of guessing: a question
put to the wrong agent would hand one user's prompt (and the answer it gets) to another.
Each bridged call counts as a connection of its own. ``roots/list`` is the exception: it is
never put to one agent, since the one session serves them all; the proxy answers it from the
roots of every agent (:mod:`elision.mcp.upstream.roots`), in or out of a call.

**What is forwarded.** Only a kind the target agent declared: elicitation (URL mode only to
an agent that declared it), sampling (with tools only to one that declared sampling tools).
Anything else is refused with an error that says which capability was missing.
The agent has the server's timeout to answer one question; the call's own clock stops
meanwhile (:class:`~elision.mcp.upstream.upstream.Deadline`), so a person thinking does not get the
server restarted as hung. The agent's answer, or its error, goes back to the server as given.

**What the proxy declares upstream.** Elicitation (form and URL) and roots always: every
agent the proxy serves can be reached by one route or the other, and one that cannot answer
gets the server a clear error, which a server must handle anyway since a person may decline
(roots: :mod:`elision.mcp.upstream.roots` says what a server gets when no agent offers any).
Sampling only when the server's config entry says ``"sampling": true``: sampling spends the
user's model at a server's request, the newest protocol deprecates it, and the proxy cannot
know at startup that any agent behind it will sample, so by default a server is not told it
can.

**Redaction.** Whatever the agent is shown of a question (a forwarded request, the input
requests of a bridged call, and those of an ``InputRequiredResult`` a newest-era server sent
itself) goes through the pipeline's redaction first, in the scope of the client it goes to:
a signed URL or a credential in an elicitation message or a sampling prompt never reaches
the agent. A question whose form would break if its credential were withheld (a credential
held by a key of its schema, say) is refused, not sent. That includes the link of a URL-mode
elicitation: a signed link is withheld like any other, so a server that wants the user to
open one must send a link that is not itself a credential.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
import orjson
from anyio.abc import TaskGroup
from mcp.server.connection import Connection
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.jsonrpc import REQUEST_TIMEOUT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from elision.errors import UpstreamError
from elision.mcp.agent.bridge import Bridge, Held, result_type
from elision.mcp.forward import Ctx
from elision.mcp.gate.tools import error_result
from elision.mcp.upstream.roots import Roots
from elision.mcp.upstream.upstream import Deadline, Upstream
from elision.pipeline import Pipeline

logger = logging.getLogger("elision.proxy")

_KIND = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


@dataclass(eq=False)
class Call:
    """One agent ``tools/call`` in flight on one upstream."""

    ctx: Ctx
    upstream: Upstream
    tool: str
    scope: str
    #: Who answers its questions: the downstream connection, or the bridge of this call.
    owner: object
    deadline: Deadline
    held: Held | None = None


class Asking:
    """Links each upstream's questions to agent calls and carries them both ways."""

    def __init__(
        self,
        pipeline: Pipeline,
        connections: Callable[[], Iterable[Connection]],
        upstreams: Callable[[], Iterable[Upstream]] = tuple,
    ) -> None:
        self.pipeline = pipeline
        self._connections = connections
        self._upstreams = upstreams
        self._calls: dict[str, list[Call]] = {}
        self.bridge = Bridge()
        #: The agents' roots, which the proxy answers upstreams' ``roots/list`` from.
        self.roots = Roots(upstreams)

    def start(self, task_group: TaskGroup) -> None:
        self.bridge.start(task_group)
        self.roots.start(task_group)

    def close(self) -> None:
        """Let the bridge's idle workers end, so the task group given to :meth:`start` can."""
        self.bridge.close()

    # -- agent calls -----------------------------------------------------------------------

    async def run(
        self,
        ctx: Ctx,
        upstream: Upstream,
        *,
        tool: str,
        scope: str,
        send: Callable[[Deadline], Awaitable[Any]],
        progress: Any = None,
    ) -> Any:
        """One agent call on ``upstream``: its result, or an ``InputRequiredResult`` that
        holds it (newest-era agent, a server that asks mid-call). Raises what ``send`` does.
        ``progress`` is the box its progress relay reads the agent request from (see
        :class:`~elision.mcp.agent.bridge.Held`)."""
        call = Call(
            ctx, upstream, tool, scope, owner=getattr(ctx.session, "_connection", ctx.session),
            deadline=Deadline(upstream.spec.timeout),
        )
        bridged = (
            ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            and not upstream.modern
            and self.bridge.ready
        )
        if not bridged:
            await self.connected(ctx)
            with self._tracked(call):
                await self._roots_ready(upstream)
                return await send(call.deadline)
        held = Held(tool, scope, call.deadline, ended=lambda: self._untrack(call),
                    progress=progress)
        call.held = call.owner = held
        self._track(call)

        async def send_bridged(deadline: Deadline) -> Any:
            try:
                if self.roots.uses_roots(upstream) and _offers_roots(ctx):
                    # That era cannot say its roots changed: asked as the call's first round.
                    asked = types.ListRootsRequest()
                    self.roots.holds(held, await self.bridge.ask(held, asked, "roots"))
                await self._roots_ready(upstream)
                return await send(deadline)
            finally:
                self.roots.gone(held)

        return await self.bridge.open(held, send_bridged)

    async def connected(self, ctx: Ctx) -> None:
        """A handshake-era agent's call: from now on its roots count (if it offers any).

        It is asked on the call's own stream, which is open while the call is: over HTTP
        its GET stream may not be open yet on a first call, and a request sent there is lost.
        """
        connection = getattr(ctx.session, "_connection", None)
        if not isinstance(connection, Connection):
            return
        if self.roots.seen(connection) or connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        if not ctx.session.can_send_request:
            return  # no way to ask it: as good as a client that offers no roots
        metadata = ServerMessageMetadata(related_request_id=ctx.request_id)

        def ask() -> Awaitable[Any]:
            return ctx.session.send_request(
                types.ListRootsRequest(), types.ListRootsResult, metadata=metadata
            )

        await self.roots.connected(connection, ask, now=True)

    async def _roots_ready(self, upstream: Upstream) -> None:
        refusal = await self.roots.ready(upstream)
        if refusal is not None:
            raise UpstreamError(refusal)

    # -- the upstream's questions ----------------------------------------------------------

    async def answer(
        self, upstream: Upstream, request: types.InputRequest
    ) -> types.InputResponse | types.ErrorData:
        """The upstream session's callback: find the agent, ask it, hand back its answer."""
        kind = _KIND[request.method]
        calls = list(self._calls.get(upstream.name, ()))
        if isinstance(request, types.ListRootsRequest):
            return await self._roots(upstream, calls, request)
        if not calls:
            return _refuse(
                f"elision proxy: {request.method} arrived while no agent call was in flight on "
                f"server {upstream.name!r}; a question goes only to the agent whose call caused it"
            )
        if len({id(c.owner) for c in calls}) > 1:
            tools = sorted({c.tool for c in calls})
            logger.warning(
                "server %r asked %s while %d calls from different clients were in flight on "
                "it (%s); refused rather than guess whose it is",
                upstream.name, request.method, len(calls), ", ".join(tools),
            )
            return _refuse(
                f"elision proxy: {request.method} is ambiguous: {len(calls)} calls from "
                f"different clients are in flight on this server ({', '.join(tools)}) and the "
                "protocol does not say which call asks; ask again when only one is, or give "
                "each client a proxy of its own"
            )
        target = calls[-1]
        missing = _undeclared(target.ctx, request, kind)
        if missing is not None:
            return _refuse(
                f"elision proxy: the agent behind {target.tool!r} cannot answer "
                f"{request.method}: it did not declare {missing}"
            )
        shown = self.shown(request, scope=target.scope, server=upstream.name)
        if isinstance(shown, types.ErrorData):
            return shown
        if target.held is not None:
            return await self.bridge.ask(target.held, shown, kind)
        return await self._forward(target, calls, shown)

    def shown(
        self, request: types.InputRequest, *, scope: str, server: str
    ) -> types.InputRequest | types.ErrorData:
        """``request`` as the agent may see it: every credential in it withheld."""
        raw = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        params = raw.get("params")
        if not params:
            return request
        capture = self.pipeline.capture(orjson.dumps(params), server=server)
        redacted = self.pipeline.redact_capture(capture, scope=scope)
        if not redacted.withheld:
            return request
        try:
            return type(request).model_validate({**raw, "params": redacted.value}, by_name=False)
        except ValidationError:
            return _refuse(
                f"elision proxy: {request.method} carries a credential that cannot be "
                "withheld without breaking the request (a credential in its form, say), so it "
                "was not shown to the agent; move the credential out of the question"
            )

    def shown_result(
        self, result: types.InputRequiredResult, *, scope: str, server: str
    ) -> types.InputRequiredResult | types.CallToolResult:
        """A newest-era server's own ``InputRequiredResult``, its questions redacted."""
        if not result.input_requests:
            return result
        shown: dict[str, types.InputRequest] = {}
        for key, request in result.input_requests.items():
            one = self.shown(request, scope=scope, server=server)
            if isinstance(one, types.ErrorData):
                return error_result(one.message)
            shown[key] = one
        return result.model_copy(update={"input_requests": shown})

    # -- handshake-era agents: the same request, on the call's back-channel -----------------

    async def _forward(
        self, target: Call, calls: list[Call], request: types.InputRequest
    ) -> types.InputResponse | types.ErrorData:
        session = target.ctx.session
        if not session.can_send_request:
            return _refuse(
                f"elision proxy: the agent behind {target.tool!r} is connected in a way that "
                f"cannot carry {request.method} (HTTP without a session, or JSON responses)"
            )
        timeout = target.upstream.spec.timeout
        for call in calls:  # whichever of them asked, its clock stops
            call.deadline.pause()
        try:
            with anyio.move_on_after(timeout):
                return await session.send_request(
                    request,
                    result_type(request),
                    metadata=ServerMessageMetadata(related_request_id=target.ctx.request_id),
                )
            return types.ErrorData(
                code=REQUEST_TIMEOUT,
                message=f"elision proxy: the agent did not answer {request.method} within "
                        f"{timeout:g} s",
            )
        except NoBackChannelError:
            return _refuse(f"elision proxy: the agent's call ended before {request.method} "
                           "could be asked")
        except MCPError as exc:
            return exc.error  # the agent's own refusal, as it gave it
        except ValidationError:
            return types.ErrorData(
                code=types.INTERNAL_ERROR,
                message=f"elision proxy: the agent's answer to {request.method} is malformed",
            )
        finally:
            for call in calls:
                call.deadline.resume()

    async def _roots(
        self, upstream: Upstream, calls: list[Call], request: types.ListRootsRequest
    ) -> types.ListRootsResult | types.ErrorData:
        """The agents' roots for ``upstream``; a newest-era agent whose call is in flight and
        whose roots are not known yet is asked first, through its bridge."""
        for call in calls:
            held = call.held
            if held is not None and not self.roots.knows(held) and _offers_roots(call.ctx):
                self.roots.holds(held, await self.bridge.ask(held, request, "roots"))
        return await self.roots.answer(upstream)

    async def roots_changed(self, ctx: Ctx, params: types.NotificationParams | None) -> None:
        """An agent's ``notifications/roots/list_changed``: its roots are asked again, and
        every running upstream of the handshake era (the proxy declared ``roots.listChanged``
        to them) is told, so it asks again and gets the new answer."""
        self.roots.changed(getattr(ctx.session, "_connection", None))

    async def initialized(self, ctx: Ctx, params: types.NotificationParams | None) -> None:
        """An agent's ``notifications/initialized``: on stdio (no session id, one pipe that
        carries requests both ways) its roots are asked for at once, before its first call.
        Over HTTP that waits for its first call (see :meth:`connected`)."""
        connection = getattr(ctx.session, "_connection", None)
        if (
            not isinstance(connection, Connection) or connection.session_id is not None
            or connection.protocol_version in MODERN_PROTOCOL_VERSIONS
            or not connection.has_standalone_channel
        ):
            return
        await self.roots.connected(
            connection, lambda: connection.send_request(types.ListRootsRequest()), now=False
        )

    # -- bookkeeping -----------------------------------------------------------------------

    def _track(self, call: Call) -> None:
        self._calls.setdefault(call.upstream.name, []).append(call)

    def _untrack(self, call: Call) -> None:
        calls = self._calls.get(call.upstream.name, [])
        if call in calls:
            calls.remove(call)

    @contextmanager
    def _tracked(self, call: Call) -> Iterator[Call]:
        self._track(call)
        try:
            yield call
        finally:
            self._untrack(call)


def _undeclared(ctx: Ctx, request: types.InputRequest, kind: str) -> str | None:
    """The capability the agent would need for ``request`` and did not declare, if any."""
    caps: types.ClientCapabilities | None = getattr(ctx.session, "client_capabilities", None)
    if caps is None:
        return kind
    if isinstance(request, types.ElicitRequest):
        if caps.elicitation is None:
            return "elicitation"
        url_mode = isinstance(request.params, types.ElicitRequestURLParams)
        if url_mode and caps.elicitation.url is None:
            return "URL-mode elicitation"
    elif isinstance(request, types.CreateMessageRequest):
        if caps.sampling is None:
            return "sampling"
        if (request.params.tools or request.params.tool_choice) and caps.sampling.tools is None:
            return "sampling with tools"
    elif caps.roots is None:
        return "roots"
    return None


def _offers_roots(ctx: Ctx) -> bool:
    caps: types.ClientCapabilities | None = getattr(ctx.session, "client_capabilities", None)
    return caps is not None and caps.roots is not None


def _refuse(message: str) -> types.ErrorData:
    return types.ErrorData(code=types.INVALID_REQUEST, message=message)
