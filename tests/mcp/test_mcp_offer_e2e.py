"""End to end: what the proxy tells an upstream server it can do follows what the agent can.

A server lists tools by what its client declared (one that needs elicitation only to a client
that can elicit); the proxy used to declare roots and elicitation to every upstream whatever
its agent declared, so servers exposed tools the agent could never use. Here ``roots_server``
reports the client capabilities its handshake got: through a stdio proxy, an agent that
declares neither roots nor elicitation makes the server see neither, one that declares both
makes it see both; an HTTP proxy (many agents, one upstream session) offers what the config
allows.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.processes import started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


def proxy_command(tmp_path: Path, **entry: Any) -> list[str]:
    path = tmp_path / "servers.json"
    server = {"command": sys.executable, "args": [str(HERE / "roots_server.py")], "timeout": 20}
    path.write_text(json.dumps({"mcpServers": {"files": {**server, **entry}}}))
    return [*ELISION, "proxy", "--config", str(path), "--store", ":memory:", "--no-audit"]


def over_stdio(command: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


async def roots(context: Any) -> types.ListRootsResult:
    # One root: the proxy holds calls to a roots-using server while agents grant none.
    return types.ListRootsResult(roots=[types.Root(uri="file:///work")])  # type: ignore[arg-type]


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


async def sample(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(text="no"), model="none"
    )


async def offered(client: Client, server: str = "files") -> set[str]:
    """The capability names the server was told its client (the proxy) has."""
    result = await client.call_tool(f"{server}__roots", {})
    block = result.content[0]
    assert isinstance(block, types.TextContent), result
    assert not result.is_error, block.text
    caps: dict[str, Any] | None = json.loads(block.text)["offered"]
    return set(caps or ())


MODES = ["legacy", "auto"]  # the handshake era; the newest era


def declares_nothing(tmp_path: Path, mode: str) -> None:
    # "sampling": true allows sampling, but this agent cannot sample: not offered either.
    command = proxy_command(tmp_path, sampling=True)

    async def main() -> None:
        async with Client(over_stdio(command), mode=mode) as client:
            assert await offered(client) == set()

    anyio.run(main)


def declares_roots_and_elicitation(tmp_path: Path, mode: str) -> None:
    command = proxy_command(tmp_path)

    async def main() -> None:
        async with Client(over_stdio(command), mode=mode, list_roots_callback=roots,
                          elicitation_callback=elicit, sampling_callback=sample) as client:
            # Sampling stays off: the config entry did not allow it.
            assert await offered(client) == {"roots", "elicitation"}

    anyio.run(main)


def declares_one(tmp_path: Path) -> None:
    command = proxy_command(tmp_path, sampling=True)

    async def main() -> None:
        async with Client(over_stdio(command), mode="legacy",
                          sampling_callback=sample) as client:
            assert await offered(client) == {"sampling"}

    anyio.run(main)


#: Each stdio case is a proxy and a server of its own: one after the other, the five held a
#: worker ~16 s. They run side by side from the module's start, each in a thread and a folder
#: of its own, and each test re-raises what its case raised.
STDIO_CASES: dict[str, Callable[[Path], None]] = {
    **{f"nothing-{mode}": partial(declares_nothing, mode=mode) for mode in MODES},
    **{f"both-{mode}": partial(declares_roots_and_elicitation, mode=mode) for mode in MODES},
    "one": declares_one,
}


@pytest.fixture(scope="module")
def stdio_outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, BaseException | None]:
    with ThreadPoolExecutor(len(STDIO_CASES), thread_name_prefix="offer") as pool:
        futures = {name: pool.submit(case, tmp_path_factory.mktemp("offer-stdio"))
                   for name, case in STDIO_CASES.items()}
    return {name: future.exception() for name, future in futures.items()}


def passed(outcomes: dict[str, BaseException | None], case: str) -> None:
    failure = outcomes[case]
    if failure is not None:
        raise failure


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_that_declares_nothing_gets_a_server_told_nothing(
    stdio_outcomes: dict[str, BaseException | None], mode: str
) -> None:
    passed(stdio_outcomes, f"nothing-{mode}")


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_that_declares_roots_and_elicitation_gets_a_server_told_both(
    stdio_outcomes: dict[str, BaseException | None], mode: str
) -> None:
    passed(stdio_outcomes, f"both-{mode}")


def test_an_agent_that_declares_one_gets_a_server_told_just_that(
    stdio_outcomes: dict[str, BaseException | None],
) -> None:
    passed(stdio_outcomes, "one")


#: Config entries of one HTTP proxy, each a server of its own, and what each should be offered.
HTTP_ENTRIES: dict[str, tuple[dict[str, Any], set[str]]] = {
    "files": ({}, {"roots", "elicitation"}),  # by default all it can carry but sampling
    "closed": ({"elicitation": False, "roots": False}, set()),  # the config turns both off
    "swapped": ({"roots": False, "sampling": True}, {"elicitation", "sampling"}),  # one off, one on
}


@pytest.fixture(scope="module")
def http_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One HTTP proxy in front of one roots_server per entry (a proxy start is ~0.6 s of CPU):
    each server's handshake is its own, so each still shows what its own entry allows, and the
    entries show no bleeding into each other. Each test connects its own agent (session)."""
    path = tmp_path_factory.mktemp("offer") / "servers.json"
    server = {"command": sys.executable, "args": [str(HERE / "roots_server.py")], "timeout": 20}
    path.write_text(json.dumps({"mcpServers": {
        name: {**server, **entry} for name, (entry, _) in HTTP_ENTRIES.items()}}))
    command = [*ELISION, "proxy", "--config", str(path), "--store", ":memory:", "--no-audit",
               "--listen", "127.0.0.1:0"]
    with started(command) as proxy:
        yield proxy.url


@pytest.mark.parametrize("name", HTTP_ENTRIES)
def test_an_http_proxy_offers_what_the_config_allows(http_proxy: str, name: str) -> None:
    async def main() -> None:
        # An agent that declares nothing: with several agents, the proxy cannot follow each.
        async with Client(http_proxy, mode="legacy") as client:
            assert await offered(client, name) == HTTP_ENTRIES[name][1]

    anyio.run(main)
