"""Shared by the back-pressure tests (tests/mcp/test_mcp_inflight*_e2e.py): a proxy in this
process on HTTP, the count of large messages in flight and the gate held shut, completions side
by side."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
import uvicorn
from anyio.abc import TaskGroup

from elision.mcp.gate.egress import Egress
from elision.mcp.gate.transports import OFF_LOOP_BYTES, gated_app
from elision.mcp.proxy import Proxy
from elision.mcp.serve import _built
from elision.mcp.upstream.config import ServerSpec
from elision.pipeline import Pipeline
from mcp import Client
from support.ports import free_port


class Count:
    """Large messages read from the upstreams and not yet out of the gate, and the gate shut."""

    def __init__(self) -> None:
        self.read = 0
        self.out = 0
        self.most = 0
        self.open = anyio.Event()

    @property
    def in_flight(self) -> int:
        return self.read - self.out

    def parsed(self, size: int) -> None:
        """A message of ``size`` bytes was parsed from an upstream (a large one is counted)."""
        if size >= OFF_LOOP_BYTES:
            self.read += 1
            self.most = max(self.most, self.in_flight)

    def shut_gate(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Hold every large message at the egress gate until :attr:`open` is set, and count
        those that come out of it."""
        gate = Egress.gate_bytes_off_loop

        async def gated(egress: Egress, raw: bytes, *args: Any) -> bytes:
            if len(raw) >= OFF_LOOP_BYTES:
                await self.open.wait()
            out = await gate(egress, raw, *args)
            if len(raw) >= OFF_LOOP_BYTES:
                self.out += 1
            return out

        monkeypatch.setattr(Egress, "gate_bytes_off_loop", gated)


@asynccontextmanager
async def serving(specs: list[ServerSpec]) -> AsyncIterator[tuple[str, Proxy]]:
    """A proxy in this process in front of ``specs``, on HTTP as elision.mcp.serve runs it."""
    proxy = Proxy(specs, Pipeline(), namespaced=len(specs) > 1)
    port = free_port()
    async with anyio.create_task_group() as tg:
        await proxy.start(tg)
        server = _built(proxy)[0]
        # As elision.mcp.serve runs it, with a server this test can stop cleanly.
        app = gated_app(server.streamable_http_app(host="127.0.0.1"), proxy.egress,
                        proxy.http_scope)
        web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                            log_level="warning", lifespan="on"))
        stopped = anyio.Event()

        async def serve() -> None:
            try:
                await web.serve()
            finally:
                stopped.set()

        tg.start_soon(serve)
        with anyio.fail_after(30):
            while not web.started:
                await anyio.sleep(0.02)
        try:
            yield f"http://127.0.0.1:{port}/mcp", proxy
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(10):
                web.should_exit = True
                await stopped.wait()
                await proxy.aclose()
            tg.cancel_scope.cancel()


class Completions:
    """One client's completions of a prompt, side by side; their values as they come."""

    def __init__(self, client: Client, prompt: str) -> None:
        self.client, self.prompt = client, prompt
        self.values: list[str] = []

    async def one(self, value: str) -> str:
        result = await self.client.complete(
            types.PromptReference(type="ref/prompt", name=self.prompt),
            {"name": "q", "value": value})
        self.values.append(result.completion.values[0])
        return self.values[-1]

    def start(self, tg: TaskGroup, value: str, times: int = 1) -> None:
        for _ in range(times):
            tg.start_soon(self.one, value)


async def until(test: Callable[[], bool], what: str, timeout: float = 20) -> None:
    with anyio.fail_after(timeout):
        while not test():
            await anyio.sleep(0.01)


def whole(value: str, size: int) -> bool:
    """A value as the server wrote it: its size, and one id at both ends."""
    head = value[: value.index(">") + 1]
    return len(value) == max(size, 2 * len(head)) and value.endswith(head)
