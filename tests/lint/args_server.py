"""An MCP server whose tools need arguments, for linting with no scenarios file.

``python args_server.py mixed`` serves, all over one deterministic data set:

- ``search_issues``: required arguments of several kinds (a patterned string, an enum, a date,
  a nested object, an array); keeps every rule.
- ``configured_rows``: its data comes from ``$ARGS_SERVER_ROWS`` (servers are configured by
  environment variables); without it, it answers with an error.
- ``commits``: a text log that shows ``limit`` of 2,000 commits and never says how many there
  are (rule 3, found by hand in issue 14).
- ``list_directory``: 5,000 entries as text, with ``structuredContent`` ``{"content": text}``
  as the filesystem server sends it, and no way to bound them (rule 2, found by hand).

``python args_server.py idle`` serves one tool that always answers with an error.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any, Literal

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from elision.server import coverage, response

ISSUES = [{"id": i, "title": f"issue {i}", "state": ("open", "closed")[i % 2]} for i in range(300)]
COMMITS = [f"{i:040x}" for i in range(2000)]


class Window(BaseModel):
    since: str = Field(json_schema_extra={"format": "date"})
    days: int = Field(ge=1, le=31)


def build(variant: str) -> MCPServer:
    server = MCPServer(f"args-{variant}")
    if variant == "idle":

        @server.tool()
        def needs_account(account_id: str) -> str:
            """Every call is refused: the lint cannot reach its data without a scenario."""
            raise ToolError(f"no account {account_id!r}; sign in first")

        return server

    @server.tool()
    def search_issues(
        repo: Annotated[str, Field(pattern=r"^[a-z]+/[a-z]+$")],
        state: Literal["open", "closed"],
        window: Window,
        labels: Annotated[list[str], Field(min_length=1)],
        limit: int = 20,
    ) -> dict[str, Any]:
        """Issues of one repo, coverage first; every argument but limit is required."""
        rows = [i for i in ISSUES if i["state"] == state]
        return response(coverage(shown=min(limit, len(rows)), total=len(rows), unit="issues",
                                 next_cursor=str(limit) if limit < len(rows) else None),
                        issues=rows[:limit])

    @server.tool()
    def configured_rows(limit: int = 10) -> dict[str, Any]:
        """Rows whose number comes from the environment the server was started with."""
        configured = os.environ.get("ARGS_SERVER_ROWS")
        if configured is None:
            raise ToolError("ARGS_SERVER_ROWS is not set: this server has no data source")
        rows = [{"n": i} for i in range(int(configured))]
        return response(coverage(shown=min(limit, len(rows)), total=len(rows), unit="rows"),
                        rows=rows[:limit])

    @server.tool()
    def commits(limit: int = 30) -> str:
        """A log of the newest commits, with no count and no cursor."""
        return "\n".join(f"commit {c}\n    change {i}" for i, c in enumerate(COMMITS[:limit]))

    @server.tool()
    def list_directory(path: str) -> types.CallToolResult:
        """Every entry, as the filesystem server lists them."""
        text = "\n".join(f"[FILE] {path.strip('/')}/file{i}.txt" for i in range(5000))
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content={"content": text})

    return server


if __name__ == "__main__":
    build(sys.argv[1]).run()
