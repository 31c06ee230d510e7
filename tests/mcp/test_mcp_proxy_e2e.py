"""End to end: real upstream servers and a real proxy as subprocesses, the official mcp.Client.

Each test starts its processes once and checks several behaviours, because starting a Python
MCP process costs seconds on a busy CI machine. The upstream is the SDK's own ``MCPServer``
(upstream_sdk_server.py), on stdio and over HTTP: here the proxy's interop with the SDK's
servers is proven; the other files run its raw twin, upstream_server.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from support.ports import free_port, wait_for_port
from support.processes import started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_sdk_server.py")]
#: Its raw twin (the same bytes, test_mcp_raw_servers.py), where a test is not about interop.
RAW_UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
META = "elision/shaping"
BUDGET = 4096
#: beta's timeout in the several-servers test: what its hang costs.
HANG_TIMEOUT = 4
_NEXT_PATH = re.compile(r'path="((?:[^"\\]|\\.)*)"')


def upstream_rows(n: int) -> dict[str, Any]:
    return {
        "rows": [{"id": i, "name": f"item {i}", "price": i * 1.25, "tags": ["a", "b"]}
                 for i in range(n)],
        "warnings": [f"searched 528 of {n:,} rows"],
        "total_rows": n,
    }


def proxy_params(*args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    command = [*ELISION, "proxy", *args]
    return StdioServerParameters(
        command=command[0], args=command[1:], env={**os.environ, **(env or {})}
    )


def run(main: Callable[[], Awaitable[None]]) -> None:
    anyio.run(main)


def text_of(result: types.CallToolResult, index: int = 0) -> str:
    block = result.content[index]
    assert isinstance(block, types.TextContent), block
    return block.text


async def walk_rows(client: Client, envelope: dict[str, Any], shown: list[Any]) -> list[Any]:
    """Follow ``next`` with elision_fetch until the rows are complete; every page in budget."""
    rows = list(shown)
    next_call = envelope.get("next")
    pages = 0
    while next_call:
        path = _NEXT_PATH.search(next_call)
        assert path is not None, next_call
        if not path[1].startswith("$.rows["):
            break  # the rows are done; next goes on to the rest of the document
        assert path[1].endswith(":]"), next_call  # rows this small are shown whole
        page = await client.call_tool(
            "elision_fetch", {"ref": envelope["ref"], "path": json.loads(f'"{path[1]}"')}
        )
        assert not page.is_error, text_of(page)
        body = text_of(page)
        assert len(body.encode()) <= BUDGET
        doc = json.loads(body)
        rows.extend(doc["value"])
        assert doc["__elision__"]["sha256"] == envelope["sha256"]
        next_call = doc["__elision__"].get("next")
        pages += 1
        assert pages < 500, "the walk does not end"
    return rows


def test_stdio_proxy_shapes_every_kind_of_result_and_forwards_the_rest(tmp_path: Path) -> None:
    marker = tmp_path / "crash-now"
    logged: list[Any] = []
    notified: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.append(message.method)

    async def main() -> None:
        # The handshake era, where log messages and list-changed notifications flow freely
        # (the HTTP test below speaks the newest era).
        async with Client(
            proxy_params("--budget", str(BUDGET), "--store", ":memory:", "--timeout", "12",
                         "--", *UPSTREAM, env={"UPSTREAM_CRASH_FILE": str(marker)}),
            mode="legacy", logging_callback=on_log, message_handler=on_message,
        ) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "elision_fetch" in tools and "rows" in tools
            # The output schema still validates an unshaped result and now a shaped one.
            assert tools["rows"].output_schema is not None
            assert "anyOf" in tools["rows"].output_schema

            # JSON: within budget, caveats kept, envelope first, structured content agrees
            # (the official client validated it against the rewritten outputSchema).
            result = await client.call_tool("rows", {"n": 400})
            body = text_of(result)
            assert len(body.encode()) <= BUDGET
            doc = json.loads(body)
            assert next(iter(doc)) == "__elision__"
            env = doc["__elision__"]
            assert result.meta is not None and result.meta[META] == env
            assert doc["warnings"] == ["searched 528 of 400 rows"] and doc["total_rows"] == 400
            assert result.structured_content == doc
            assert env["elided"][0]["total"] == 400
            assert await walk_rows(client, env, doc["rows"]) == upstream_rows(400)["rows"]

            # The digest binds exactly the bytes the tool sent.
            sent = json.dumps(upstream_rows(600)).encode()
            as_text = json.loads(text_of(await client.call_tool("rows_text", {"n": 600})))
            assert as_text["__elision__"]["sha256"] == hashlib.sha256(sent).hexdigest()
            assert as_text["__elision__"]["bytes"]["total"] == len(sent)
            rows = await walk_rows(client, as_text["__elision__"], as_text["rows"])
            assert rows == upstream_rows(600)["rows"]

            # Text: whole lines head and tail, the verdict on the last line kept.
            log = text_of(await client.call_tool("log", {"lines": 3000}))
            assert log.startswith("[elision] partial:") and len(log.encode()) <= BUDGET
            assert log.rstrip("\n").endswith("FATAL: build failed with 3 errors")

            # One document in three pieces is shaped as one document.
            pieces = await client.call_tool("pieces", {})
            assert len(pieces.content) == 1
            assert json.loads(text_of(pieces))["total_rows"] == 300

            # A 70 KB single line and a 17 MB message both come back shaped.
            line = json.loads(text_of(await client.call_tool("one_line", {})))
            assert line["note"] == "end" and line["__elision__"]["complete"] is False
            huge = await client.call_tool("huge", {"megabytes": 17}, read_timeout_seconds=120)
            assert len(text_of(huge).encode()) <= BUDGET
            assert json.loads(text_of(huge))["__elision__"]["bytes"]["total"] > 16 * 2**20

            # An image over the media budget becomes a stub; its caption is kept.
            picture = await client.call_tool("picture", {"kilobytes": 400})
            assert [b.type for b in picture.content] == ["text", "text"]
            assert "image/png" in text_of(picture, 0) and "elision_fetch" in text_of(picture, 0)
            assert text_of(picture, 1) == "a caption"

            # An oversized error is shaped too and stays an error.
            failed = await client.call_tool("fail", {})
            assert failed.is_error and len(text_of(failed).encode()) <= BUDGET
            assert "[elision] partial" in text_of(failed) or "__elision__" in text_of(failed)

            # Forwarded: progress, resources, prompts.
            seen: list[float] = []

            async def on_progress(
                progress: float, total: float | None, message: str | None
            ) -> None:
                seen.append(progress)

            done = await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
            assert text_of(done) == "done" and seen == [1, 2, 3]
            resources = await client.list_resources()
            assert [str(r.uri) for r in resources.resources] == ["test://hello"]
            read = await client.read_resource("test://hello")
            assert read.contents[0].text == "hello from upstream"  # type: ignore[union-attr]
            prompt = await client.get_prompt("greet", {"name": "Ada"})
            assert "Ada" in str(prompt.messages[0].content)
            # A resource or a prompt reaches the model too: its credentials are withheld.
            note = (await client.read_resource("test://notes/q3")).contents[0]
            assert note.text.startswith("note q3: the report is at ")  # type: ignore[union-attr]
            handoff = str((await client.get_prompt("handoff", {})).messages[0].content)
            for shown in (note.text, handoff):  # type: ignore[union-attr]
                assert "withheld" in shown and "X-Amz-Signature" not in shown
                assert "AKIAIOSFODNN7EXAMPLE" not in shown
            assert text_of(await client.call_tool("shout", {"message": "disk 91% full"})) == "said"
            assert "disk 91% full" in logged
            assert text_of(await client.call_tool("grow", {})) == "grew"
            with anyio.fail_after(10):
                while "grown" not in {t.name for t in (await client.list_tools()).tools}:
                    await anyio.sleep(0.05)
            assert notified == ["notifications/tools/list_changed"]
            assert text_of(await client.call_tool("grown", {})) == "grown"

            # Another client's refs are not fetchable: a made-up ref is a clear error.
            missing = await client.call_tool("elision_fetch", {"ref": "el_nope", "path": "$"})
            assert missing.is_error and "el_nope" in text_of(missing)
            # Issue 22: a 200 KB ref was echoed whole in the error; now 64 chars and its size.
            huge = await client.call_tool("elision_fetch", {"ref": "el_" + "A" * 200_000,
                                                           "path": "$"})
            assert huge.is_error and len(text_of(huge)) < 1000, len(text_of(huge))
            assert "200,003 chars" in text_of(huge)
            # So is a model's made-up tool name (found in review: "unknown tool" quoted it whole).
            unknown = await client.call_tool("t" * 200_000, {})
            assert unknown.is_error and len(text_of(unknown)) < 2000, len(text_of(unknown))
            assert "200,000 chars" in text_of(unknown)

            # An upstream that crashes: an error result naming the server, and the next call
            # finds a restarted upstream (a hang is in the config test, with a short timeout).
            marker.touch()
            crashed = await client.call_tool("crash", {})
            assert crashed.is_error and "'upstream'" in text_of(crashed)
            again = await client.call_tool("crash", {})  # restarted; the marker is gone
            assert not again.is_error and text_of(again) == "still here"

    run(main)


def test_a_many_block_result_and_a_wrapped_text_fit_the_budget_through_the_proxy() -> None:
    """Issue 14: a list tool's 600 blocks came back as 600 shaped blocks (281 KB at 8 KB), a
    text wrapped as {"result": text} came back with structuredContent over the budget, and a
    3 MB resources/read went to the model whole."""

    def wire(value: Any) -> int:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())

    async def main() -> None:
        # About shaping, not interop: the raw twin saves an SDK import (~0.5 s of CPU).
        async with Client(proxy_params("--budget", str(BUDGET), "--store", ":memory:", "--",
                                       *RAW_UPSTREAM)) as client:
            result = await client.call_tool("issues", {"n": 600})
            assert not result.is_error
            shown = [b.text for b in result.content if isinstance(b, types.TextContent)]
            assert sum(len(t.encode()) for t in shown) <= BUDGET
            notice, *items = shown
            assert notice.startswith("[elision] partial: content blocks 1-")
            assert "of 600 shown" in notice
            assert [json.loads(t)["id"] for t in items] == list(range(len(items)))
            assert result.structured_content is not None
            assert wire(result.structured_content) <= BUDGET
            listed = result.structured_content["result"]
            assert [item["id"] for item in listed] == list(range(len(listed)))
            # The next call in the notice gives the first block not shown.
            env = result.meta[META]  # type: ignore[index]
            path = _NEXT_PATH.search(notice)
            assert path is not None
            page = await client.call_tool("elision_fetch", {"ref": env["ref"], "path": path[1]})
            first = json.loads(text_of(page))["value"][0]
            assert json.loads(first["text"])["id"] == len(items)

            # A 3 MB resource is bounded like a tool result (it went to the model whole).
            read = await client.read_resource("test://big/3000")
            (content,) = read.contents
            assert isinstance(content, types.TextResourceContents)
            assert content.text.startswith("[elision] partial:")
            assert len(content.text.encode()) <= BUDGET
            assert read.meta is not None and read.meta[META]["bytes"]["total"] > 3_000_000

            wrapped = await client.call_tool("quoted", {"lines": 2000})
            text = text_of(wrapped)
            assert text.startswith("[elision] partial:") and len(text.encode()) <= BUDGET
            assert wrapped.structured_content == {"result": text}
            assert wire(wrapped.structured_content) <= BUDGET

    run(main)


def test_streamable_http_in_both_directions() -> None:
    port = free_port()
    upstream = subprocess.Popen([*UPSTREAM, "--http", str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        with started(
            [*ELISION, "proxy", "--budget", str(BUDGET), "--store", ":memory:",
             "--upstream-url", f"http://127.0.0.1:{port}/mcp", "--listen", "127.0.0.1:0"],
        ) as proxy:
            url = proxy.url

            async def main() -> None:
                async with Client(url) as client:
                    result = await client.call_tool("rows", {"n": 600})
                    doc = json.loads(text_of(result))
                    assert len(text_of(result).encode()) <= BUDGET
                    env = doc["__elision__"]
                    assert result.structured_content == doc
                    rows = await walk_rows(client, env, doc["rows"])
                    assert rows == upstream_rows(600)["rows"]
                    # Over HTTP an upstream result is read past the SDK's 1 MiB SSE event cap.
                    big = await client.call_tool("huge", {"megabytes": 2})
                    assert json.loads(text_of(big))["__elision__"]["bytes"]["total"] > 2**21

                # Two HTTP sessions are two scopes: a ref handed to one is not the other's.
                async with Client(url, mode="legacy") as alice, Client(
                    url, mode="legacy"
                ) as bob:
                    mine = json.loads(text_of(await alice.call_tool("rows", {"n": 600})))
                    ref = mine["__elision__"]["ref"]
                    own = await alice.call_tool("elision_fetch", {"ref": ref, "path": "$.rows"})
                    assert not own.is_error
                    other = await bob.call_tool("elision_fetch", {"ref": ref, "path": "$.rows"})
                    assert other.is_error and ref in text_of(other)

            run(main)
    finally:
        upstream.terminate()
        upstream.wait(10)


def test_several_servers_get_namespaced_names_and_a_collision_stops_startup(
    tmp_path: Path,
) -> None:
    # About names, budgets and timeouts, not interop: the raw twins (byte for byte the SDK's
    # server, test_mcp_raw_servers.py) start in ~0.1 s of CPU, not ~1.4 s, so beta's start
    # fits a 4 s timeout and its hang costs 4 s, not 8 (this test held a worker 13.4 s).
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"budget": BUDGET, "mcpServers": {
        "alpha": {"command": RAW_UPSTREAM[0], "args": RAW_UPSTREAM[1:]},
        "beta": {"command": RAW_UPSTREAM[0], "args": RAW_UPSTREAM[1:],
                 "toolBudgets": {"rows": 1024}, "timeout": HANG_TIMEOUT},
    }}))
    # An upstream tool named like the proxy's own cannot be served: a clear startup error. That
    # proxy and its server start here, beside the other proxy, and are asked about at the end.
    collide = subprocess.Popen(
        [*ELISION, "proxy", "--store", ":memory:", "--", *RAW_UPSTREAM],
        env={**os.environ, "UPSTREAM_EXTRA_TOOL": "elision_fetch"}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )

    async def main() -> None:
        async with Client(proxy_params("--config", str(config), "--store", ":memory:")) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"alpha__rows", "beta__rows", "elision_fetch"} <= names
            alpha = await client.call_tool("alpha__rows", {"n": 1000})
            beta = await client.call_tool("beta__rows", {"n": 1000})
            assert 1024 < len(text_of(alpha).encode()) <= BUDGET
            assert len(text_of(beta).encode()) <= 1024  # the per-tool budget wins
            prompt = await client.get_prompt("beta__greet", {"name": "Lin"})
            assert "Lin" in str(prompt.messages[0].content)
            # A hang costs one server's timeout, names the server, and the server comes back.
            began = time.monotonic()
            hung = await client.call_tool("beta__hang", {})
            assert hung.is_error and "server 'beta' did not answer" in text_of(hung)
            assert HANG_TIMEOUT <= time.monotonic() - began < 15
            after = await client.call_tool("beta__rows", {"n": 5})
            assert not after.is_error and json.loads(text_of(after))["total_rows"] == 5

    try:
        run(main)
        _, stderr = collide.communicate(timeout=60)
    finally:
        if collide.poll() is None:
            collide.kill()
            collide.communicate()
    assert collide.returncode == 2  # bad input, as click reports bad usage
    assert "error: server 'upstream' has a tool named 'elision_fetch'" in stderr
