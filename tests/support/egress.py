"""Agents that see every byte a proxy sends them: for the egress gate's tests (issue 22).

An :class:`Agent` is the official ``mcp.Client`` on one transport (a stdio proxy, or a proxy
listening on HTTP) in one protocol era, held open in a blocking portal so that a test (or a
Hypothesis example) costs one round trip, not a proxy's start. Everything the proxy writes to
it is captured as raw bytes before the client parses anything: the stdio proxy's stdout goes
through ``tee``, an HTTP response's body through a transport that copies it. The upstream is
``tests/mcp/egress_server.py``, which sends whatever message the test tells it to.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent.parent
UPSTREAM = [sys.executable, str(HERE / "mcp" / "egress_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
MODERN = MODERN_PROTOCOL_VERSIONS[-1]
ERAS = ("legacy", MODERN)


class _Copied(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, sink: bytearray) -> None:
        self._inner = inner
        self._sink = sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._sink += chunk
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Tee(httpx2.AsyncBaseTransport):
    """An HTTP transport that copies every response body into ``sink`` as it is read."""

    def __init__(self, sink: bytearray) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._sink = sink

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        return httpx2.Response(
            status_code=response.status_code, headers=response.headers,
            stream=_Copied(response.stream, self._sink), extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass
class Agent:
    """One client of a proxy; ``wire()`` is what reached it since the last look."""

    transport: str
    era: str
    portal: BlockingPortal
    client: Client
    captured: Any  # a Path (stdio) or a bytearray (HTTP)
    seen: int = 0
    notes: list[Any] = field(default_factory=list)
    elicited: list[Any] = field(default_factory=list)

    def wire(self) -> bytes:
        data = (
            self.captured.read_bytes() if isinstance(self.captured, Path)
            else bytes(self.captured)
        )
        new, self.seen = data[self.seen:], len(data)
        return new

    def run(self, work: Any, *args: Any) -> Any:
        return self.portal.call(work, self.client, *args)

    def emit(self, **args: Any) -> Any:
        """Call ``emit`` with these arguments; its result, or the MCPError it raised."""
        meta: Any = {types.LOG_LEVEL_META_KEY: "debug"} if self.era != "legacy" else None

        async def call(client: Client) -> Any:
            async def progress(p: float, total: float | None, message: str | None) -> None:
                self.notes.append(("progress", message))

            try:
                return await client.call_tool(
                    "emit", args, meta=meta, progress_callback=progress
                )
            except MCPError as exc:
                return exc

        return self.portal.call(call, self.client)

    def settle(self) -> None:
        """Let notifications sent before an answer finish arriving (a ping's round trip)."""
        self.portal.call(lambda c: c.list_prompts(), self.client)


def messages(wire: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages in captured bytes: lines (stdio) or bodies and SSE events."""
    out: list[dict[str, Any]] = []
    for raw in wire.replace(b"\r\n", b"\n").split(b"\n"):
        line = raw.strip()
        if line.startswith(b"data:"):
            line = line[5:].strip()
        if not line.startswith(b"{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def proxy_command(tmp: Path, *extra: str) -> list[str]:
    return [*ELISION, "proxy", "--budget", "4096", "--store", str(tmp / "store.db"),
            "--audit", str(tmp / "audit.db"), *extra, "--", *UPSTREAM]


def _environment() -> dict[str, str]:
    # The deny-marker policy is imported by the proxy from tests/support.
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


async def _on_log(params: types.LoggingMessageNotificationParams) -> None:
    return None


def _client(server: Any, era: str, agent: dict[str, Any]) -> Client:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        agent["elicited"].append(params)
        return types.ElicitResult(action="decline")

    async def handler(message: Any) -> None:
        agent["notes"].append(message)

    return Client(
        server, mode=era, cache=None, logging_callback=_on_log, message_handler=handler,
        elicitation_callback=elicit,
    )


@contextlib.contextmanager
def stdio_agent(tmp: Path, era: str, *extra: str) -> Iterator[Agent]:
    """A stdio proxy of its own, and its one client of ``era``."""
    tmp.mkdir(parents=True, exist_ok=True)
    captured = tmp / "stdout.bin"
    captured.touch()
    command = proxy_command(tmp, *extra)
    params = StdioServerParameters(
        command="sh",
        args=["-c", '"$@" 2>>"$PROXY_ERR" | tee -a "$CAPTURED"', "sh", *command],
        env={**_environment(), "PROXY_ERR": str(tmp / "stderr.log"),
             "CAPTURED": str(captured)},
    )
    with _held(params, era, captured) as agent:
        yield agent


@contextlib.contextmanager
def http_agent(url: str, era: str) -> Iterator[Agent]:
    """A client of ``era`` of the HTTP proxy at ``url``."""
    sink = bytearray()
    http = httpx2.AsyncClient(transport=_Tee(sink), timeout=30)
    transport = streamable_http_client(url, http_client=http)
    with _held(transport, era, sink, close=http.aclose) as agent:
        yield agent


@contextlib.contextmanager
def _held(server: Any, era: str, captured: Any, close: Any = None) -> Iterator[Agent]:
    state: dict[str, Any] = {"notes": [], "elicited": []}
    with start_blocking_portal() as portal:
        if close is not None:
            # The client was handed its HTTP client, so closing that is the caller's job.
            stack = contextlib.ExitStack()
            stack.callback(portal.call, close)
        else:
            stack = contextlib.ExitStack()
        client = _client(server, era, state)
        with stack, portal.wrap_async_context_manager(client) as entered:
            agent = Agent("stdio" if isinstance(captured, Path) else "http", era, portal,
                          entered, captured, notes=state["notes"], elicited=state["elicited"])
            if era == "legacy":
                portal.call(lambda: entered.set_logging_level("debug"))
            agent.wire()
            yield agent

