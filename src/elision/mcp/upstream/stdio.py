"""Newline-delimited JSON-RPC over pipes, read and written without a task hop per message.

The SDK's stdio client re-joins its whole buffer with every 64 KB chunk, so one 34 MB message
(a 17 MB result sent twice, as MCPServer does) takes minutes. Here the chunks of a line are
appended to one buffer, grown in place, and parsed from it at the newline. Lines are also
decoded leniently: garbage bytes become U+FFFD and, at worst, one unreadable message that the
session reports.

With ``max_message_bytes`` (``--max-message-bytes``), a line that grows past the ceiling is
not kept: its bytes are counted and dropped as they arrive, and the request it answers gets a
JSON-RPC error naming its size (:data:`MESSAGE_TOO_LARGE`), so one huge result costs the proxy
at most the ceiling instead of an out-of-memory kill.

Both directions are plain objects, not memory streams fed by reader and writer tasks: the
session's receive loop reads the pipe itself and a sender writes the pipe itself, so a proxied
call costs no extra event-loop turns for handing messages between tasks (four per call).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import stat
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types as types
import orjson
from anyio.abc import ByteSendStream, Process
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from elision._startup import collector_paused
from elision.mcp.upstream.adopted import adopted
from elision.mcp.upstream.early import check_runnable, take_early, warden_command, watch_pipe
from elision.mcp.upstream.inflight import release_held
from elision.mcp.upstream.longtext import has_rounded_integer, read_long_text
from elision.mcp.upstream.reap import stop_process_group
from elision.mcp.upstream.turns import Turn
from elision.pipeline import GC_PAUSE_BYTES

#: Bytes asked of the pipe per read.
CHUNK = 1 << 16

#: The JSON-RPC error code (implementation-defined range) of a message refused for its size.
MESSAGE_TOO_LARGE = -32090
#: Bytes kept of each end of a refused line: enough to find the id of the request it answers.
_ENDS = 4096

#: The kinds of message that answer a request (an agent's, when written with an egress).
_ANSWERS = ("JSONRPCResponse", "JSONRPCError")

#: What a pipe read or write raises once the other end is gone.
_GONE = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)


class _ClosesOnExit:
    """``async with`` support for a stream: leaving the block closes it."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class MessageReader(_ClosesOnExit):
    """A session's read stream: ``receive`` one message at a time, or iterate to the end."""

    async def receive(self) -> SessionMessage | Exception:
        raise NotImplementedError

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class LineReader(MessageReader):
    """The session's read stream: one message per line, read from the pipe on demand.

    With ``answer`` (a server's reader), a line that is no message at all is not handed to
    the session, which would drop it and leave its sender waiting: it is answered with a
    JSON-RPC error of its own (:func:`read_request`).
    """

    def __init__(
        self,
        read: Callable[[], Awaitable[bytes]],
        *,
        answer: Callable[[types.JSONRPCError], Awaitable[None]] | None = None,
        max_message_bytes: int | None = None,
    ) -> None:
        self._read = read
        self._answer = answer
        self._parse: Callable[[bytes | bytearray], SessionMessage | Exception] = (
            _parse if answer is None else read_request
        )
        #: The line being read. One buffer grown in place, not a list of pieces joined at the
        #: newline: the join held the message twice, and the pieces, freed into the heap,
        #: stayed in the proxy's RSS through the rest of the call (bench/proxy.py --peak).
        self._line = bytearray()
        #: Messages read and not yet received, each with the bytes of its line (0: dropped).
        self._ready: deque[tuple[SessionMessage | Exception, int]] = deque()
        #: The bytes of the line the last message received was read from (back-pressure:
        #: elision.mcp.upstream.inflight).
        self.last_size = 0
        self._done = False
        self._limit = max_message_bytes
        #: Bytes of the line being read so far, and, once it is over the limit, its ends.
        self._size = 0
        self._over: _Ends | None = None

    async def receive(self) -> SessionMessage | Exception:
        while True:
            while not self._ready:
                if self._done:
                    raise anyio.EndOfStream
                try:
                    chunk = await self._read()
                except _GONE:
                    chunk = b""
                if not chunk:
                    self._done = True  # a last line with no newline was never a whole message
                    continue
                self._split(chunk)
            item, self.last_size = self._ready.popleft()
            if not isinstance(item, Refused):
                return item
            assert self._answer is not None
            with suppress(*_GONE):
                await self._answer(item.error)

    def _split(self, chunk: bytes) -> None:
        view, start = memoryview(chunk), 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._add(view[start:end])
            start = end + 1
            if self._over is not None:
                self._ready.append((self._over.refusal(self._size, self._limit or 0), 0))
                self._over = None
            else:
                line, self._line = self._line, bytearray()
                # isspace() is False for an empty line and, unlike strip(), copies nothing.
                if line and not line.isspace():
                    self._ready.append((self._parse(line), len(line)))
                # Let go of the line before the next is read: parsed, it is held by the value.
                del line
            self._size = 0
        if start < len(chunk):
            self._add(view[start:])

    def _add(self, piece: memoryview) -> None:
        """Keep ``piece`` of the line being read, or only count it once the line is too big."""
        self._size += len(piece)
        if self._over is None and (self._limit is None or self._size <= self._limit):
            self._line += piece
            return
        if self._over is None:
            self._over = _Ends(self._line)
            self._line = bytearray()
        self._over.add(piece)

    async def aclose(self) -> None:
        self._done = True
        self._ready.clear()


