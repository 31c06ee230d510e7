"""End to end: a config server that never starts leaves nothing behind, however the proxy ends.

Found by the full test suite (issue 23): every run left one ``time.sleep(600)`` behind with
parent PID 1, the "silent" server of a config whose start is retried. A start in flight held
the proxy's exit for the rest of the server's ``timeout``, the MCP SDK's client (the host)
killed the slow proxy with SIGKILL, and nothing was left to stop the server. Here the silent
server carries a marker of its own in its command line; each case stops the proxy at one
moment of the server's life and looks for that marker among all processes.
"""

from __future__ import annotations

import json
import signal
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest

from support.orphans import kill_all, marked
from support.rawrpc import RawStdio, initialize

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
#: The silent server's start timeout: retried 1 s after it fails, then 2 s after that. Long
#: enough that a retry's start is still in flight when the proxy is stopped on seeing it
#: (3 s before: each "retry pending" case waited out two starts of it, 16 s in all).
TIMEOUT = 2
#: How long a killed proxy's servers may outlive it: the warden's SIGTERM, then SIGKILL.
KILLED_WITHIN = 30.0


def config(tmp_path: Path, marker: str, timeout: float = TIMEOUT) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {
        "good": {"command": UPSTREAM[0], "args": UPSTREAM[1:]},
        "silent": {"command": sys.executable,
                   "args": ["-c", f"import time; time.sleep(303)  # {marker}"],
                   "timeout": timeout},
    }}))
    return path


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never saw {what} in {timeout:g} s"
        time.sleep(0.05)  # another process's life: nothing to wait on but /proc


def gone_within(marker: str, within: float) -> list[int]:
    """The marked processes still running ``within`` seconds from now (at once for 0)."""
    deadline = time.monotonic() + within
    while (left := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def stop(proxy: RawStdio, how: str) -> None:
    if how == "eof":
        proxy.close(timeout=60)
        return
    proxy.proc.send_signal({"sigterm": signal.SIGTERM, "sigint": signal.SIGINT,
                            "sigkill": signal.SIGKILL}[how])
    proxy.close(timeout=60)


def case(tmp_path: Path, moment: str, how: str) -> None:
    marker = f"elision-orphan-test-{uuid.uuid4().hex}"
    # A start in flight at the handshake: a long timeout keeps the first start going.
    timeout = 60 if moment == "first start" else TIMEOUT
    proxy = RawStdio([*ELISION, "proxy", "--no-store", "--no-audit",
                      "--config", str(config(tmp_path, marker, timeout))])
    try:
        if moment == "first start":
            # The proxy starts its servers before it answers the handshake.
            proxy.send(json.dumps(initialize()).encode())
            wait_for(lambda: bool(marked(marker)), "the silent server start")
        else:
            # Answered once the first start failed, at its timeout.
            proxy.handshake(timeout=120)
            first = set(marked(marker))  # the failed start's server, being stopped
            # Its retry, 1 s later: its start is in flight while its process runs.
            wait_for(lambda: bool(set(marked(marker)) - first), "the retry start")
            if moment == "retry pending":
                wait_for(lambda: not marked(marker), "the retry's end")
        started = time.monotonic()
        stop(proxy, how)
        took = time.monotonic() - started
        left = gone_within(marker, KILLED_WITHIN if how == "sigkill" else 0.0)
        assert not left, f"{moment}, {how}: still running after the proxy exited: {left}"
        if how != "sigkill":
            # A start in flight is ended, not waited for: stopping its server takes the
            # reaper's first grace (end of input, which sleep ignores), then SIGTERM.
            assert took < 15, f"{moment}, {how}: the proxy took {took:.1f} s to exit"
    finally:
        if proxy.proc.poll() is None:
            proxy.proc.kill()
        kill_all(marker)


#: When the proxy is stopped, and how. The first start is over before stdin is read, so no
#: end of input then; SIGTERM and SIGINT take one path, so each moment has one of them.
STOPS = [
    ("first start", "sigterm"), ("first start", "sigkill"),
    ("retry start", "eof"), ("retry start", "sigint"), ("retry start", "sigkill"),
    ("retry pending", "eof"), ("retry pending", "sigkill"),
]
CASES = {f"{moment}-{how}": partial(case, moment=moment, how=how) for moment, how in STOPS}


#: The moments, most starts waited out first, so the short cases fill in beside the long.
SLOWEST = ("retry pending", "retry start", "first start")
LONGEST_FIRST = sorted(CASES, key=lambda name: SLOWEST.index(name.rsplit("-", 1)[0]))


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, BaseException | None]:
    """The cases four at a time, longest first (each waits out a start's timeout, the retry
    pending ones two), each in a folder of its own; a case that failed holds its exception,
    raised by its own test. Three at a time in the order written held a worker 31 s."""
    with ThreadPoolExecutor(4) as pool:
        futures = {name: pool.submit(CASES[name], tmp_path_factory.mktemp("orphans"))
                   for name in LONGEST_FIRST}
    return {name: future.exception() for name, future in futures.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_no_server_outlives_the_proxy_at_any_moment_of_its_start(
    outcomes: dict[str, BaseException | None], name: str
) -> None:
    failure = outcomes[name]
    if failure is not None:
        raise failure
