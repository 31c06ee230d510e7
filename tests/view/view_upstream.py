"""An MCP server for the viewer's tests: a JSON result that must be cut, a text log that
must be cut, one with credentials, one small result, and a tool whose very name is hostile
(HTML, rich markup, ANSI CSI and an OSC 52 clipboard write)."""

from __future__ import annotations

import json

HOSTILE_TOOL = "<script>alert(1)</script>[bold]markup[/]\x1b[2J\x1b]52;c;aGk=\x07"
#: A signed URL the redaction rules withhold (the shape of AWS SigV4; not a real credential).
SIGNED = ("https://bucket.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
          "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
          "&X-Amz-Date=20261130T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
          "&X-Amz-Signature=" + "ab" * 32)


def rows_document(n: int) -> dict[str, object]:
    return {"total_rows": n, "rows": [{"id": i, "name": f"row {i}"} for i in range(n)]}


def main() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("elision-view-upstream")

    @server.tool()
    def rows(n: int = 400) -> str:
        """Rows as one JSON text: over the budget, so cut."""
        return json.dumps(rows_document(n))

    @server.tool()
    def build_log(lines: int = 600) -> str:
        """A build log: over the budget, so its middle lines are cut."""
        return "\n".join(f"step {i}: compiled module_{i}.o ok" for i in range(lines)) + (
            "\nFATAL: build failed with 3 errors\n")

    @server.tool()
    def signed_link() -> str:
        """A small document holding a signed URL: withheld, never cut."""
        return json.dumps({"file": "report.csv", "download": SIGNED, "size": 1234})

    @server.tool()
    def small() -> str:
        return "all good"

    @server.tool(name=HOSTILE_TOOL)
    def hostile() -> str:
        return "a result from a tool with a hostile name"

    server.run()


if __name__ == "__main__":
    main()
