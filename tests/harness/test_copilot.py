"""GitHub Copilot CLI, driven through the fake model with the fixture server behind elision (no
``elision install copilot`` yet: its ~/.copilot/mcp-config.json names the proxy directly)."""

from __future__ import annotations

import pytest

from harness.harnesses import SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here for this harness)
from harness.suite import runs  # noqa: F401  (the fixture, named for ruff)

# Found by this suite: Copilot CLI 1.0.102 (rmcp) opens with a 2026-07-28 request and then
# sends `initialize` on the same connection; the proxy's SDK runner, already serving the
# 2026-07-28 protocol, refuses it (-32022), so no fixture tool is offered. The bare fixture
# server negotiates 2026-07-28 with Copilot and works. Strict: these pass once it is fixed.
pytestmark = pytest.mark.xfail(strict=True, reason=(
    "elision proxy refuses Copilot CLI 1.0.102's initialize after its 2026-07-28 opening "
    "(-32022: connection is serving the 2026-07-28 protocol)"))


@pytest.fixture(scope="module")
def spec() -> Spec:
    return SPECS["copilot"]
