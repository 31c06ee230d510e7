"""End to end: one proxy, two harnesses, a result of many short lines fitted to each.

Found in the harnesses (issue 24): OpenCode keeps a text's first 2,000 lines, so a log of short
lines shaped to its bytes budget alone came to the model as its head, the verdict on the last
line lost (and its budget had been pushed down to 16,000 bytes for that, which 4-byte lines
still overrun: 4,000 lines). The proxy knows the client's line cap too: OpenCode gets at most
2,000 lines, Claude Code, which cuts by size only, its bytes' worth.
"""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from elision.install.harnesses import HARNESSES
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).with_name("lines_server.py")
ERRING = Path(__file__).with_name("erring_reads_server.py")
#: that server's names and its error's text (what a client directly is handed)
FAILING: dict[str, Any] = runpy.run_path(str(ERRING))
VERDICT = "VERDICT: 3 failures"
#: the most lines OpenCode 1.18 keeps of a text (measured with it: docs/harnesses.md)
OPENCODE_LINES = 2_000
#: the most lines Qwen Code keeps of a text (elision.install.harnesses)
QWEN_LINES = 1_000

T = TypeVar("T")


def lines(text: str) -> int:
    return text.count("\n") + 1  # as OpenCode and Qwen Code count: text.split("\n")


async def each_client(
    ask: Callable[[StdioServerParameters, str], Awaitable[T]],
    params: StdioServerParameters, clients: tuple[str, str],
) -> dict[str, T]:
    """``ask`` for each client, the two sessions (two proxies of one entry) at once: one after
    the other, each test held a worker for two proxy starts in a row."""
    got: dict[str, T] = {}

    async def one(client: str) -> None:
        got[client] = await ask(params, client)

    async with anyio.create_task_group() as tg:
        for client in clients:
            tg.start_soon(one, client)
    return {client: got[client] for client in clients}


def entry(tmp_path: Path, server: Path = SERVER) -> StdioServerParameters:
    """What an installed harness entry runs: the proxy with no --budget of its own."""
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from elision.cli import main; main()",
            "proxy",
            "--store",
            str(tmp_path / "store.db"),
            "--no-audit",
            "--",
            sys.executable,
            str(server),
        ],
        env=dict(os.environ),
    )


async def seen(session: Client) -> dict[str, str]:
    """What the client is handed: the log, its error twin and the page its next call reads."""
    got: dict[str, str] = {}
    for tool in ("short_log", "short_error"):
        result = await session.call_tool(tool, {})
        assert len(result.content) == 1 and result.is_error is (tool == "short_error")
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        got[tool] = block.text
    nxt = (result.meta or {})["elision/shaping"]["next"]
    ref, selector = nxt.split('ref="')[1].split('"')[0], nxt.split('lines="')[1].split('"')[0]
    page = await session.call_tool("elision_fetch", {"ref": ref, "lines": selector})
    block = page.content[0]
    assert isinstance(block, types.TextContent) and not page.is_error, page
    got["page"] = block.text
    return got


async def read_and_got(session: Client) -> dict[str, str]:
    """The log as the client is handed it by ``resources/read`` and by ``prompts/get``."""
    read = await session.read_resource("log://short")
    prompt = await session.get_prompt("short_log_prompt")
    texts = [c.text for c in read.contents if isinstance(c, types.TextResourceContents)]
    messages = [m.content.text for m in prompt.messages
                if isinstance(m.content, types.TextContent)]
    return {"resource": "\n\n".join(texts), "prompt": "\n\n".join(messages)}


Handed = dict[str, dict[str, str]]


async def seen_then_read(params: StdioServerParameters, client: str) -> Handed:
    """Both tests' questions of the lines server in one session of ``client``: its tools
    first, then its resource and prompt. A session's line cap is its client's from the
    handshake on, whatever it asked before, so the two tests share each client's proxy (a
    proxy start is ~1.2 s of CPU) rather than start two each."""
    info = types.Implementation(name=client, version="1.0.0")
    async with Client(params, client_info=info, mode="legacy") as session:
        return {"tools": await seen(session), "reads": await read_and_got(session)}


