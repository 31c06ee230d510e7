"""elision.server: coverage(), response(), server-side shaping and the @shaped decorator.

The helpers exist so that a server keeps the lint's four rules by construction; the property
tests check exactly that, with the lint's own rule checks as the oracle.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer

from elision.envelope import ENVELOPE_KEY, META_KEY
from elision.errors import BudgetError, InputError
from elision.lint.judge import judge_tool
from elision.lint.rules import (
    is_caveat,
    rule1_order,
    rule2_bounded,
    rule3_declared,
)
from elision.lint.runner import response_of
from elision.server import coverage, response, shaped
from elision.server._shaping import bound_arrays, shape_value
from elision.shape.jsonparse import dumps_value, parse_json
from mcp import Client

# -- coverage() and response() -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # Everything shown: no cut, so no warning and no cursor.
        ({"shown": 3, "total": 3},
         {"shown": 3, "total": 3, "has_more": False, "warnings": []}),
        # A cut always gets a shown-of-total warning, thousands separated.
        ({"shown": 37, "total": 2000, "unit": "rows"},
         {"shown": 37, "total": 2000, "has_more": True,
          "warnings": ["37 of 2,000 rows shown"]}),
        # A cursor means more even without a total; an unknown total is null, never 0.
        ({"shown": 10, "total": None, "next_cursor": "p2"},
         {"shown": 10, "total": None, "has_more": True, "next_cursor": "p2",
          "warnings": ['10 of an unknown number of items shown; pass cursor "p2" for more']}),
        # Unknown total, nothing more: still said in words.
        ({"shown": 0, "total": None},
         {"shown": 0, "total": None, "has_more": False,
          "warnings": ["0 items shown; the total could not be determined"]}),
        # A range pair becomes from/to; the author's warnings follow the generated one.
        ({"shown": 1, "total": 2, "range": ("2025-11-30", "2026-11-30"),
          "warnings": ["22405 older trades arrive as hourly rollups"], "scanned": 528},
         {"shown": 1, "total": 2, "has_more": True,
          "range": {"from": "2025-11-30", "to": "2026-11-30"},
          "warnings": ["1 of 2 items shown", "22405 older trades arrive as hourly rollups"],
          "scanned": 528}),
    ],
)
def test_coverage_table(kwargs: dict[str, Any], expected: dict[str, Any]) -> None:
    got = coverage(**kwargs)
    assert got == expected
    assert list(got) == list(expected)  # the order is the contract


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shown": 5, "total": 3}, "coverage shown (5) is more than total (3)"),
        ({"shown": -1, "total": 3}, "coverage shown must be a count (an int >= 0), got -1"),
        ({"shown": True, "total": 3}, "got True"),  # a bool is not a count
        ({"shown": 1, "total": 2.5}, "coverage total must be a count (an int >= 0), got 2.5"),
        ({"shown": 1, "total": 1, "warnings": "cut"}, "got a string 'cut'"),
        ({"shown": 1, "total": 1, "rows": []}, "coverage key 'rows' does not read as coverage"),
        ({"shown": 1, "total": 1, "range": (1, 2, 3)}, "got (1, 2, 3)"),
    ],
)
def test_coverage_refuses_bad_values(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        coverage(**kwargs)


@given(
    shown=st.integers(0, 10**6), extra=st.integers(0, 10**6), unknown=st.booleans(),
    cursor=st.none() | st.text(min_size=1, max_size=8),
)
def test_coverage_keys_read_as_coverage_and_a_cut_is_counted(
    shown: int, extra: int, unknown: bool, cursor: str | None
) -> None:
    total = None if unknown else shown + extra
    cover = coverage(shown=shown, total=total, next_cursor=cursor)
    assert all(is_caveat(key) for key in cover)
    assert cover["has_more"] == (cursor is not None or (total is not None and extra > 0))
    if cover["has_more"]:
        assert f"{shown:,} of " in cover["warnings"][0]
        if total is not None:
            assert f"of {total:,} " in cover["warnings"][0]


def test_response_puts_coverage_first_and_refuses_a_clash() -> None:
    doc = response(coverage(shown=1, total=9), rows=[1], note_to_self="x")
    assert list(doc)[:4] == ["shown", "total", "has_more", "warnings"]
    assert list(doc)[4:] == ["rows", "note_to_self"]
    with pytest.raises(InputError, match=re.escape("reuses coverage keys ['total']")):
        response(coverage(shown=1, total=9), total=3)


# -- shaping on the server ------------------------------------------------------------------------

records = st.fixed_dictionaries({"id": st.integers(0, 10**9), "name": st.text(max_size=24)})
members = {
    "rows": st.lists(records, max_size=200),
    "fills": st.lists(st.integers(), max_size=200),
    "total": st.integers(0, 10**6),
    "warnings": st.lists(st.sampled_from(["37 of 2,000 rows", "searched 5 of 9"]), max_size=3),
    "meta": st.fixed_dictionaries({"items": st.lists(st.integers(0, 99), max_size=60),
                                   "count": st.integers(0, 99)}),
    "title": st.text(max_size=40),
}
documents = st.permutations(sorted(members)).flatmap(
    lambda keys: st.fixed_dictionaries({k: members[k] for k in keys})
)


# Found by Hypothesis: at the smallest cap the limit's rows and the cut entries did not fit
# together, and shaping gave up instead of keeping fewer rows.
_SMALL_CAP_ROWS = [
    {"id": 0, "name": ""}, {"id": 0, "name": "00\x1f\x07"}, {"id": 100, "name": "\x07\u0800\u0800"},
    {"id": 100, "name": "00000\x1f\u0800"},
    {"id": 100, "name": "0000000000" + "\x1f" * 6 + "\U00010000"},
    {"id": 1000, "name": "0"}, {"id": 0, "name": ""},
]


@example(doc={"rows": _SMALL_CAP_ROWS, "meta": {"items": [], "count": 0}, "fills": [],
              "title": "", "total": 0, "warnings": []}, cap=512, limit=6)
@given(doc=documents, cap=st.integers(512, 6000), limit=st.none() | st.integers(0, 40))
def test_shaped_output_keeps_the_four_rules(
    doc: dict[str, Any], cap: int, limit: int | None
) -> None:
    out = shape_value(doc, cap, limit)
    body = out.text.encode()
    assert len(body) <= cap
    assert parse_json(body) == out.value
    resp = response_of(types.CallToolResult(content=[types.TextContent(text=out.text)]), "doc")
    assert resp.scan is not None
    resp.limit = limit
    assert rule1_order(resp)[0] == []
    assert rule3_declared(resp) == []
    if limit is not None:
        assert rule2_bounded(resp)[0] == []
    _, cuts = bound_arrays(doc, limit) if limit is not None else (doc, [])
    if out.envelope is None:
        assert not cuts
        assert set(out.value) == set(doc)
    else:
        # The envelope is first, binds the tool's own bytes, and keeps the original totals.
        assert out.text.startswith('{"' + ENVELOPE_KEY + '":')
        assert out.envelope["sha256"] == hashlib.sha256(dumps_value(doc)).hexdigest()
        assert out.envelope["bytes"] == {"shown": len(body), "total": len(dumps_value(doc))}
        totals = {e["path"]: e["total"] for e in out.envelope["elided"]}
        for cut in cuts:
            assert totals[cut["path"]] == cut["total"]


@pytest.mark.parametrize(
    ("doc", "limit", "cut_paths"),
    [
        # Both bulk arrays are bounded, not just the first.
        ({"rows": [1, 2, 3], "fills": [1, 2, 3]}, 2, ["$.rows", "$.fills"]),
        # A caveat's list (warnings) is coverage, never cut.
        ({"warnings": ["a", "b", "c"], "rows": [1, 2, 3]}, 1, ["$.rows"]),
        # Arrays inside records belong to the record: only the outer array is bulk.
        ({"rows": [{"tags": [1, 2, 3]}] * 3}, 1, ["$.rows"]),
        # Nested objects are searched for bulk arrays too.
        ({"meta": {"items": [1, 2]}}, 1, ["$.meta.items"]),
        # An array at its limit is not cut.
        ({"rows": [1, 2]}, 2, []),
        # A bare array root is bulk.
        ([1, 2, 3], 0, ["$"]),
    ],
)
def test_bound_arrays_table(doc: Any, limit: int, cut_paths: list[str]) -> None:
    _, cuts = bound_arrays(doc, limit)
    assert [c["path"] for c in cuts] == cut_paths
    assert all(c["shown"] == limit for c in cuts)


def test_a_response_that_fits_gets_caveats_first_and_no_envelope() -> None:
    out = shape_value({"rows": [1, 2], "total": 2}, 8192)
    assert out.text == '{"total":2,"rows":[1,2]}'
    assert out.envelope is None


def test_a_cap_below_the_minimum_is_refused_at_decoration() -> None:
    with pytest.raises(BudgetError, match="at least 512 bytes, got 100"):
        shaped(cap=100)


# -- the decorator on a real MCPServer ----------------------------------------------------------


def _server() -> MCPServer:
    server = MCPServer("decorated")

    @server.tool()
    @shaped(cap=2048)
    def rows(limit: int = 1000) -> dict[str, Any]:
        """Carelessly written: caveats last and a second array the limit forgets."""
        return {"rows": [{"id": i} for i in range(min(limit, 900))],
                "fills": list(range(400)), "total_rows": 900}

    @server.tool()
    @shaped(cap=1024)
    async def log(lines: int = 500) -> str:
        """A text answer: shaped as lines, header first."""
        return "".join(f"line {i}\n" for i in range(lines))

    return server


def test_decorated_tools_keep_their_schema_and_their_answers_pass_the_lint() -> None:
    async def main() -> None:
        async with Client(_server()) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["rows"].input_schema["properties"]["limit"]["default"] == 1000
            assert "lines" in listed["log"].input_schema["properties"]
            big = await client.call_tool("rows", {})
            one = await client.call_tool("rows", {"limit": 1})
            text = await client.call_tool("log", {})
        env = big.meta[META_KEY] if big.meta else None
        assert env is not None and env["complete"] is False
        assert len(big.content[0].text.encode()) <= 2048  # type: ignore[union-attr]
        assert one.structured_content is not None
        assert list(one.structured_content)[:2] == [ENVELOPE_KEY, "total_rows"]
        assert [(e["path"], e["shown"], e["total"])
                for e in one.structured_content[ENVELOPE_KEY]["elided"]] == [("$.fills", 1, 400)]
        log_text = text.content[0].text  # type: ignore[union-attr]
        assert log_text.startswith("[elision] partial: lines 1-")
        assert len(log_text.encode()) <= 1024
        limited = response_of(one, "limit=1")
        limited.limit = 1
        report = judge_tool("rows", listed["rows"].input_schema, listed["rows"].output_schema,
                            [response_of(big, "scenario 'all'")], [limited])
        assert [v.status for v in report.verdicts] == ["pass"] * 4, report.verdicts

    anyio.run(main)
