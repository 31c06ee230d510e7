"""End to end: a ``--config`` of several real servers behind a real proxy, the official client.

Found by integrating (issue 14, item 10): one server of a config that failed to start (a
missing binary, a process that exits, one that never answers) stopped the whole proxy, so the
other servers' tools never appeared.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]

#: Exits the first time it runs (it leaves a marker), then is the upstream server.
FLAKY = """
import pathlib, runpy, sys
marker = pathlib.Path(sys.argv[1])
if not marker.exists():
    marker.write_text("failed once")
    sys.exit(1)
sys.argv = [sys.argv[2]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def proxy(config: Path) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--config", str(config), "--no-store", "--no-audit"]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def test_a_server_that_does_not_start_stops_no_one_and_is_retried(tmp_path: Path) -> None:
    flaky = tmp_path / "flaky.py"
    flaky.write_text(FLAKY)
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "good": {"command": UPSTREAM[0], "args": UPSTREAM[1:]},
        "missing": {"command": str(tmp_path / "no-such-binary")},
        "exits": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]},
        # Never answers: its own timeout bounds its start (and the handshake waits it out).
        "silent": {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"],
                   "timeout": 1},
        "flaky": {"command": sys.executable,
                  "args": [str(flaky), str(tmp_path / "marker"), UPSTREAM[1]]},
    }}))
    changed: list[str] = []
    #: Set by each tools/list_changed; a fresh one after each look at the tools.
    announced: list[anyio.Event] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(message.method)
            announced[-1].set()

    async def main() -> None:
        announced.append(anyio.Event())
        async with Client(proxy(config), mode="legacy", message_handler=on_message) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "good__rows" in names
            assert {"missing__unavailable", "exits__unavailable", "silent__unavailable"} <= names
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "Server 'missing' is not running" in (
                tools["missing__unavailable"].description or "")

            good = await client.call_tool("good__rows", {"n": 3})
            assert not good.is_error

            # Any tool of a server that is down: an error that names it and says why.
            missing = await client.call_tool("missing__rows", {})
            assert missing.is_error
            assert text_of(missing).startswith(
                "server 'missing' is not running, so 'missing__rows' cannot be called: "
                "server 'missing' (")
            assert "could not be started" in text_of(missing)
            silent = await client.call_tool("silent__unavailable", {})
            assert silent.is_error
            assert "did not finish starting within 1 s, its timeout" in text_of(silent)
            exits = await client.call_tool("exits__anything", {})
            assert exits.is_error and "server 'exits' is not running" in text_of(exits)

            # The flaky one comes back on a retry: its tools replace the placeholder. Each
            # tools/list_changed is a moment to look again; 60 s bounds a retry that never comes
            # (or one that came unannounced: the last look below tells the two apart).
            with anyio.move_on_after(60):
                while "flaky__rows" not in {t.name for t in (await client.list_tools()).tools}:
                    await announced[-1].wait()
                    announced.append(anyio.Event())
            names = {t.name for t in (await client.list_tools()).tools}
            assert "flaky__rows" in names and "flaky__unavailable" not in names
            assert changed, "no tools/list_changed when the retried server came back"
            back = await client.call_tool("flaky__rows", {"n": 2})
            assert not back.is_error and json.loads(text_of(back))["total_rows"] == 2

    anyio.run(main)


PAGING = [sys.executable, str(HERE / "paging_server.py")]


async def every_page(list_page: Any, field: str) -> tuple[list[Any], list[str]]:
    """Every item of a paged list, and the cursors the proxy handed out."""
    items: list[Any] = []
    cursors: list[str] = []
    cursor: str | None = None
    for _ in range(50):
        page = await list_page(cursor=cursor)
        got = getattr(page, field)
        assert len(got) <= 2, "one upstream page per proxy page"
        items += got
        cursor = page.next_cursor
        if cursor is None:
            break
        cursors.append(cursor)
    return items, cursors


