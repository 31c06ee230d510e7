"""``elision_fetch_reference``: what a stub stands for, read back the one allowed way.

A stub replaced a signed URI or inline data that claimed one. Its host-private record (the
real uri and the server that sent it) is in the store, in the scope of the client that was
shown the stub. Resolving it follows :func:`elision.redact.read_plan` and nothing else: a
``resources/read`` of the recorded uri on the live session of the upstream server that
produced it, or the payload the record itself kept. The proxy never opens a connection to an
address taken from a tool result, so where no server can answer, the call is refused with
the reason. The content goes through the pipeline like any tool result: guarded, redacted,
shaped to the budget and audited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from elision.errors import BudgetError, ElisionError, PolicyDenied
from elision.mcp.gate.tools import FETCH_REFERENCE_TOOL, budget_argument, error_result, with_note
from elision.redact import ReadPlan, lookup_reference, read_plan

if TYPE_CHECKING:
    from elision.budget import Budget
    from elision.mcp.gate.results import ResultShaper
    from elision.mcp.upstream.upstream import Upstream

Shape = Callable[[types.CallToolResult, "Budget", str], Awaitable[types.CallToolResult]]


async def fetch_reference(
    arguments: Mapping[str, Any],
    *,
    shaper: ResultShaper,
    upstreams: Mapping[str, Upstream],
    scope: str,
    budget: Budget,
    shape: Shape,
) -> types.CallToolResult:
    """One ``elision_fetch_reference`` call; every refusal is an error result with a reason."""
    name = FETCH_REFERENCE_TOOL
    stub = arguments.get("stub")
    if not isinstance(stub, str) or not stub.strip():
        return error_result(f"{name}: stub must be a non-empty string, got {stub!r}")
    store = shaper.pipeline.store
    if store is None:
        return error_result(
            f"{name}: this proxy runs without a store (--no-store), so no reference record "
            "was kept; run it with a store to resolve stubs"
        )
    try:
        limit, note = budget_argument(dict(arguments), budget)
        plan = read_plan(stub, lookup_reference(stub, store=store, scope=scope))
    except (BudgetError, ElisionError) as exc:
        return error_result(f"{name}: {exc}")
    if plan.payload is not None:
        content: list[Any] = [types.TextContent(text=plan.payload)]
    else:
        read = await _read(plan, upstreams)
        if isinstance(read, types.CallToolResult):
            return read
        content = [_as_text(item) for item in read.contents]
    try:
        shaped = await shape(types.CallToolResult(content=content), limit, plan.server or "")
        return with_note(shaped, note)
    except PolicyDenied as exc:
        return error_result(f"elision denied the content behind stub {plan.stub_id!r}: {exc}")


async def _read(
    plan: ReadPlan, upstreams: Mapping[str, Upstream]
) -> types.ReadResourceResult | types.CallToolResult:
    name = FETCH_REFERENCE_TOOL
    upstream = upstreams.get(plan.server or "")
    if upstream is None or plan.uri is None:
        return error_result(
            f"{name}: stub {plan.stub_id!r} came from server {plan.server!r}, which this proxy "
            "does not run, and elision never fetches an address taken from a tool result; "
            "call the tool again through the proxy that runs that server"
        )
    uri = plan.uri
    try:
        # The uri goes to the server that sent it, over its own session, and nowhere else.
        result = await upstream.call("resources/read", lambda s: s.read_resource(uri))
    except MCPError as exc:
        # Not the server's message: it may quote the uri, which is the credential.
        return error_result(
            f"{name}: server {upstream.name!r} could not read the resource behind stub "
            f"{plan.stub_id!r} (MCP error {exc.code}); it may have expired upstream - call "
            "the tool again for a fresh one"
        )
    except ElisionError as exc:
        return error_result(f"{name}: {exc}")
    if not isinstance(result, types.ReadResourceResult):
        return error_result(
            f"{name}: server {upstream.name!r} asked for input before it would read the "
            f"resource behind stub {plan.stub_id!r}; this proxy cannot answer for the agent"
        )
    return result


def _as_text(item: Any) -> types.TextContent:
    # Plain text, not an embedded resource: the content is what was asked for, and a
    # resource block that carries its uri would be withheld all over again.
    if isinstance(item, types.TextResourceContents):
        return types.TextContent(text=item.text)
    mime = getattr(item, "mime_type", None) or "application/octet-stream"
    return types.TextContent(text=f"[elision] base64 of {mime}:\n{getattr(item, 'blob', '')}")
