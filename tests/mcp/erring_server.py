"""An MCP server that answers calls with JSON-RPC errors of the caller's choosing.

For the proxy's test that a server-defined error is that request's answer, not a dead
connection. ``hold(key)`` waits until ``release(key)``; ``fail(key, code, message)`` waits
until a ``hold`` of that key is in flight, then answers with the error; ``pid`` says which
process answers, so a test sees whether the proxy restarted it.
"""

from __future__ import annotations

import os
from collections import defaultdict

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

server = MCPServer("elision-test-erring")
held: defaultdict[str, anyio.Event] = defaultdict(anyio.Event)
released: defaultdict[str, anyio.Event] = defaultdict(anyio.Event)


@server.tool()
async def hold(key: str) -> str:
    """Wait until release(key), then say so."""
    held[key].set()
    await released[key].wait()
    return f"released {key}"


@server.tool()
async def release(key: str) -> str:
    """Let hold(key) answer."""
    released[key].set()
    return "ok"


@server.tool()
async def fail(key: str, code: int, message: str) -> str:
    """Once hold(key) is in flight, answer with the JSON-RPC error code and message."""
    with anyio.fail_after(30):
        await held[key].wait()
    raise MCPError(code=code, message=message)


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


if __name__ == "__main__":
    server.run()
