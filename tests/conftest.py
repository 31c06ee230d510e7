"""Shared test settings: Hypothesis profiles sized for a 2-core CI machine."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI draws the same examples on every run (derandomize), so a landing is judged on the code,
# not on which inputs one run happened to draw; the dev profile draws new ones each time, which
# is where new counterexamples are found (and then pinned as table cases).
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# Tests (and the proxy subprocesses they start, which inherit the environment) must never write
# the default store or audit log in the real user's data directory.
_DATA_HOME = tempfile.mkdtemp(prefix="elision-test-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
# The MCP SDK starts stdio servers with a trimmed environment that keeps HOME but drops
# XDG_DATA_HOME, so a proxy started that way falls back to ~/.local/share: HOME moves too.
os.environ["HOME"] = os.path.join(_DATA_HOME, "home")
os.makedirs(os.environ["HOME"])
# Compiled hyperscan databases are cached under the session HOME (elision._hyperscan).
for _name in ("ELISION_STORE", "ELISION_AUDIT", "ELISION_AUDIT_KEY", "ELISION_CACHE_DIR",
              "XDG_CACHE_HOME"):
    os.environ.pop(_name, None)
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)

# -- one cache of derived files for the whole run ---------------------------------------------
#
# What elision keeps between processes (hyperscan databases, the families table, keyword sets:
# elision._cache) is named by a digest of what it was derived from, so a process reading one
# another process kept behaves as if it had derived it. Each worker's HOME, and each fresh HOME
# a test gives the processes it starts (support.kept.share_cache), reaches the one folder the
# first process (the xdist controller) made: a database is compiled once a run, not once a
# worker and again in every process of a fresh HOME (a proxy of a harness test compiled up to
# 14, ~5 s of CPU). The tests of the cache itself point it elsewhere (support.kept.use_cache).
SHARED_CACHE_ENV = "ELISION_TEST_SHARED_CACHE"
if not os.path.isdir(os.environ.get(SHARED_CACHE_ENV, "")):
    os.environ[SHARED_CACHE_ENV] = os.path.join(_DATA_HOME, "cache")
    os.makedirs(os.environ[SHARED_CACHE_ENV], mode=0o700)
os.makedirs(os.path.join(os.environ["HOME"], ".cache"))
os.symlink(os.environ[SHARED_CACHE_ENV], os.path.join(os.environ["HOME"], ".cache", "elision"))


# -- bytecode for the processes tests start ---------------------------------------------------
#
# This machine (and CI, on it) sets PYTHONDONTWRITEBYTECODE=1, and elision is installed
# editable, so no process wrote src/elision's bytecode: every proxy, hook and CLI process a test
# starts compiled the modules it imports from source, ~0.2 s of CPU each (bench/start.py
# compiles first for the same reason). Compiled once here, before any test starts one;
# py_compile writes atomically, so the workers doing the same at once is safe, and an
# up-to-date file is only looked at.
import compileall  # noqa: E402

import elision  # noqa: E402

compileall.compile_dir(Path(elision.__file__).parent, quiet=1)


# -- no test leaves a process behind ---------------------------------------------------------
#
# Found by issue 23: every full run left one `time.sleep(600)` behind, with parent PID 1, and
# nothing said so. On Linux the test process is made a child subreaper, so whatever a test
# starts and orphans (a proxy's upstream, its children) is re-parented here instead of to
# init, where it can be seen; after each module, when its fixtures are gone, any live child is
# a leak: listed, killed, and an error of that module.

_PR_SET_CHILD_SUBREAPER = 36
#: How long a leftover gets to finish exiting (a killed proxy's warden: SIGTERM, 2 s, SIGKILL).
_LEFTOVER_GRACE = 5.0


def _become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_WATCHING = _become_subreaper()


def _live_children() -> dict[int, str]:
    """This process's children that still run (zombies excluded), with their command lines."""
    me = os.getpid()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rfind(")") + 2:].split()
            if int(fields[1]) != me or fields[0] == "Z":
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue  # it exited while being looked at
        found[int(entry.name)] = " ".join(a.decode("utf-8", "replace") for a in argv)[:300]
    return found


@pytest.fixture(autouse=True, scope="module")
def _no_process_left_behind() -> Iterator[None]:
    yield
    if not _WATCHING:
        return
    deadline = time.monotonic() + _LEFTOVER_GRACE
    while (left := _live_children()) and time.monotonic() < deadline:
        time.sleep(0.05)  # another process's exit: nothing to wait on but /proc
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if left:
        listed = "\n".join(f"  {pid}: {argv}" for pid, argv in left.items())
        pytest.fail(f"this module left {len(left)} process(es) running (now killed):\n{listed}")


