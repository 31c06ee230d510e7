"""pipe_writer: a child's stdin is written straight to anyio's underlying asyncio stream
(one event-loop turn less a write), else through the stream's own ``send``."""

from __future__ import annotations

import sys

import anyio

from elision.mcp.upstream.stdio import pipe_writer


def test_a_child_s_stdin_is_written_directly_and_every_line_arrives() -> None:
    async def main() -> bytes:
        echo = "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"
        process = await anyio.open_process([sys.executable, "-c", echo])
        async with process:
            assert process.stdin is not None and process.stdout is not None
            write = pipe_writer(process.stdin)
            assert write != process.stdin.send  # the direct path is taken on asyncio
            for i in range(3):
                await write(b"line %d\n" % i)
            await process.stdin.aclose()
            out = b""
            with anyio.fail_after(10):
                async for chunk in process.stdout:
                    out += chunk
            return out

    assert anyio.run(main) == b"line 0\nline 1\nline 2\n"


def test_a_stream_without_an_asyncio_writer_is_sent_to_as_it_is() -> None:
    sent: list[bytes] = []

    class Stream:
        async def send(self, item: bytes) -> None:
            sent.append(item)

        async def aclose(self) -> None:
            pass

    stream = Stream()
    write = pipe_writer(stream)  # type: ignore[arg-type]
    assert write == stream.send
    anyio.run(write, b"x\n")
    assert sent == [b"x\n"]
