"""The MCP proxy: every tool result an agent gets is honest, within budget and fetchable.

:class:`Proxy` holds one :class:`~elision.mcp.upstream.upstream.Upstream` per server and builds the
low-level SDK ``Server`` the agent talks to. ``tools/call`` results go through the
:class:`~elision.pipeline.Pipeline`; everything else (resources, prompts, completions,
progress, logging, list-changed notifications, ``InputRequiredResult``) is forwarded, the
texts of resources and prompts redacted (see :mod:`elision.mcp.forward`). What a
server asks mid-call (elicitation, sampling, roots) goes to the agent whose call caused it,
and every question an agent is shown is redacted first (see :mod:`elision.mcp.asking`).

With several servers, tool and prompt names are ``<server>__<name>``; two servers that would
expose the same name are refused at startup.

Kept bodies and stubs are fetchable only in the scope of the client that was shown them
(see :mod:`elision.mcp.agent.scopes`).
"""

from __future__ import annotations

import hashlib
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp_types as types
import orjson
from anyio.abc import TaskGroup
from mcp.client.session import ClientSession
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import TypeAdapter

from elision.budget import Budget
from elision.errors import ElisionError, InputError, PolicyDenied, UpstreamError, quoted
from elision.mcp.agent.bridge import is_proxy_state
from elision.mcp.agent.clients import ClientBudgets, client_name, held_to_lines
from elision.mcp.agent.ingress import RequestGate
from elision.mcp.agent.notify import Notifier, forwarded_params, redacted_log
from elision.mcp.agent.scopes import (
    asgi_scope,
    client_scope,
    is_unnamed,
    new_proxy_scope,
    unnamed_refusal,
)
from elision.mcp.asking import Asking
from elision.mcp.forward import Ctx, Forwarding, R, Route
from elision.mcp.gate.bounded import shaper_for_reads
from elision.mcp.gate.egress import ERROR_BUDGET_BYTES, Egress, refused_name
from elision.mcp.gate.instructions import governed_instructions
from elision.mcp.gate.listed import redacted_item
from elision.mcp.gate.meta import without_reserved
from elision.mcp.gate.references import fetch_reference
from elision.mcp.gate.results import DEFAULT_MEDIA_BUDGET, ResultShaper
from elision.mcp.gate.tools import (
    FETCH_REFERENCE_TOOL,
    FETCH_TOOL,
    PROXY_TOOLS,
    error_result,
    fetch_reference_tool,
    fetch_tool,
    input_unanswerable,
    run_fetch,
    shaped_output_schema,
    with_result_size,
)
from elision.mcp.upstream import inflight
from elision.mcp.upstream.config import ServerSpec
from elision.mcp.upstream.down import DownServers
from elision.mcp.upstream.inflight import ByteRoom
from elision.mcp.upstream.offer import Offer
from elision.mcp.upstream.upstream import Deadline, Upstream
from elision.pipeline import Pipeline
from elision.redact.messages import redact_message

logger = logging.getLogger("elision.proxy")

#: Above this many text chars a result is shaped off the event loop.
_THREAD_THRESHOLD = 64 * 1024


