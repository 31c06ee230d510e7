"""A FastMCP middleware that shapes every tool response on the server (``elision[fastmcp]``).

::

    from fastmcp import FastMCP
    from elision.server.fastmcp import ElisionMiddleware

    mcp = FastMCP("ledger")
    mcp.add_middleware(ElisionMiddleware(cap=8192))

Unlike a head slice (FastMCP's own ``ResponseLimitingMiddleware``), a shaped response is never
torn: it stays JSON, carries the ``__elision__`` envelope first (also in
``_meta["elision/shaping"]``), and says shown-of-total for every cut. The tool's ``limit``
argument, when it has one, bounds every bulk array. Output schemas are left as they are: a
shaped object keeps every member the tool returned.
"""

from __future__ import annotations

from typing import Any

import orjson

try:
    import mcp_types as mt
    from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
    from fastmcp.tools.base import ToolResult
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "elision.server.fastmcp needs FastMCP; install it with: pip install 'elision[fastmcp]'",
        name=exc.name,
    ) from None

from elision.budget import Budget
from elision.envelope import META_KEY
from elision.errors import InputError
from elision.pipeline import DEFAULT_REDACTOR, resolve_redactor
from elision.server._shaping import (
    redact_exception,
    redact_parsed,
    redact_string,
    shape_value,
)
from elision.shape import shape
from elision.shape.jsonparse import dumps_value, parse_json

__all__ = ["ElisionMiddleware"]


class ElisionMiddleware(Middleware):  # type: ignore[misc, unused-ignore]
    """Shape each tool response to ``cap`` bytes; ``limit`` names the bounding argument.

    Credentials are withheld as in the proxy, from results of every tool (also those left
    out of ``tools``, which are not shaped); ``redactor=None`` turns that off.
    """

    def __init__(
        self, *, cap: int = 8192, limit: str | None = "limit", tools: list[str] | None = None,
        redactor: Any = DEFAULT_REDACTOR,
    ) -> None:
        Budget(cap)  # refuse a cap below the minimum at setup, not on the first call
        self.redactor = resolve_redactor(redactor)
        self.cap = cap
        self.limit = limit
        self.tools = frozenset(tools) if tools is not None else None

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        try:
            result = await call_next(context)
        except Exception as exc:
            # FastMCP shows a tool's error message to the client (a ToolError's always): it may
            # quote a credential. Same exception, so masking and formatting stay FastMCP's.
            redact_exception(exc, self.redactor)
            raise
        # Multi-round asks and task acknowledgements carry no content to shape.
        if type(result) is not ToolResult:
            return result
        if self.tools is not None and context.message.name not in self.tools:
            return self.redact(result)
        return self.shape(result, self._limit_of(context.message.arguments or {}))

    def redact(self, result: ToolResult) -> ToolResult:
        """``result`` unshaped, with credentials withheld from its text and structured content."""
        if self.redactor is None:
            return result
        content = [
            mt.TextContent(type="text", text=redact_string(b.text, self.redactor))
            if isinstance(b, mt.TextContent) else b
            for b in result.content
        ]
        structured = result.structured_content
        if structured is not None:
            structured = redact_parsed(structured, dumps_value(structured), self.redactor)[0]
        return ToolResult(content=content, structured_content=structured, meta=result.meta,
                          is_error=result.is_error)

    def shape(self, result: ToolResult, limit: int | None) -> ToolResult:
        """``result`` fitted to the cap, with the envelope in its meta when anything was cut."""
        meta = dict(result.meta or {})
        value = result.structured_content
        wrapped = isinstance(meta.get("fastmcp"), dict) and meta["fastmcp"].get("wrap_result")
        if wrapped and isinstance(value, dict) and isinstance(value.get("result"), str):
            # A tool that returns text: shape it as text (whole lines, header first).
            shaped_text = shape(value["result"], Budget(self.cap), redactor=self.redactor).text
            return ToolResult(
                content=[mt.TextContent(type="text", text=shaped_text)],
                structured_content={"result": shaped_text}, meta=meta,
                is_error=result.is_error,
            )
        if value is None:
            value = _json_text(result)
        if value is not None:
            shaped = shape_value(value, self.cap, limit, redactor=self.redactor)
            if shaped.envelope is not None:
                meta[META_KEY] = shaped.envelope
            structured = shaped.value if result.structured_content is not None else None
            return ToolResult(
                content=[mt.TextContent(type="text", text=shaped.text)],
                structured_content=structured, meta=meta or None, is_error=result.is_error,
            )
        texts = [b for b in result.content if isinstance(b, mt.TextContent)]
        if not texts:
            return result
        # Several text blocks share the cap; each keeps its own header when cut.
        share = max(self.cap // len(texts), 512)
        content: list[Any] = []
        for block in result.content:
            if isinstance(block, mt.TextContent):
                text = shape(block.text, Budget(share), redactor=self.redactor)
                content.append(mt.TextContent(type="text", text=text.text))
            else:
                content.append(block)
        return ToolResult(content=content, meta=meta or None, is_error=result.is_error)

    def _limit_of(self, arguments: dict[str, Any]) -> int | None:
        if self.limit is None:
            return None
        value = arguments.get(self.limit)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{self.limit} must be a count (an int >= 0), got {value!r}")
        return value


def _json_text(result: ToolResult) -> Any:
    """The one JSON document in a result's text, or ``None``: also when it repeats a key,
    so that the text is shaped as a body, its shadowed members withheld and declared."""
    texts = [b.text for b in result.content if isinstance(b, mt.TextContent)]
    if len(texts) != 1 or len(result.content) != 1:
        return None
    body = texts[0].encode("utf-8", "surrogatepass")
    if body.lstrip()[:1] not in (b"{", b"["):
        return None
    shadowed: list[str] = []
    try:
        value = parse_json(body, duplicates=shadowed)
    except (InputError, orjson.JSONDecodeError):
        return None
    return None if shadowed else value
