"""Forwarding what the proxy does not shape: resources, prompts, completions, logging.

(Resource subscriptions and notifications are :mod:`elision.mcp.agent.notify`'s.)

Behind one server these go straight through; behind several, lists are paged across the
servers with the proxy's own cursor, prompt names get the ``<server>__`` prefix, and a resource
is read from the one server that listed it (see :mod:`elision.mcp.gate.paging`).

What a resource read or a prompt returns reaches the model as a tool result does, so its texts
are redacted and shaped to the resource budget like results (:mod:`elision.mcp.gate.bounded`): a
3 MB resource is cut with an envelope and fetched with ``elision_fetch``; a credential or a
signed URL becomes its stub (unless the proxy runs with ``--no-redact``). Binary contents
(``blob``) go as they are.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter

from elision.budget import Budget
from elision.errors import ElisionError, UpstreamError, quoted
from elision.mcp.agent.clients import held_to_lines
from elision.mcp.gate.bounded import bounded_prompt, bounded_read
from elision.mcp.gate.egress import refused_name
from elision.mcp.gate.listed import redacted_item
from elision.mcp.gate.meta import without_reserved
from elision.mcp.gate.paging import ambiguous, paged, template_pattern, unknown
from elision.mcp.gate.results import ResultShaper
from elision.mcp.upstream.config import SEPARATOR
from elision.mcp.upstream.down import DownServers
from elision.mcp.upstream.upstream import Upstream
from elision.pipeline import Pipeline

logger = logging.getLogger("elision.proxy")

Ctx = ServerRequestContext[Any, Any]
R = TypeVar("R")


@dataclass(frozen=True)
class Route:
    upstream: Upstream
    name: str
    item: Any


class Forwarding:
    """The forwarding half of the proxy; :class:`~elision.mcp.proxy.Proxy` holds the state."""

    upstreams: dict[str, Upstream]
    namespaced: bool
    pipeline: Pipeline
    _prompts: dict[str, Route]
    _resources: dict[str, Upstream]
    #: Every server that listed a uri, in the order they did.
    _owners: dict[str, list[str]]
    #: The pattern of each (uri template, server) listed.
    _templates: dict[tuple[str, str], re.Pattern[str]]
    down: DownServers

    #: The budget of what resources/read and prompts/get return.
    resource_budget: Budget
    _read_shaper: ResultShaper

    def _scope_for(self, ctx: Ctx) -> str:
        raise NotImplementedError

    def _budget(self, ctx: Ctx) -> Budget:
        raise NotImplementedError

    def _read_budget(self, ctx: Ctx) -> Budget:
        """What a resource read or a prompt is shaped to: the resource budget, held to the
        client's line cap (a harness cuts what it hands the model, whatever the method)."""
        return held_to_lines(self.resource_budget, self._budget(ctx))

    def _listed(self, result: Any, field: str) -> Any:
        if field == "prompts":
            result = _callable_prompts(result)
        # A listing's strings reach the model too (elision.mcp.gate.listed).
        if self.pipeline.redactor is None:
            return result
        return _each_redacted(result, field, redacted_item)

    async def _off_loop(self, work: Callable[[], R], *, big: bool) -> R:
        raise NotImplementedError

    async def _list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "resources/list", lambda s: s.list_resources(params=_upstream_params(params))
            ), "resources")
        found, cursor = await self._resources_page(params)
        return self._listed(types.ListResourcesResult(resources=found, next_cursor=cursor),
                            "resources")

    async def _list_resource_templates(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "resources/templates/list",
                lambda s: s.list_resource_templates(params=_upstream_params(params)),
            ), "resource_templates")
        found, cursor = await self._templates_page(params)
        return self._listed(
            types.ListResourceTemplatesResult(resource_templates=found, next_cursor=cursor),
            "resource_templates",
        )

    def _resources_page(
        self, params: types.PaginatedRequestParams | None
    ) -> Awaitable[tuple[list[Any], str | None]]:
        return self._paged(
            "resources", "resources/list", params,
            lambda s, c: s.list_resources(params=_page(c)),
            lambda up, page: [self._listed_uri(r, up) for r in page.resources],
        )

    def _templates_page(
        self, params: types.PaginatedRequestParams | None
    ) -> Awaitable[tuple[list[Any], str | None]]:
        return self._paged(
            "resources", "resources/templates/list", params,
            # Many servers of resources serve no templates: none to list, not an error.
            lambda s, c: _unless_missing(s.list_resource_templates(params=_page(c)),
                                         types.ListResourceTemplatesResult(resource_templates=[])),
            lambda up, page: [self._listed_template(t, up) for t in page.resource_templates],
        )

    async def _paged(
        self, capability: str, what: str, params: types.PaginatedRequestParams | None,
        fetch: Callable[[ClientSession, str | None], Awaitable[Any]],
        items: Callable[[Upstream, Any], list[Any]],
    ) -> tuple[list[Any], str | None]:
        serving = {u.name: u for u in self._serving(capability)}
        return await paged(
            list(serving), params.cursor if params is not None else None,
            lambda name, c: self._guarded(serving[name], what, lambda s: fetch(s, c)),
            lambda name, page: items(serving[name], page),
            lambda page: page.next_cursor,
        )

    def _listed_uri(self, resource: types.Resource, upstream: Upstream) -> types.Resource:
        """Remember who lists ``resource``; a uri two servers list belongs to neither."""
        uri = str(resource.uri)
        owners = self._owners.setdefault(uri, [])
        if upstream.name not in owners:
            owners.append(upstream.name)
        if len(owners) == 1:
            self._resources[uri] = upstream
        else:
            self._resources.pop(uri, None)
        return resource

    def _listed_template(
        self, template: types.ResourceTemplate, upstream: Upstream
    ) -> types.ResourceTemplate:
        key = (template.uri_template, upstream.name)
        if key not in self._templates:
            self._templates[key] = template_pattern(template.uri_template)
        return template

    async def _read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> Any:
        result = await self._by_uri(
            str(params.uri), "resources/read",
            lambda s: s.send_request(
                types.ReadResourceRequest(params=_upstream_params(params)), _READ_RESULT
            ),
        )
        if not isinstance(result, types.ReadResourceResult):
            return result
        uri = str(params.uri)
        return await self._bounded(lambda: bounded_read(
            self._read_shaper, result, uri, budget=self._read_budget(ctx),
            scope=self._scope_for(ctx), server=None,
        ), f"resources/read {uri!r}", _text_size(result.contents))

    async def _list_prompts(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "prompts/list", lambda s: s.list_prompts(params=_upstream_params(params))
            ), "prompts")

        def routed(upstream: Upstream, page: types.ListPromptsResult) -> list[types.Prompt]:
            prompts = []
            for prompt in page.prompts:
                exposed = self._exposed(upstream, prompt.name)
                self._prompts[exposed] = Route(upstream, prompt.name, prompt)
                prompts.append(prompt.model_copy(update={"name": exposed}))
            return prompts

        found, cursor = await self._paged(
            "prompts", "prompts/list", params, lambda s, c: s.list_prompts(params=_page(c)),
            routed,
        )
        return self._listed(types.ListPromptsResult(prompts=found, next_cursor=cursor),
                            "prompts")

    async def _get_prompt(self, ctx: Ctx, params: types.GetPromptRequestParams) -> Any:
        upstream, name = self._route_name(params.name)
        forwarded = _upstream_params(params).model_copy(update={"name": name})
        result = await self._guarded(
            upstream, f"prompts/get {name!r}",
            lambda s: s.send_request(types.GetPromptRequest(params=forwarded), _PROMPT_RESULT),
        )
        if not isinstance(result, types.GetPromptResult):
            return result
        if self.pipeline.redactor is not None:
            result = _redacted_text(result, field="description")
        return await self._bounded(lambda: bounded_prompt(
            self._read_shaper, result, params.name, budget=self._read_budget(ctx),
            scope=self._scope_for(ctx), server=upstream.name,
        ), f"prompts/get {params.name!r}", _text_size(m.content for m in result.messages))

    async def _bounded(self, work: Callable[[], R], what: str, size: int) -> R:
        try:
            return await self._off_loop(work, big=size > _THREAD_THRESHOLD)
        except ElisionError as exc:
            raise MCPError(
                types.INTERNAL_ERROR, f"elision withheld the result of {what}: it could not "
                f"be shaped ({exc})",
            ) from None

    async def _complete(self, ctx: Ctx, params: types.CompleteRequestParams) -> Any:
        ref = params.ref
        if isinstance(ref, types.PromptReference):
            upstream, name = self._route_name(ref.name)
            params = params.model_copy(update={"ref": ref.model_copy(update={"name": name})})
        elif not self.namespaced:
            upstream = self._single()
        else:
            upstream = await self._template_owner(str(ref.uri))
        return await self._guarded(upstream, "completion/complete", lambda s: s.send_request(
            types.CompleteRequest(params=_upstream_params(params)), types.CompleteResult
        ))

    async def _set_level(self, ctx: Ctx, params: types.SetLevelRequestParams) -> Any:
        self._scope_for(ctx)
        for upstream in self._serving("logging"):
            await self._guarded(upstream, "logging/setLevel", lambda s: _set_level_on(s, params))
        return types.EmptyResult()

    # -- routing helpers -------------------------------------------------------------------

    def _exposed(self, upstream: Upstream, name: str) -> str:
        return f"{upstream.name}{SEPARATOR}{name}" if self.namespaced else name

    def _route_name(self, exposed: str) -> tuple[Upstream, str]:
        if not self.namespaced:
            return self._single(), exposed
        route = self._prompts.get(exposed)
        if route is not None:
            return route.upstream, route.name
        server, sep, name = exposed.partition(SEPARATOR)
        if sep and server in self.upstreams:
            return self.upstreams[server], name
        raise MCPError(
            types.INVALID_PARAMS,
            f"unknown name {quoted(exposed)}: behind this proxy names are "
            f"<server>{SEPARATOR}<name> with a server among {sorted(self.upstreams)!r}",
        )

    def _single(self) -> Upstream:
        return next(iter(self.upstreams.values()))

    def _serving(self, capability: str) -> list[Upstream]:
        """The running servers that serve ``capability`` (not those that are down)."""
        return [
            u for u in self.upstreams.values()
            if u.name not in self.down
            and (u.capabilities is None or getattr(u.capabilities, capability, None) is not None)
        ]

    def _single_or_first(self, capability: str) -> Upstream:
        serving = self._serving(capability)
        return serving[0] if serving else self._single()

    async def _by_uri(
        self, uri: str, what: str, request: Callable[[ClientSession], Awaitable[Any]]
    ) -> Any:
        if not self.namespaced:
            return await self._guarded(self._single(), what, request)
        upstream = self._owner_of(uri)
        if upstream is None:
            # Not listed yet (or since): every server's lists, then decide.
            await self._discover()
            upstream = self._owner_of(uri)
        if upstream is None:
            raise unknown(uri)
        return await self._guarded(upstream, what, request)

    async def _template_owner(self, template: str) -> Upstream:
        """The one server that listed the uri template ``template`` (completions go there)."""
        for attempt in range(2):
            owners = sorted({name for (listed, name) in self._templates if listed == template})
            if len(owners) > 1:
                raise ambiguous(template, owners)
            if owners:
                return self.upstreams[owners[0]]
            if attempt == 0:
                await self._discover()
        raise unknown(template)

    def _owner_of(self, uri: str) -> Upstream | None:
        """The one server that lists ``uri`` (or whose template fits it); refuses two."""
        owners = self._owners.get(uri, [])
        if len(owners) > 1:
            raise ambiguous(uri, owners)
        if owners:
            return self.upstreams.get(owners[0])
        fitting = sorted({name for (_, name), pattern in self._templates.items()
                          if pattern.match(uri)})
        if len(fitting) > 1:
            raise ambiguous(uri, fitting)
        return self.upstreams.get(fitting[0]) if fitting else None

    async def _discover(self) -> None:
        """Walk every page of every server's resources and templates."""
        for lister in (self._resources_page, self._templates_page):
            cursor: str | None = None
            for _ in range(1000):  # a paginator that never ends must not hang a read
                _, cursor = await lister(_page(cursor))
                if not cursor:
                    break

    async def _guarded(
        self, upstream: Upstream, what: str, request: Callable[[ClientSession], Awaitable[R]]
    ) -> R:
        try:
            return await upstream.call(what, request)
        except UpstreamError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None


