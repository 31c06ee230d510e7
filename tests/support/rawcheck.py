"""What a test server writes for a list of messages, line by line: for checking that a server
written as raw JSON-RPC lines (:mod:`support.rawserver`) writes the bytes the SDK's server it
replaced wrote, request by request."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Sequence
from typing import Any

#: The handshake the proxy sends an upstream (the SDK's client, as recorded), and the requests
#: every server is asked besides its own: a ping, and a method no server knows.
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25",
    "capabilities": {"elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}},
    "clientInfo": {"name": "mcp", "version": "0.1.0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
COMMON = [("ping", None), ("no/such/method", {"x": 1})]


def requests(calls: Sequence[tuple[str, dict[str, Any] | None]]) -> list[dict[str, Any]]:
    """The handshake, then ``calls`` and :data:`COMMON` as requests numbered from 2."""
    out: list[dict[str, Any]] = [INITIALIZE, INITIALIZED]
    for n, (method, params) in enumerate([*calls, *COMMON], start=2):
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": n, "method": method}
        if params is not None:
            message["params"] = params
        out.append(message)
    return out


def exchange(command: Sequence[str], messages: Sequence[dict[str, Any]],
             timeout: float = 60.0) -> list[bytes]:
    """Every line ``command`` writes on stdout while it is sent ``messages`` one at a time,
    each request's reply (and whatever came before it) read before the next is sent."""
    proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[bytes] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            if "id" not in message:
                continue
            while True:
                # The chunks of a line are joined once it is whole: a 17 MB line read 64 KB
                # at a time, added to a buffer searched whole each time, cost seconds.
                parts = [buffer]
                while b"\n" not in parts[-1]:
                    left = deadline - time.monotonic()
                    fd = proc.stdout.fileno()
                    if left <= 0 or not select.select([fd], [], [], left)[0]:
                        raise AssertionError(f"no reply to {message!r}; got {lines!r}")
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        raise AssertionError(f"{command!r} exited before replying to {message!r}")
                    parts.append(chunk)
                line, _, buffer = b"".join(parts).partition(b"\n")
                lines.append(line)
                if json.loads(line).get("id") == message["id"]:
                    break
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
    return lines
