"""End to end: an upstream's JSON-RPC error on a resource read, a prompt or a completion is held
to the client's line cap, as a tool call's error is.

Found reviewing issue 24's line caps (noted at stop 28, fixed at issue 23's last pass): the
egress gate held such an error to its 8 KB bound, but a 1,500-line error of 3 KB went whole to
Qwen Code, which keeps 1,000 lines of a text, so it cut again and the error's last line (most
often what went wrong) was lost without a word.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).with_name("erring_reads_server.py")
sys.path.insert(0, str(SERVER.parent))
from erring_reads_server import LAST, LINES, PROMPT, URI, message  # noqa: E402

#: the most lines Qwen Code keeps of a text (elision.install.harnesses)
QWEN_LINES = 1_000


def lines(text: str) -> int:
    return text.count("\n") + 1  # as OpenCode and Qwen Code count: text.split("\n")


def entry(tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from elision.cli import main; main()", "proxy",
              "--store", str(tmp_path / "store.db"), "--no-audit", "--",
              sys.executable, str(SERVER)],
        env=dict(os.environ),
    )


async def errors(params: StdioServerParameters, client: str) -> dict[str, MCPError]:
    """Each request's error as ``client`` is handed it."""
    info = types.Implementation(name=client, version="1.0.0")
    requests = {
        "resources/read": lambda s: s.read_resource(URI),
        "prompts/get": lambda s: s.get_prompt(PROMPT),
        "completion/complete": lambda s: s.complete(
            types.PromptReference(name=PROMPT), {"name": "x", "value": "y"}),
    }
    got: dict[str, MCPError] = {}
    async with Client(params, client_info=info, mode="legacy") as session:
        for method, request in requests.items():
            with pytest.raises(MCPError) as caught:
                await request(session)
            got[method] = caught.value
    return got


def test_an_upstream_error_keeps_the_clients_line_cap(tmp_path: Path) -> None:
    params = entry(tmp_path)

    async def main() -> dict[str, dict[str, MCPError]]:
        return {client: await errors(params, client) for client in ("qwen-code", "claude-code")}

    got = anyio.run(main)
    for method, exc in got["qwen-code"].items():
        text = exc.error.message
        assert exc.error.code == -32000, method  # still the server's error, its code kept
        assert lines(text) <= QWEN_LINES, (method, lines(text))
        # honest: it says it was cut and where the whole is, and keeps the last line
        assert text.startswith("[elision]") and "elision_fetch" in text, (method, text[:200])
        assert text.endswith(LAST), method
    # Claude Code cuts by size only: the whole error, as the server wrote it
    for method, exc in got["claude-code"].items():
        assert exc.error.message == message() and lines(exc.error.message) == LINES, method