M = TypeVar("M", bound=BaseModel)


def _callable_prompts(result: Any) -> Any:
    """``result`` without the prompts whose name an agent cannot be shown: it must send the
    name back verbatim (elision.mcp.gate.egress.refused_name)."""
    kept = []
    for prompt in result.prompts:
        why = refused_name(prompt.name)
        if why is None:
            kept.append(prompt)
        else:
            logger.warning("a prompt is left out of the list: its name %r cannot be shown to "
                           "an agent (%s)", prompt.name[:64], why)
    if len(kept) == len(result.prompts):
        return result
    return result.model_copy(update={"prompts": kept})


def _each_redacted(result: M, field: str, redact: Callable[[Any], Any]) -> M:
    """``result`` with each item of its list ``field`` redacted; ``result`` itself when no
    item changes."""
    items = getattr(result, field)
    redacted = [redact(item) for item in items]
    if all(a is b for a, b in zip(redacted, items, strict=True)):
        return result
    copied: M = result.model_copy(update={field: redacted})
    return copied


def _redacted_text(item: M, field: str = "text") -> M:
    """``item`` (anything with a ``text``, or another string ``field``) with that string
    redacted; ``item`` itself when nothing in it is withheld."""
    from elision.redact.messages import redact_message

    text = getattr(item, field, None)
    if not isinstance(text, str):
        return item
    shown = redact_message(text)
    if shown is text:
        return item
    redacted: M = item.model_copy(update={field: shown})
    return redacted


