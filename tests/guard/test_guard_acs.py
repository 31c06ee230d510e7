"""The ACS endpoint, driven over HTTP: handshake, both steps, bounded outputs by ref."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.audit.log import AuditLog
from elision.audit.verify import verify_log
from elision.guard.acs import AcsEndpoint
from elision.guard.policy import Guardian, RedactionPolicy, SizeCeiling, ToolLists
from elision.guard.server import GuardianServer, parse_listen
from elision.store.memory import MemoryStore

KEY = "hmac:acs-test-secret-long-enough"
SECRET = "sk-live-0123456789abcdefSECRET"


@dataclass(frozen=True)
class FakeSpan:
    start: int
    end: int
    rule: str


def fake_find(text: str) -> list[FakeSpan]:
    at = text.find(SECRET)
    return [FakeSpan(at, at + len(SECRET), "api-key")] if at >= 0 else []


class Client:
    def __init__(self, url: str, session: str = "s-1") -> None:
        self.url, self.session, self.next_id = url, session, 0

    def post(self, body: bytes) -> Any:
        req = urllib.request.Request(
            self.url, data=body, headers={"Content-Type": "application/json"}, method="POST"
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return orjson.loads(resp.read())

    def call(self, method: str, payload: Any = None, *, request_id: str | None = None,
             **params: Any) -> Any:
        self.next_id += 1
        envelope: dict[str, Any] = {
            "acs_version": "0.1.0", "request_id": request_id or str(uuid.uuid4()),
            "metadata": {"session_id": self.session, "agent_id": "test"}, **params,
        }
        if payload is not None:
            envelope["payload"] = payload
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": envelope}
        return self.post(orjson.dumps(message))

    def hello(self) -> Any:
        return self.call("handshake/hello", acs_versions_supported=["0.1.0"])


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def log(tmp_path: Path) -> Iterator[AuditLog]:
    with AuditLog(tmp_path / "audit.db", key=KEY) as audit_log:
        yield audit_log


@pytest.fixture
def server(log: AuditLog, store: MemoryStore) -> Iterator[GuardianServer]:
    guardian = Guardian([
        ToolLists(deny=("shell",)), RedactionPolicy(fake_find), SizeCeiling(100_000)
    ])
    with GuardianServer(AcsEndpoint(guardian, log, store), "127.0.0.1", 0) as srv:
        yield srv


@pytest.fixture
def client(server: GuardianServer) -> Client:
    return Client(server.url)


def test_handshake_then_both_steps_write_a_verifiable_chain(
    client: Client, log: AuditLog, tmp_path: Path
) -> None:
    hello = client.hello()["result"]
    assert hello["negotiated_version"] == "0.1.0"
    assert set(hello["methods_evaluated"]) == {"steps/toolCallRequest", "steps/toolCallResult"}

    request = client.call("steps/toolCallRequest",
                          {"tool": {"name": "search", "server": "docs"},
                           "arguments": {"q": "refunds", "token": SECRET}})["result"]
    assert request["decision"] == "modify"
    assert request["modifications"]["redactions"][0]["path"] == "/arguments/token"
    assert SECRET not in orjson.dumps(request).decode()
    assert request["reasoning"]
    assert request["chain_hash"] == log.head()[1]

    result = client.call("steps/toolCallResult",
                         {"tool": {"name": "search"}, "outputs": {"rows": [1, 2, 3]}})["result"]
    assert result["decision"] == "allow"
    assert "reasoning" not in result
    assert result["chain_hash"] == log.head()[1] != request["chain_hash"]

    denied = client.call("steps/toolCallRequest",
                         {"tool": "shell", "arguments": {"cmd": "ls"}})["result"]
    assert denied["decision"] == "deny"
    assert "deny list" in denied["reasoning"]
    assert denied["reason_codes"] == ["tool_denied"]

    entries = list(log.entries())
    assert [e["step_type"] for e in entries] == [
        "steps/toolCallRequest", "steps/toolCallResult", "steps/toolCallRequest"]
    assert entries[0]["withheld"] == {"api-key": 1}
    assert entries[2]["shown"] == {"sha256": hashlib.sha256(b"").hexdigest(), "bytes": 0}
    assert all(e["session_id"] == "s-1" for e in entries)
    log.checkpoint()  # a keyed verify wants the checkpoint file the close would write
    assert verify_log(tmp_path / "audit.db", key=KEY).ok


def bounded(body: bytes, *, ref: str | None, prefix: int = 40) -> dict[str, Any]:
    out: dict[str, Any] = {
        "inline": body[:prefix].decode(), "digest": "sha256:" + hashlib.sha256(body).hexdigest(),
        "truncated": True, "bytes": len(body),
    }
    if ref is not None:
        out["content_ref"] = ref
    return out


def test_a_bounded_output_is_resolved_by_ref_and_decided_on_the_whole(
    client: Client, store: MemoryStore, log: AuditLog
) -> None:
    # The secret sits past the inline prefix: only the full body shows it.
    body = orjson.dumps({"rows": ["x" * 50] * 20, "tail": SECRET})
    digest = hashlib.sha256(body).hexdigest()
    store.put(body, ref="el_test_ref", sha256=digest, format="json")
    client.hello()
    result = client.call("steps/toolCallResult",
                         {"tool": {"name": "dump"}, "outputs": bounded(body, ref="el_test_ref")})
    result = result["result"]
    assert result["decision"] == "modify"
    assert result["modifications"]["redactions"][0]["path"] == "/outputs/tail"
    (entry,) = list(log.entries())
    assert entry["full"] == {"sha256": digest, "bytes": len(body)}
    assert entry["complete"] is False  # modified, so not shown whole
    assert "evidence" not in entry


@pytest.mark.parametrize(
    "ref",
    [
        None,  # no content_ref at all
        "el_not_in_the_store",  # a ref the operator's store does not hold
        "https://attacker.example/body.json",  # a URI: never fetched
        "el_wrong_body",  # held, but the body does not match the digest
    ],
)
def test_an_unresolvable_bound_is_denied_never_allowed_on_its_prefix(
    client: Client, store: MemoryStore, log: AuditLog, ref: str | None
) -> None:
    """Issue 15: a bound the Guardian could not resolve was answered allow with
    partial_evidence, a decision on a prefix; it is a deny, recorded as one."""
    body = orjson.dumps({"rows": ["x" * 50] * 20, "tail": SECRET})
    other = b'{"something": "else"}'
    store.put(other, ref="el_wrong_body", sha256=hashlib.sha256(other).hexdigest(),
              format="json")
    client.hello()
    result = client.call("steps/toolCallResult",
                         {"tool": {"name": "dump"}, "outputs": bounded(body, ref=ref)})["result"]
    assert result["decision"] == "deny"
    assert "partial_evidence" in result["reason_codes"]
    assert "inline prefix" in result["reasoning"]
    assert "modifications" not in result
    (entry,) = list(log.entries())
    assert entry["decision"] == "deny"
    assert "partial_evidence" in entry["reason_codes"]
    assert entry["complete"] is False
    assert entry["evidence"] == "partial"
    assert entry["shown"] == {"sha256": hashlib.sha256(b"").hexdigest(), "bytes": 0}
    assert entry["full"] == {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body)}


def test_partial_evidence_can_be_deferred_instead(log: AuditLog) -> None:
    endpoint = AcsEndpoint(Guardian([]), log, MemoryStore(), on_partial_evidence="defer")
    hello = {"acs_versions_supported": ["0.1.0"], "metadata": {"session_id": "d"}}
    endpoint.handle({"jsonrpc": "2.0", "id": 0, "method": "handshake/hello", "params": hello})
    body = b"the whole body, of which only a prefix is inline"
    result = endpoint.handle({"jsonrpc": "2.0", "id": 1, "method": "steps/toolCallResult",
                              "params": {"request_id": str(uuid.uuid4()),
                                         "metadata": {"session_id": "d"},
                                         "payload": {"tool": "t", "outputs": bounded(
                                             body, ref="el_missing", prefix=8)}}})["result"]
    assert result["decision"] == "defer"
    assert result["reason_codes"] == ["partial_evidence"]
    details = result["defer_details"]
    assert details["timeout_decision"] == "deny"
    assert details["reason"] == "insufficient_context"
    assert details["resolution_timeout_ms"] > 0 and details["resolution_method"]
    (entry,) = list(log.entries())
    assert entry["decision"] == "defer" and entry["complete"] is False


def test_partial_evidence_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="deny or defer"):
        AcsEndpoint(Guardian([]), on_partial_evidence="allow")  # type: ignore[arg-type]


def test_steps_before_the_handshake_are_refused(client: Client, log: AuditLog) -> None:
    error = client.call("steps/toolCallResult", {"tool": "t", "outputs": "x"})["error"]
    assert error["code"] == -32003
    assert "handshake/hello" in error["message"]
    assert log.head() == (0, None)
    other = Client(client.url, session="s-2")
    client.hello()
    assert other.call("steps/toolCallResult", {"tool": "t", "outputs": "x"})["error"][
        "code"] == -32003  # a handshake is per session


def test_a_replayed_request_id_is_refused(client: Client, log: AuditLog) -> None:
    client.hello()
    first = client.call("steps/toolCallResult", {"tool": "t", "outputs": "x"}, request_id="r-1")
    assert "result" in first
    again = client.call("steps/toolCallResult", {"tool": "t", "outputs": "x"}, request_id="r-1")
    assert again["error"]["code"] == -32005
    assert log.head()[0] == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),  # parse error
        (b"[]", -32600),  # a batch: not supported
        (b'{"jsonrpc": "2.0", "method": "system/ping"}', -32600),  # a notification (no id)
        (b'{"jsonrpc": "2.0", "id": 1, "method": "steps/teleport", "params": {}}', -32601),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "handshake/hello",'
         b' "params": {"acs_versions_supported": ["9.0.0"]}}', -32001),  # no common version
    ],
)
def test_json_rpc_errors(client: Client, body: bytes, code: int) -> None:
    assert client.post(body)["error"]["code"] == code


def test_ping_needs_no_handshake_and_writes_nothing(client: Client, log: AuditLog) -> None:
    pong = client.call("system/ping", {"echo": "hi"})["result"]
    assert pong["decision"] == "allow"
    assert pong["payload"]["echo"] == "hi"
    assert "chain_hash" not in pong
    assert log.head() == (0, None)


def test_a_stale_timestamp_is_refused(client: Client) -> None:
    client.hello()
    error = client.call("steps/toolCallResult", {"tool": "t", "outputs": "x"},
                        timestamp="2020-01-01T00:00:00Z")["error"]
    assert error["code"] == -32006


def test_a_result_over_the_ceiling_is_denied_whole(client: Client) -> None:
    client.hello()
    result = client.call("steps/toolCallResult",
                         {"tool": "t", "outputs": "y" * 100_001})["result"]
    assert result["decision"] == "deny"
    assert "100,001 bytes" in result["reasoning"]


def test_fails_closed_when_the_audit_record_cannot_be_written(tmp_path: Path) -> None:
    broken = AuditLog(tmp_path / "x.db")
    broken.close()
    with GuardianServer(AcsEndpoint(Guardian([]), broken), "127.0.0.1", 0) as srv:
        client = Client(srv.url)
        client.hello()
        result = client.call("steps/toolCallResult", {"tool": "t", "outputs": "x"})["result"]
    assert result["decision"] == "deny"
    assert result["reason_codes"] == ["audit_failed"]
    assert "chain_hash" not in result


def test_http_edges(server: GuardianServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(server.url, timeout=10)
    assert info.value.code == 405
    info.value.close()
    wrong = server.url.replace("/acs", "/other")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(urllib.request.Request(wrong, data=b"{}", method="POST"),
                               timeout=10)
    assert info.value.code == 404
    info.value.close()


@pytest.mark.parametrize(
    ("listen", "expected"),
    [
        ("127.0.0.1:8787", ("127.0.0.1", 8787)),
        ("[::1]:0", ("::1", 0)),  # IPv6 in brackets; port 0 picks a free port
        ("8787", None),  # no host
        ("127.0.0.1:http", None),  # not a port number
        ("127.0.0.1:70000", None),  # out of range
    ],
)
def test_parse_listen(listen: str, expected: tuple[str, int] | None) -> None:
    if expected is not None:
        assert parse_listen(listen) == expected
    else:
        with pytest.raises(Exception, match="HOST:PORT"):
            parse_listen(listen)


@pytest.mark.parametrize(
    "payload",
    [
        SECRET,  # a payload that is a bare string
        {"tool": {"name": "t"}, "arguments": [SECRET]},  # arguments that are not an object
        {"tool": {"name": "t"}, "outputs": {"truncated": True, "digest": SECRET}},  # bad digest
    ],
)
def test_errors_never_echo_a_credential(client: Client, payload: Any) -> None:
    client.hello()
    method = "steps/toolCallRequest" if "arguments" in str(payload) else "steps/toolCallResult"
    response = client.call(method, payload)
    assert response["error"]["code"] == -32602
    assert SECRET not in orjson.dumps(response).decode()


@given(
    st.one_of(st.text(max_size=100), st.text(max_size=100).map(lambda t: t + SECRET + t)),
    st.integers(0, 10_240),
)
def test_the_endpoint_decision_ignores_padding(x: str, pad_len: int) -> None:
    endpoint = AcsEndpoint(Guardian([RedactionPolicy(fake_find), SizeCeiling(100_000)]))
    hello = {"acs_versions_supported": ["0.1.0"], "metadata": {"session_id": "p"}}
    endpoint.handle({"jsonrpc": "2.0", "id": 0, "method": "handshake/hello", "params": hello})

    def decide(outputs: Any) -> Any:
        result = endpoint.handle({"jsonrpc": "2.0", "id": 1, "method": "steps/toolCallResult",
                                  "params": {"request_id": str(uuid.uuid4()),
                                             "metadata": {"session_id": "p"},
                                             "payload": {"tool": "t", "outputs": outputs}}})
        return result["result"]["decision"], result["result"].get("reason_codes")

    pad = " " * pad_len
    assert decide(x) == decide(pad + x + pad) == decide({"a": pad, "x": x, "b": pad})
