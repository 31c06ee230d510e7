"""Continue CLI, driven through the fake model with the fixture server behind elision (its
~/.continue/config.yaml installed by ``elision install continue``).

Continue hands the model ``JSON.stringify(result.content)``, the content blocks as JSON: the
checks read the text inside them (``received.handed_as_json``)."""

from __future__ import annotations

import pytest

from harness.harnesses import SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here for this harness)
from harness.suite import runs  # noqa: F401  (the fixture, named for ruff)


@pytest.fixture(scope="module")
def spec() -> Spec:
    return SPECS["continue"]
