"""The per-client budget table: which harness a clientInfo name is, and what overrides it."""

from __future__ import annotations

import pytest

from elision.errors import InputError
from elision.install.harnesses import HARNESSES
from elision.mcp.agent.clients import ClientBudgets, parse_overrides

LOWEST = min(h.budget for h in HARNESSES.values())


@pytest.mark.parametrize(("client", "harness"), [
    # the names each harness sent in the in-harness suite (docs/harnesses.md)
    ("claude-code", "claude-code"),
    ("Claude-Code", "claude-code"),  # case does not matter
    ("codex-mcp-client", "codex"),
    ("gemini-cli-mcp-client", "gemini-cli"),
    ("copilot-cli", "copilot-cli"),
    ("qwen-cli-mcp-client-fixture", "qwen-code"),  # Qwen Code adds the server's name
    # a Qwen Code server named after another harness: the longest match, Qwen Code's, wins
    ("qwen-cli-mcp-client-codex-tools", "qwen-code"),
    ("opencode", "opencode"),
    ("Visual Studio Code", "vscode"),
    ("some-new-harness", None),  # no table names it
    ("", None),
    (None, None),
])
def test_a_client_name_is_its_harness(client: str | None, harness: str | None) -> None:
    table = ClientBudgets()
    assert table.harness_of(client) == harness
    expected = HARNESSES[harness].budget if harness else LOWEST
    assert table.size_for(client) == expected


def test_overrides_by_harness_by_exact_name_and_for_the_unknown() -> None:
    table = ClientBudgets({"copilot-cli": 15000, "My-Client": 9000, "*": 12000})
    assert table.size_for("copilot-cli") == 15000
    assert table.size_for("my-client") == 9000
    assert table.size_for("unheard-of") == 12000
    assert table.size_for("claude-code") == HARNESSES["claude-code"].budget
    assert table.budget_for("claude-code") is table.budget_for("claude-code")  # reused


@pytest.mark.parametrize(("values", "said"), [
    (("claude-code",), "takes NAME=BYTES"),  # no =
    (("=4000",), "takes NAME=BYTES"),  # no name
    (("claude-code=lots",), "whole number of bytes"),
    (("claude-code=12",), "at least 512"),  # below the envelope's minimum
])
def test_a_bad_override_says_what_to_give(values: tuple[str, ...], said: str) -> None:
    with pytest.raises(InputError, match=said):
        parse_overrides(values, "--client-budget")