class _Ends:
    """The first and last bytes of a line too big to keep, to answer the request it ends."""

    def __init__(self, kept: bytearray) -> None:
        self.head = bytes(kept[:_ENDS])
        self.tail = bytes(kept[-_ENDS:])

    def add(self, piece: memoryview) -> None:
        if len(self.head) < _ENDS:
            self.head += piece[: _ENDS - len(self.head)]
        self.tail = (self.tail + piece[-_ENDS:])[-_ENDS:]

    def refusal(self, size: int, limit: int) -> SessionMessage | Exception:
        message = (
            f"a message of {size:,} bytes, over the proxy's {limit:,}-byte ceiling "
            "(--max-message-bytes); it was dropped unread, so nothing of it reached the agent. "
            "Ask the tool for less (a filter, a smaller page), or raise --max-message-bytes"
        )
        request_id = _line_id(self.head, self.tail)
        if request_id is None:
            return ValueError(f"{message} (no request id found at either end of it)")
        return SessionMessage(types.JSONRPCError(
            jsonrpc="2.0", id=request_id,
            error=types.ErrorData(code=MESSAGE_TOO_LARGE, message=message),
        ))


_ID = r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")'
_VERSION = r'"jsonrpc"\s*:\s*"2\.0"\s*'
#: The top-level id where SDKs write it: first (after "jsonrpc") or last (before or after it).
#: At the end, exactly one brace may follow, so an "id" of a nested object cannot match.
_HEAD_ID = re.compile(rb"\A\s*\{\s*(?:" + _VERSION.encode() + rb",\s*)?" + _ID.encode())
_TAIL_ID = re.compile(
    rb"[{,]\s*" + _ID.encode() + rb"\s*(?:,\s*" + _VERSION.encode() + rb")?\}\s*\Z"
)


def _line_id(head: bytes, tail: bytes) -> str | int | None:
    found = _HEAD_ID.match(head) or _TAIL_ID.search(tail)
    if found is None:
        return None
    with suppress(ValueError):
        return _usable_id(json.loads(found.group(1)))
    return None


