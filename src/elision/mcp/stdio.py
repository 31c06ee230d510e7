"""A stdio client transport that reads a 100 MB line in linear time.

The SDK's stdio client re-joins its whole buffer with every 64 KB chunk, so one 34 MB message
(a 17 MB result sent twice, as MCPServer does) takes minutes. Here the chunks of a line are
collected and joined once, at its newline. Lines are also decoded leniently: garbage bytes
become U+FFFD and, at worst, one unreadable message that the session reports.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress

import anyio
import mcp_types as types
from anyio.abc import Process
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

#: How long a server gets to exit after its stdin closes, and then after SIGTERM.
GRACE_SECONDS = 2.0


@asynccontextmanager
async def stdio_transport(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    inherit_env: bool = False,
    cwd: str | None = None,
) -> AsyncIterator[TransportStreams]:
    """Launch ``command`` and talk newline-delimited JSON-RPC over its stdin and stdout.

    With ``inherit_env`` the server sees this process's whole environment (as when a user
    runs it from their shell); otherwise only the SDK's safe defaults plus ``env``.
    """
    base = dict(os.environ) if inherit_env else get_default_environment()
    process = await anyio.open_process(
        [command, *args], env={**base, **(env or {})}, cwd=cwd, stderr=None,
        start_new_session=True,
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        pieces: list[bytes] = []
        async with read_writer:
            with suppress(anyio.EndOfStream, anyio.ClosedResourceError,
                          anyio.BrokenResourceError, OSError):
                async for chunk in process.stdout:
                    start = 0
                    while (end := chunk.find(b"\n", start)) != -1:
                        pieces.append(chunk[start:end])
                        line = b"".join(pieces)
                        pieces.clear()
                        start = end + 1
                        if line.strip():
                            await read_writer.send(_parse(line))
                    if start < len(chunk):
                        pieces.append(chunk[start:])

    async def writer() -> None:
        assert process.stdin is not None
        async with write_reader:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode("utf-8", "replace") + b"\n")

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)
                await write_stream.aclose()
                await read_stream.aclose()
            tg.cancel_scope.cancel()


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        text = line.decode("utf-8", "replace")
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


async def _stop(process: Process) -> None:
    if process.stdin is not None:
        with suppress(Exception):
            await process.stdin.aclose()
    with anyio.move_on_after(GRACE_SECONDS):
        await process.wait()
        return
    for signal_process in (_terminate, _kill):
        signal_process(process)
        with anyio.move_on_after(GRACE_SECONDS):
            await process.wait()
            return


def _terminate(process: Process) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, 15)


def _kill(process: Process) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, 9)




@asynccontextmanager
async def stdio_server_transport() -> AsyncIterator[TransportStreams]:
    """Serve MCP on this process's stdin and stdout without a thread hop per message.

    The SDK's ``stdio_server`` reads and writes through worker threads, several per call; on
    pipes the event loop can do both itself. While serving, fd 1 points at stderr so stray
    prints cannot corrupt the wire. Raises ``ValueError`` when stdin is not a pipe, socket or
    terminal (a regular file): use the SDK's transport then.
    """
    loop = asyncio.get_running_loop()
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    saved_stdout = os.dup(1)
    try:
        stream = asyncio.StreamReader(limit=1 << 20, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), wire_in)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, wire_out
        )
    except (ValueError, OSError):
        wire_in.close()
        wire_out.close()
        os.close(saved_stdout)
        raise ValueError("stdin is not a pipe") from None
    out = asyncio.StreamWriter(transport, protocol, None, loop)
    os.dup2(2, 1)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        pieces: list[bytes] = []
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                while chunk := await stream.read(1 << 16):
                    start = 0
                    while (end := chunk.find(b"\n", start)) != -1:
                        pieces.append(chunk[start:end])
                        line = b"".join(pieces)
                        pieces.clear()
                        start = end + 1
                        if line.strip():
                            await read_writer.send(_parse(line))
                    if start < len(chunk):
                        pieces.append(chunk[start:])

    async def writer() -> None:
        async with write_reader:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    out.write(data.encode("utf-8", "replace") + b"\n")
                    await out.drain()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            yield read_stream, write_stream
            tg.cancel_scope.cancel()
    finally:
        transport.close()
        os.dup2(saved_stdout, 1)
        os.close(saved_stdout)
