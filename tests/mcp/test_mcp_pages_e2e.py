"""End to end: paging through the proxy with the official client (issues 22 and 23).

One proxy in front of tests/mcp/pages_server.py, at `--budget 8192`:

- A JSON result whose one key is 16 KB left no room beside its envelope for `next`; the agent
  got "could not be shaped" with no ref, and the body was lost to it. Now it gets the envelope
  with a ref and a `next`, which elision_fetch follows (asked again at the budget a refusal
  names) to the key and its value.
- A map of 20,000 members keyed by id was walked one member per `next` page; a member range
  (`$.items['id358':]`) now holds as many members as fit.
- A tool's list of one long string (`structuredContent: {"result": [text]}`): the page after
  the first named the element, and showed fewer characters of it than the first result did.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
SERVER = [sys.executable, str(HERE / "pages_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
META = "elision/shaping"
BUDGET = 8192
_ARGS = re.compile(r'(ref|path|lines|bytes)="((?:[^"\\]|\\.)*)"')


def long_text(chars: int) -> str:
    """What pages_server.one_string returns: <0><1><2>… cut at ``chars``."""
    out, i = [], 0
    while sum(map(len, out)) < chars:
        out.append(f"<{i}>")
        i += 1
    return "".join(out)[:chars]


def _arguments(call: str) -> dict[str, Any]:
    return {name: json.loads(f'"{value}"') for name, value in _ARGS.findall(call)}


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def _walk(client: Client, first: types.CallToolResult, most: int) -> list[str]:
    """The texts of the first result and of every page its `next` leads to."""
    texts = [_text(first)]
    assert first.meta is not None
    call, budget = first.meta[META].get("next"), BUDGET
    while call:
        assert len(texts) <= most, f"more than {most} pages; now at {call}"
        page = await client.call_tool("elision_fetch", {**_arguments(call), "budget": budget})
        if page.is_error:
            asked = re.search(r"budget=(\d+)", _text(page))
            assert asked is not None and int(asked[1]) > budget, _text(page)
            budget = int(asked[1])
            continue
        assert len(_text(page).encode()) <= budget
        texts.append(_text(page))
        assert page.meta is not None
        following = page.meta[META].get("next")
        assert following != call, f"{call} names itself as its next page"
        call, budget = following, BUDGET
    return texts


def test_results_that_paged_badly_are_delivered_and_walked_in_whole_pages() -> None:
    async def main() -> None:
        command = [*ELISION, "proxy", "--budget", str(BUDGET), "--store", ":memory:", "--",
                   *SERVER]
        params = StdioServerParameters(command=command[0], args=command[1:],
                                       env=dict(os.environ))
        async with Client(params, mode="legacy") as client:
            # Issue 22: a key twice the budget is delivered with a ref and a next.
            first = await client.call_tool("big_key", {"size": 16_000})
            assert not first.is_error, _text(first)
            envelope = json.loads(_text(first))["__elision__"]
            assert envelope["ref"] and envelope["next"] and not envelope["complete"]
            texts = await _walk(client, first, most=5)
            assert any("k" * 16_000 in text and "the value" in text for text in texts)

            # Issue 23: 5,000 small members in pages of hundreds, every one of them seen.
            first = await client.call_tool("id_map", {"n": 5_000})
            texts = await _walk(client, first, most=30)
            seen: dict[str, Any] = {}
            for text in texts:
                doc = json.loads(text)
                page = doc.pop("__elision__")
                seen.update(doc if "page" in page else doc["items"])
            assert seen == {f"id{i}": i for i in range(5_000)}

            # Issue 23: each page of a long string in a list shows more of it, from where the
            # structured content's own envelope stopped.
            first = await client.call_tool("one_string", {"chars": 30_000})
            structured = first.structured_content
            assert structured is not None
            shown = structured["result"][0]
            call = structured["__elision__"]["next"]
            for _ in range(20):
                if not call:
                    break
                assert _arguments(call)["path"] == f"$.result[0][{len(shown)}:]", call
                page = await client.call_tool("elision_fetch", _arguments(call))
                doc = json.loads(_text(page))
                assert doc["value"], "a page that shows nothing new"
                shown += doc["value"]
                call = doc["__elision__"].get("next")
            assert shown == long_text(30_000)

    anyio.run(main)
