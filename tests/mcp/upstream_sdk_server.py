"""A small MCP server for the proxy's end-to-end tests, written with the SDK's MCPServer.

Run as a script: ``python upstream_server.py`` (stdio) or ``python upstream_server.py --http
PORT`` (``--http-json PORT``: each answer one JSON body, not an SSE event).
``UPSTREAM_TOOL_PREFIX`` renames every tool (to provoke a collision), and
``UPSTREAM_EXTRA_TOOL`` adds a tool of that name, and
``UPSTREAM_CRASH_FILE`` names a file that, while it exists, makes ``crash`` kill the process.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ImageContent, TextContent

PREFIX = os.environ.get("UPSTREAM_TOOL_PREFIX", "")
server = MCPServer("elision-test-upstream")


def rows_doc(n: int) -> dict[str, Any]:
    # Caveats last, as real servers write them, where a head slice cuts first.
    return {
        "rows": [{"id": i, "name": f"item {i}", "price": i * 1.25, "tags": ["a", "b"]}
                 for i in range(n)],
        "warnings": [f"searched 528 of {n:,} rows"],
        "total_rows": n,
    }


@server.tool(name=PREFIX + "rows")
def rows(n: int = 1000) -> dict[str, Any]:
    """n rows, then the caveats."""
    return rows_doc(n)


@server.tool(name=PREFIX + "rows_text")
def rows_text(n: int = 1000) -> str:
    """The same document as rows, as compact JSON text whose bytes a test can predict."""
    return json.dumps(rows_doc(n))


@server.tool(name=PREFIX + "issues")
def issues(n: int = 600) -> list[dict[str, Any]]:
    """A list: MCPServer sends one text block per item, and the list as structuredContent."""
    return [{"id": i, "title": f"issue {i}", "body": "steps to reproduce " * 20}
            for i in range(n)]


@server.tool(name=PREFIX + "quoted")
def quoted(lines: int = 2000) -> str:
    """A text whose JSON string, in {"result": text}, is larger than the text."""
    return "".join(f'"line" {i} \\ "quoted"\n' for i in range(lines))


@server.tool(name=PREFIX + "log")
def log(lines: int = 3000) -> str:
    """A build log with the verdict on its last line."""
    body = "".join(f"2026-11-30T12:00:00Z INFO step {i} ok\n" for i in range(lines))
    return body + "FATAL: build failed with 3 errors\n"


@server.tool(name=PREFIX + "one_line")
def one_line(size: int = 70_000) -> str:
    """One line longer than 64 KB (a JSON string)."""
    return json.dumps({"blob": "x" * size, "note": "end"})


@server.tool(name=PREFIX + "huge")
def huge(megabytes: int = 17) -> str:
    """A message over 16 MB."""
    return json.dumps(rows_doc(megabytes * 16_000))


@server.tool(name=PREFIX + "pieces")
def pieces() -> list[TextContent]:
    """One JSON document sent as three text blocks."""
    text = json.dumps(rows_doc(300))
    third = len(text) // 3
    return [TextContent(text=text[:third]), TextContent(text=text[third:2 * third]),
            TextContent(text=text[2 * third:])]


@server.tool(name=PREFIX + "picture")
def picture(kilobytes: int = 400) -> list[ImageContent | TextContent]:
    """A big image and a caption."""
    data = base64.b64encode(os.urandom(kilobytes * 1024)).decode()
    return [ImageContent(data=data, mime_type="image/png"), TextContent(text="a caption")]


@server.tool(name=PREFIX + "fail")
def fail() -> str:
    """Raises with a long message: an error result that is itself oversized."""
    raise ToolError("bad input: " + ", ".join(f"field_{i} is missing" for i in range(2000)))


@server.tool(name=PREFIX + "crash")
def crash() -> str:
    """Kills the server while the marker file exists."""
    marker = os.environ.get("UPSTREAM_CRASH_FILE")
    if marker and os.path.exists(marker):
        os.remove(marker)
        os._exit(3)
    return "still here"


@server.tool(name=PREFIX + "hang")
def hang() -> str:
    """Never answers in time."""
    time.sleep(3600)
    return "too late"


@server.tool(name=PREFIX + "progress")
async def progress(ctx: Context, steps: int = 3) -> str:
    """Reports progress, then answers."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await anyio.sleep(0.01)
    return "done"


@server.tool(name=PREFIX + "wait_for_cancel")
async def wait_for_cancel(marker: str, seconds: float = 60) -> str:
    """Waits; writes ``started`` to the marker file at once and ``cancelled`` if cancelled."""
    with open(marker, "w") as out:
        out.write("started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w") as out:
            out.write("cancelled")
        raise
    return "waited"


@server.tool(name=PREFIX + "shout")
async def shout(ctx: Context, message: str = "hello") -> str:
    """Sends a log message to the client, then answers."""
    await ctx.info(message)
    return "said"


def grown() -> str:
    """A tool that appears at run time."""
    return "grown"


@server.tool(name=PREFIX + "grow")
async def grow(ctx: Context) -> str:
    """Adds a tool and tells the client the list changed."""
    server.add_tool(grown, name=PREFIX + "grown")
    await ctx.session.send_tool_list_changed()
    return "grew"


EXTRA = os.environ.get("UPSTREAM_EXTRA_TOOL")
if EXTRA:

    @server.tool(name=EXTRA)
    def extra() -> str:
        """A tool whose name the test chooses."""
        return "extra"


@server.resource("test://hello")
def hello() -> str:
    """A small resource."""
    return "hello from upstream"


#: A presigned link, as a server might hand out in a resource or a prompt.
SIGNED_LINK = (
    "https://files.example.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)


@server.resource("test://big/{kilobytes}")
def big(kilobytes: str) -> str:
    """A resource of about ``kilobytes`` KB of log lines."""
    return "".join(f"resource line {i}\n" for i in range(int(kilobytes) * 1024 // 20))


@server.resource("test://notes/{name}")
def note(name: str) -> str:
    """A resource template whose notes carry a presigned link."""
    return f"note {name}: the report is at {SIGNED_LINK}"


@server.prompt()
def greet(name: str) -> str:
    """A prompt with an argument."""
    return f"Say hello to {name}."


@server.prompt()
def handoff() -> str:
    """A prompt that quotes a presigned link."""
    return f"Summarise the report at {SIGNED_LINK}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--http-json":  # one JSON body per answer
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]),
                   json_response=True)
    else:
        server.run()
    # Ended: out now, without the interpreter's teardown of the SDK's modules (~0.13 s of
    # CPU and up to 0.5 s a stop, for each of the many starts of the e2e tests).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
