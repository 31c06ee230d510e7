"""A server linted through elision proxy is judged on its own tools (QA pass as a server
author).

Found by running `elision lint --url` against `elision proxy --listen` in front of the demo
server: every tool of the server passed, and the run still failed, NOT EXERCISED, on
`elision_fetch` and `elision_fetch_reference`, which the proxy adds and which no made-up
`ref` can reach."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest

import mcp
from elision.lint.report import render
from elision.lint.runner import LintResult, Target, run_lint
from elision.lint.scenarios import Scenario

ROWS = {"total": 3, "rows": [{"id": i} for i in range(3)]}
REF = {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}
TOOLS = [types.Tool(name="search", input_schema={"type": "object", "properties": {}}),
         types.Tool(name="elision_fetch", input_schema=REF),
         types.Tool(name="elision_fetch_reference", input_schema=REF)]


class FakeClient:
    """A proxy's answers: its server's tool answers, its own fetch refuses a made-up ref."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.calls: list[str] = []

    async def __aenter__(self) -> FakeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self, cursor: str | None = None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name == "search":
            return types.CallToolResult(content=[types.TextContent(text=json.dumps(ROWS))])
        return types.CallToolResult(content=[types.TextContent(
            text=f"no body is kept under ref {arguments.get('ref')!r}")], is_error=True)


def lint(monkeypatch: pytest.MonkeyPatch, scenarios: dict[str, list[Scenario]]) -> LintResult:
    monkeypatch.setattr(mcp, "Client", FakeClient)

    async def run() -> LintResult:
        return await run_lint(Target(url="http://127.0.0.1:1/mcp"), scenarios, timeout=5)

    return anyio.run(run)


def test_the_proxys_own_tools_are_named_not_linted(monkeypatch: pytest.MonkeyPatch) -> None:
    result = lint(monkeypatch, {})
    assert [t.name for t in result.tools] == ["search"]
    assert result.status == "pass"
    assert result.skipped == ["elision_fetch", "elision_fetch_reference"]
    assert "Not linted: `elision_fetch`, `elision_fetch_reference`" in render(result, "markdown")
    assert json.loads(render(result, "json"))["skipped"] == result.skipped


def test_a_scenario_for_one_of_them_lints_it(monkeypatch: pytest.MonkeyPatch) -> None:
    result = lint(monkeypatch, {"elision_fetch": [
        Scenario("elision_fetch", "a stale ref", {"ref": "el_x"})]})
    assert [t.name for t in result.tools] == ["search", "elision_fetch"]
    assert result.skipped == ["elision_fetch_reference"] and result.unknown_scenarios == []
