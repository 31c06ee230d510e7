"""ElisionMiddleware on a real FastMCP server, in memory: shaped answers that pass the lint.

FastMCP (and the middleware, which needs it) is imported by a fixture, not at collection:
every xdist worker collects every file, and the import took ~0.3 s of CPU on a worker that
never runs these tests.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import anyio
import mcp_types as mt
import pytest

from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.errors import BudgetError
from elision.lint.judge import judge_tool

#: Found trying elision as an attacker would (issue 12, item 1).
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SHADOWED = '{"note":"' + TOKEN + '","note":"ok"}'



pytestmark = pytest.mark.skipif(importlib.util.find_spec("fastmcp") is None,
                                reason="pip install 'elision[fastmcp]'")


@pytest.fixture(scope="module")
def fastmcp() -> Any:
    import fastmcp

    return fastmcp


def _middleware(cap: int) -> Any:
    from elision.server.fastmcp import ElisionMiddleware

    return ElisionMiddleware(cap=cap)


def _server(fastmcp: Any, cap: int) -> Any:
    server = fastmcp.FastMCP("ledger")
    server.add_middleware(_middleware(cap))

    @server.tool()
    def rows(limit: int = 1000) -> dict[str, Any]:
        """Caveats last, and a second array the limit forgets."""
        return {"rows": [{"id": i, "name": f"row {i}"} for i in range(min(limit, 900))],
                "fills": list(range(400)), "total_rows": 900}

    @server.tool()
    def small() -> dict[str, Any]:
        """Fits: sent with its caveats first and no envelope."""
        return {"rows": [1, 2], "total": 2}

    @server.tool()
    def log(lines: int = 2000) -> str:
        """Text: shaped as whole lines, header first."""
        return "".join(f"2026-11-30 step {i} ok\n" for i in range(lines))

    @server.tool()
    def shadowed() -> Any:
        """JSON text whose repeated key hides a token from a last-wins reader."""
        from fastmcp.tools.base import ToolResult

        return ToolResult(content=[mt.TextContent(type="text", text=SHADOWED)])

    return server


def _as_mcp(result: Any) -> Any:
    import mcp_types as types

    return types.CallToolResult(
        content=[types.TextContent(text=b.text) for b in result.content],
        structured_content=result.structured_content, _meta=result.meta,
    )


def test_middleware_shapes_bounds_and_passes_the_lint(fastmcp: Any) -> None:
    from elision.lint.runner import response_of

    async def main() -> None:
        async with fastmcp.Client(_server(fastmcp, cap=2048)) as client:
            tools = {t.name: t for t in await client.list_tools()}
            big = await client.call_tool_mcp("rows", {})
            one = await client.call_tool_mcp("rows", {"limit": 1})
            small = await client.call_tool_mcp("small", {})
            log = await client.call_tool_mcp("log", {})
        big_text = big.content[0].text
        assert len(big_text.encode()) <= 2048
        assert big_text.startswith('{"' + ENVELOPE_KEY + '":')
        env = big.meta[META_KEY]
        assert {e["path"]: e["total"] for e in env["elided"]} == {"$.rows": 900, "$.fills": 400}
        # limit=1 bounds both arrays, and the cut is declared with the original total.
        assert [(e["path"], e["shown"], e["total"]) for e in one.meta[META_KEY]["elided"]] == [
            ("$.fills", 1, 400)]
        assert small.content[0].text == '{"total":2,"rows":[1,2]}'
        assert META_KEY not in (small.meta or {})
        assert log.content[0].text.startswith("[elision] partial: lines 1-")
        assert len(log.content[0].text.encode()) <= 2048
        limited = response_of(one, "limit=1")
        limited.limit = 1
        tool = tools["rows"]
        report = judge_tool("rows", tool.input_schema, tool.output_schema,
                            [response_of(big, "scenario 'all'")], [limited])
        assert [v.status for v in report.verdicts] == ["pass"] * 4, report.verdicts

    anyio.run(main)


def test_a_repeated_key_is_withheld_and_declared_not_dropped_silently(fastmcp: Any) -> None:
    """The middleware parsed the text last-wins and sent the re-serialized value as if it
    were whole: the shadowed member was gone with ``complete`` true and no envelope."""

    async def main() -> None:
        async with fastmcp.Client(_server(fastmcp, cap=2048)) as client:
            result = await client.call_tool_mcp("shadowed", {})
            (block,) = result.content
            assert TOKEN not in block.text
            doc = json.loads(block.text)
            assert doc["note"] == "ok"
            envelope = doc[ENVELOPE_KEY]
            assert envelope["complete"] is False
            assert {"path": "$.note", "reason": "duplicate-key"} in envelope["withheld"]

    anyio.run(main)


def test_a_cap_below_the_minimum_is_refused_at_setup(fastmcp: Any) -> None:
    with pytest.raises(BudgetError, match="at least 512 bytes, got 64"):
        _middleware(cap=64)
