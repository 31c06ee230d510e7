"""The SDK original of lines_server.py, kept so that test_mcp_raw_servers.py checks the raw
server against it byte for byte; no other test starts it.

An MCP server whose results are many short lines: where a harness's cap on lines (OpenCode
keeps 2,000, Qwen Code 1,000) bites long before its cap on bytes.

- ``short_log``: 12,001 lines of ``ok`` (~36 KB), its verdict last;
- ``short_error``: the same as the text of an error result;
- the resource ``log://short`` and the prompt ``short_log_prompt``: the same text, read and got.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

VERDICT = "VERDICT: 3 failures"
LINES = 12_001

server = MCPServer("elision-test-lines")


def text() -> str:
    return "\n".join([*(["ok"] * (LINES - 1)), VERDICT])


@server.tool(structured_output=False)
def short_log() -> str:
    """The unit tests' log, one short line a test; its verdict is the last line."""
    return text()


@server.tool()
def short_error() -> CallToolResult:
    """The same log, as the text of a failed call."""
    return CallToolResult(content=[TextContent(text=text())], is_error=True)


@server.resource("log://short", mime_type="text/plain")
def short_log_resource() -> str:
    """The same log, as a resource."""
    return text()


@server.prompt()
def short_log_prompt() -> str:
    """The same log, as a prompt's message."""
    return text()


if __name__ == "__main__":
    server.run()
    # Ended: out now, without the interpreter's teardown of the SDK's modules (~0.13 s of
    # CPU and up to 0.5 s a stop, for each of the many starts of the e2e tests).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