class LineWriter(_ClosesOnExit):
    """The session's write stream: each message is written to the pipe by its sender.

    A write is one ``write`` of the whole line, so concurrent senders never interleave. An
    ``egress`` may wait for a message of ``egress_waits_from`` bytes or more (the gate's, off
    the event loop): senders then take turns, in the order they came, so no message
    overtakes an earlier one (:class:`~elision.mcp.upstream.turns.Turn`).
    """

    def __init__(
        self, write: Callable[[bytes], Awaitable[None]],
        egress: Callable[[Any, bytes], Awaitable[bytes]] | None = None,
        egress_waits_from: int = 0,
    ) -> None:
        self._write = write
        self._closed = False
        #: What every line passes before it is written (the proxy's egress gate), given the
        #: message and its serialized bytes.
        self._egress = egress
        self._turn = Turn(egress_waits_from)

    async def send(self, message: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode(
            "utf-8", "replace"
        )
        if self._egress is None:
            await self._written(data)
            return
        try:
            await self._turn.run(len(data), self._gated, message.message, data)
        finally:
            if type(message.message).__name__ in _ANSWERS:
                release_held()  # sent on, or never will be: the request's room is given back

    async def _gated(self, message: Any, data: bytes) -> None:
        assert self._egress is not None
        data = await self._egress(message, data)
        if data:  # else withheld whole by the gate
            await self._written(data)

    async def _written(self, data: bytes) -> None:
        try:
            await self._write(data + b"\n")
        except _GONE as exc:
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        self._closed = True


@asynccontextmanager
async def stdio_transport(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    inherit_env: bool = False,
    cwd: str | None = None,
    max_message_bytes: int | None = None,
) -> AsyncIterator[TransportStreams]:
    """Launch ``command`` and talk newline-delimited JSON-RPC over its stdin and stdout.

    A message from the server over ``max_message_bytes`` is refused unread (module docstring).
    With ``inherit_env`` the server sees this process's whole environment (as when a user
    runs it from their shell); otherwise only the SDK's safe defaults plus ``env``.
    """
    merged = {**(dict(os.environ) if inherit_env else get_default_environment()), **(env or {})}
    process: Process
    early = take_early(command, args, cwd=cwd)
    if early is not None:
        # Started by the CLI before the SDK was imported (elision.mcp.upstream.early).
        process, watched = await adopted(early.process), early.watched
    else:
        process, watched = await _start(command, args, merged, cwd)
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None
    read_stream = LineReader(lambda: stdout.receive(CHUNK), max_message_bytes=max_message_bytes)
    write_stream = LineWriter(pipe_writer(stdin))
    try:
        yield read_stream, write_stream
    finally:
        with anyio.CancelScope(shield=True):
            try:
                await stop_process_group(process)
            finally:
                os.close(watched)
            await write_stream.aclose()
            await read_stream.aclose()


async def _start(
    command: str, args: Sequence[str], env: dict[str, str], cwd: str | None
) -> tuple[Process, int]:
    """``command`` started under the warden, and the watch pipe's write end."""
    check_runnable(command, env.get("PATH"), cwd)
    # The server runs under a warden (elision.mcp.upstream.warden) that stops its group once
    # the proxy is gone, however it ends: the watchdog pipe's write end is held here alone.
    # Shielded: a cancel between the fork and the return would leave a process no one
    # holds, so no one stops.
    with watch_pipe() as (watch, watched), anyio.CancelScope(shield=True):
        process = await anyio.open_process(
            [*warden_command(watch), command, *args], env=env, cwd=cwd, stderr=None,
            start_new_session=True, pass_fds=(watch,),
        )
    return process, watched


def pipe_writer(stdin: ByteSendStream) -> Callable[[bytes], Awaitable[None]]:
    """How to write a line to a child's stdin: straight to the asyncio stream under anyio's
    wrapper when there is one, since the wrapper's ``send`` spends an extra event-loop turn
    after each write (a checkpoint); else the wrapper's ``send``."""
    stream = getattr(stdin, "_stream", None)
    if not isinstance(stream, asyncio.StreamWriter):
        return stdin.send

    async def write(data: bytes) -> None:
        stream.write(data)
        await stream.drain()

    return write


def _parse(line: bytes | bytearray) -> SessionMessage | Exception:
    """One message off the wire, as the SDK's parser would read it.

    orjson then validation of the Python value is several times faster than pydantic's own
    JSON parser on a long string full of escapes (a JSON text inside a result: 18 ms vs 3 ms
    for 850 KB). Where the two could differ, the line is read the old way: bytes orjson
    refuses (invalid UTF-8, a lone surrogate escape, NaN, nesting past its limit), a message
    that does not validate (so the error is the one the SDK would give), and integers past
    64 bits, which orjson reads as floats where the SDK keeps them exact.

    A line whose bulk is one long text (a big tool result, echoed or not) is first offered to
    :func:`~elision.mcp.upstream.longtext.read_long_text`, which gives the same message holding the
    text once and lets go of the line as it decodes it, or declines.
    """
    if isinstance(line, bytearray):
        long = read_long_text(line)
        if long is not None:
            return SessionMessage(long)
    try:
        if len(line) < GC_PAUSE_BYTES:
            value = orjson.loads(line)
        else:
            with collector_paused():
                value = orjson.loads(line)
    except orjson.JSONDecodeError:
        pass
    else:
        if not has_rounded_integer(value):
            try:
                return SessionMessage(
                    types.jsonrpc_message_adapter.validate_python(value, by_name=False)
                )
            except ValueError:
                pass
    try:
        text = line.decode("utf-8", "replace")
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return exc


class Refused(Exception):
    """A line that is no message: what its sender is answered instead."""

    def __init__(self, error: types.JSONRPCError) -> None:
        super().__init__(error.error.message)
        self.error = error


def read_request(line: bytes | bytearray) -> SessionMessage | Exception:
    """One message from a client, or :class:`Refused` with the error that answers it.

    Past the strict parse, the line is read as Python's own parser would: a well-formed
    message that spells a lone surrogate or NaN then reaches the proxy's gate
    (:mod:`elision.mcp.agent.ingress`), which refuses that request alone. A line that is not JSON
    gets a parse error; JSON that is not a message gets "invalid request", with the sender's
    id when it gave a usable one. Neither quotes the line: it may hold a credential.
    """
    parsed = _parse(line)
    if not isinstance(parsed, Exception):
        return parsed
    try:
        value = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        where = f" ({exc.msg}, char {exc.pos})" if isinstance(exc, json.JSONDecodeError) else ""
        return _refused(None, types.PARSE_ERROR, (
            f"elision proxy could not read a line of {len(line):,} bytes as JSON{where}; send "
            "one JSON-RPC message per line, as UTF-8 JSON nested at most 1,000 levels"
        ))
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except ValueError:
        pass
    request_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(value, dict) and "method" not in value and "id" in value:
        return parsed  # a malformed response: answering it would start a loop
    return _refused(_usable_id(request_id), types.INVALID_REQUEST, (
        "elision proxy got JSON that is not a JSON-RPC 2.0 message: send an object with "
        '"jsonrpc": "2.0", a string "method", params as an object, and an integer or string '
        '"id" for a request (batches are not supported)'
    ))


def _usable_id(value: object) -> str | int | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return value


def _refused(request_id: str | int | None, code: int, message: str) -> Refused:
    return Refused(types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    ))