@pytest.fixture(scope="module")
def handed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Handed]:
    params = entry(tmp_path_factory.mktemp("lines"))

    async def main() -> dict[str, Handed]:
        return await each_client(seen_then_read, params, ("opencode", "claude-code"))

    return anyio.run(main)


def test_one_entry_fits_a_short_line_log_to_each_client(handed: dict[str, Handed]) -> None:
    opencode, claude = handed["opencode"]["tools"], handed["claude-code"]["tools"]
    cap, budget = OPENCODE_LINES, HARNESSES["opencode"].budget
    for text in opencode.values():
        assert lines(text) <= cap, lines(text)  # never more than OpenCode keeps
        assert len(text.encode()) <= budget
    # the log: the cap used (not a lower byte budget's share of it), honest, its verdict kept
    log = opencode["short_log"]
    assert lines(log) > cap * 0.98
    assert log.startswith("[elision] partial") and log.endswith(VERDICT)
    assert opencode["short_error"].endswith(VERDICT)
    # Claude Code cuts by size only: its budget's worth of bytes, many more lines than 2,000
    text = claude["short_log"]
    assert (
        HARNESSES["claude-code"].budget * 0.9
        < len(text.encode())
        <= (HARNESSES["claude-code"].budget)
    )
    assert lines(text) > 2 * cap and text.endswith(VERDICT)


def test_resources_and_prompts_keep_the_clients_line_cap(handed: dict[str, Handed]) -> None:
    """Found reviewing issue 24's line caps: they held tool results, ``elision_fetch`` pages
    and errors, but a resource read or a prompt was shaped to its bytes budget alone: 2,622
    lines of the 12,001-line log reached OpenCode, which keeps 2,000, so it cut again and the
    verdict on the last line was lost."""
    got = {client: handed[client]["reads"] for client in ("opencode", "claude-code")}
    for kind, text in got["opencode"].items():
        assert lines(text) <= OPENCODE_LINES, (kind, lines(text))
        assert text.startswith("[elision] partial") and text.endswith(VERDICT), kind
    # Claude Code cuts by size only: more lines than OpenCode keeps reach it
    for kind, text in got["claude-code"].items():
        assert lines(text) > OPENCODE_LINES, (kind, lines(text))


async def errors(params: StdioServerParameters, client: str) -> dict[str, MCPError]:
    """Each request's error as ``client`` is handed it."""
    info = types.Implementation(name=client, version="1.0.0")
    uri, prompt = FAILING["URI"], FAILING["PROMPT"]
    requests = {
        "resources/read": lambda s: s.read_resource(uri),
        "prompts/get": lambda s: s.get_prompt(prompt),
        "completion/complete": lambda s: s.complete(
            types.PromptReference(name=prompt), {"name": "x", "value": "y"}),
    }
    got: dict[str, MCPError] = {}
    async with Client(params, client_info=info, mode="legacy") as session:
        for method, request in requests.items():
            with pytest.raises(MCPError) as caught:
                await request(session)
            got[method] = caught.value
    return got


def test_an_upstream_error_keeps_the_clients_line_cap(tmp_path: Path) -> None:
    """Found reviewing issue 24's line caps: the egress gate held an upstream's error on a
    resource read, a prompt or a completion to its 8 KB bound, but a 1,500-line error of 3 KB
    went whole to Qwen Code, which keeps 1,000 lines, so it cut again and the error's last
    line (most often what went wrong) was lost without a word."""
    params = entry(tmp_path, ERRING)

    async def main() -> dict[str, dict[str, MCPError]]:
        return await each_client(errors, params, ("qwen-code", "claude-code"))

    got = anyio.run(main)
    for method, exc in got["qwen-code"].items():
        text = exc.error.message
        assert exc.error.code == -32000, method  # still the server's error, its code kept
        assert lines(text) <= QWEN_LINES, (method, lines(text))
        # honest: it says it was cut and where the whole is, and keeps the last line
        assert text.startswith("[elision]") and "elision_fetch" in text, (method, text[:200])
        assert text.endswith(FAILING["LAST"]), method
    # Claude Code cuts by size only: the whole error, as the server wrote it
    for method, exc in got["claude-code"].items():
        assert exc.error.message == FAILING["message"](), method
        assert lines(exc.error.message) == FAILING["LINES"] > QWEN_LINES, method