# -- the order files are handed to workers ---------------------------------------------------
#
# Under ``--dist loadfile`` a worker takes the next whole file as it finishes one. xdist orders
# the files by their number of tests, most first, which hands the longest files out last: each
# is a few scenario tests (two replicas under load, the PostgreSQL state machine), and a run
# that ends on one of them leaves the other core idle for as long. The longest files go first
# instead, where the other worker fills the time beside them with the many short ones, and the
# short files close the run.

#: The files that took longest under loadfile, longest first, with each file's wall time (its
#: tests' setup, call and teardown summed, from --junitxml): the mean of two whole runs one
#: after the other, CI=true, ``-p xdist -n logical --dist loadfile`` on a 2-core machine near
#: idle (2026-12-04: 266 s and 269 s of pytest), then each run's figure. Earlier lists were
#: measured under load, where one file's time differed up to 3.9x between two runs; the list
#: is measured again, over more than one run, when files slow down or speed up. Only the order
#: of the run depends on this list: a file missing from it, or a stale one, costs time, never a
#: test.
LONGEST_FIRST = (
    "tests/store/test_store_stateful_postgres.py",  # 25 s (25, 25)
    "tests/mcp/test_replicas_postgres.py",  # 22 s (22, 22)
    "tests/redact/test_redact_lazy_document.py",  # 19 s (19, 20)
    "tests/harness/test_ci_matrix.py",  # 18 s (18, 18)
    "tests/mcp/test_mcp_proxy_e2e.py",  # 18 s (17, 18)
    "tests/mcp/test_mcp_client_budget_e2e.py",  # 16 s (14, 18)
    "tests/redact/test_redact_prefilter_differential.py",  # 15 s (15, 14)
    "tests/mcp/test_mcp_server_requests_e2e.py",  # 14 s (14, 14)
    "tests/install/test_install_e2e.py",  # 13 s (13, 13)
    "tests/mcp/test_mcp_raw_servers.py",  # 13 s (13, 13)
    "tests/mcp/test_mcp_upstream_orphans_e2e.py",  # 13 s (13, 13)
    "tests/mcp/test_mcp_upstream_reaped_e2e.py",  # 11 s (12, 11)
    "tests/mcp/test_mcp_notify_e2e.py",  # 10 s (10, 11)
    "tests/mcp/test_mcp_era_fallback_e2e.py",  # 10 s (10, 10)
    "tests/audit/test_audit_chain.py",  # 9 s (9, 9)
    "tests/view/test_view_browser.py",  # 8 s (9, 8)
    "tests/mcp/test_mcp_config_e2e.py",  # 8 s (8, 8)
    "tests/store/test_store_stateful.py",  # 8 s (8, 8)
    "tests/mcp/test_mcp_message_ceiling_e2e.py",  # 7 s (8, 5)
    "tests/mcp/test_mcp_roots_e2e.py",  # 7 s (7, 6)
    "tests/mcp/test_mcp_channels_e2e.py",  # 6 s (6, 6)
    "tests/audit/test_audit_postgres.py",  # 6 s (6, 6)
)


@pytest.hookimpl(optionalhook=True)  # xdist's: a run without it (no -p xdist) knows none
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """The README's ``-n logical`` starts one worker more than the cores this process may
    run on. Most of the end-to-end files wait on the processes they start (a server's start,
    a proxy's handshake, a harness), so with a worker a core one core sat idle beside them:
    two back-to-back whole runs of one tree on a 2-core machine near idle (CI=true), 382 s
    with two workers, 356 s with three, every test passing in both (2026-12-05). A number
    in PYTEST_XDIST_AUTO_NUM_WORKERS still decides, as xdist's own hook lets it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity here (macOS): every core
        cores = os.cpu_count() or 1
    return cores + 1


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # xdist is loaded: keep the order below
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files in the order workers should take them: LONGEST_FIRST, then the other files
    with end-to-end tests (real processes), then the rest, most tests first; each file's own
    tests keep their order."""
    counts: dict[str, int] = {}
    e2e: set[str] = set()
    for item in items:
        name = item.nodeid.partition("::")[0]
        counts[name] = counts.get(name, 0) + 1
        if item.get_closest_marker("e2e"):
            e2e.add(name)

    def rank(item: pytest.Item) -> tuple[int, int]:
        name = item.nodeid.partition("::")[0]
        if name in LONGEST_FIRST:
            return 0, LONGEST_FIRST.index(name)
        return (1 if name in e2e else 2), -counts[name]

    items.sort(key=rank)
