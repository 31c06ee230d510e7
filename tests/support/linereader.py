"""The proxy's stdio ``LineReader`` fed from bytes that arrive in pieces."""

from __future__ import annotations

import itertools

import anyio

from elision.mcp.upstream.stdio import LineReader


def read_all(data: bytes, cut: list[int], limit: int | None = None) -> list[object]:
    """Every message ``LineReader`` gives for ``data`` arriving in pieces cut at ``cut``
    (offsets into ``data``), with ``limit`` as its ``max_message_bytes``."""
    bounds = [0, *sorted(set(cut)), len(data)]
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]

    async def main() -> list[object]:
        pending = list(chunks)

        async def read() -> bytes:
            return pending.pop(0) if pending else b""

        return [item async for item in LineReader(read, max_message_bytes=limit)]

    return anyio.run(main)
