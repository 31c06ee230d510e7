"""ElisionMiddleware on a real FastMCP server, in memory: shaped answers that pass the lint."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.errors import BudgetError
from elision.lint.judge import judge_tool

fastmcp = pytest.importorskip("fastmcp")

from elision.server.fastmcp import ElisionMiddleware  # noqa: E402 - needs fastmcp


def _server(cap: int) -> Any:
    server = fastmcp.FastMCP("ledger")
    server.add_middleware(ElisionMiddleware(cap=cap))

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

    return server


def _as_mcp(result: Any) -> Any:
    import mcp_types as types

    return types.CallToolResult(
        content=[types.TextContent(text=b.text) for b in result.content],
        structured_content=result.structured_content, _meta=result.meta,
    )


def test_middleware_shapes_bounds_and_passes_the_lint() -> None:
    from elision.lint.runner import response_of

    async def main() -> None:
        async with fastmcp.Client(_server(cap=2048)) as client:
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


def test_a_cap_below_the_minimum_is_refused_at_setup() -> None:
    with pytest.raises(BudgetError, match="at least 512 bytes, got 64"):
        ElisionMiddleware(cap=64)
