"""Cline CLI, driven through the fake model with the fixture server behind elision (its
~/.cline/data/settings/cline_mcp_settings.json installed by ``elision install cline``).

Cline hands the model the whole tool result as JSON (``_meta``, ``content``, ``isError``,
``structuredContent``) and keeps 8,000 chars of that, cutting the middle: the checks read the
text inside it (``received.handed_as_json``), and that JSON must parse."""

from __future__ import annotations

import pytest

from harness.harnesses import SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here for this harness)
from harness.suite import runs  # noqa: F401  (the fixture, named for ruff)


@pytest.fixture(scope="module")
def spec() -> Spec:
    return SPECS["cline"]
