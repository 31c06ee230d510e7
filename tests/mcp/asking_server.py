"""An MCP server whose tools ask for input, written with the SDK's MCPServer.

``transfer`` answers its first call with an ``InputRequiredResult`` (one elicitation and an
opaque ``request_state``); the retry that carries the answer and the state verbatim gets a
result big enough to be shaped. A retry whose state was altered gets an error, so a proxy
that rewrote the state on the way would show.

The other tools ask the handshake-era way, mid-call, with requests of their own:
``confirm_transfer`` elicits (``checks`` times), ``summarize`` samples, ``where`` lists roots,
``gate`` elicits only once ``wait_for`` calls of it are in flight together, and ``stats``
counts the calls that were cancelled while waiting for an answer and the roots changes it
was told of. Each reports what it got
as JSON, so a test sees what reached the tool. Run as a script on stdio.
"""

from __future__ import annotations

import json
import os
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    NotificationParams,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel

# Sampling and roots are what this server exists to use.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

server = MCPServer("elision-test-asking")
counts = {"arrived": 0, "asked": 0, "cancelled": 0, "roots_changed": 0}
#: A credential the server puts into its questions (a test passes one in); never for the agent.
SECRET = os.environ.get("ASKING_SECRET", "")


def receipt() -> str:
    return f" receipt: {SECRET}" if SECRET else ""


def state_for(amount: int) -> str:
    return f"transfer:{amount}:asked-once"


@server.tool()
def transfer(ctx: Context, amount: int = 5) -> InputRequiredResult | str:
    """Asks the user to confirm, then lists the ledger rows the transfer touched."""
    if ctx.request_state is None:
        ask = ElicitRequest(params=ElicitRequestFormParams(
            message=f"Transfer {amount} EUR?{receipt()}",
            requested_schema={
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
            },
        ))
        return InputRequiredResult(input_requests={"confirm": ask},
                                   request_state=state_for(amount))
    if ctx.request_state != state_for(amount):
        raise ToolError(f"request_state came back altered: {ctx.request_state!r}")
    answer = (ctx.input_responses or {}).get("confirm")
    if not isinstance(answer, ElicitResult) or answer.action != "accept":
        return json.dumps({"done": False, "reason": "not confirmed"})
    confirmed = bool((answer.content or {}).get("ok"))
    rows = [{"id": i, "amount": amount, "memo": f"leg {i}"} for i in range(2000)]
    # Caveats last, where a head slice would cut them.
    return json.dumps({"rows": rows, "done": confirmed, "total_rows": len(rows)})


class Confirm(BaseModel):
    ok: bool


@server.tool()
async def confirm_transfer(ctx: Context, amount: int = 5, checks: int = 1) -> str:
    """Asks the user to confirm mid-call (``checks`` times), then lists the rows touched."""
    actions = []
    try:
        for i in range(checks):
            await ctx.report_progress(i, checks + 1)
            message = f"Transfer {amount} EUR? (check {i + 1}){receipt()}"
            answer = await ctx.elicit(message, Confirm)
            actions.append(answer.action)
            if answer.action != "accept":
                return json.dumps({"done": False, "actions": actions})
    except anyio.get_cancelled_exc_class():
        counts["cancelled"] += 1
        raise
    except MCPError as exc:
        return json.dumps({"done": False, "error": exc.error.message})
    await ctx.report_progress(checks, checks + 1)
    rows = [{"id": i, "amount": amount, "memo": f"leg {i}"} for i in range(2000)]
    return json.dumps({"rows": rows, "done": True, "actions": actions, "total_rows": len(rows)})


@server.tool()
async def summarize(ctx: Context, text: str) -> str:
    """Asks the client's model for a summary of ``text``."""
    words = f"Summarize: {text}{receipt()}"
    prompt = SamplingMessage(role="user", content=TextContent(text=words))
    try:
        result = await ctx.request_context.session.create_message(
            messages=[prompt], max_tokens=64, related_request_id=ctx.request_id
        )
    except MCPError as exc:
        return json.dumps({"error": exc.error.message})
    content = result.content
    return json.dumps({"summary": getattr(content, "text", None), "model": result.model})


@server.tool()
async def where(ctx: Context) -> str:
    """The client's roots."""
    try:
        roots = await ctx.request_context.session.list_roots()
    except MCPError as exc:
        return json.dumps({"error": exc.error.message})
    return json.dumps({"roots": [str(root.uri) for root in roots.roots]})


@server.tool()
async def gate(ctx: Context, wait_for: int = 2) -> str:
    """Elicits once ``wait_for`` calls have arrived, and returns once they have all asked, so
    every question is asked while all the calls are in flight."""
    counts["arrived"] += 1
    with anyio.fail_after(20):
        while counts["arrived"] < wait_for:
            await anyio.sleep(0.02)
    try:
        answer = await ctx.elicit("Which of you is asking?", Confirm)
        outcome = {"asked": True, "action": answer.action}
    except MCPError as exc:
        outcome = {"asked": False, "error": exc.error.message}
    counts["asked"] += 1
    with anyio.fail_after(20):
        while counts["asked"] < wait_for:
            await anyio.sleep(0.02)
    return json.dumps(outcome)


@server.tool()
def stats() -> str:
    """How many calls were cancelled while they waited for an answer."""
    return json.dumps(counts)


async def roots_changed(ctx: object, params: object) -> None:
    counts["roots_changed"] += 1


server._lowlevel_server.add_notification_handler(
    "notifications/roots/list_changed", NotificationParams, roots_changed
)


if __name__ == "__main__":
    server.run()
