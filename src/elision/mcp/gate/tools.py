"""The tools the proxy adds: ``elision_fetch``, which pages through a kept body, and
``elision_fetch_reference``, which resolves a stub (see :mod:`elision.mcp.gate.references`).

Every page is shaped to a budget, so a page is as honest as the first result. A ref is only
fetchable in the scope (the downstream client) that received it. Every error text the proxy
writes goes through the redaction rules first: it may quote an upstream's own message.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import mcp_types as types

from elision.budget import MINIMUM, Budget
from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.errors import BudgetError, ElisionError, RefNotFound
from elision.redact.messages import redact_message

if TYPE_CHECKING:
    from elision.shape import Shaped
    from elision.store.base import Store

#: The largest page ``elision_fetch`` and ``elision_fetch_reference`` return, per unit; a
#: larger ``budget`` is clamped to it. One page is one message: over legacy HTTP one SSE event,
#: which the Python SDK's client caps at 1 MiB, and JSON escapes can make a text six times its
#: size on the wire (128 KiB of control characters is 768 KiB).
MAX_PAGE: dict[str, int] = {"bytes": 128 * 1024, "chars": 128 * 1024, "tokens": 32 * 1024}

FETCH_TOOL = "elision_fetch"
FETCH_REFERENCE_TOOL = "elision_fetch_reference"
PROXY_TOOLS = (FETCH_TOOL, FETCH_REFERENCE_TOOL)

FETCH_REFERENCE_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stub": {
            "type": "string",
            "description": "The stub as shown, e.g. [ref_k3f9] image/png, ~120 KB, or its id.",
        },
        "budget": {
            "type": "integer",
            "minimum": MINIMUM["bytes"],
            "description": (
                "Size limit of the content in bytes (default: the proxy's budget); at most "
                f"{MAX_PAGE['bytes']:,}: a larger budget is clamped to that, and the result "
                "says so."
            ),
        },
    },
    "required": ["stub"],
    "additionalProperties": False,
}

FETCH_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "description": "The ref from an __elision__ envelope or header."},
        "path": {
            "type": "string",
            "description": (
                "JSONPath into the body, as `next` says: e.g. $.rows[37:] (elements from 37), "
                "$.items['k7':] (an object's members from key k7 on, in the document's order; "
                "['k7':'k9'] stops before k9)."
            ),
        },
        "lines": {"type": "string", "description": "A line range of a text body, e.g. 62-5940."},
        "bytes": {"type": "string", "description": "A byte range of the body, e.g. 0-65535."},
        "budget": {
            "type": "integer",
            "minimum": MINIMUM["bytes"],
            "description": (
                "Size limit of this page in bytes (default: the proxy's budget); at most "
                f"{MAX_PAGE['bytes']:,}: a larger budget is clamped to that, and the page "
                "says so."
            ),
        },
    },
    "required": ["ref"],
    "additionalProperties": False,
}


#: Claude Code reads this key of a tool's ``_meta`` as the most chars it keeps inline from that
#: tool's result; a larger result is written to a file and the model gets a 2 KB preview.
MAX_RESULT_CHARS_KEY = "anthropic/maxResultSizeChars"
#: The highest value Claude Code honours for it.
MAX_RESULT_CHARS_CEILING = 500_000


def result_size_meta(budget: Budget) -> dict[str, int]:
    """The ``_meta`` that tells a harness a shaped result needs no second cut.

    A result within a bytes or chars budget has at most that many chars (a char is at least
    one byte). A token has no bound in chars, so a tokens budget advertises the ceiling.
    """
    chars = budget.limit if budget.unit in ("bytes", "chars") else MAX_RESULT_CHARS_CEILING
    return {MAX_RESULT_CHARS_KEY: min(chars, MAX_RESULT_CHARS_CEILING)}


def with_result_size(tool: types.Tool, budget: Budget) -> types.Tool:
    """``tool`` advertising :func:`result_size_meta` (its own ``_meta`` kept beside it)."""
    return tool.model_copy(update={"meta": {**(tool.meta or {}), **result_size_meta(budget)}})


def fetch_tool() -> types.Tool:
    return types.Tool(
        name=FETCH_TOOL,
        description=(
            "Fetch more of a tool result that elision shortened to fit the budget. Pass the "
            "ref and the path (JSON) or lines (text) given in the result's `next` hint; each "
            "page is itself shaped and says what it shows of what, and is at most "
            f"{MAX_PAGE['bytes']:,} bytes (a larger budget is clamped). Following `next` from "
            "page to page reaches every value; any path listed under `elided` (an element "
            "shown in part) can be passed as path to get that node by itself. A path may end "
            "in a slice ($.rows[37:]) or a member range ($.items['k7':], an object's members "
            "from key k7 on). A page that would show nothing is refused with the budget to "
            "ask again with; one past the end says 'index past the end'. A ref is "
            "fetchable only by the client it was shown to (its session or credential); treat "
            "it as a secret: "
            "a client with neither shares refs by knowledge alone."
        ),
        input_schema=FETCH_INPUT_SCHEMA,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )


def fetch_reference_tool() -> types.Tool:
    return types.Tool(
        name=FETCH_REFERENCE_TOOL,
        description=(
            "Read what a stub such as [ref_k3f9] stands for: elision withheld a signed URI or "
            "inline data and kept a reference instead. The content is read back through the "
            "MCP server that produced it (resources/read) and shaped to the budget; a stub "
            "from another session, or one no server can resolve, is refused with the reason."
        ),
        input_schema=FETCH_REFERENCE_INPUT_SCHEMA,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=redact_message(message))], is_error=True
    )


def input_unanswerable(server: str, tool: str, version: str) -> str:
    """Why an ``InputRequiredResult`` cannot go to a client of an older protocol."""
    return (
        f"server {server!r} needs input before {tool!r} can answer, and asks for it as "
        f"protocol 2026-07-28 does; this client speaks {version!r}, which cannot answer it: "
        "connect with a client of protocol 2026-07-28"
    )


def budget_argument(arguments: dict[str, Any], budget: Budget) -> tuple[Budget, str | None]:
    """The page budget: the call's own ``budget`` argument, else the proxy's, clamped to
    :data:`MAX_PAGE`; and, when it was clamped, the note that says so, whose size the
    budget leaves room for (raises BudgetError)."""
    asked = budget
    if arguments.get("budget") is not None:
        asked = budget.with_limit(arguments["budget"])  # the client's line cap stays
    most = MAX_PAGE[asked.unit]
    if asked.limit <= most:
        return asked, None
    note = (
        f"[elision] a budget of {asked.limit:,} {asked.unit} is over the page maximum of "
        f"{most:,} {asked.unit} (one page is one message), so this page was shaped to at most "
        f"{most:,}; follow its next call for the rest"
    )
    # The note is a block of its own: one line, and the blank line a harness joins it with.
    lines = None if asked.lines is None else asked.lines - 2
    return replace(asked, limit=most - asked.measure(note), lines=lines), note


def with_note(result: types.CallToolResult, note: str | None) -> types.CallToolResult:
    """``result`` with ``note`` as a text block after its content, and in its envelope's
    ``notes``."""
    if note is None or result.is_error:
        return result
    meta = dict(result.meta or {})
    if isinstance(meta.get(META_KEY), dict):
        env = dict(meta[META_KEY])
        env["notes"] = [*env.get("notes", []), note]
        meta[META_KEY] = env
    return result.model_copy(update={
        "content": [*result.content, types.TextContent(text=note)], "meta": meta or None,
    })


def run_fetch(
    store: Store | None, arguments: dict[str, Any], *, budget: Budget, scope: str | None,
    unscoped_too: bool = False,
) -> types.CallToolResult:
    """One ``elision_fetch`` call; every failure becomes an error result the model can read.

    With ``unscoped_too`` a ref not found in ``scope`` is looked for among the bodies kept
    with no scope, as the store owner's own tools keep them (``elision hook``, ``elision
    shape``): for a stdio proxy, whose one client is the owner's agent (the hook shapes a
    built-in tool's result in the same harness and names ``elision_fetch`` as the way on).
    """
    if store is None:
        return error_result(
            "elision_fetch: this proxy runs without a store (--no-store), so nothing was kept; "
            "run it with a store to fetch the rest of a result"
        )
    ref = arguments.get("ref")
    if not isinstance(ref, str) or not ref:
        return error_result(f"elision_fetch: ref must be a non-empty string, got {ref!r}")
    selectors = {k: arguments[k] for k in ("path", "lines", "bytes") if arguments.get(k)}
    if len(selectors) > 1:
        return error_result(
            f"elision_fetch: give one of path, lines or bytes, got {sorted(selectors)!r}"
        )
    for key, value in selectors.items():
        if not isinstance(value, str):
            return error_result(f"elision_fetch: {key} must be a string, got {value!r}")
    try:
        limit, note = budget_argument(arguments, budget)
    except BudgetError as exc:
        return error_result(f"elision_fetch: {exc}")
    def fetch(within: str | None) -> Shaped:
        return store.fetch(
            ref, path=selectors.get("path"), lines=selectors.get("lines"),
            byte_range=selectors.get("bytes"), budget=limit, scope=within,
        )

    try:
        try:
            shaped = fetch(scope)
        except RefNotFound:
            if not unscoped_too or scope is None:
                raise
            shaped = fetch(None)
    except BudgetError as exc:
        return error_result(f"elision_fetch: {exc}{_over_the_maximum(str(exc), limit)}")
    except ElisionError as exc:
        return error_result(f"elision_fetch: {exc}")
    meta = {META_KEY: shaped.envelope} if shaped.envelope is not None else None
    return with_note(types.CallToolResult(
        content=[types.TextContent(text=shaped.text)], _meta=meta
    ), note)


def _over_the_maximum(message: str, limit: Budget) -> str:
    """What to add to a refusal whose larger budget no page of this proxy can have: a part
    larger than :data:`MAX_PAGE` (a member whose key alone is 1 MB) cannot be read here."""
    asked = re.search(r"budget=(\d+)", message)
    most = MAX_PAGE[limit.unit]
    if asked is None or int(asked[1]) <= most:
        return ""
    return (
        f"; that is over this proxy's page maximum of {most:,} {limit.unit}, so this part "
        "cannot be read through elision_fetch: the store's owner can read it on the host with "
        f"`elision fetch --budget {asked[1]}`"
    )


def shaped_output_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A tool's ``outputSchema`` that a shaped ``structuredContent`` also satisfies.

    A result that fits is unchanged, so it must still meet the tool's own schema; a shaped one
    is marked by ``__elision__`` and has shorter arrays and strings than the schema may allow,
    so it is accepted by that marker instead. Definitions stay at the root, where the original
    schema's ``$ref``s point.
    """
    if schema is None:
        return None
    root_keys = ("$schema", "$id", "$defs", "definitions")
    inner = {k: v for k, v in schema.items() if k not in root_keys}
    shaped = {
        "type": "object",
        "required": [ENVELOPE_KEY],
        "properties": {ENVELOPE_KEY: {"type": "object"}},
    }
    out: dict[str, Any] = {k: schema[k] for k in root_keys if k in schema}
    if inner.get("type") == "object":
        # Clients of protocols up to 2025-11-25 require an object root.
        out["type"] = "object"
    out["anyOf"] = [inner, shaped]
    return out
