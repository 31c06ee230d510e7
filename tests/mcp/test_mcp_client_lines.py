"""A client's line cap, in the table, the overrides and every text the proxy hands it.

OpenCode keeps a text's first 2,000 lines, Qwen Code 1,000 (issue 24, measured with the
harnesses), so their budgets were pushed down to 16,000 and 8,192 bytes, and a result of
4-byte lines was still cut again inside OpenCode. The proxy now knows the line cap too.
"""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.budget import MINIMUM_LINES, Budget, line_count
from elision.errors import InputError
from elision.install.harnesses import HARNESSES
from elision.mcp.agent.clients import ClientBudgets, ClientLimit, parse_overrides
from elision.mcp.gate.blocks import result_lines
from elision.mcp.gate.results import ResultShaper
from elision.mcp.gate.tools import run_fetch
from elision.mcp.launch import build_proxy
from elision.pipeline import Pipeline
from elision.store import MemoryStore


def test_the_table_knows_the_harnesses_that_cut_lines() -> None:
    assert HARNESSES["opencode"].lines == 2_000 and HARNESSES["qwen-code"].lines == 1_000
    # the bytes sit just under each byte cut (51,200 bytes; 25,000 chars), a margin as
    # Copilot CLI's 19,000 under 20,312
    assert 45_000 <= HARNESSES["opencode"].budget < 51_200
    assert 22_000 <= HARNESSES["qwen-code"].budget < 25_000
    assert HARNESSES["claude-code"].lines is None


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        ("opencode", ClientLimit(HARNESSES["opencode"].budget, 2_000)),
        ("qwen-cli-mcp-client-fixture", ClientLimit(HARNESSES["qwen-code"].budget, 1_000)),
        ("claude-code", ClientLimit(HARNESSES["claude-code"].budget, None)),
        # no table names it: the lowest known cut, in bytes and in lines
        ("some-new-harness", ClientLimit(min(h.budget for h in HARNESSES.values()), 1_000)),
    ],
)
def test_a_client_gets_its_harness_line_cap(client: str, expected: ClientLimit) -> None:
    table = ClientBudgets()
    assert table.limit_for(client) == expected
    budget = table.budget_for(client)
    assert (budget.limit, budget.lines) == (expected.bytes, expected.lines)


@pytest.mark.parametrize(
    ("given_", "client", "expected"),
    [
        # bytes alone: the harness still cuts lines, so its cap stays
        (("opencode=40000",), "opencode", ClientLimit(40_000, 2_000)),
        (("opencode=40000,1500",), "opencode", ClientLimit(40_000, 1_500)),
        # "none": a harness that cuts by size only (a newer version, say)
        (("opencode=40000,none",), "opencode", ClientLimit(40_000, None)),
        (("claude-code=20000,300",), "claude-code", ClientLimit(20_000, 300)),
        (("*=9000,50",), "unheard-of", ClientLimit(9_000, 50)),
        (("My-Client=9000,100",), "my-client", ClientLimit(9_000, 100)),
    ],
)
def test_a_line_cap_override(given_: tuple[str, ...], client: str, expected: ClientLimit) -> None:
    table = ClientBudgets(parse_overrides(given_, "--client-budget"))
    assert table.limit_for(client) == expected


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (("opencode=48000,lots",), "most lines the client keeps"),
        (("opencode=48000,3",), f"at least {MINIMUM_LINES} lines"),
        (("opencode=48000,",), "most lines the client keeps"),
        (("opencode=,2000",), "whole number of bytes"),
    ],
)
def test_a_bad_line_cap_says_what_to_give(values: tuple[str, ...], said: str) -> None:
    with pytest.raises(InputError, match=said):
        parse_overrides(values, "--client-budget")


def test_the_config_gives_a_line_cap_as_an_object(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {"s": {"command": "true"}},
                "clientBudgets": {"opencode": {"bytes": 30000, "lines": 900}, "claude-code": 20000},
            }
        )
    )
    proxy = build_proxy(config_path=str(config), no_store=True, stages=_no_stages())
    assert proxy.client_budgets is not None
    assert proxy.client_budgets.limit_for("opencode") == ClientLimit(30_000, 900)
    assert proxy.client_budgets.limit_for("claude-code") == ClientLimit(20_000, None)
    config.write_text(
        json.dumps(
            {
                "mcpServers": {"s": {"command": "true"}},
                "clientBudgets": {"opencode": {"lines": 900}},
            }
        )
    )
    with pytest.raises(InputError, match=r"clientBudgets\.opencode must be a whole number"):
        build_proxy(config_path=str(config), no_store=True, stages=_no_stages())


