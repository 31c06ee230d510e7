"""The ACS endpoint, driven over HTTP: handshake, the hooks, bounded outputs by ref.

Every response goes through :func:`support.acs.checked`, which asserts that the standard's
schemas accept it.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
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
from support.acs import Driver, beside, checked, inside, post_raw, request_payload

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
def client(server: GuardianServer) -> Driver:
    return Driver.http(server.url)


def test_handshake_then_both_steps_write_a_verifiable_chain(
    client: Driver, log: AuditLog, tmp_path: Path
) -> None:
    hello = client.hello()["result"]
    assert hello["negotiated_version"] == "0.1.0"
    assert {"steps/toolCallRequest", "steps/toolCallResult"} <= set(hello["methods_evaluated"])

    request = client.call("steps/toolCallRequest", {
        "tool": {"name": "search", "server": "docs"},
        "arguments": {"q": {"value": "refunds"}, "token": {"value": SECRET}}})["result"]
    assert request["decision"] == "modify"
    assert request["modifications"]["redactions"][0]["path"] == "/arguments/token/value"
    assert SECRET not in orjson.dumps(request).decode()
    assert request["reasoning"]
    assert request["chain_hash"] == session_head(log)

    result = client.result({"value": {"rows": [1, 2, 3]}})["result"]
    assert result["decision"] == "allow"
    assert "reasoning" not in result
    assert result["chain_hash"] == session_head(log) != request["chain_hash"]

    denied = client.call("steps/toolCallRequest", request_payload("shell", cmd="ls"))["result"]
    assert denied["decision"] == "deny"
    assert "deny list" in denied["reasoning"]
    assert denied["reason_codes"] == ["tool_denied"]

    entries = list(log.entries())
    assert [e["step_type"] for e in entries] == [
        "steps/toolCallRequest", "steps/toolCallResult", "steps/toolCallRequest"]
    assert entries[0]["withheld"] == {"api-key": 1}
    assert entries[2]["shown"] == {"sha256": hashlib.sha256(b"").hexdigest(), "bytes": 0}
    assert all(e["session_id"] == client.session for e in entries)
    log.checkpoint()  # a keyed verify wants the checkpoint file the close would write
    assert verify_log(tmp_path / "audit.db", key=KEY).ok


def session_head(log: AuditLog) -> str:
    """The head of the session's own chain: what the Guardian publishes as chain_hash."""
    return str(list(log.entries())[-1]["acs"]["entry_hash"])


def test_a_bounded_output_is_resolved_by_ref_and_decided_on_the_whole(
    client: Driver, store: MemoryStore, log: AuditLog
) -> None:
    # The secret sits past the inline prefix: only the full body shows it.
    body = orjson.dumps({"rows": ["x" * 50] * 20, "tail": SECRET})
    digest = hashlib.sha256(body).hexdigest()
    store.put(body, ref="el_test_ref", sha256=digest, format="json")
    client.hello()
    result = client.result(beside(body, "el_test_ref"), tool="dump")["result"]
    assert result["decision"] == "modify"
    assert result["modifications"]["redactions"][0]["path"] == "/outputs/0/value/tail"
    (entry,) = list(log.entries())
    assert entry["full"] == {"sha256": digest, "bytes": len(body)}
    assert entry["complete"] is False  # modified, so not shown whole
    assert "evidence" not in entry
    assert entry["outputs"] == [{"sha256": digest, "bytes": len(body), "bounded": True,
                                 "evidence": "full"}]


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
    client: Driver, store: MemoryStore, log: AuditLog, ref: str | None
) -> None:
    """Issue 15: a bound the Guardian could not resolve was answered allow with
    partial_evidence, a decision on a prefix; it is a deny, recorded as one."""
    body = orjson.dumps({"rows": ["x" * 50] * 20, "tail": SECRET})
    other = b'{"something": "else"}'
    store.put(other, ref="el_wrong_body", sha256=hashlib.sha256(other).hexdigest(),
              format="json")
    client.hello()
    result = client.result(beside(body, ref), tool="dump")["result"]
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
    driver = Driver(endpoint.handle)
    driver.hello()
    body = b"the whole body, of which only a prefix is inline"
    result = driver.result(beside(body, "el_missing", prefix=8))["result"]
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


def test_steps_before_the_handshake_are_refused(
    server: GuardianServer, client: Driver, log: AuditLog
) -> None:
    error = client.result({"value": "x"})["error"]
    assert error["code"] == -32003
    assert "handshake/hello" in error["message"]
    assert log.head() == (0, None)
    other = Driver.http(server.url)
    client.hello()
    assert other.result({"value": "x"})["error"]["code"] == -32003  # a handshake is per session


