"""A server process started before the event loop ran, as an anyio process.

:mod:`elision.mcp.upstream.early` starts a stdio server with :class:`subprocess.Popen` before
the proxy imports anything heavy; the session that adopts it needs what
:func:`anyio.open_process` gives: its pipes as byte streams, ``wait``, signals. asyncio has no
way to adopt a process it did not start, so its pipes are connected to the loop here, and its
end is polled (``wait``): the loop's child watcher only reaps what the loop started.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

#: How often ``wait`` looks whether the process has ended.
_POLL_SECONDS = 0.02
_GONE = (ConnectionResetError, BrokenPipeError, RuntimeError)


async def adopted(process: subprocess.Popen[bytes]) -> Process:
    """``process`` (started with piped stdin and stdout) on the running event loop."""
    assert process.stdin is not None and process.stdout is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 16, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), process.stdout)
    # FlowControlMixin: what StreamWriter.drain needs of a write pipe's protocol (as
    # asyncio's own subprocess streams have).
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, process.stdin
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return _Adopted(process, _Stdin(writer), _Stdout(reader))


class _Stdout(ByteReceiveStream):
    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._stream = reader

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._stream.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        self._stream.feed_eof()


class _Stdin(ByteSendStream):
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        #: The name :func:`elision.mcp.upstream.stdio.pipe_writer` looks for, as on anyio's.
        self._stream = writer
        self._closed = False

    async def send(self, item: bytes) -> None:
        try:
            self._stream.write(item)
            await self._stream.drain()
        except _GONE as exc:
            raise (anyio.ClosedResourceError if self._closed
                   else anyio.BrokenResourceError) from exc

    async def aclose(self) -> None:
        self._closed = True
        self._stream.close()


class _Adopted(Process):
    def __init__(self, process: subprocess.Popen[bytes], stdin: _Stdin, stdout: _Stdout) -> None:
        self._process = process
        self._stdin = stdin
        self._stdout = stdout

    async def wait(self) -> int:
        while (code := self._process.poll()) is None:
            await anyio.sleep(_POLL_SECONDS)
        return code

    def terminate(self) -> None:
        self._process.terminate()

    def kill(self) -> None:
        self._process.kill()

    def send_signal(self, sig: signal.Signals) -> None:
        self._process.send_signal(sig)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.poll()

    @property
    def stdin(self) -> ByteSendStream:
        return self._stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> None:
        return None

    async def aclose(self) -> None:
        await self._stdin.aclose()
        await self._stdout.aclose()
        await self.wait()

