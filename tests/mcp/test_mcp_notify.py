"""The notifier without processes: redaction of log messages, who gets which notification.

The end-to-end tests (``test_mcp_notify_e2e.py``) show the same over real connections; here
the cases that need exact timing or many inputs: a credential anywhere in a log message, the
level and server filters, and a call whose result waits for the log messages it is owed.
"""

from __future__ import annotations

import json
import weakref
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from mcp.server.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.mcp.agent.notify import Notifier, forwarded_params, redacted_log
from redact.test_redact_properties import credentials, seeded_documents

MODERN = MODERN_PROTOCOL_VERSIONS[-1]
OLDER = "2025-11-25"


class FakeConnection:
    """What the notifier uses of an SDK ``Connection``: its era and ``notify``."""

    def __init__(self) -> None:
        self.protocol_version = OLDER
        self.sent: list[tuple[str, Any]] = []

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class FakeSession:
    """A call's ``ServerSession``: writing a notification takes ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.sent: list[tuple[Any, Any]] = []

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        await anyio.sleep(self.delay)
        self.sent.append((notification.params.data, related_request_id))


def notifier(*connections: FakeConnection) -> Notifier:
    held: weakref.WeakSet[Any] = weakref.WeakSet(connections)
    return Notifier({}, lambda uri: None, held)


def log(level: str, data: Any) -> dict[str, Any]:
    return {"level": level, "data": data, "logger": "app"}


def modern_ctx(session: FakeSession, level: str | None, request_id: int = 7) -> Any:
    meta = {types.LOG_LEVEL_META_KEY: level} if level else None
    return SimpleNamespace(protocol_version=MODERN, meta=meta, request_id=request_id,
                           session=session)


@given(seeded=seeded_documents())
def test_a_credential_anywhere_in_a_log_message_is_withheld(
    seeded: tuple[Any, Any, str, str],
) -> None:
    doc, want, secret, _rule = seeded
    out = redacted_log(log("error", doc))
    assert secret not in json.dumps(out, ensure_ascii=False)
    assert out["data"] == want
    assert out["level"] == "error"


@given(cred=credentials())
def test_a_credential_in_the_logger_name_is_withheld(cred: tuple[str, str, str, str]) -> None:
    text, _stub, secret, _rule = cred
    out = redacted_log({"level": "info", "data": "ok", "logger": f"svc {text}"})
    assert secret not in out["logger"] and out["data"] == "ok"


def test_forwarded_params_drop_the_upstream_hops_reserved_meta() -> None:
    note = types.ResourceUpdatedNotificationParams(uri="test://feed", _meta={
        "io.modelcontextprotocol/subscriptionId": "listen-1", "trace": "t1",
    })
    assert forwarded_params(note) == {"uri": "test://feed", "_meta": {"trace": "t1"}}
    bare = types.ResourceUpdatedNotificationParams(
        uri="test://feed", _meta={"io.modelcontextprotocol/subscriptionId": 3}
    )
    assert forwarded_params(bare) == {"uri": "test://feed"}
    assert forwarded_params(None) is None


@pytest.mark.parametrize(("method", "event"), [
    ("notifications/tools/list_changed", ToolsListChanged()),
    ("notifications/prompts/list_changed", PromptsListChanged()),
    ("notifications/resources/list_changed", ResourcesListChanged()),
])
def test_a_list_change_reaches_both_eras(method: str, event: ServerEvent) -> None:
    older = FakeConnection()
    hub = notifier(older)
    published: list[ServerEvent] = []
    hub.bus.subscribe(published.append)
    anyio.run(hub.changed, method, None)
    assert older.sent == [(method, None)]
    assert published == [event]


@pytest.mark.parametrize(("uri", "gets"), [
    ("test://dir", True),  # the uri it subscribed to
    ("test://dir/file", True),  # one beneath it, which the protocol lets a server name
    ("test://dirt", False),  # a longer name is another resource
    ("https://b.s3.amazonaws.com/o?X-Amz-Signature=e1", False),  # nobody asked: not told
])
def test_an_update_reaches_the_older_agents_that_subscribed_to_it(uri: str, gets: bool) -> None:
    subscriber, bystander = FakeConnection(), FakeConnection()
    hub = notifier(subscriber, bystander)
    # What on_subscribe records once an upstream took the subscription.
    hub._subscribed[subscriber] = {"test://dir"}  # type: ignore[index]
    published: list[ServerEvent] = []
    hub.bus.subscribe(published.append)
    method = "notifications/resources/updated"
    anyio.run(hub.changed, method, {"uri": uri})
    assert subscriber.sent == ([(method, {"uri": uri})] if gets else [])
    assert bystander.sent == []
    # Listen streams filter for themselves (exact uris), so every update is published.
    assert published == [ResourceUpdated(uri)]


def test_log_messages_go_to_the_calls_that_asked_for_their_level_and_server() -> None:
    older, quiet = FakeConnection(), FakeConnection()
    hub = notifier(older, quiet)
    session = FakeSession()
    setter = hub.around_set_level(_ok)

    async def handler(ctx: Any, params: Any) -> str:
        await hub.log("up", log("info", "below"))
        await hub.log("up", log("error", "wanted"))
        await hub.log("other", log("critical", "another server's"))
        return "result"

    async def main() -> None:
        await setter(SimpleNamespace(session=SimpleNamespace(_connection=quiet)),
                     types.SetLevelRequestParams(level="critical"))
        call = hub.around_call(handler, lambda params: "up")
        assert await call(modern_ctx(session, "warning"), None) == "result"
        # Not in flight any more: nothing reaches that call.
        await hub.log("up", log("emergency", "late"))

    anyio.run(main)
    assert session.sent == [("wanted", 7)]
    # The older agent that set no level gets every message; the one at critical, those only.
    assert [p["data"] for _, p in older.sent] == [
        "below", "wanted", "another server's", "late"
    ]
    assert [p["data"] for _, p in quiet.sent] == ["another server's", "late"]


def test_a_call_that_asked_for_no_log_messages_gets_none() -> None:
    hub = notifier()
    session = FakeSession()

    async def handler(ctx: Any, params: Any) -> str:
        await hub.log("up", log("emergency", "loud"))
        return "result"

    anyio.run(hub.around_call(handler, lambda params: "up"), modern_ctx(session, None), None)
    assert session.sent == []


def test_a_calls_result_waits_for_the_log_messages_it_is_owed() -> None:
    # The upstream's log message is carried by another task (the upstream session's), which
    # may still be writing it when the call's result is ready: the result waits.
    hub = notifier()
    session = FakeSession(delay=0.2)

    async def main() -> None:
        async with anyio.create_task_group() as tg:

            async def handler(ctx: Any, params: Any) -> str:
                tg.start_soon(hub.log, "up", log("warning", "during"))
                await anyio.sleep(0)  # the carrier has chosen its calls and is writing
                return "result"

            call = hub.around_call(handler, lambda params: None)
            assert await call(modern_ctx(session, "debug"), None) == "result"
            assert session.sent == [("during", 7)]

    anyio.run(main)


async def _ok(ctx: Any, params: Any) -> types.EmptyResult:
    return types.EmptyResult()
