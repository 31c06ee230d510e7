"""tools/list tells Claude Code how large a shaped result can be, so it never cuts it again."""

from __future__ import annotations

import mcp_types as types
import pytest

from elision.budget import Budget
from elision.mcp.gate.tools import (
    MAX_RESULT_CHARS_CEILING,
    MAX_RESULT_CHARS_KEY,
    result_size_meta,
    with_result_size,
)


@pytest.mark.parametrize(("budget", "chars"), [
    (Budget(8192), 8192),                    # a char is at least a byte
    (Budget(24_000, "chars"), 24_000),
    (Budget(2_000_000), MAX_RESULT_CHARS_CEILING),  # Claude Code honours no more
    (Budget(4096, "tokens"), MAX_RESULT_CHARS_CEILING),  # a token has no bound in chars
])
def test_the_advertised_size_bounds_every_shaped_result(budget: Budget, chars: int) -> None:
    assert result_size_meta(budget) == {MAX_RESULT_CHARS_KEY: chars}


def test_a_tool_keeps_its_own_meta_beside_the_size() -> None:
    tool = types.Tool(name="t", input_schema={"type": "object"}, _meta={"vendor/x": 1})
    meta = with_result_size(tool, Budget(8192)).meta
    assert meta == {"vendor/x": 1, MAX_RESULT_CHARS_KEY: 8192}
    assert tool.meta == {"vendor/x": 1}
