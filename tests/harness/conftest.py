"""The in-harness suite's gates: the harnesses installed (``npm install --prefix tests/harness``), a
loopback-only network namespace (``unshare -n``, as root), and which matrix runs.

With ELISION_HARNESS_LATEST=1 each harness also runs at its npm @latest (installed into
tests/harness/latest), the checks judge that one, and the run ends with what changed in what the
model receives between the pinned version and @latest.

By default (CI) each harness makes one tool call, the ~200 KB JSON report, and its fetch; the
full matrix (the log and the credentials too) is ``pytest tests/harness -m harness_full``.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest

from harness.harnesses import BIN


@functools.cache
def namespace_problem() -> str | None:
    """Why a loopback-only network namespace cannot be made here, or None."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is not installed (util-linux, iproute2)"
    done = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"],
                          capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        return f"unshare -n fails here (needs root or user namespaces): {done.stderr.strip()}"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """By default only test_ci_matrix.py's checks marked ``harness`` run (and the hook test);
    with ``-m harness_full`` the per-harness files run instead, every check."""
    full = "harness_full" in (config.option.markexpr or "")
    for item in items:
        if not item.get_closest_marker("harness_full"):
            continue
        ci = bool(item.get_closest_marker("harness")) and getattr(item.module, "CI", False)
        if full and getattr(item.module, "CI_MATRIX", False):
            item.add_marker(pytest.mark.skip(reason="the full matrix runs this per harness"))
        elif not full and not ci:
            item.add_marker(pytest.mark.skip(
                reason="the full in-harness matrix: pytest tests/harness -m harness_full"))


def pytest_sessionstart(session: pytest.Session) -> None:
    from harness.suite import CHANGES

    if not hasattr(session.config, "workerinput"):  # the controller, or a run without xdist
        CHANGES.unlink(missing_ok=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from harness.suite import CHANGES

    if CHANGES.is_file():
        terminalreporter.section("what changed in what the model receives (pinned -> @latest)")
        for line in CHANGES.read_text("utf-8").splitlines():
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def loopback_only() -> None:
    problem = namespace_problem()
    if problem:
        pytest.skip(f"the in-harness suite runs offline in a network namespace: {problem}")
    if not BIN.is_dir():
        pytest.skip("the harnesses are not installed: npm install --prefix tests/harness")