_READ_RESULT: TypeAdapter[Any] = TypeAdapter(types.ReadResourceResult | types.InputRequiredResult)
_PROMPT_RESULT: TypeAdapter[Any] = TypeAdapter(types.GetPromptResult | types.InputRequiredResult)
P = TypeVar("P", bound=types.RequestParams | None)


async def _set_level_on(session: ClientSession, params: types.SetLevelRequestParams) -> Any:
    if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        # No such request at 2026-07-28: each request asks for every level, and the proxy
        # sends each agent what it asked for (elision.mcp.agent.notify).
        return types.EmptyResult()
    return await session.send_request(
        types.SetLevelRequest(params=_upstream_params(params)), types.EmptyResult
    )


async def _unless_missing(request: Awaitable[R], empty: R) -> R:
    """``request``'s result, or ``empty`` when the server does not know the method."""
    try:
        return await request
    except MCPError as exc:
        if exc.code != types.METHOD_NOT_FOUND:
            raise
        return empty


def _page(cursor: str | None) -> types.PaginatedRequestParams | None:
    return types.PaginatedRequestParams(cursor=cursor) if cursor else None


#: Above this many text chars a resource or prompt is shaped off the event loop.
_THREAD_THRESHOLD = 64 * 1024


def _text_size(items: Any) -> int:
    return sum(len(getattr(item, "text", "") or "") for item in items)


def _upstream_params(params: P) -> P:
    """``params`` without the reserved ``_meta`` keys of the downstream connection."""
    if params is None or not params.meta:
        return params
    return params.model_copy(update={"meta": without_reserved(params.meta) or None})
