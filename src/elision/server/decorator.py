"""``@shaped(cap=...)``: shape an ``MCPServer`` tool's responses on the server.

Put it under ``@server.tool()``::

    @server.tool()
    @shaped(cap=8192)
    def search_trades(since: str, until: str, limit: int = 50) -> dict[str, Any]: ...

The tool keeps its signature (so its input and output schemas are unchanged). Each answer is
bounded by the tool's ``limit`` argument (every bulk array, not one of them), then fitted to
``cap`` bytes with the same ``__elision__`` envelope as the proxy, which also goes into
``_meta["elision/shaping"]``. An answer that fits and needed no cut keeps every value as the
tool wrote it, with caveat members moved first (a consumer may cut at less than ``cap``) and no
envelope. Text answers are shaped as text; a ``CallToolResult`` the tool builds itself is passed
on.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

import mcp_types as types

from elision.budget import Budget
from elision.envelope import META_KEY, VALUE_KEY
from elision.errors import InputError
from elision.pipeline import DEFAULT_REDACTOR
from elision.server._shaping import (
    redact_exception,
    redact_parsed,
    redact_string,
    shape_value,
)
from elision.shape import shape
from elision.shape.jsonparse import dumps_value

F = TypeVar("F", bound=Callable[..., Any])


def shaped(
    cap: int = 8192, *, limit: str | None = "limit", redactor: Any = DEFAULT_REDACTOR
) -> Callable[[F], F]:
    """A decorator that shapes each response of a tool to ``cap`` bytes.

    ``limit`` names the tool's argument that bounds every bulk array (``None``: no bound).
    Credentials are withheld as in the proxy; ``redactor=None`` turns that off.
    """
    Budget(cap)  # refuse a cap below the minimum when the server starts, not on the first call

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        limit_name = limit if limit is not None and limit in signature.parameters else None

        def limit_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
            if limit_name is None:
                return None
            bound = signature.bind_partial(*args, **kwargs)
            bound.apply_defaults()
            value = bound.arguments.get(limit_name)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{limit_name} must be a count (an int >= 0), got {value!r}")
            return value

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                n = limit_of(args, kwargs)
                try:
                    value = await fn(*args, **kwargs)
                except Exception as exc:
                    redact_exception(exc, redactor)  # its message reaches the client too
                    raise
                return shape_result(value, cap, n, redactor=redactor)

            return cast(F, async_wrapper)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            n = limit_of(args, kwargs)
            try:
                value = fn(*args, **kwargs)
            except Exception as exc:
                redact_exception(exc, redactor)  # its message reaches the client too
                raise
            return shape_result(value, cap, n, redactor=redactor)

        return cast(F, wrapper)

    return decorate


def shape_result(
    value: Any, cap: int, limit: int | None = None, *, redactor: Any = DEFAULT_REDACTOR
) -> Any:
    """A tool's return value as a shaped ``CallToolResult``. One the tool built itself is not
    shaped, but its text and ``structuredContent`` are redacted all the same."""
    if isinstance(value, types.CallToolResult):
        return redact_result(value, redactor)
    if hasattr(value, "model_dump") and callable(value.model_dump):
        value = value.model_dump(mode="json", by_alias=True)
    if isinstance(value, str):
        # MCPServer publishes a text tool's output as {"result": text}: keep to that schema.
        text = shape(value, Budget(cap), redactor=redactor).text
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content={"result": text})
    result = shape_value(value, cap, limit, redactor=redactor)
    structured = result.value
    if not isinstance(value, dict):
        inner = structured[VALUE_KEY] if isinstance(structured, dict) else structured
        structured = {"result": inner}
    return types.CallToolResult(
        content=[types.TextContent(text=result.text)],
        structured_content=structured,
        _meta={META_KEY: result.envelope} if result.envelope else None,
    )


def redact_result(result: types.CallToolResult, redactor: Any) -> types.CallToolResult:
    """``result`` with credentials withheld from its text blocks and ``structuredContent``."""
    if redactor is None:
        return result
    content = [
        block.model_copy(update={"text": redact_string(block.text, redactor)})
        if isinstance(block, types.TextContent) else block
        for block in result.content
    ]
    structured = result.structured_content
    if structured is not None:
        structured = redact_parsed(structured, dumps_value(structured), redactor)[0]
    return result.model_copy(update={"content": content, "structured_content": structured})
