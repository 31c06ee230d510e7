"""End to end: a repeated key's shadowed member never reaches a client through the proxy.

A real upstream (``test_mcp_pipeline_upstream.py``) answers with ``{"note":"<token>",
"note":"ok",…}``, as a plain text (MCPServer wraps it as ``{"result": text}``) and as a text
with its structured echo; a real proxy sits in front of it and the official ``mcp.Client``
calls through it, and fetches every page of the kept body. Issue 12, item 1.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.honesty import strict_loads

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM_PATH = HERE / "test_mcp_pipeline_upstream.py"
META = "elision/shaping"


#: The seeded token, read from the upstream script (run as a module, it serves nothing).
TOKEN: str = runpy.run_path(str(UPSTREAM_PATH))["SECRETS"]["github"]


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_no_client_is_shown_a_shadowed_member(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=[
        "-c", "from elision.cli import main; main()", "proxy", "--budget", "4096",
        "--store", str(tmp_path / "store.db"), "--", sys.executable, str(UPSTREAM_PATH),
    ], env=dict(os.environ))  # the whole environment: the client passes a safe few by default
    seen: list[str] = []

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            for tool in ("shadowed", "shadowed_echo"):
                result = await client.call_tool(tool, {})
                seen.append(result.model_dump_json(by_alias=True))
                assert not result.is_error, text_of(result)
                doc = strict_loads(text_of(result))  # refuses a repeated key
                envelope = doc["__elision__"]
                assert doc["note"] == "ok" and envelope["complete"] is False
                assert {"path": "$.note", "reason": "duplicate-key"} in envelope["withheld"]
                assert result.meta is not None and result.meta[META]["complete"] is False
                if tool == "shadowed_echo":
                    assert result.structured_content == doc
                else:
                    assert result.structured_content == {"result": text_of(result)}
                for selector in ({}, {"bytes": "0-9999"}, {"lines": "1-3"}, {"path": "$"}):
                    page = await client.call_tool(
                        "elision_fetch", {"ref": envelope["ref"], **selector})
                    assert not page.is_error, text_of(page)
                    seen.append(page.model_dump_json(by_alias=True))

    anyio.run(main)
    assert len(seen) == 10
    for text in seen:
        assert TOKEN not in text and TOKEN not in json.loads(text).__repr__()
