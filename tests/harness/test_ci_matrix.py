"""What CI runs of the in-harness suite: one tool call (the ~340 KB JSON report) and its
``elision_fetch`` in every harness, all started at once, side by side (each run has its own
network namespace, so they share nothing but the CPU), and the checks marked ``harness``.

The whole matrix (the log, the credentials), harness by harness, is
``pytest tests/harness -m harness_full``.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from harness.harnesses import LATEST, SPECS, Spec
from harness.suite import *  # noqa: F403  (the shared checks, collected here)
from harness.suite import drive, runs  # noqa: F401  (runs: the fixture, named for ruff)

CI = True
CI_MATRIX = True
TOOL = "trade_report"
#: harnesses whose checks fail today for a reason named in their own file
KNOWN: dict[str, str] = {}

STARTED: dict[tuple[str, str], Future[dict[str, Any]]] = {}


@pytest.fixture(scope="module", autouse=True)
def start_every_harness(loopback_only: None, tmp_path_factory: pytest.TempPathFactory,
                        request: pytest.FixtureRequest) -> Iterator[None]:
    if LATEST or "harness_full" in (request.config.option.markexpr or ""):
        yield
        return
    with ThreadPoolExecutor(max_workers=len(SPECS)) as pool:
        for key, spec in SPECS.items():
            if spec.executable().exists():
                STARTED[(key, TOOL)] = pool.submit(
                    drive, spec, TOOL, tmp_path_factory.mktemp(f"ci-{key}"))
        yield
    STARTED.clear()


@pytest.fixture(scope="module", params=[
    pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=KNOWN[key]))
    if key in KNOWN else key for key in SPECS])
def spec(request: pytest.FixtureRequest) -> Spec:
    return SPECS[request.param]