class Proxy(Forwarding):
    """Routes an agent's requests to upstream servers and shapes what comes back."""

    def __init__(
        self,
        specs: Sequence[ServerSpec],
        pipeline: Pipeline,
        *,
        namespaced: bool = False,
        media_budget: int = DEFAULT_MEDIA_BUDGET,
        require_auth_scope: bool = False,
        resource_budget: Budget | None = None,
        client_budgets: ClientBudgets | None = None,
    ) -> None:
        if not specs:
            raise InputError("the proxy needs at least one upstream server, got none")
        if len(specs) > 1 and not namespaced:
            raise InputError("several upstream servers need namespaced tool names")
        self.specs = list(specs)
        self.pipeline = pipeline
        self.namespaced = namespaced
        self.shaper = ResultShaper(pipeline, media_budget)
        self.resource_budget = resource_budget or pipeline.budget
        #: When set, a result's budget follows the client connected, not pipeline.budget.
        self.client_budgets = client_budgets
        self._read_shaper = shaper_for_reads(pipeline, media_budget)
        self.require_auth_scope = require_auth_scope
        self.upstreams: dict[str, Upstream] = {}
        self._tools: dict[str, Route] = {}
        #: Servers of the config that did not start, retried in the background.
        self.down = DownServers()
        self._prompts: dict[str, Route] = {}
        self._resources: dict[str, Upstream] = {}
        self._owners: dict[str, list[str]] = {}
        self._templates: dict[tuple[str, str], re.Pattern[str]] = {}
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        # One stdio proxy serves one client, so a proxy-wide scope is that client's scope.
        self._scope = new_proxy_scope()
        #: The refs of the cut instructions every client is told (read in ``_scope``).
        self._told_refs: frozenset[str] = frozenset()
        #: Whether the one client is the store owner's own agent (a stdio proxy, set by
        #: :mod:`elision.mcp.serve`): its ``elision_fetch`` also reads bodies the owner's
        #: hook and CLI kept unscoped. Never for ``--listen``, whose clients are not the owner.
        self.serves_owner = False
        self._tg: TaskGroup | None = None
        #: Questions upstreams ask mid-call, carried to the agent that caused them.
        self.asking = Asking(
            pipeline, lambda: list(self._connections), lambda: list(self.upstreams.values())
        )
        #: Called once at shutdown, last first (the audit log's final checkpoint, say).
        self.on_close: list[Callable[[], None]] = []
        #: Upstream notifications to agents of both eras (see elision.mcp.agent.notify).
        self.notifier = Notifier(self.upstreams, self._resources.get, self._connections)
        self.on_close.append(self.notifier.close)
        self.on_close.append(self.asking.close)
        #: What every message to an agent passes on the wire (elision.mcp.gate.egress).
        self.egress = Egress(redact=pipeline.redactor is not None, keep=self._keep_error)
        #: Large messages read from the upstreams and not yet sent on, all of them together:
        #: past its size the upstreams are read no further (elision.mcp.upstream.inflight).
        self.inflight = ByteRoom(inflight.INFLIGHT_BYTES)

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, task_group: TaskGroup, offer: Offer | None = None) -> None:
        """Start every upstream and list its tools; a name collision is an error here.

        ``offer`` is what the upstreams are told the proxy can do as a client: a stdio
        proxy's one agent's capabilities; by default all the proxy can carry, as the config
        allows (see :mod:`elision.mcp.upstream.offer`).
        """
        self._tg = task_group
        self.notifier.start(task_group)
        self.asking.start(task_group)
        for spec in self.specs:
            self.upstreams[spec.name] = Upstream(
                spec, task_group, self._notified, asker=self.asking.answer, room=self.inflight
            )
            if offer is not None:
                self.upstreams[spec.name].offer = offer
        for upstream in self.upstreams.values():
            upstream.on_start.append(self.notifier.upstream_started)
            upstream.on_starting.append(self.asking.roots.starting)
        listed: dict[str, list[types.Tool]] = {}
        failures: dict[str, UpstreamError] = {}

        async def list_one(upstream: Upstream) -> None:
            try:
                listed[upstream.name] = await self._list_all_tools(upstream)
            except UpstreamError as exc:
                failures[upstream.name] = exc

        # Servers start side by side: startup costs the slowest server, not their sum.
        async with anyio.create_task_group() as starting:
            for upstream in self.upstreams.values():
                starting.start_soon(list_one, upstream)
        if failures and not self.namespaced:
            raise next(iter(failures.values()))
        tools: dict[str, Route] = {}
        for upstream in self.upstreams.values():
            if upstream.name in failures:
                continue
            for tool in listed[upstream.name]:
                if _refused(upstream, tool):
                    continue
                exposed = self._exposed(upstream, tool.name)
                if exposed in PROXY_TOOLS:
                    raise InputError(
                        f"server {upstream.name!r} has a tool named {exposed!r}, which the "
                        "proxy adds itself; run it behind --config so its tools get a prefix"
                    )
                if exposed in tools:
                    other = tools[exposed].upstream.name
                    raise InputError(
                        f"tool name {exposed!r} is offered by both server {other!r} and server "
                        f"{upstream.name!r}; rename one of the servers in the config"
                    )
                tools[exposed] = Route(upstream, tool.name, tool)
        self._tools = tools
        # One of a config's servers that did not start stops no one: it is retried.
        for name, failure in failures.items():
            logger.warning("%s; serving the other servers and retrying it", failure)
            self.down.mark(self.upstreams[name], failure)
            task_group.start_soon(
                self.down.retry, self.upstreams[name], self._refresh_tools_or_raise,
                self._announce_tools,
            )

    async def aclose(self) -> None:
        try:
            for upstream in self.upstreams.values():
                await upstream.aclose()
        finally:
            while self.on_close:
                self.on_close.pop()()

    def capabilities(self) -> set[str]:
        """What at least one upstream serves (tools always: the proxy adds its own)."""
        offered = {"tools"}
        if self.down:
            # A server that is down may serve these once a retry brings it up; until then
            # their lists are empty. (Agents are told capabilities once, at their handshake.)
            offered |= {"resources", "prompts"}
        for upstream in self.upstreams.values():
            caps = upstream.capabilities
            if caps is None:
                continue
            for name in ("resources", "prompts", "completions", "logging"):
                if getattr(caps, name, None) is not None:
                    offered.add(name)
            if caps.resources is not None and caps.resources.subscribe:
                offered.add("subscribe")
        return offered

    def build_server(self) -> Server[Any]:
        caps = self.capabilities()
        handlers: dict[str, Any] = {
            "on_list_tools": self._list_tools,
            # Log messages an upstream sends during the call ride the call's own stream.
            "on_call_tool": self.notifier.around_call(self._call_tool, self._upstream_of),
            # Served always: it is how an agent of protocol 2026-07-28 hears of any change.
            "on_subscriptions_listen": self.notifier.serve_listen,
        }
        if "resources" in caps:
            handlers.update(
                on_list_resources=self._list_resources,
                on_list_resource_templates=self._list_resource_templates,
                on_read_resource=self.notifier.around_call(self._read_resource),
            )
        if "subscribe" in caps:
            # Counted with the uris listen streams want, so neither era unsubscribes the other.
            handlers.update(
                on_subscribe_resource=self.notifier.on_subscribe,
                on_unsubscribe_resource=self.notifier.on_unsubscribe,
            )
        if "prompts" in caps:
            handlers.update(
                on_list_prompts=self._list_prompts,
                on_get_prompt=self.notifier.around_call(self._get_prompt),
            )
        if "completions" in caps:
            handlers["on_completion"] = self._complete
        # Each upstream's instructions, governed: told alike to every client at its handshake.
        instructions, self._told_refs = governed_instructions(
            _INSTRUCTIONS,
            ((upstream.name, upstream.instructions) for upstream in self.upstreams.values()),
            self.pipeline, scope=self._scope,
        )
        server: Server[Any] = Server(
            "elision-proxy",
            version="1",
            instructions=instructions,
            get_tool_input_schema=self._input_schema,
            **handlers,
        )
        # The per-message tracing span costs on every call and the proxy exports no traces.
        # A request no upstream could be sent is refused before any handler runs.
        # An error any request but a call answers with keeps the client's line cap too (a
        # call's own errors are judged in _call_tool): every method, whichever handler.
        server.middleware = [
            _ErrorsHeldToLines(self),
            RequestGate(),
            *(m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"),
        ]
        _advertise_subscribe_only_if_served(server, self.capabilities)
        if "logging" in caps:
            # Registered directly: the constructor keyword warns that logging is deprecated in
            # the newest protocol, but clients of older ones still set levels.
            server.add_request_handler(
                "logging/setLevel", types.SetLevelRequestParams,
                self.notifier.around_set_level(self._set_level),
            )
        # Upstreams were told the proxy's roots may change: an agent's change is theirs too.
        server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self.asking.roots_changed
        )
        # An agent's roots count as soon as it is ready, before its first call: a server asks
        # for them again when they change.
        server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self.asking.initialized
        )
        return server

    def notification_options(self) -> NotificationOptions:
        return NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)

    # -- the egress gate --------------------------------------------------------------------

    def _keep_error(self, body: bytes, scope: str | None) -> str | None:
        """Keep an error's full text (evidence) where ``elision_fetch`` finds it."""
        return self.shaper._keep(body, hashlib.sha256(body).hexdigest(), scope or self._scope)

    def stdio_scope(self) -> str:
        """The ref scope of a stdio proxy's one client."""
        return self._scope

    def http_scope(self, request: Mapping[str, Any]) -> str | None:
        """The ref scope of the client behind an HTTP request (an ASGI scope), as
        :func:`~elision.mcp.agent.scopes.client_scope` would name it."""
        return asgi_scope(
            request, shared=self._scope, require_auth_scope=self.require_auth_scope
        )

    # -- tools -----------------------------------------------------------------------------

    async def _list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        self._scope_for(ctx)  # remember the connection for list-changed notifications
        tools = []
        for name, route in self._tools.items():
            # An upstream's titles, descriptions, schemas and annotations reach the model too.
            tool = route.item if self.pipeline.redactor is None else redacted_item(route.item)
            tools.append(tool.model_copy(update={
                "name": name, "output_schema": shaped_output_schema(tool.output_schema),
            }))
        budget = self._budget(ctx)
        return types.ListToolsResult(tools=[
            with_result_size(tool, budget)
            for tool in (*tools, *self.down.placeholders(), fetch_tool(), fetch_reference_tool())
        ])

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        if name == FETCH_TOOL:
            return fetch_tool().input_schema
        if name == FETCH_REFERENCE_TOOL:
            return fetch_reference_tool().input_schema
        route = self._tools.get(name)
        return dict(route.item.input_schema) if route is not None else None

    async def _call_tool(self, ctx: Ctx, params: types.CallToolRequestParams) -> Any:
        scope = self._scope_for(ctx)
        if params.name in PROXY_TOOLS and is_unnamed(scope):
            return error_result(unnamed_refusal(params.name))
        client_budget = self._budget(ctx)
        if params.name == FETCH_TOOL:
            if (params.arguments or {}).get("ref") in self._told_refs:
                scope = self._scope  # the instructions every client was told: every client's
            return await self._off_loop(
                lambda: run_fetch(
                    self.pipeline.store, params.arguments or {}, budget=client_budget,
                    scope=scope, unscoped_too=self.serves_owner,
                ),
                big=True,
            )
        if params.name == FETCH_REFERENCE_TOOL:
            return await fetch_reference(
                params.arguments or {}, shaper=self.shaper, upstreams=self.upstreams,
                scope=scope, budget=client_budget,
                shape=lambda result, budget, server: self._shape(
                    FETCH_REFERENCE_TOOL, result, budget, scope, server
                ),
            )
        route = self._tools.get(params.name)
        if route is None and (refusal := self.down.refusal(params.name)) is not None:
            return error_result(refusal)
        if route is None:
            return error_result(
                f"unknown tool {quoted(params.name)}: this proxy offers "
                f"{sorted([*self._tools, *PROXY_TOOLS])!r}; list the tools again"
            )
        upstream = route.upstream
        if is_proxy_state(params.request_state):
            # The agent answering a question the proxy asked for a server of an older era.
            refusal = self.asking.bridge.refusal(params, scope)
            if refusal is not None:
                return error_result(refusal)
            outcome = self.asking.bridge.resume(params, ctx)
        else:
            progress = _ProgressTo(ctx)
            outcome = self.asking.run(
                ctx, upstream, tool=params.name, scope=scope,
                send=self._sender(progress, params, route), progress=progress,
            )
        try:
            result = await outcome
        except UpstreamError as exc:
            # Built from the server's words: judged, bounded and audited like a result.
            return await self._shape(
                params.name, _as_result(str(exc)),
                held_to_lines(_ERROR_BUDGET, client_budget), scope, upstream.name,
            )
        except MCPError as exc:
            # The tool's answer too: judged, bounded (its full text kept by ref) and audited
            # like a result; it stays a JSON-RPC error with the server's code.
            raise await self._judged_error(
                params.name, exc, scope, upstream.name,
                held_to_lines(_ERROR_BUDGET, client_budget),
            ) from None
        if isinstance(result, types.InputRequiredResult) and is_proxy_state(result.request_state):
            return result  # the proxy's own question, already redacted
        if isinstance(result, types.InputRequiredResult):
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
                # The agent answers and calls again; it sees the questions redacted.
                return self.asking.shown_result(result, scope=scope, server=upstream.name)
            # An older client has no way to answer one, and the SDK would only say "invalid".
            return error_result(input_unanswerable(upstream.name, route.name, ctx.protocol_version))
        budget = held_to_lines(upstream.spec.budget_for(route.name, client_budget),
                                     client_budget)
        return await self._shape(params.name, result, budget, scope, upstream.name)

    def _sender(
        self, progress: _ProgressTo, params: types.CallToolRequestParams, route: Route
    ) -> Callable[[Deadline], Awaitable[Any]]:
        """The upstream ``tools/call`` for this agent call, to run under ``deadline``."""
        target = progress
        meta: Any = dict(params.meta or {})
        # The SDK gives the upstream call its own progress token and relays to ours.
        wants_progress = meta.pop("progress_token", None) is not None
        # Reserved keys describe the downstream connection (its protocol era, its client),
        # not this call: the upstream session has its own.
        meta = without_reserved(meta)

        async def relay_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            await target.ctx.session.report_progress(progress, total, message)

        relay: ProgressFnT | None = relay_progress if wants_progress else None

        request = types.CallToolRequest(params=types.CallToolRequestParams(
            name=route.name, arguments=params.arguments, input_responses=params.input_responses,
            request_state=params.request_state, _meta=meta or None,
        ))

        def send(session: ClientSession) -> Awaitable[Any]:
            # Not session.call_tool: it re-validates every result against the upstream's
            # outputSchema, which the agent's own client does anyway, at a cost on each call.
            return session.send_request(request, _CALL_RESULT, progress_callback=relay)

        return lambda deadline: route.upstream.call(
            f"tools/call {route.name!r}", send, deadline=deadline
        )

    async def _shape(
        self, name: str, result: types.CallToolResult, budget: Budget, scope: str, server: str
    ) -> types.CallToolResult:
        """The pipeline over one result; fails closed: a deny, or a result that could not be
        shaped or audited, becomes an error result that says why, and the proxy stays up."""
        tool = name if name == FETCH_REFERENCE_TOOL else self._tools[name].name
        size = sum(len(getattr(b, "text", "")) for b in result.content)
        try:
            return await self._off_loop(
                lambda: self.shaper.shape(
                    result, budget=budget, scope=scope, tool=tool, server=server
                ),
                big=size > _THREAD_THRESHOLD,
            )
        except PolicyDenied as exc:
            return error_result(f"elision denied the result of {name!r}: {exc}")
        except ElisionError as exc:
            return error_result(
                f"elision withheld the result of {name!r}: it could not be shaped or audited "
                f"({exc})"
            )
        except Exception as exc:
            # The type only: a message from deep inside may quote the body.
            logger.warning("shaping the result of %r failed: %s", name, type(exc).__name__)
            return error_result(
                f"elision withheld the result of {name!r}: shaping failed "
                f"({type(exc).__name__}); this is a bug in elision, please report it"
            )

    async def error_held_to_lines(self, exc: MCPError, ctx: Ctx, what: str) -> MCPError:
        """``exc`` (the error a ``what`` request answered with) itself when the client keeps
        all its lines, else its text shaped at the error bound and the client's line cap
        (head and tail, the whole kept by ref): a harness that cuts a text's lines cuts an
        error's too, and the last lines say what went wrong. The egress gate still judges and
        bounds what goes out."""
        budget = held_to_lines(_ERROR_BUDGET, self._budget(ctx))
        text = _error_text(exc)
        if budget.lines is None or text.count("\n") < budget.lines:
            return exc
        try:
            shown = await self._off_loop(lambda: self._read_shaper.shape(
                _as_result(text), budget=budget, scope=self._scope_for(ctx), tool=what,
                server=None,
            ), big=len(text) > _THREAD_THRESHOLD)
        except PolicyDenied as denied:
            return MCPError(exc.code, f"elision denied the error {what} answered with: {denied}")
        except ElisionError as exc_shaping:
            return MCPError(exc.code, f"elision withheld the error {what} answered with: it "
                            f"could not be shaped ({type(exc_shaping).__name__})")
        block = shown.content[0] if shown.content else None
        return MCPError(exc.code, block.text if isinstance(block, types.TextContent)
                        else redact_message(text))

    async def _judged_error(
        self, name: str, exc: MCPError, scope: str, server: str, budget: Budget | None = None
    ) -> MCPError:
        """The JSON-RPC error ``exc`` an upstream answered a call with, as the agent gets it:
        its message and data through the pipeline (a deny says so instead), within the
        error bound, the full text kept by ref."""
        text = _error_text(exc)
        shown = await self._shape(name, _as_result(text), budget or _ERROR_BUDGET, scope, server)
        block = shown.content[0] if shown.content else None
        message = block.text if isinstance(block, types.TextContent) else redact_message(text)
        return MCPError(exc.code, message)

    async def _off_loop(self, work: Callable[[], R], *, big: bool) -> R:
        if not big:
            return work()
        return await anyio.to_thread.run_sync(work)

    async def _list_all_tools(self, upstream: Upstream) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(1000):  # a paginator that never ends must not hang startup
            page = await upstream.call(
                "tools/list",
                lambda s, c=cursor: s.list_tools(  # type: ignore[misc]
                    params=types.PaginatedRequestParams(cursor=c) if c else None
                ),
            )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _refresh_tools(self, upstream: Upstream) -> None:
        try:
            await self._refresh_tools_or_raise(upstream)
        except (UpstreamError, MCPError) as exc:
            logger.warning("could not re-list the tools of %r: %s", upstream.name,
                           redact_message(str(exc)))

    async def _refresh_tools_or_raise(self, upstream: Upstream) -> None:
        """List ``upstream``'s tools (starting it if need be) and put them in place."""
        listed = await self._list_all_tools(upstream)
        kept = {k: r for k, r in self._tools.items() if r.upstream is not upstream}
        for tool in listed:
            if _refused(upstream, tool):
                continue
            exposed = self._exposed(upstream, tool.name)
            if exposed in kept or exposed in PROXY_TOOLS:
                logger.warning("server %r: tool %r collides and is hidden", upstream.name, exposed)
                continue
            kept[exposed] = Route(upstream, tool.name, tool)
        self._tools = kept

    async def _announce_tools(self) -> None:
        await self.notifier.changed("notifications/tools/list_changed", None)

    # -- upstream notifications -> the agent -----------------------------------------------

    async def _notified(self, upstream: Upstream, note: Any) -> None:
        if isinstance(note, types.ToolListChangedNotification):
            # Re-listing from inside the session's receive loop would wait on itself.
            if self._tg is not None:
                self._tg.start_soon(self._tools_changed, upstream)
            return
        if isinstance(note, types.LoggingMessageNotification):
            # Redacted like every result: a log line may quote a credential or signed URL.
            params = redacted_log(forwarded_params(note.params) or {})
            if self.namespaced:
                params["logger"] = f"{upstream.name}/{params.get('logger', '')}".rstrip("/")
            await self.notifier.log(upstream.name, params)
        elif isinstance(note, _FORWARDED):
            await self.notifier.changed(note.method, forwarded_params(note.params))

    async def _tools_changed(self, upstream: Upstream) -> None:
        # Announced only once the new list is in place, so the agent's re-list sees it.
        await self._refresh_tools(upstream)
        await self._announce_tools()

    def _upstream_of(self, params: types.CallToolRequestParams) -> str | None:
        """The server a tool call goes to (None for the proxy's own tools)."""
        route = self._tools.get(params.name)
        return route.upstream.name if route is not None else None

    # -- routing helpers -------------------------------------------------------------------

    def _budget(self, ctx: Ctx) -> Budget:
        """The budget of the client behind this request (see :mod:`elision.mcp.agent.clients`):
        its bytes and the most lines it keeps."""
        if self.client_budgets is None:
            return self.pipeline.budget
        return self.client_budgets.budget_for(client_name(ctx))

    def _scope_for(self, ctx: Ctx) -> str:
        """The ref scope of the client behind this request: refs never cross clients."""
        connection: Connection | None = getattr(ctx.session, "_connection", None)
        if connection is not None and connection.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._connections.add(connection)  # it gets list-changed notifications
        return client_scope(
            ctx, shared=self._scope, require_auth_scope=self.require_auth_scope
        )

