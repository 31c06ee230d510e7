"""The stdio proxy serves whatever its stdout and stdin are: a file, a pipe, a socket.

Found by ``sleep 3 | elision proxy -- python server.py > out.txt`` (issue 23): the proxy
exited with an ExceptionGroup traceback ending "ValueError: stdin is not a pipe", though it
was stdout that was a file (the event loop cannot watch a regular file). Each case here starts
a real proxy with a real upstream, sends a handshake and a call, and reads the answers where
its stdout went.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import IO, Any

import pytest

from support.rawrpc import INITIALIZED, initialize

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-m", "elision"]
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
PROXY = [*ELISION, "proxy", "--no-store", "--no-audit", "--", *UPSTREAM]
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "rows", "arguments": {"n": 2}}}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


class Wire:
    """The proxy's two ends as the test holds them: how to send, and what came back so far."""

    def __init__(self, send: Callable[[bytes], None], received: Callable[[], bytes],
                 close: Callable[[], None], proc: subprocess.Popen[bytes]) -> None:
        self.send, self.received, self.close, self.proc = send, received, close, proc

    def answer(self, request_id: int, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            for raw in self.received().splitlines():
                message = json.loads(raw)
                if message.get("id") == request_id:
                    return dict(message)
            time.sleep(0.05)  # polling a file: there is no event to wait on
        _, stderr = self.proc.communicate(timeout=60)
        raise AssertionError(f"no answer to {request_id}: {self.received()!r}\n{stderr!r}")


def run_case(tmp_path: Path, stdin_kind: str, stdout_kind: str) -> None:
    out_file = tmp_path / "out.txt"
    with ExitStack() as stack:
        ours: socket.socket | None = None
        if stdin_kind == "socket":
            ours, theirs = socket.socketpair()
            stack.callback(ours.close)
            stdin: Any = theirs
        else:
            read, write = os.pipe()
            stdin = read
        if stdout_kind == "file":
            stdout: Any = stack.enter_context(open(out_file, "wb"))
            received = out_file.read_bytes
        elif stdout_kind == "same socket":
            stdout = stdin
        else:
            stdout = subprocess.PIPE
        proc = stack.enter_context(
            subprocess.Popen(PROXY, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE))
        stack.callback(lambda: proc.poll() is None and proc.kill())
        if ours is not None:
            theirs.close()
            send, close = ours.sendall, lambda: ours.shutdown(socket.SHUT_WR)
        else:
            os.close(read)
            writer = stack.enter_context(os.fdopen(write, "wb", buffering=0))
            send, close = writer.write, writer.close
        got = bytearray()
        if stdout_kind == "pipe":
            assert proc.stdout is not None
            pipe: IO[bytes] = proc.stdout
            os.set_blocking(pipe.fileno(), False)

            def received() -> bytes:
                got.extend(pipe.read() or b"")
                return bytes(got)
        elif stdout_kind == "same socket":
            assert ours is not None
            ours.setblocking(False)

            def received() -> bytes:
                with suppress(BlockingIOError):
                    got.extend(ours.recv(1 << 16))
                return bytes(got)
        wire = Wire(send, received, close, proc)
        wire.send(line(initialize()))
        assert "result" in wire.answer(1)
        wire.send(line(INITIALIZED) + line(CALL))
        answer = wire.answer(2)
        assert json.loads(answer["result"]["content"][0]["text"])["total_rows"] == 2
        wire.close()
        _, stderr = proc.communicate(timeout=60)
        text = stderr.decode("utf-8", "replace")
        assert "Traceback" not in text, text
        assert proc.returncode == 0, text


@pytest.mark.parametrize(("stdin_kind", "stdout_kind"), [
    ("pipe", "file"),          # the issue: `sleep 3 | elision proxy ... > out.txt`
    ("socket", "file"),        # a socket in, a log file out
    ("pipe", "pipe"),          # how an MCP host runs it
    ("socket", "same socket"),  # one socket both ways, as inetd or a socket activation does
])
def test_the_proxy_answers_whatever_its_stdout_is(
    tmp_path: Path, stdin_kind: str, stdout_kind: str
) -> None:
    run_case(tmp_path, stdin_kind, stdout_kind)


@pytest.mark.parametrize("stdout_kind", ["file", "devnull"])
def test_a_file_in_and_a_file_out_answer_the_handshake(tmp_path: Path, stdout_kind: str) -> None:
    # All of stdin is there at once, then its end: what comes before the end is answered.
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(line(initialize()))
    out = tmp_path / "out.txt" if stdout_kind == "file" else Path(os.devnull)
    with open(requests, "rb") as stdin, open(out, "wb") as stdout:
        done = subprocess.run(PROXY, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                              timeout=60, check=False)
    text = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    assert done.returncode == 0, text
    if stdout_kind == "file":
        assert "result" in json.loads(out.read_bytes().splitlines()[0])


def test_over_a_terminal_the_proxy_says_it_waits_for_an_mcp_client(tmp_path: Path) -> None:
    """Found by running ``elision proxy -- server`` by hand (issue 23): it sat silent, as if
    hung. Over a terminal it now says what it waits for; Ctrl-D ends it."""
    import pty

    main, tty = pty.openpty()
    with subprocess.Popen(PROXY, stdin=tty, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as proc:
        os.close(tty)
        try:
            assert proc.stderr is not None
            ready, _, _ = select.select([proc.stderr], [], [], 60)
            first = proc.stderr.readline().decode("utf-8", "replace") if ready else ""
            assert "waiting for an MCP client on stdin" in first, first
            os.write(main, b"\x04")  # Ctrl-D at the start of a line: end of input
            _, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main)
    assert b"Traceback" not in stderr, stderr
    assert proc.returncode == 0, stderr
