"""End to end: ``elision proxy -- COMMAND`` starts COMMAND before it imports the MCP SDK.

Issue 24: behind the proxy a server took 2.2-3.4 s to answer ``initialize`` where it took
0.9-1.5 s alone, since the server was started only once the proxy had imported the SDK, set
up its stages and read the agent's ``initialize``. Now the CLI starts it first
(elision.mcp.upstream.early) and the first session adopts that process. Each test's server
carries a marker in its command line and appends its pid to a file as it starts.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

import pytest

from support.orphans import kill_all, marked
from support.rawrpc import RawStdio

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
#: Writes its pid, then becomes the test upstream (the same process: exec).
COUNTED = (
    "import os, sys; open(sys.argv[1], 'a').write(f'{os.getpid()}\\n'); "
    "os.execv(sys.executable, [sys.executable, sys.argv[2]])"
)


def server(tmp_path: Path, marker: str) -> tuple[list[str], Path]:
    starts = tmp_path / "starts.txt"
    command = [sys.executable, "-c", f"{COUNTED}  # {marker}", str(starts),
               str(HERE / "upstream_server.py")]
    return command, starts


def started(starts: Path) -> list[int]:
    return [int(line) for line in starts.read_text().split()] if starts.exists() else []


def test_the_server_starts_before_the_agent_says_anything(tmp_path: Path) -> None:
    """Red before: the server was started only after the agent's first request was read."""
    marker = f"elision-early-{uuid.uuid4().hex}"
    command, starts = server(tmp_path, marker)
    proxy = RawStdio([*ELISION, "proxy", "--no-store", "--no-audit", "--", *command])
    try:
        deadline = time.monotonic() + 60
        while not started(starts) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started(starts), "the server was not started before the agent's initialize"
        proxy.handshake(timeout=60)
        proxy.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        proxy.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "rows_text", "arguments": {"n": 3}}})
        replies = proxy.replies({2, 3}, timeout=60)
        assert any(tool["name"] == "rows_text" for tool in replies[2]["result"]["tools"])
        assert replies[3]["result"]["content"][0]["text"]
        # The process started early is the one the session talks to: no second start.
        assert len(started(starts)) == 1
    finally:
        proxy.close(timeout=60)
        kill_all(marker)
    assert not marked(marker)


def test_a_server_started_early_is_stopped_when_the_proxy_refuses_its_flags(
    tmp_path: Path,
) -> None:
    marker = f"elision-early-{uuid.uuid4().hex}"
    command, starts = server(tmp_path, marker)
    # --max-bytes is checked once the stages are set up, after the early start.
    proxy = RawStdio([*ELISION, "proxy", "--no-store", "--no-audit", "--max-bytes", "0",
                      "--", *command])
    try:
        stderr = proxy.close(timeout=60)
        assert proxy.proc.returncode == 2 and "--max-bytes" in stderr
        assert started(starts), "the server was not started early"
        assert not marked(marker), "the server started early outlived the proxy"
    finally:
        kill_all(marker)


def test_a_variable_set_since_the_early_start_does_not_start_a_second_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A library imported after the early start may set a default in os.environ; the session
    must still adopt the process, not start a second copy (one that may want the same lock)."""
    from elision.mcp.upstream import early

    command = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    early.start_early(command[0], command[1:], env=dict(os.environ))
    monkeypatch.setenv("ELISION_TEST_SET_BY_AN_IMPORT", "1")
    try:
        taken = early.take_early(command[0], command[1:], cwd=None)
        assert taken is not None and taken.process.poll() is None
        assert early.take_early(command[0], command[1:], cwd=None) is None  # taken once
        early._started.append(taken)  # back, to be stopped as an unadopted one is
    finally:
        early.discard_early()
    assert taken.process.poll() is not None