class _ErrorsHeldToLines(ServerMiddleware[Any]):
    """Each request's JSON-RPC error but a call's held to the client's line cap
    (:meth:`Proxy.error_held_to_lines`)."""

    def __init__(self, proxy: Proxy) -> None:
        self._proxy = proxy

    async def __call__(self, ctx: Ctx, call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except MCPError as exc:
            if ctx.method == "tools/call" or ctx.request_id is None:
                raise
            raise await self._proxy.error_held_to_lines(exc, ctx, ctx.method) from None


class _ProgressTo:
    """The agent request an upstream call's progress goes to: the one that made the call,
    then, when the call is bridged, each one that answers a round."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx


#: The budget of an error's text shown to the agent: the error bound, less room for the
#: JSON-RPC frame around it.
_ERROR_BUDGET = Budget(ERROR_BUDGET_BYTES - 512)


def _error_text(exc: MCPError) -> str:
    """What a JSON-RPC error says: its message, then its data (as JSON)."""
    text = exc.error.message
    if exc.error.data is not None:
        text += "\n\ndata: " + orjson.dumps(exc.error.data, default=str).decode()
    return text


def _as_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _refused(upstream: Upstream, tool: types.Tool) -> bool:
    """Whether a tool is left out of the list: its name, which the agent must call back as it
    is, holds control characters or markup (elision.mcp.gate.egress.refused_name)."""
    why = refused_name(tool.name)
    if why is not None:
        logger.warning("server %r: a tool is left out of the list: its name %r cannot be "
                       "shown to an agent (%s)", upstream.name, tool.name[:64], why)
    return why is not None


# Results that may instead ask the agent for input first; passed through either way.
_CALL_RESULT: TypeAdapter[Any] = TypeAdapter(types.CallToolResult | types.InputRequiredResult)
_FORWARDED = (
    types.ResourceUpdatedNotification,
    types.PromptListChangedNotification,
    types.ResourceListChangedNotification,
)

_INSTRUCTIONS = (
    "Tool results pass through elision: a result that did not fit the budget starts with an "
    "__elision__ object (JSON) or an [elision] header line (text) saying what was shown of "
    "what. Call elision_fetch with the ref and the path or lines it names to read the rest. "
    "A stub such as [ref_k3f9] stands for a signed URI or inline data that was withheld: "
    "elision_fetch_reference reads it back through the server that sent it."
)


def _advertise_subscribe_only_if_served(
    server: Server[Any], offered: Callable[[], set[str]]
) -> None:
    """``resources.subscribe`` only where some upstream serves subscriptions, in either era.

    The SDK derives it, at protocol 2026-07-28, from whether ``subscriptions/listen`` is served,
    and the proxy serves that always (it is how that era hears of any change), so it would
    promise resource updates in front of servers that never send one.
    """
    derive = server.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any) -> types.ServerCapabilities:
        caps = derive(*args, **kwargs)
        if caps.resources is not None and caps.resources.subscribe and (
            "subscribe" not in offered()
        ):
            caps = caps.model_copy(
                update={"resources": caps.resources.model_copy(update={"subscribe": None})})
        return caps

    server.get_capabilities = get_capabilities  # type: ignore[method-assign]
