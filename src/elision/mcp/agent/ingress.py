"""What the proxy refuses at its door: a request no upstream could be sent.

A JSON string may spell a lone UTF-16 surrogate (``"\\ud800"``); Python reads it, but no UTF-8
message can carry it, so forwarding it fails while the proxy writes to the upstream, and a
failed write ends the upstream session that every other client shares. Params nested past
:data:`MAX_PARAMS_DEPTH` fail the same way (the SDK writes at most ~250 levels and reads at
most 200). Such a request gets a JSON-RPC error of its own (``-32602``) saying where the
problem is; such a notification is dropped. So does ``NaN`` or ``Infinity``, which Python reads
and the SDK would pass on as ``null``. Either way nothing reaches an upstream.

:class:`RequestGate` applies the rule to every message of both transports (it is a middleware
of the SDK's server); the stdio reader answers lines that are not messages at all itself
(:mod:`elision.mcp.upstream.stdio`).
"""

from __future__ import annotations

import math
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.shared.exceptions import MCPError

from elision.envelope import PathPart, format_path
from elision.mcp.upstream.inflight import HELD, Held

#: How deep params may nest, counted from ``params`` itself. Real tool arguments nest a few
#: levels; an upstream built on the Python SDK refuses a message past 200.
MAX_PARAMS_DEPTH = 128


def printable(text: str) -> str:
    """``text`` with every lone surrogate escaped, so an error message that shows it can itself
    be written as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def params_problem(params: Any) -> str | None:
    """What makes ``params`` unsendable, with where it is, or None when it is fine."""
    # A crumb is (parent crumb, key or index): the path is only built for an error.
    stack: list[tuple[Any, _Crumb, int]] = [(params, None, 0)]
    while stack:
        value, crumb, depth = stack.pop()
        if depth > MAX_PARAMS_DEPTH:
            return (
                f"nest deeper than {MAX_PARAMS_DEPTH} levels (at {_path(crumb, 6)}...); "
                "send flatter arguments, such as one string holding a JSON text"
            )
        if isinstance(value, str):
            if (at := _lone_surrogate(value)) is not None:
                return (
                    f"hold a lone surrogate {value[at]!r} at {_path(crumb)} (char {at}), "
                    f"{_SURROGATE_HINT}"
                )
        elif isinstance(value, dict):
            for key, child in value.items():
                if isinstance(key, str) and (at := _lone_surrogate(key)) is not None:
                    return (
                        f"hold a lone surrogate {key[at]!r} in a key at {_path(crumb)}, "
                        f"{_SURROGATE_HINT}"
                    )
                stack.append((child, (crumb, key), depth + 1))
        elif isinstance(value, list):
            stack.extend((child, (crumb, i), depth + 1) for i, child in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            # Python reads NaN and Infinity; the SDK would send them on as null.
            return (
                f"hold {value!r} at {_path(crumb)}, which JSON has no number for; send it as "
                "a string or null"
            )
    return None


_Crumb = tuple[Any, PathPart] | None
_SURROGATE_HINT = (
    "which no UTF-8 message can carry; send the character as a whole surrogate pair, or drop it"
)


def _path(crumb: _Crumb, keep: int | None = None) -> str:
    """The path to ``crumb`` from ``params``: its first ``keep`` steps, or all of them."""
    parts: list[PathPart] = []
    while crumb is not None:
        crumb, part = crumb
        parts.append(part)
    parts.reverse()
    return printable(format_path(parts[:keep], "params"))


def _lone_surrogate(text: str) -> int | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


class RequestGate(ServerMiddleware[Any]):
    """Refuses, before any handler runs, a message whose params no upstream could be sent."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        problem = params_problem(ctx.params) if ctx.params else None
        if problem is None:
            if ctx.request_id is None or HELD.get() is not None:
                return await call_next(ctx)
            # A request of its own (stdio; over HTTP its response set one): the room of the
            # large upstream answers it gets is given back once its answer is sent on, or
            # here when it ends with none (elision.mcp.upstream.inflight).
            held = Held()
            HELD.set(held)
            try:
                return await call_next(ctx)
            except BaseException:
                held.release()
                raise
        if ctx.request_id is None:
            return None  # a notification has no one to answer, and is not passed on
        raise MCPError(
            types.INVALID_PARAMS,
            f"elision proxy refused this {printable(ctx.method)} request, and sent nothing on "
            f"to a server: its params {problem}",
        )
