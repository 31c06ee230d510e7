"""GitHub Copilot CLI, driven through the fake model with the fixture server behind elision (no
``elision install copilot`` yet: its ~/.copilot/mcp-config.json names the proxy directly)."""

from __future__ import annotations

import pytest

from harness.harnesses import SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here for this harness)
from harness.suite import runs  # noqa: F401  (the fixture, named for ruff)

# Found by this suite: Copilot CLI 1.0.102 (rmcp) opens with a 2026-07-28 request and then
# sends `initialize` on the same connection, which the proxy refused (-32022), so no fixture
# tool was offered. It no longer reproduces on the merged proxy (the CI matrix's Copilot
# checks passed as XPASS), so these run as plain checks again.


@pytest.fixture(scope="module")
def spec() -> Spec:
    return SPECS["copilot"]