def test_a_replayed_request_id_is_refused(client: Driver, log: AuditLog) -> None:
    client.hello()
    rid = "0b7d6f5e-4c3b-4a29-8e17-6f5d4c3b2a19"
    assert "result" in client.result({"value": "x"}, request_id=rid)
    again = client.result({"value": "x"}, request_id=rid)
    assert again["error"]["code"] == -32005
    assert log.head()[0] == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),  # parse error
        (b"[]", -32600),  # a batch: not supported
        (b'{"jsonrpc": "2.0", "method": "system/ping"}', -32600),  # a notification (no id)
        (b'{"jsonrpc": "2.0", "id": 1, "method": "steps/teleport", "params": {}}', -32601),
    ],
)
def test_json_rpc_errors(server: GuardianServer, body: bytes, code: int) -> None:
    assert checked(post_raw(server.url, body))["error"]["code"] == code


def test_no_common_version_is_refused(client: Driver) -> None:
    error = client.hello(acs_versions_supported=["9.0.0"])["error"]
    assert error["code"] == -32001
    assert error["data"]["supported_versions"] == ["0.1.0"]


def test_ping_needs_no_handshake_and_writes_nothing(client: Driver, log: AuditLog) -> None:
    sent = client.call("system/ping", {"echo": "hi"})
    pong = sent["result"]
    assert pong["decision"] == "allow"
    assert pong["payload"]["echo"] == "hi"
    assert pong["request_id"]
    assert "chain_hash" not in pong
    assert log.head() == (0, None)


def test_a_stale_timestamp_is_refused(client: Driver) -> None:
    client.hello()
    error = client.result({"value": "x"}, timestamp="2020-01-01T00:00:00Z")["error"]
    assert error["code"] == -32006


def test_a_result_over_the_ceiling_is_denied_whole(client: Driver) -> None:
    client.hello()
    result = client.result({"value": "y" * 100_001})["result"]
    assert result["decision"] == "deny"
    assert "100,001 bytes" in result["reasoning"]


def test_fails_closed_when_the_audit_record_cannot_be_written(tmp_path: Path) -> None:
    broken = AuditLog(tmp_path / "x.db")
    broken.close()
    with GuardianServer(AcsEndpoint(Guardian([]), broken), "127.0.0.1", 0) as srv:
        client = Driver.http(srv.url)
        client.hello()
        result = client.result({"value": "x"})["result"]
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
    ("method", "payload"),
    [
        ("steps/toolCallResult", SECRET),  # a payload that is a bare string
        ("steps/toolCallRequest", {"tool": {"name": "t"}, "arguments": [SECRET]}),  # a list
        ("steps/toolCallRequest", {"tool": {"name": "t"}, "arguments": {"k": SECRET}}),  # bare
        ("steps/toolCallResult", {"tool": {"name": "t"}, "exit_status": "success",
                                  "outputs": [{"value": "x", "truncated": True,
                                               "digest": SECRET}]}),  # bad digest
    ],
)
def test_errors_never_echo_a_credential(client: Driver, method: str, payload: Any) -> None:
    client.hello()
    response = client.call(method, payload)
    assert response["error"]["code"] == -32602
    assert SECRET not in orjson.dumps(response).decode()


@given(
    st.one_of(st.text(max_size=100), st.text(max_size=100).map(lambda t: t + SECRET + t)),
    st.integers(0, 10_240),
)
def test_the_endpoint_decision_ignores_padding(x: str, pad_len: int) -> None:
    endpoint = AcsEndpoint(Guardian([RedactionPolicy(fake_find), SizeCeiling(100_000)]))
    driver = Driver(endpoint.handle)
    driver.hello()

    def decide(value: Any) -> Any:
        result = driver.result({"value": value})["result"]
        return result["decision"], result.get("reason_codes")

    pad = " " * pad_len
    assert decide(x) == decide(pad + x + pad) == decide({"a": pad, "x": x, "b": pad})


def test_inside_placement_is_read_too(client: Driver, store: MemoryStore) -> None:
    body = orjson.dumps({"rows": ["x" * 50] * 20, "tail": SECRET})
    store.put(body, ref="el_in", sha256=hashlib.sha256(body).hexdigest(), format="json")
    client.hello()
    result = client.result(inside(body, "el_in"), tool="dump")["result"]
    assert result["decision"] == "modify"
    assert result["modifications"]["redactions"][0]["path"] == "/outputs/0/value/tail"