def test_a_paginating_multi_server_config_lists_every_page_and_reads_from_the_owner(
    tmp_path: Path,
) -> None:
    """Found by integrating (issue 14, item 11): resources/list and prompts/list through a
    multi-server proxy returned only each server's first page, and resources/read of a uri
    went to the first server that answered, whichever server's data that was."""
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "north": {"command": PAGING[0], "args": [*PAGING[1:], "north", "5"]},
        "south": {"command": PAGING[0], "args": [*PAGING[1:], "south", "3"]},
    }}))

    async def main() -> None:
        async with Client(proxy(config), mode="legacy") as client:
            resources, cursors = await every_page(client.list_resources, "resources")
            assert [str(r.uri) for r in resources] == [
                *(f"north://item/{i}" for i in range(5)), "shared://both",
                *(f"south://item/{i}" for i in range(3)), "shared://both",
            ]
            assert cursors and all(c.startswith("elision1.") for c in cursors)
            prompts, _ = await every_page(client.list_prompts, "prompts")
            assert [p.name for p in prompts] == [
                *(f"north__north_prompt_{i}" for i in range(5)),
                *(f"south__south_prompt_{i}" for i in range(3)),
            ]
            got = await client.get_prompt("south__south_prompt_2", {})
            assert "south says south_prompt_2" in str(got.messages[0].content)
            templates, _ = await every_page(client.list_resource_templates,
                                            "resource_templates")
            assert [t.uri_template for t in templates] == ["north://note/{id}",
                                                           "south://note/{id}"]

            # A read goes to the server that listed the uri, or whose template fits it.
            for uri, owner in (("south://item/2", "south"), ("north://item/4", "north"),
                               ("south://note/7", "south")):
                read = await client.read_resource(uri)
                assert read.contents[0].text == f"{owner} {uri}"  # type: ignore[union-attr]
            # Listed by both: refused, naming them, rather than one server's data.
            with pytest.raises(Exception) as info:
                await client.read_resource("shared://both")
            assert "resource 'shared://both' is listed by several servers (north, south)" \
                in str(info.value)
            with pytest.raises(Exception) as info:
                await client.read_resource("elsewhere://x")
            assert "no server behind this proxy lists the resource 'elsewhere://x'" \
                in str(info.value)
            with pytest.raises(Exception) as info:
                await client.list_resources(cursor="made-up")
            assert "this cursor was not made by the elision proxy" in str(info.value)

    anyio.run(main)


def test_a_fresh_proxy_finds_the_owner_of_a_uri_or_template_never_listed(
    tmp_path: Path,
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "north": {"command": PAGING[0], "args": [*PAGING[1:], "north", "5"]},
        "south": {"command": PAGING[0], "args": [*PAGING[1:], "south", "5"]},
    }}))

    async def main() -> None:
        async with Client(proxy(config), mode="legacy") as client:
            # On its last page: found by walking every page of every server first.
            read = await client.read_resource("south://item/4")
            assert read.contents[0].text == "south south://item/4"  # type: ignore[union-attr]
            # A completion of a template's argument goes to the server that listed the template
            # (it went to the first server serving resources).
            done = await client.complete(types.ResourceTemplateReference(uri="south://note/{id}"),
                                         {"name": "id", "value": ""})
            assert done.completion.values == ["south-1", "south-2"]
            with pytest.raises(Exception, match=re.escape("lists the resource 'east://note/{id}'")):
                await client.complete(types.ResourceTemplateReference(uri="east://note/{id}"),
                                      {"name": "id", "value": ""})

    anyio.run(main)


def test_resources_of_a_server_that_was_down_at_startup_are_served_once_it_is_up(
    tmp_path: Path,
) -> None:
    """The proxy's capabilities are told once: with every server down at startup it still
    offers resources and prompts, so the retried server's can be listed when it is back."""
    flaky = tmp_path / "flaky.py"
    flaky.write_text(FLAKY.replace("sys.argv = [sys.argv[2]]", "sys.argv = sys.argv[2:]"))
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"late": {
        "command": sys.executable,
        "args": [str(flaky), str(tmp_path / "marker"), PAGING[1], "late", "1"]}}}))

    async def main() -> None:
        async with Client(proxy(config), mode="legacy") as client:
            assert (await client.list_resources()).resources == []
            deadline = time.monotonic() + 60
            names: set[str] = set()
            while time.monotonic() < deadline:
                names = {t.name for t in (await client.list_tools()).tools}
                if "late__unavailable" not in names:
                    break
                await anyio.sleep(0.5)
            assert "late__unavailable" not in names
            listed = await client.list_resources()
            assert [str(r.uri) for r in listed.resources] == ["late://item/0", "shared://both"]
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["late__late_prompt_0"]

    anyio.run(main)
