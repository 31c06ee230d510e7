"""Bridged calls run on a pool of worker tasks (see elision.mcp.agent.bridge): a worker is reused,
runs in the proxy's context rather than in that of the request that started it, survives a
call that was cancelled, and ends on close so its task group can."""

from __future__ import annotations

import contextvars
import gc
import weakref
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest

from elision.mcp.agent.bridge import Bridge, Held
from elision.mcp.asking import Asking
from elision.mcp.upstream.upstream import Deadline
from elision.pipeline import Pipeline

NEWEST = "2026-07-28"
#: Set by a "request handler" before its call; a worker must not see it.
REQUEST_VAR: contextvars.ContextVar[str | None] = contextvars.ContextVar("request", default=None)


def ctx() -> Any:
    caps = types.ClientCapabilities(
        elicitation=types.ElicitationCapability(form=types.FormElicitationCapability())
    )
    session = SimpleNamespace(_connection=object(), client_capabilities=caps,
                              can_send_request=False)
    return SimpleNamespace(session=session, protocol_version=NEWEST, request_id=1)


def upstream(timeout: float = 5.0) -> Any:
    return SimpleNamespace(name="bank", spec=SimpleNamespace(timeout=timeout), modern=False)


def elicit() -> types.ElicitRequest:
    return types.ElicitRequest(params=types.ElicitRequestFormParams(
        message="Transfer 5 EUR?", requested_schema={"type": "object", "properties": {}},
    ))


def result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)])


def test_bridged_calls_reuse_a_worker_that_sees_no_request_s_variables() -> None:
    ask = Asking(Pipeline(), lambda: [])
    up = upstream()
    tasks: list[int] = []
    seen: list[str | None] = []

    async def send(deadline: Deadline) -> Any:
        tasks.append(anyio.get_current_task().id)
        seen.append(REQUEST_VAR.get())
        return result("done")

    async def handler(name: str) -> Any:
        REQUEST_VAR.set(name)  # as if the SDK's request task had it
        return await ask.run(ctx(), up, tool="bank__t", scope="s", send=send)

    async def main() -> None:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                ask.start(tg)
                for name in ("first", "second", "third"):
                    outcome = await contextvars.copy_context().run(handler, name)
                    assert outcome == result("done")
                ask.close()

    anyio.run(main)
    assert len(tasks) == 3 and len(set(tasks)) == 1, tasks
    assert seen == [None, None, None]


def test_a_worker_runs_the_next_call_after_one_was_cancelled() -> None:
    ask = Asking(Pipeline(redactor=None), lambda: [])
    up = upstream(timeout=0.2)
    tasks: list[int] = []
    ended: list[str] = []

    async def asks(deadline: Deadline) -> Any:
        tasks.append(anyio.get_current_task().id)
        try:
            await ask.answer(up, elicit())  # nobody answers: the bridge expires the call
            await anyio.sleep_forever()
        finally:
            ended.append("asks")

    async def plain(deadline: Deadline) -> Any:
        tasks.append(anyio.get_current_task().id)
        return result("after")

    async def main() -> None:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                ask.start(tg)
                first = await ask.run(ctx(), up, tool="bank__t", scope="s", send=asks)
                assert isinstance(first, types.InputRequiredResult)
                while not ended:
                    await anyio.sleep(0.02)
                second = await ask.run(ctx(), up, tool="bank__t", scope="s", send=plain)
                assert second == result("after")
                assert len(ask.bridge) == 0
                ask.close()

    anyio.run(main)
    assert ended == ["asks"]
    assert len(tasks) == 2 and tasks[0] == tasks[1]


def test_close_lets_idle_workers_end_and_later_calls_still_run() -> None:
    ask = Asking(Pipeline(), lambda: [])
    up = upstream()
    tasks: list[int] = []

    async def send(deadline: Deadline) -> Any:
        tasks.append(anyio.get_current_task().id)
        return result("ok")

    async def main() -> None:
        with anyio.fail_after(5):  # an idle worker left waiting would hold the group open
            async with anyio.create_task_group() as tg:
                ask.start(tg)
                assert await ask.run(ctx(), up, tool="bank__t", scope="s", send=send) \
                    == result("ok")
                ask.close()
                assert await ask.run(ctx(), up, tool="bank__t", scope="s", send=send) \
                    == result("ok")

    anyio.run(main)
    assert len(tasks) == 2 and tasks[0] != tasks[1]


def test_a_finished_bridged_call_is_freed_without_the_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A cycle left per call (the call's record <-> its held state) cost a collection every
    # ~10 calls of a busy proxy; reference counting alone must free a finished call.
    ask = Asking(Pipeline(), lambda: [])
    up = upstream()
    held: list[weakref.ref[Held]] = []
    opened = Bridge.open

    async def recording(self: Bridge, state: Held, send: Any) -> Any:
        held.append(weakref.ref(state))
        return await opened(self, state, send)

    monkeypatch.setattr(Bridge, "open", recording)

    async def send(deadline: Deadline) -> Any:
        return result("ok")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            ask.start(tg)
            for _ in range(3):  # a worker keeps its last call until it is given the next
                await ask.run(ctx(), up, tool="bank__t", scope="s", send=send)
            assert held[0]() is None and held[1]() is None
            ask.close()

    gc.collect()
    gc.disable()
    try:
        anyio.run(main)
    finally:
        gc.enable()
