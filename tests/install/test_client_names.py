"""The ``clientInfo`` names the harnesses sent in the in-harness suite (docs/harnesses.md,
"What each harness calls itself"), each given to its own harness by the table of per-client
budgets. Runs everywhere: the suite itself needs npm and a network namespace.

Continue CLI 1.5.47 calls itself ``continue-cli-client``, not the IDE extension's
``continue-client``: the table missed it (seen by the suite's witness), and the proxy sized its
results for an unknown client.
"""

from __future__ import annotations

import pytest

from elision.mcp.agent.clients import ClientBudgets


@pytest.mark.parametrize(("name", "harness"), [
    ("claude-code", "claude-code"),
    ("codex-mcp-client", "codex"),
    ("gemini-cli-mcp-client", "gemini-cli"),
    ("opencode", "opencode"),
    ("copilot-cli", "copilot-cli"),
    # the server's name is part of it; the longest match wins over "claude-code" in it
    ("qwen-cli-mcp-client-claude-code", "qwen-code"),
    # Cline CLI 3.0.65 names its core package
    ("@cline/core", "cline"),
    ("continue-cli-client", "continue"),
    # the IDE extension's, from its source
    ("continue-client", "continue"),
])
def test_each_name_seen_is_its_own_harness(name: str, harness: str) -> None:
    assert ClientBudgets().harness_of(name) == harness
