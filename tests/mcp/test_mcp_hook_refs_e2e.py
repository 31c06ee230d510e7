"""End to end: a result the hook shaped is fetched through the harness's own stdio proxy.

Found by the install helper's OpenCode run (issue 24): ``elision hook`` cut a 3,001-line Bash
output and named ``elision_fetch(ref=…)`` as the way on, but the proxy the same harness runs,
on the same store, answered "no body is kept under ref": the hook keeps a body unscoped, and a
proxy reads in its client's scope only. A stdio proxy serves one client, the store owner's own
agent, so it reads what the owner's hook kept; a network proxy (``--listen``) does not, since
its clients are not the store's owner.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.processes import started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-m", "elision"]


def hook_shaped(tmp: Path) -> tuple[str, str]:
    """The hook's cut of a long Bash output: its ref and the line range it elided."""
    stdout = "".join(f"test_{i:04d} ... ok\n" for i in range(3000)) + "SUMMARY: 3 failures\n"
    event = {"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
             "tool_input": {}, "tool_response": {"stdout": stdout, "stderr": "",
                                                 "interrupted": False}}
    done = subprocess.run(
        [*ELISION, "hook", "claude-code", "--budget", "4096", "--store", str(tmp / "store.db"),
         "--no-audit"], input=json.dumps(event), capture_output=True, text=True, timeout=120,
        check=False)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    call = re.search(r'elision_fetch\(ref="(el_[^"]+)", lines="(\d+-\d+)"\)', shown)
    assert call is not None, shown[:400]
    return call[1], call[2]


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_a_stdio_proxy_fetches_what_the_hook_kept(tmp_path: Path) -> None:
    ref, lines = hook_shaped(tmp_path)
    proxy = StdioServerParameters(command=ELISION[0], args=[
        *ELISION[1:], "proxy", "--store", str(tmp_path / "store.db"), "--no-audit", "--",
        *UPSTREAM])

    async def fetch() -> types.CallToolResult:
        async with Client(proxy) as client:
            return await client.call_tool("elision_fetch", {"ref": ref, "lines": lines})

    page = anyio.run(fetch)
    assert not page.is_error, text(page)
    first = int(lines.split("-")[0])
    assert f"test_{first - 1:04d} ... ok" in text(page)  # line N holds test N-1


def test_a_network_proxy_does_not(tmp_path: Path) -> None:
    ref, lines = hook_shaped(tmp_path)
    with started([*ELISION, "proxy", "--store", str(tmp_path / "store.db"), "--no-audit",
                  "--listen", "127.0.0.1:0", "--", *UPSTREAM]) as proxy:

        async def fetch() -> types.CallToolResult:
            async with Client(proxy.url) as client:
                return await client.call_tool("elision_fetch", {"ref": ref, "lines": lines})

        page = anyio.run(fetch)
    assert page.is_error
    assert "no body is kept under ref" in text(page)
