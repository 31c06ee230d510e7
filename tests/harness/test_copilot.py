"""GitHub Copilot CLI, driven through the fake model with the fixture server behind elision (its
~/.copilot/mcp-config.json installed by ``elision install copilot-cli``)."""

from __future__ import annotations

import pytest

from harness.harnesses import SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here for this harness)
from harness.suite import runs  # noqa: F401  (the fixture, named for ruff)

# Found by this suite: Copilot CLI 1.0.102 (rmcp) opens with server/discover (2026-07-28) and,
# when no answer comes in 8-11 s, sends `initialize` on the same connection, which the proxy
# refuses (-32022), so no fixture tool is offered. Of nine runs here (load 7-15) one had every
# check pass; the checks xfail when Copilot's log holds the refusal (suite.KNOWN).


@pytest.fixture(scope="module")
def spec() -> Spec:
    return SPECS["copilot"]