@asynccontextmanager
async def stdio_server_transport(
    egress: Callable[[Any, bytes], Awaitable[bytes]] | None = None,
    read_first: Callable[[], Awaitable[bytes | None]] | None = None,
    egress_waits_from: int = 0,
) -> AsyncIterator[TransportStreams]:
    """Serve MCP on this process's stdin and stdout without a thread or task hop per message.

    The SDK's ``stdio_server`` reads and writes through worker threads, several per call; on
    pipes the event loop can do both itself. While serving, fd 1 points at stderr so stray
    prints cannot corrupt the wire. stdout may be anything (:func:`_wire_writer`). Raises
    ``ValueError`` when stdin is not a pipe, socket or terminal (a regular file): use the
    SDK's transport then. Every line written goes through ``egress`` first, when given (it
    may wait for a line of ``egress_waits_from`` bytes or more: :class:`LineWriter`).

    With ``read_first`` (stdin read by a thread since the process began:
    :meth:`elision.mcp.agent.arrivals.Arrivals.receive`), what it gives comes first, and the
    loop reads the pipe only once it gives None (the thread has stopped): never two readers.
    """
    loop = asyncio.get_running_loop()
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)

    async def connect() -> asyncio.StreamReader:
        try:
            stream = asyncio.StreamReader(limit=1 << 20, loop=loop)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), wire_in)
        except (ValueError, OSError):
            wire_in.close()
            raise ValueError("stdin is not a pipe, socket or terminal") from None
        return stream

    piped = await connect() if read_first is None else None

    async def read() -> bytes:
        nonlocal piped
        if piped is None:
            assert read_first is not None
            chunk = await read_first()
            if chunk is not None:
                return chunk
            piped = await connect()  # the thread reads no more
        return await piped.read(CHUNK)

    write, close_wire = await _wire_writer(loop)
    saved_stdout = os.dup(1)
    os.dup2(2, 1)
    writer = LineWriter(write, egress, egress_waits_from)

    async def answer(error: types.JSONRPCError) -> None:
        await writer.send(SessionMessage(error))

    try:
        yield LineReader(read, answer=answer), writer
    finally:
        close_wire()
        wire_in.close()
        os.dup2(saved_stdout, 1)
        os.close(saved_stdout)


async def _wire_writer(
    loop: asyncio.AbstractEventLoop,
) -> tuple[Callable[[bytes], Awaitable[None]], Callable[[], None]]:
    """How to write a line to stdout, whatever it is, and how to let go of it.

    A pipe or terminal is written by the event loop. A socket is sent to with the loop's own
    socket calls (asyncio's pipe transport takes a socket that turns readable, as one that is
    stdin as well does with each request, for its peer hanging up), one line at a time. A
    regular file or ``/dev/null``, which the loop cannot watch and which never makes a writer
    wait, is written straight away (``sleep 3 | elision proxy ... > out.txt``, issue 23).
    """
    mode = os.fstat(1).st_mode
    if stat.S_ISSOCK(mode):
        sock = socket.socket(fileno=os.dup(1))
        sock.setblocking(False)
        turn = asyncio.Lock()

        async def send(data: bytes) -> None:
            async with turn:
                await loop.sock_sendall(sock, data)

        return send, sock.close
    if stat.S_ISFIFO(mode) or (stat.S_ISCHR(mode) and os.isatty(1)):
        wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, wire_out
        )
        out = asyncio.StreamWriter(transport, protocol, None, loop)

        async def drained(data: bytes) -> None:
            out.write(data)
            await out.drain()

        return drained, transport.close
    plain = os.fdopen(os.dup(1), "wb", buffering=0)

    async def written(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[plain.write(view) or 0:]

    return written, plain.close
