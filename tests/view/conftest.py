"""A real log for the viewer's tests: a real proxy (audit and store on) in front of
``view_upstream.py``, called with the official client; then ``elision view`` on it, as a
process, and the URL it printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "view_upstream.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 2048
URL = re.compile(r"elision view: (http://\S+)")
# The upstream module's names (the hostile tool name, the signed URL) are the tests' too.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@dataclass
class ProxyLog:
    log: Path
    store: Path
    #: What the client got from each tool, by tool name.
    got: dict[str, str]


def make_log(folder: Path) -> ProxyLog:
    """Run a real proxy and make one call of each of the upstream's tools through it."""
    from view_upstream import HOSTILE_TOOL

    from mcp import Client, StdioServerParameters

    log, store = folder / "audit.db", folder / "store.db"
    got: dict[str, str] = {}

    async def main() -> None:
        params = StdioServerParameters(
            command=ELISION[0],
            args=[*ELISION[1:], "proxy", "--budget", str(BUDGET), "--store", str(store),
                  "--audit", str(log), "--", *UPSTREAM],
            env=dict(os.environ),
        )
        async with Client(params, mode="legacy") as client:
            for tool, args in (("rows", {"n": 400}), ("build_log", {"lines": 600}),
                               ("signed_link", {}), ("small", {})):
                result = await client.call_tool(tool, args)
                assert not result.is_error, result
                block = result.content[0]
                got[tool] = getattr(block, "text", "")

    anyio.run(main)
    # The proxy's egress gate refuses a tool whose name holds markup or control characters
    # (it is dropped from tools/list), so such a name reaches the log another way: a harness
    # names its own tools, and `elision hook claude-code` audits whatever name it is given.
    got[HOSTILE_TOOL] = hooked(HOSTILE_TOOL, "a result from a tool with a hostile name\n",
                               log, store)
    return ProxyLog(log, store, got)


def hooked(tool: str, text: str, log: Path, store: Path) -> str:
    """One tool result through ``elision hook claude-code`` into the same log and store."""
    event = {"session_id": "hook-session", "hook_event_name": "PostToolUse", "tool_name": tool,
             "tool_input": {}, "tool_response": [{"type": "text", "text": text}]}
    done = subprocess.run([*ELISION, "hook", "claude-code", "--store", str(store), "--audit",
                           str(log)], input=json.dumps(event), capture_output=True,
                          text=True, timeout=120, check=True)
    return text if not done.stdout.strip() else str(
        json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"])


@dataclass
class Viewer:
    url: str
    base: str
    token: str
    proc: subprocess.Popen[str]
    proxy: ProxyLog


@pytest.fixture(scope="module")
def proxy_log(tmp_path_factory: pytest.TempPathFactory) -> ProxyLog:
    return make_log(tmp_path_factory.mktemp("proxy-log"))


@pytest.fixture(scope="module")
def viewer(proxy_log: ProxyLog) -> Iterator[Viewer]:
    with run_viewer(["--log", str(proxy_log.log), "--store", str(proxy_log.store)]) as (
            url, proc):
        base, _, token = url.partition("/?token=")
        yield Viewer(url, base, token, proc, proxy_log)


class run_viewer:
    """``elision view ARGS`` as a process, until the ``with`` ends; gives its URL."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.args, self.env = args, env

    def __enter__(self) -> tuple[str, subprocess.Popen[str]]:
        self.proc = subprocess.Popen(
            [*ELISION, "view", *self.args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, **(self.env or {})})
        assert self.proc.stdout is not None
        found: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                match = URL.search(line)
                if match and not found:
                    found.append(match[1])
                    ready.set()
            ready.set()

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        ready.wait(60)
        if not found:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=10)
            raise AssertionError(f"elision view printed no URL:\n{err}")
        return found[0], self.proc

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.reader.join(10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
