"""The reference filesystem server behind the proxy: an agent's roots bind it from the first call.

Found by an interop run (issue 23): the reference server (npm
``@modelcontextprotocol/server-filesystem``) read a file outside a newest-era agent's roots on
that agent's first call through the proxy, where directly the same read is denied. The proxy
asked the agent for its roots inside the call and forwarded the call as soon as the server had
asked again, but the server applies an answer asynchronously (it checks each directory on disk
first), so the call ran on the wide directories of its command line.

Directly, an agent that calls the moment it has connected races the server the same way (seen
here: the read succeeds); one that calls a moment later, as an agent after its first model turn
does, is denied. The proxy holds the call until the server has taken the roots in, so through it
even the immediate call is denied.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from interop.servers import npm_server
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
SECRET = "the-outside-file-must-not-be-read"


def tree(tmp_path: Path) -> Path:
    (tmp_path / "granted").mkdir()
    (tmp_path / "granted" / "notes.txt").write_text("inside the agent's root\n")
    (tmp_path / "withheld").mkdir()
    (tmp_path / "withheld" / "secret.txt").write_text(SECRET + "\n")
    return tmp_path


def roots_of(path: Path) -> Any:
    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=path.as_uri())])  # type: ignore[arg-type]
    return roots


def through_proxy(server: list[str]) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--store", ":memory:", "--no-audit", "--", *server]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


def direct(server: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))


async def read(client: Client, path: Path) -> str:
    result = await client.call_tool("read_text_file", {"path": str(path)})
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def until_allowed(client: Client, directories: list[Path]) -> None:
    """Until the server says it serves just ``directories`` (its list_allowed_directories)."""
    wanted = sorted(str(d.resolve()) for d in directories)
    while True:
        result = await client.call_tool("list_allowed_directories", {})
        text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
        if sorted(text.splitlines()[1:]) == wanted:
            return
        await anyio.sleep(0.02)


MODES = {"newest-era": "auto", "handshake-era": "legacy"}
ROUTES = ["direct", "proxy"]


def case(tmp_path: Path, mode: str, route: str) -> None:
    root = tree(tmp_path)
    server = [*npm_server("@modelcontextprotocol/server-filesystem", "mcp-server-filesystem"),
              str(root)]  # on its own the server would serve the whole tree
    params = through_proxy(server) if route == "proxy" else direct(server)

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(params, mode=mode,  # type: ignore[arg-type]
                              list_roots_callback=roots_of(root / "granted")) as client:
                if route == "direct":
                    # The server's own race (see the module docstring): call once it has taken
                    # the roots in, as an agent after its first model turn would (a fixed 1 s
                    # sleep was idle time, and too short on a loaded machine).
                    await until_allowed(client, [root / "granted"])
                outside = await read(client, root / "withheld" / "secret.txt")
                assert SECRET not in outside
                assert "denied" in outside.lower() or "outside" in outside.lower(), outside
                inside = await read(client, root / "granted" / "notes.txt")
                assert "inside the agent's root" in inside

    anyio.run(main)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, BaseException | None]:
    """The four runs side by side from the module's start, each in a thread and a tree of its
    own (one after the other, the first waited out node's cold start alone and the four held a
    worker ~17 s); a run that failed holds its exception, raised by its own test."""
    with ThreadPoolExecutor(len(MODES) * len(ROUTES), thread_name_prefix="fs") as pool:
        futures = {f"{route}-{name}": pool.submit(case, tmp_path_factory.mktemp("fs"),
                                                  mode, route)
                   for name, mode in MODES.items() for route in ROUTES}
    return {name: future.exception() for name, future in futures.items()}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("route", ROUTES)
def test_a_read_outside_the_agents_roots_is_denied_on_the_first_call(
    outcomes: dict[str, BaseException | None], mode: str, route: str
) -> None:
    failure = outcomes[f"{route}-{mode}"]
    if failure is not None:
        raise failure
