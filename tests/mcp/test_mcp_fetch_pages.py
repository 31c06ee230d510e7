"""elision_fetch pages are bounded: one page is one message.

Found in issue 14: ``elision_fetch(budget=3000000)`` sent a 3 MB page as one SSE event, which
ends a legacy HTTP session (the Python client caps an event at 1 MiB).
"""

from __future__ import annotations

import json

import mcp_types as types
import pytest

from elision.budget import Budget
from elision.envelope import META_KEY
from elision.mcp.gate.tools import MAX_PAGE, fetch_tool, run_fetch
from elision.shape import shape
from elision.store import MemoryStore

ROWS = {"rows": [{"id": i, "note": "x" * 200} for i in range(15_000)]}  # ~3.4 MB


def kept(store: MemoryStore) -> str:
    ref = shape(ROWS, 1024, store=store, scope="a").ref
    assert ref is not None
    return ref


def sizes(result: types.CallToolResult) -> int:
    return sum(len(b.text.encode()) for b in result.content if isinstance(b, types.TextContent))


@pytest.mark.parametrize(
    ("asked", "proxy"),
    [
        (3_000_000, 8192),  # the call asks for 3 MB
        (None, 4_000_000),  # the proxy's own budget is over the maximum
    ],
)
def test_a_page_over_the_maximum_is_clamped_and_says_so(asked: int | None, proxy: int) -> None:
    store = MemoryStore()
    arguments: dict[str, object] = {"ref": kept(store), "path": "$.rows"}
    if asked is not None:
        arguments["budget"] = asked
    page = run_fetch(store, arguments, budget=Budget(proxy), scope="a")
    assert not page.is_error
    assert sizes(page) <= MAX_PAGE["bytes"]
    body, note = page.content
    assert isinstance(note, types.TextContent) and "page maximum of 131,072 bytes" in note.text
    assert len(json.loads(body.text)["value"]) > 100  # type: ignore[union-attr]
    assert page.meta is not None and note.text in page.meta[META_KEY]["notes"]


def test_a_page_within_the_maximum_has_no_note() -> None:
    store = MemoryStore()
    page = run_fetch(store, {"ref": kept(store), "path": "$.rows", "budget": 65536},
                     budget=Budget(8192), scope="a")
    assert len(page.content) == 1 and sizes(page) <= 65536


def test_the_tool_says_what_its_maximum_is() -> None:
    tool = fetch_tool()
    assert "131,072" in (tool.description or "")
    assert "131,072" in tool.input_schema["properties"]["budget"]["description"]


def test_a_part_larger_than_the_page_maximum_says_where_it_can_be_read() -> None:
    """Issue 22: a 1 MB key at --budget 4096 is delivered with a ref and a next, but no page of
    the proxy (at most 128 KiB) can show it: the refusal says so instead of naming a budget
    the proxy would clamp again."""
    store = MemoryStore()
    first = shape({"k" * 1_000_000: 1}, Budget(4096), store=store, scope="a", redactor=None)
    assert first.ref is not None and first.envelope is not None
    path = first.envelope["next"].split('path="', 1)[1].rstrip('")')
    page = run_fetch(store, {"ref": first.ref, "path": path, "budget": 10**9},
                     budget=Budget(4096), scope="a")
    assert page.is_error
    text = page.content[0].text  # type: ignore[union-attr]
    assert "over this proxy's page maximum of 131,072 bytes" in text
    assert "elision fetch --budget" in text and "k" * 200 not in text
