"""Forwarding what the proxy does not shape: resources, prompts, completions, logging.

(Resource subscriptions and notifications are :mod:`elision.mcp.notify`'s.)

Behind one server these go straight through; behind several, lists are merged, prompt names
get the ``<server>__`` prefix, and a resource is read from the server that listed it.

What a resource read or a prompt returns is not shaped (the agent asked for that very
resource), but it does reach the model, so its texts are redacted like results: a credential or
a signed URL in a resource's text or a prompt message becomes its stub (unless the proxy runs
with ``--no-redact``). Binary contents (``blob``) go as they are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter

from elision.errors import UpstreamError
from elision.mcp.config import SEPARATOR
from elision.mcp.listed import redacted_item
from elision.mcp.meta import without_reserved
from elision.mcp.upstream import Upstream
from elision.pipeline import Pipeline

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

    def _scope_for(self, ctx: Ctx) -> str:
        raise NotImplementedError

    def _listed(self, result: Any, field: str) -> Any:
        # A listing's strings reach the model too (elision.mcp.listed).
        if self.pipeline.redactor is None:
            return result
        return _each_redacted(result, field, redacted_item)

    async def _list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "resources/list", lambda s: s.list_resources(params=_upstream_params(params))
            ), "resources")
        resources: list[types.Resource] = []
        for upstream in self._serving("resources"):
            page = await upstream.call("resources/list", lambda s: s.list_resources())
            for resource in page.resources:
                self._resources.setdefault(str(resource.uri), upstream)
                resources.append(resource)
        return self._listed(types.ListResourcesResult(resources=resources), "resources")

    async def _list_resource_templates(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "resources/templates/list",
                lambda s: s.list_resource_templates(params=_upstream_params(params)),
            ), "resource_templates")
        templates: list[types.ResourceTemplate] = []
        for upstream in self._serving("resources"):
            page = await upstream.call(
                "resources/templates/list", lambda s: s.list_resource_templates()
            )
            templates.extend(page.resource_templates)
        return self._listed(types.ListResourceTemplatesResult(resource_templates=templates),
                            "resource_templates")

    async def _read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> Any:
        result = await self._by_uri(
            str(params.uri), "resources/read",
            lambda s: s.send_request(
                types.ReadResourceRequest(params=_upstream_params(params)), _READ_RESULT
            ),
        )
        if self.pipeline.redactor is None or not isinstance(result, types.ReadResourceResult):
            return result
        return _each_redacted(result, "contents", _redacted_text)

    async def _list_prompts(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        if not self.namespaced:
            return self._listed(await self._single().call(
                "prompts/list", lambda s: s.list_prompts(params=_upstream_params(params))
            ), "prompts")
        prompts: list[types.Prompt] = []
        self._prompts = {}
        for upstream in self._serving("prompts"):
            page = await upstream.call("prompts/list", lambda s: s.list_prompts())
            for prompt in page.prompts:
                exposed = self._exposed(upstream, prompt.name)
                self._prompts[exposed] = Route(upstream, prompt.name, prompt)
                prompts.append(prompt.model_copy(update={"name": exposed}))
        return self._listed(types.ListPromptsResult(prompts=prompts), "prompts")

    async def _get_prompt(self, ctx: Ctx, params: types.GetPromptRequestParams) -> Any:
        upstream, name = self._route_name(params.name)
        forwarded = _upstream_params(params).model_copy(update={"name": name})
        result = await self._guarded(
            upstream, f"prompts/get {name!r}",
            lambda s: s.send_request(types.GetPromptRequest(params=forwarded), _PROMPT_RESULT),
        )
        if self.pipeline.redactor is None or not isinstance(result, types.GetPromptResult):
            return result
        return _redacted_text(_each_redacted(result, "messages", _redacted_message),
                              field="description")

    async def _complete(self, ctx: Ctx, params: types.CompleteRequestParams) -> Any:
        ref = params.ref
        if isinstance(ref, types.PromptReference):
            upstream, name = self._route_name(ref.name)
            params = params.model_copy(update={"ref": ref.model_copy(update={"name": name})})
        else:
            upstream = self._resources.get(str(ref.uri)) or self._single_or_first("resources")
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
            f"unknown name {exposed!r}: behind this proxy names are <server>{SEPARATOR}<name> "
            f"with a server among {sorted(self.upstreams)!r}",
        )

    def _single(self) -> Upstream:
        return next(iter(self.upstreams.values()))

    def _serving(self, capability: str) -> list[Upstream]:
        return [
            u for u in self.upstreams.values()
            if u.capabilities is None or getattr(u.capabilities, capability, None) is not None
        ]

    def _single_or_first(self, capability: str) -> Upstream:
        serving = self._serving(capability)
        return serving[0] if serving else self._single()

    async def _by_uri(
        self, uri: str, what: str, request: Callable[[ClientSession], Awaitable[Any]]
    ) -> Any:
        known = self._resources.get(uri)
        candidates = [known] if known is not None else self._serving("resources")
        last: MCPError | None = None
        for upstream in candidates:
            try:
                return await self._guarded(upstream, what, request)
            except MCPError as exc:  # not this server's resource: try the next
                last = exc
        raise last or MCPError(types.INVALID_PARAMS, f"no server offers the resource {uri!r}")

    async def _guarded(
        self, upstream: Upstream, what: str, request: Callable[[ClientSession], Awaitable[R]]
    ) -> R:
        try:
            return await upstream.call(what, request)
        except UpstreamError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None


M = TypeVar("M", bound=BaseModel)


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
    from elision.mcp.tools import redact_message

    text = getattr(item, field, None)
    if not isinstance(text, str):
        return item
    shown = redact_message(text)
    if shown is text:
        return item
    redacted: M = item.model_copy(update={field: shown})
    return redacted


def _redacted_message(message: types.PromptMessage) -> types.PromptMessage:
    content = message.content
    if isinstance(content, types.EmbeddedResource):
        resource = _redacted_text(content.resource)
        if resource is content.resource:
            return message
        redacted: Any = content.model_copy(update={"resource": resource})
    else:
        redacted = _redacted_text(content)
        if redacted is content:
            return message
    return message.model_copy(update={"content": redacted})


_READ_RESULT: TypeAdapter[Any] = TypeAdapter(types.ReadResourceResult | types.InputRequiredResult)
_PROMPT_RESULT: TypeAdapter[Any] = TypeAdapter(types.GetPromptResult | types.InputRequiredResult)
P = TypeVar("P", bound=types.RequestParams | None)


async def _set_level_on(session: ClientSession, params: types.SetLevelRequestParams) -> Any:
    if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
        # No such request at 2026-07-28: each request asks for every level, and the proxy
        # sends each agent what it asked for (elision.mcp.notify).
        return types.EmptyResult()
    return await session.send_request(
        types.SetLevelRequest(params=_upstream_params(params)), types.EmptyResult
    )


def _upstream_params(params: P) -> P:
    """``params`` without the reserved ``_meta`` keys of the downstream connection."""
    if params is None or not params.meta:
        return params
    return params.model_copy(update={"meta": without_reserved(params.meta) or None})
