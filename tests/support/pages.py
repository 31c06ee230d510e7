"""Following an envelope's ``next`` through ``elision_fetch``, as an agent would."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import mcp_types as types

from mcp import Client

#: The ``_meta`` key the envelope of every shaped result and page goes into.
META = "elision/shaping"
_NEXT = re.compile(r'(ref|path|lines|bytes)="((?:[^"\\]|\\.)*)"')


def next_args(call: str) -> dict[str, str]:
    """The arguments of a ``next`` call (``elision_fetch(ref="…", path="…")``)."""
    return {k: json.loads(f'"{v}"') for k, v in _NEXT.findall(call)}


def text_of(result: types.CallToolResult, index: int = 0) -> str:
    block = result.content[index]
    assert isinstance(block, types.TextContent), block
    return block.text


async def walk(
    client: Client, first: dict[str, Any], budget: int,
    seen: Callable[[types.CallToolResult], Any] = lambda page: page,
) -> int:
    """Follow ``next`` from the envelope ``first`` to the end, handing each page to ``seen``;
    every page must be within ``budget`` bytes. Returns how many pages there were."""
    env, pages = first, 0
    while env.get("next"):
        page = await client.call_tool("elision_fetch", next_args(env["next"]))
        seen(page)
        assert not page.is_error, text_of(page)
        assert len(text_of(page).encode()) <= budget
        pages += 1
        assert pages < 400, "the walk does not end"
        env = (page.meta or {}).get(META) or {}
    return pages
