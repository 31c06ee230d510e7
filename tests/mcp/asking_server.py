"""An MCP server whose tool asks for input first, written with the SDK's MCPServer.

``transfer`` answers its first call with an ``InputRequiredResult`` (one elicitation and an
opaque ``request_state``); the retry that carries the answer and the state verbatim gets a
result big enough to be shaped. A retry whose state was altered gets an error, so a proxy
that rewrote the state on the way would show. Run as a script on stdio.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)

server = MCPServer("elision-test-asking")


def state_for(amount: int) -> str:
    return f"transfer:{amount}:asked-once"


@server.tool()
def transfer(ctx: Context, amount: int = 5) -> InputRequiredResult | str:
    """Asks the user to confirm, then lists the ledger rows the transfer touched."""
    if ctx.request_state is None:
        ask = ElicitRequest(params=ElicitRequestFormParams(
            message=f"Transfer {amount} EUR?",
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


if __name__ == "__main__":
    server.run()