def _no_stages():  # type: ignore[no-untyped-def]
    from elision.mcp.launch import Stages

    return Stages(redact=False, audit=False)


# -- every text the proxy hands a client with a line cap ----------------------------------


def shaper() -> tuple[ResultShaper, MemoryStore]:
    store = MemoryStore()
    return ResultShaper(Pipeline(budget=Budget(48_000), store=store, redactor=None)), store


def short_log(n: int) -> str:
    return "\n".join([*(f"ok {i}" for i in range(1, n)), "VERDICT: 3 failures"])


@given(
    blocks=st.lists(st.integers(0, 3_000), min_size=1, max_size=40),
    cap=st.integers(MINIMUM_LINES * 3, 2_500),
)
def test_every_result_as_a_harness_joins_it_is_within_the_cap(blocks: list[int], cap: int) -> None:
    """Blocks of many short lines, or many blocks of one: the whole result's lines, the blank
    line between two blocks counted, are within the cap."""
    rs, _ = shaper()
    result = types.CallToolResult(
        content=[types.TextContent(text=short_log(n) if n else "") for n in blocks]
    )
    out = rs.shape(result, budget=Budget(48_000, lines=cap))
    assert result_lines(out.content) <= cap
    assert sum(
        len(b.text.encode())
        for b in out.content  # type: ignore[union-attr]
    ) <= 48_000 + 64 * len(blocks)


def test_a_single_block_uses_the_cap_and_keeps_its_verdict() -> None:
    rs, _ = shaper()
    out = rs.shape(
        types.CallToolResult(content=[types.TextContent(text=short_log(3_001))]),
        budget=Budget(48_000, lines=2_000),
    )
    text = out.content[0].text  # type: ignore[union-attr]
    assert 1_990 <= line_count(text) <= 2_000
    assert text.startswith("[elision] partial") and text.endswith("VERDICT: 3 failures")


def test_fetch_pages_and_their_clamp_note_are_within_the_cap() -> None:
    rs, store = shaper()
    out = rs.shape(
        types.CallToolResult(content=[types.TextContent(text=short_log(9_000))]),
        budget=Budget(48_000, lines=1_000),
    )
    ref = out.meta["elision/shaping"]["ref"]  # type: ignore[index]
    client = Budget(23_000, lines=1_000)
    for arguments in (
        {"ref": ref, "lines": "400-8600"},
        {"ref": ref},
        # over the page maximum: a note block is added, and still within the cap
        {"ref": ref, "lines": "400-8600", "budget": 10_000_000},
    ):
        page = run_fetch(store, arguments, budget=client, scope=None)
        assert not page.is_error, page
        assert result_lines(page.content) <= 1_000, arguments
        assert line_count(page.content[0].text) > 900  # type: ignore[union-attr]


def test_an_upstream_error_of_many_lines_is_within_the_cap() -> None:
    rs, _ = shaper()
    error = types.CallToolResult(content=[types.TextContent(text=short_log(5_000))], is_error=True)
    out = rs.shape(error, budget=Budget(8_192, lines=MINIMUM_LINES))
    assert out.is_error and result_lines(out.content) <= MINIMUM_LINES


@pytest.mark.parametrize(
    ("budget", "client", "lines"),
    [
        # an error's or a tool's own budget takes the client's line cap
        (Budget(7_680), Budget(48_000, lines=2_000), 2_000),
        # a tighter cap of its own stays
        (Budget(7_680, lines=500), Budget(48_000, lines=2_000), 500),
        # a client that cuts by size only adds none
        (Budget(7_680), Budget(24_000), None),
    ],
)
def test_an_error_or_tool_budget_keeps_the_client_line_cap(
    budget: Budget, client: Budget, lines: int | None
) -> None:
    from elision.mcp.agent.clients import held_to_lines

    held = held_to_lines(budget, client)
    assert (held.limit, held.lines) == (budget.limit, lines)
