"""A result is within its budget as a whole: many blocks, and a structured echo of the text.

Found by trying elision behind MCPServer tools (issue 14): a tool returning a list sends one
text block per item, and 600 blocks came back as 600 shaped blocks (281 KB at 8 KB); a text
wrapped as ``{"result": text}`` came back with structuredContent over the budget.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.mcp.gate.results import ResultShaper
from elision.mcp.gate.tools import run_fetch
from elision.pipeline import Pipeline
from elision.redact import RedactStage
from elision.store import MemoryStore

ISSUES = [{"id": i, "title": f"issue {i}", "body": "steps to reproduce " * 20,
           "labels": ["bug", "p2"]} for i in range(600)]
SECRET = "https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123456789&X-Amz-Credential=AK"


def shaper(limit: int, *, redact: bool = False) -> tuple[ResultShaper, MemoryStore]:
    store = MemoryStore()
    redactor = RedactStage(store=store) if redact else None
    return ResultShaper(Pipeline(budget=Budget(limit), store=store, redactor=redactor)), store


def listing(items: list[Any]) -> types.CallToolResult:
    """What MCPServer sends for a tool that returns a list: a text block per item, and the
    list wrapped in structuredContent."""
    blocks = [types.TextContent(text=json.dumps(item, indent=2) if not isinstance(item, str)
                                else item) for item in items]
    return types.CallToolResult(content=blocks, structured_content={"result": items})


def wire_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def shown_size(result: types.CallToolResult) -> int:
    return sum(len(b.text.encode()) for b in result.content if isinstance(b, types.TextContent))


def test_six_hundred_blocks_are_one_array_within_the_budget() -> None:
    rs, store = shaper(8192)
    original = listing(ISSUES)
    out = rs.shape(original, scope="a")
    assert shown_size(out) <= 8192
    notice, *kept = out.content
    assert isinstance(notice, types.TextContent)
    assert notice.text.startswith("[elision] partial: content blocks 1-")
    assert "of 600 shown" in notice.text
    # Whole blocks, in order, from the first.
    assert 3 <= len(kept) < 600
    assert kept == original.content[: len(kept)]
    env = out.meta[META_KEY]  # type: ignore[index]
    array = next(p for p in env["parts"] if p["at"] == "content") if "parts" in env else env
    assert {"path": "$.content", "kind": "array", "shown": len(kept), "total": 600} in (
        array["elided"])
    assert array["next"] in notice.text
    # structuredContent says the same: the same whole items, within the budget too.
    structured = out.structured_content
    assert structured is not None and wire_size(structured) <= 8192
    assert structured["result"] == ISSUES[: len(structured["result"])]
    assert 1 <= len(structured["result"]) <= len(kept)
    assert structured[ENVELOPE_KEY]["elided"][0]["path"] == "$.structuredContent.result"
    # The rest is fetchable, from the first block not shown.
    page = run_fetch(store, {"ref": array["ref"], "path": f"$.content[{len(kept)}:]"},
                     budget=Budget(8192), scope="a")
    assert not page.is_error
    first = json.loads(page.content[0].text)["value"][0]  # type: ignore[union-attr]
    assert json.loads(first["text"]) == ISSUES[len(kept)]


def test_few_blocks_over_budget_still_share_it() -> None:
    # Three big blocks: each gets a share, as before; the sum is in budget.
    rs, _ = shaper(4096)
    blocks = [types.TextContent(text=f"{n}\n" * 3000) for n in range(3)]
    out = rs.shape(types.CallToolResult(content=blocks))
    assert len(out.content) == 3 and shown_size(out) <= 4096


def test_a_credential_in_a_kept_block_is_still_withheld() -> None:
    rs, _ = shaper(2048, redact=True)
    out = rs.shape(listing([f"see {SECRET}"] + [f"item {i}" for i in range(500)]), scope="a")
    assert SECRET not in out.model_dump_json()
    assert shown_size(out) <= 2048


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 3000), min_size=2, max_size=200),
       limit=st.integers(512, 9000))
def test_any_listing_fits_its_budget(sizes: list[int], limit: int) -> None:
    items = ["x" * n for n in sizes]
    rs, _ = shaper(limit)
    out = rs.shape(listing(items))
    assert shown_size(out) <= max(limit, 512 * 2)
    if out.structured_content is not None and out.structured_content != {"result": items}:
        assert wire_size(out.structured_content) <= limit


WRAPPERS = [
    '"quoted"\n' * 2000,  # each line grows by its escapes in JSON
    "tab\there\\back\n" * 1000,
    "plain line\n" * 1000,
]


@settings(max_examples=30, deadline=None)
@given(text=st.sampled_from(WRAPPERS) | st.text(min_size=1, max_size=12000),
       key=st.sampled_from(["result", "content"]), limit=st.integers(512, 9000))
def test_a_wrapped_text_and_its_structured_content_both_fit(
    text: str, key: str, limit: int
) -> None:
    rs, _ = shaper(limit)
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=text)],
                                        structured_content={key: text}))
    assert shown_size(out) <= limit
    assert wire_size(out.structured_content) <= limit


def test_a_fitting_text_whose_wrapper_does_not_fit_is_shaped() -> None:
    # 8,142 bytes of text, but its JSON string is bigger: the structuredContent went over.
    text = ('"a" \\ b\n' * 1018)[:8142]
    rs, _ = shaper(8192)
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=text)],
                                        structured_content={"content": text}))
    assert wire_size(out.structured_content) <= 8192
    assert out.structured_content == {"content": out.content[0].text}  # type: ignore[union-attr]
