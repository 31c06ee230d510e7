"""serve_connection: the proxy's own stdio loop skips the SDK's relay task through two private
SDK functions, and falls back to ``Server.run`` when they are missing or changed. Each era
(the initialize handshake, and the newest protocol's per-request envelope) is served either
way."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import orjson
import pytest
from mcp.server import runner as sdk_runner
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage

from elision.mcp import serve
from elision.mcp.upstream.stdio import _parse

HANDSHAKE_OPEN = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
ENVELOPE = {
    types.PROTOCOL_VERSION_META_KEY: "2026-07-28",
    types.CLIENT_INFO_META_KEY: {"name": "t", "version": "1"},
    types.CLIENT_CAPABILITIES_META_KEY: {},
}


def server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tool = types.Tool(name="only", input_schema={"type": "object"})
        return types.ListToolsResult(tools=[tool])

    return Server("loop-test", on_list_tools=list_tools)


async def exchange(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send ``frames`` to a served connection; every response, by id."""
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](16)
    srv = server()
    options = srv.create_initialization_options()
    answers: list[dict[str, Any]] = []
    wanted = sum(1 for f in frames if "id" in f)
    with anyio.fail_after(10):
        async with from_server, anyio.create_task_group() as tg:
            tg.start_soon(serve.serve_connection, srv, server_reads, server_writes, options)
            for frame in frames:
                message = _parse(orjson.dumps(frame))
                assert isinstance(message, SessionMessage)
                await to_server.send(message)
            async for out in from_server:
                answers.append(out.message.model_dump(by_alias=True, exclude_none=True))
                if len(answers) == wanted:
                    break
            await to_server.aclose()
    return answers


@pytest.fixture(params=["private loops", "fallback"])
def loops(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fallback":
        # The SDK as elision sees it, without its private loops (the SDK itself keeps them).
        monkeypatch.setattr(serve, "sdk_runner", SimpleNamespace())
        assert serve._era_loops() is None
    else:
        assert serve._era_loops() is not None
    return str(request.param)


def test_a_handshake_client_is_served(loops: str) -> None:
    list_tools = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    answers = anyio.run(exchange, [HANDSHAKE_OPEN, INITIALIZED, list_tools])
    assert answers[0]["result"]["serverInfo"]["name"] == "loop-test"
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["only"]


def test_a_newest_era_client_is_served(loops: str) -> None:
    frames = [{"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": ENVELOPE}}
              for i in (1, 2)]
    answers = anyio.run(exchange, frames)
    assert [a["id"] for a in answers] == [1, 2]
    assert all([t["name"] for t in a["result"]["tools"]] == ["only"] for a in answers)


def test_a_newest_era_connection_refuses_the_handshake_later(loops: str) -> None:
    modern = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}
    answers = anyio.run(exchange, [modern, {**HANDSHAKE_OPEN, "id": 2}])
    assert "result" in answers[0]
    assert answers[1]["error"]["code"] == types.UNSUPPORTED_PROTOCOL_VERSION


@pytest.mark.parametrize("change", [
    # a loop that takes other arguments than the ones passed
    lambda m, view: m.setattr(view, "_serve_legacy_stream", _other_legacy_loop),
    # the era test gone
    lambda m, view: m.delattr(view, "_has_modern_envelope"),
    # not a coroutine function any more
    lambda m, view: m.setattr(view, "_serve_modern_stream", lambda *a, **k: None),
])
def test_a_changed_sdk_means_the_public_loop(change: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    view = SimpleNamespace(**{name: getattr(sdk_runner, name) for name in (
        "_serve_modern_stream", "_serve_legacy_stream", "_has_modern_envelope")})
    monkeypatch.setattr(serve, "sdk_runner", view)
    assert serve._era_loops() is not None
    change(monkeypatch, view)
    assert serve._era_loops() is None


async def _other_legacy_loop(server: Any, read: Any, write: Any, *, state: Any) -> None:
    raise AssertionError("never called")
