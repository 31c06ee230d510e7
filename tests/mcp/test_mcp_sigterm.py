"""A proxy stopped with SIGTERM still closes its audit log, so the last checkpoint is written
and a cut tail stays detectable. Spoken to in raw JSON-RPC over its stdin, so that the test
holds the process and can signal it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "test_mcp_pipeline_upstream.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
KEY = "hmac:" + "s" * 40


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps(message).encode() + b"\n")
    stdin.flush()


def _reply(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        assert line, "the proxy closed its stdout"
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def test_sigterm_writes_the_final_checkpoint(tmp_path: Path) -> None:
    log = tmp_path / "audit.db"
    env = {**os.environ, "ELISION_AUDIT_KEY": KEY}
    with subprocess.Popen(
        [*ELISION, "proxy", "--store", str(tmp_path / "store.db"), "--audit", str(log), "--",
         *UPSTREAM],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    ) as proxy:
        assert proxy.stdin is not None and proxy.stdout is not None
        try:
            _send(proxy.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "sigterm-test", "version": "0"}}})
            assert "result" in _reply(proxy.stdout, 1)
            _send(proxy.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _send(proxy.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                "params": {"name": "small", "arguments": {}}})
            assert "result" in _reply(proxy.stdout, 2)
            proxy.send_signal(signal.SIGTERM)
            proxy.wait(timeout=30)
        finally:
            if proxy.poll() is None:
                proxy.kill()
    verify = subprocess.run([*ELISION, "audit", "verify", "--log", str(log)], env=env,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stderr
    assert "ok: 1 entries" in verify.stdout or "ok: 1 entry" in verify.stdout, verify.stdout
    assert "1 checkpoint" in verify.stdout, verify.stdout


def test_sigterm_on_http_writes_the_final_checkpoint(tmp_path: Path) -> None:
    # uvicorn re-raises the stop signal after its own shutdown; the proxy must still get to
    # close its audit log first.
    import re

    import anyio

    from mcp import Client

    log = tmp_path / "audit.db"
    env = {**os.environ, "ELISION_AUDIT_KEY": KEY}
    with subprocess.Popen(
        [*ELISION, "proxy", "--store", str(tmp_path / "store.db"), "--audit", str(log),
         "--listen", "127.0.0.1:0", "--", *UPSTREAM],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    ) as proxy:
        assert proxy.stderr is not None
        try:
            url = None
            for raw in proxy.stderr:
                found = re.search(rb"listening on (http://\S+)", raw)
                if found:
                    url = found[1].decode()
                    break
            assert url is not None, "the proxy never said where it listens"

            async def call() -> None:
                async with Client(url) as client:
                    assert not (await client.call_tool("small", {})).is_error

            anyio.run(call)
            proxy.send_signal(signal.SIGTERM)
            proxy.communicate(timeout=30)
        finally:
            if proxy.poll() is None:
                proxy.kill()
    assert proxy.returncode == 0  # it closed and exited by itself, not killed by the signal
    verify = subprocess.run([*ELISION, "audit", "verify", "--log", str(log)], env=env,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stderr
    assert "1 checkpoint" in verify.stdout, verify.stdout
