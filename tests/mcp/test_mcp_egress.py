"""The egress gate on its own: exemptions, bounds, seams, names, and the HTTP adapter.

The end-to-end tables and properties are in ``test_mcp_egress_channels_e2e.py`` and
``test_mcp_egress_property_e2e.py``; these pin the sharp edges one at a time.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import anyio
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.agent.scopes import asgi_scope, auth_scope
from elision.mcp.gate.egress import (
    ERROR_BUDGET_BYTES,
    NOTIFICATION_BUDGET_BYTES,
    Egress,
    gated_app,
    redact_seams,
    refused_name,
)

TOKEN = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"
OPAQUE = "abcdefABCDEF0123456789xyzQRS"  # what a weak-name rule takes for a token


def gate(message: dict[str, Any], kind: str | None = None) -> dict[str, Any]:
    kept: list[bytes] = []

    def keep(body: bytes, scope: str | None) -> str:
        kept.append(body)
        return "el_kept"

    out = Egress(keep=keep).gate_bytes(orjson.dumps(message), kind, "scope")
    value: dict[str, Any] = orjson.loads(out)
    return value


@pytest.mark.parametrize(
    ("message", "path"),
    [
        # the agent's progress token, opaque: a weak "token" name would withhold it
        ({"jsonrpc": "2.0", "method": "notifications/progress",
          "params": {"progressToken": OPAQUE, "progress": 1, "message": TOKEN}},
         ("params", "progressToken")),
        # the agent's request id
        ({"jsonrpc": "2.0", "id": OPAQUE, "result": {"content": [], "x": TOKEN}}, ("id",)),
        # a cursor the agent hands back as it was given
        ({"jsonrpc": "2.0", "id": 1, "result": {"nextCursor": OPAQUE, "tools": [],
                                                "_meta": {"k": TOKEN}}},
         ("result", "nextCursor")),
        # a cancellation's target
        ({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": OPAQUE, "reason": TOKEN}}, ("params", "requestId")),
        # the progress token of a request made of the client
        ({"jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage",
          "params": {"_meta": {"progressToken": OPAQUE}, "messages": [TOKEN]}},
         ("params", "_meta", "progressToken")),
    ],
)
def test_exempt_members_stay_and_the_rest_is_redacted(
    message: dict[str, Any], path: tuple[str, ...]
) -> None:
    out = gate(message)
    value: Any = out
    for key in path:
        value = value[key]
    assert value == OPAQUE
    assert TOKEN not in json.dumps(out)


def test_keys_and_unknown_members_at_any_depth_are_redacted() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], TOKEN: 1, "extra": [{"deep": {TOKEN: [TOKEN]}}]}}
    out = gate(message)
    assert TOKEN[4:16] not in json.dumps(out)
    assert out["result"]["extra"][0]["deep"]  # the member stays, its key stubbed


def test_a_clean_message_goes_out_as_the_same_bytes() -> None:
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": "all good"}]}})
    assert Egress().gate_bytes(raw, "result") is raw
    assert Egress().gate_bytes(raw, None) is raw


def test_an_error_over_its_bound_is_cut_and_its_full_text_kept() -> None:
    kept: list[bytes] = []
    text = "first line " + "e" * 1_600_000 + " last"
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 9,
                        "error": {"code": 42, "message": text, "data": {"k": 1}}})
    out = Egress(keep=lambda body, scope: kept.append(body) or "el_full").gate_bytes(
        raw, "error", "s")
    assert len(out) <= ERROR_BUDGET_BYTES
    error = orjson.loads(out)["error"]
    assert error["code"] == 42 and orjson.loads(out)["id"] == 9
    assert "elision_fetch(ref='el_full')" in error["message"]
    full = text + '\n\ndata: {"k":1}'
    assert f"of {len(full):,} chars" in error["message"]
    assert kept == [full.encode()]


@pytest.mark.parametrize(
    "params",
    [
        # one huge string
        {"level": "info", "data": "l" * 1_100_000},
        # a huge key
        {"level": "info", "data": {"k" * 50_000: 1}},
        # many strings, none huge alone
        {"level": "info", "data": ["x" * 900] * 400},
        # thousands of small members: cutting strings cannot help
        {"level": "info", "data": list(range(20_000))},
    ],
)
def test_a_notification_over_its_bound_is_cut_to_it(params: dict[str, Any]) -> None:
    raw = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
    out = Egress().gate_bytes(raw, "notification")
    assert len(out) <= NOTIFICATION_BUDGET_BYTES
    message = orjson.loads(out)
    assert message["method"] == "notifications/message"
    assert message["params"]["level"] == "info"


@given(st.text(max_size=60), st.integers(1, len(TOKEN) - 1), st.text(max_size=60))
@settings(max_examples=200)
def test_a_token_split_across_two_blocks_never_reads_whole_when_joined(
    before: str, cut: int, after: str
) -> None:
    left, right = before + " " + TOKEN[:cut], TOKEN[cut:] + " " + after
    out = redact_seams([left, right])
    joined = "".join(t or "" for t in out)
    assert TOKEN[4:16] not in joined or TOKEN[4:16] in before + after


@pytest.mark.parametrize(
    "texts",
    [
        ["hello", "world"],  # nothing to find
        [f"a whole {TOKEN} here", "next"],  # whole in one block: not the seams' job
        ["a", None, "b"],  # a block that is not text breaks adjacency
    ],
)
def test_seams_change_nothing_that_does_not_cross_them(texts: list[str | None]) -> None:
    assert redact_seams(texts) == texts


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("search", False),
        ("repo.read-file_v2", False),
        ("café", False),
        ("", True),
        ("evil\u202etxt", True),  # a bidi override
        ("zero\u200bwidth", True),  # a zero-width space
        ("bell\x07", True),
        ("[b]bold[/b]", True),  # rich markup
        ("<script>", True),
        ("`code`", True),
    ],
)
def test_refused_names(name: str, refused: bool) -> None:
    assert (refused_name(name) is not None) is refused


def test_a_blob_that_decodes_to_text_is_read_as_text() -> None:
    blob = base64.b64encode(f"push with {TOKEN} please\n".encode()).decode()
    out = gate({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
        {"uri": "test://x", "blob": blob}]}})
    shown = base64.b64decode(out["result"]["contents"][0]["blob"]).decode()
    assert TOKEN not in shown and "push with [credential withheld" in shown


def test_a_binary_blob_is_left_as_it_is() -> None:
    blob = base64.b64encode(bytes(range(256))).decode()
    out = gate({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
        {"uri": "test://x", "blob": blob}]}})
    assert out["result"]["contents"][0]["blob"] == blob


def _asgi_run(chunks: list[bytes], content_type: bytes) -> bytes:
    """What an app that answers in ``chunks`` sends once gated."""
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type), (b"content-length", b"999")]})
        for i, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk,
                        "more_body": i < len(chunks) - 1})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        await gated_app(app, Egress(), lambda scope: None)({"type": "http"}, None, send)

    anyio.run(main)
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_an_sse_event_split_across_chunks_is_gated_whole() -> None:
    event = (b"event: message\r\ndata: " + orjson.dumps(
        {"jsonrpc": "2.0", "method": "notifications/message",
         "params": {"level": "info", "data": TOKEN}}) + b"\r\n\r\n")
    cut = event.index(TOKEN[:10].encode()) + 5  # the chunk boundary splits the token
    body = _asgi_run([event[:cut], event[cut:], b""], b"text/event-stream")
    assert TOKEN[4:16].encode() not in body
    assert body.startswith(b"event: message") and body.endswith(b"\r\n\r\n")


def test_a_json_body_is_gated_whole_and_its_length_set_again() -> None:
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": TOKEN}})
    body = _asgi_run([raw[:20], raw[20:]], b"application/json")
    assert TOKEN[4:16].encode() not in body
    assert orjson.loads(body)["error"]["code"] == 1


def test_a_gate_that_fails_withholds_and_still_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed, keep the session: a bug in the gate never lets a message through
    ungoverned, and a request still gets an answer (an error), so no call hangs."""

    def broken(self: Egress, message: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Egress, "_redacted", broken)
    answer = orjson.dumps({"jsonrpc": "2.0", "id": 5, "result": {"x": TOKEN}})
    out = orjson.loads(Egress().gate_bytes(answer, "result"))
    assert out["id"] == 5 and out["error"]["code"] == -32603 and TOKEN not in str(out)
    note = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                         "params": {"level": "info", "data": TOKEN}})
    assert Egress().gate_bytes(note, "notification") == b""


@pytest.mark.parametrize(
    ("headers", "require", "expected"),
    [
        # a session (handshake era): the scope client_scope gives its connection
        ([(b"mcp-session-id", b"s-1")], False,
         "session:" + hashlib.sha256(b"s-1").hexdigest()[:32]),
        # stateless with a credential: its hash
        ([(b"authorization", b"Bearer abc")], False, auth_scope("Bearer abc", None)),
        # stateless and nameless: the proxy's shared scope, or a throwaway one when required
        ([], False, "proxy:shared"),
        ([], True, "unnamed:"),
    ],
)
def test_an_http_clients_scope_for_a_kept_error(
    headers: list[tuple[bytes, bytes]], require: bool, expected: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ELISION_SCOPE_KEY", raising=False)
    got = asgi_scope({"headers": headers}, shared="proxy:shared", require_auth_scope=require)
    assert got.startswith(expected) if expected == "unnamed:" else got == expected
