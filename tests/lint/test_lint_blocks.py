"""A list sent as one text block an item is judged whole (QA pass as a server author).

Found by linting a small MCPServer tool that returns a list of 5,000 dicts: the SDK sends
each item as a text block of its own, and the lint judged the first block alone ("67 bytes
fit a head slice at 4 KB whole", "no bulk array in any answer"), so a list at its limit with
nothing saying how many there are passed every rule. Its default limit was not read either:
called without the argument, the list at that default was not seen as at its limit."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.lint.judge import judge_tool
from elision.lint.runner import _lint_tool, response_of
from elision.lint.scenarios import Scenario

SCHEMA = {"type": "object", "properties": {"limit": {"type": "integer", "default": 50}}}


def blocks(items: list[Any], extra: tuple[str, ...] = ()) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(i, indent=2)) for i in items]
        + [types.TextContent(text=e) for e in extra],
        structured_content={"result": items})


ROWS = [{"id": i, "name": f"item-{i}"} for i in range(50)]


@pytest.mark.parametrize(("result", "size", "bulk"), [
    # one block an item: the answer is their array, all of it
    (blocks(ROWS), None, [50]),
    # one block, the whole list: as before
    (types.CallToolResult(content=[types.TextContent(text=json.dumps(ROWS))]), None, [50]),
    # a document and a note in plain text: the document, as before
    (blocks([{"rows": ROWS}], ("50 rows shown",)), len(json.dumps({"rows": ROWS}, indent=2)),
     [50]),
])
def test_an_answer_is_read_whole(result: types.CallToolResult, size: int | None,
                                 bulk: list[int]) -> None:
    answer = response_of(result, "r")
    assert answer.scan is not None
    assert [b.value for b in answer.scan.bulk_arrays] == bulk
    if size is not None:
        assert answer.scan.size == size


def test_a_list_of_blocks_at_its_limit_with_no_count_fails_rule_3() -> None:
    answer = response_of(blocks(ROWS), "r")
    answer.limit = 50
    report = judge_tool("list_items", SCHEMA, None, [answer], [])
    assert report.verdicts[2].status == "fail", report.verdicts[2].evidence


class FakeClient:
    """Answers as the SDK's MCPServer does a tool returning ``list[dict]``."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return blocks(ROWS[:int(arguments.get("limit", 50))])


@pytest.mark.parametrize(("arguments", "status"), [
    ({}, "fail"),  # the schema's default of 50 applies, and 50 came back: at its limit
    ({"limit": 50}, "fail"),
    ({"limit": 80}, "pass"),  # 50 of a limit of 80: all there was
])
def test_a_limit_not_passed_is_its_schema_default(arguments: dict[str, Any],
                                                  status: str) -> None:
    tool = types.Tool(name="list_items", input_schema=SCHEMA)
    scenario = Scenario("list_items", "all", arguments)

    async def run() -> Any:
        return await _lint_tool(FakeClient(), tool, [scenario], 5.0, None)

    report = anyio.run(run)
    assert report.verdicts[2].status == status, report.verdicts[2].evidence
