"""Raw JSON-RPC for tests that must send what no well-behaved client would: bytes that are not
JSON, lone surrogates, batches. Over a child's stdio (:class:`RawStdio`) or as HTTP POSTs to a
streamable HTTP endpoint (:func:`post`), of either protocol era."""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx2 as httpx

#: The newest protocol era: every request says who it is in ``_meta``; there is no session.
MODERN_VERSION = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test-client", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
HANDSHAKE_VERSION = "2025-06-18"


def initialize(request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {
        "protocolVersion": HANDSHAKE_VERSION, "capabilities": {},
        "clientInfo": {"name": "raw-test-client", "version": "0"}}}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawStdio:
    """A process spoken to in raw lines over its stdin and stdout."""

    def __init__(self, command: Sequence[str], *, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={**os.environ, **(env or {})},
        )
        self._buffer = b""
        # Drained in the background: a chatty process never stalls on a full pipe, and a
        # child it leaves behind holding the pipe open cannot make close() wait.
        self._stderr: list[bytes] = []
        stderr = self.proc.stderr
        assert stderr is not None
        def drain() -> None:
            with stderr:  # closed by the drain itself, however late an orphan lets it go:
                self._stderr.extend(stderr)  # left open, it was an unraisable ResourceWarning

        self._drain = threading.Thread(target=drain, daemon=True)
        self._drain.start()

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def handshake(self, timeout: float = 30.0) -> None:
        self.send(initialize())
        assert "result" in self.replies({1}, timeout=timeout)[1]
        self.send(INITIALIZED)

    def replies(self, ids: set[Any], *, nulls: int = 0, timeout: float = 30.0) -> dict[Any, Any]:
        """Read messages until one has come for each id and ``nulls`` came with id null (kept
        under None, as a list), or ``timeout`` passes; what came, by id."""
        got: dict[Any, Any] = {None: []}
        deadline = time.monotonic() + timeout
        while not (ids <= got.keys() and len(got[None]) >= nulls):
            line = self._line(deadline)
            if line is None:
                break
            message = json.loads(line)
            if "id" not in message:
                continue  # a notification
            if message["id"] is None:
                got[None].append(message)
            else:
                got[message["id"]] = message
        return got

    def _line(self, deadline: float) -> bytes | None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self, timeout: float = 30.0) -> str:
        """Close stdin, wait for the exit, and give back everything written to stderr."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        self._drain.join(2)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()  # stderr is the drain's to close (an orphan may hold it)
        return b"".join(self._stderr).decode("utf-8", "replace")


def post(
    url: str, body: bytes, *, session: str | None = None, modern: bool = True,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One POST; its status and the JSON-RPC message that answers it (the first one of an SSE
    stream), or the body's text when it holds none. The routing headers the newest era needs
    are taken from the body when it parses."""
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN_VERSION if modern else HANDSHAKE_VERSION,
            **(headers or {})}
    if session is not None:
        sent["mcp-session-id"] = session
    try:
        parsed = json.loads(body)
        sent.setdefault("mcp-method", parsed["method"])
        if isinstance(parsed["params"].get("name"), str):
            sent.setdefault("mcp-name", parsed["params"]["name"])
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        pass
    sent = {k: v.encode("ascii", "backslashreplace").decode() for k, v in sent.items()}
    response = httpx.post(url, content=body, headers=sent, timeout=60)
    return response.status_code, _message(response)


def open_session(url: str) -> str:
    """A session of the handshake era, opened with raw POSTs; its id."""
    response = httpx.post(
        url, json=initialize(),
        headers={"accept": "application/json, text/event-stream",
                 "mcp-protocol-version": HANDSHAKE_VERSION}, timeout=60,
    )
    session = response.headers["mcp-session-id"]
    post(url, json.dumps(INITIALIZED).encode(), session=session, modern=False)
    return str(session)


def _message(response: httpx.Response) -> Any:
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if "id" in message:
                    return message
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
