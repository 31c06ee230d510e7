"""ACS §10 signatures: the reference implementation's vectors, and a signing endpoint."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
from typing import Any

import pytest
import rfc8785

from elision.audit.chain import request_hash
from elision.guard.acs import AcsEndpoint
from elision.guard.policy import Guardian
from elision.guard.signing import EnvelopeSigner, hkdf_sha256, signer_from_text
from support.acs import checked, client_hello, message

# Interop vectors published with the ACS reference implementation (agt-go envelope tests).
IKM = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
SESSION = "5c3f1b8e-9a0d-4c2e-8f4b-2d6a7e9c1b30"
RID = "8d0b6b0e-4d6b-4f7a-9d1c-1f1c7f0e2a10"
PARAMS: dict[str, Any] = {
    "acs_version": "0.1.0", "request_id": RID, "timestamp": "2026-09-19T10:00:00Z",
    "metadata": {"agent_id": "agent", "session_id": SESSION},
    "payload": {"tool": {"name": "Bash"}, "arguments": {"command": {"value": "echo rm -rf /"}},
                "raw_command": "echo rm -rf /"},
}
REQUEST: dict[str, Any] = {
    "jsonrpc": "2.0", "method": "steps/toolCallRequest", "id": RID,
    "params": {**PARAMS, "signature": {
        "algorithm": "HMAC-SHA256", "value": "yJ3BXf/Hfc3jSnSMgOoNVGQ+5LKBKakvctDwE52lrM0=",
        "key_id": "k1"}},
}


def test_session_key_request_signature_and_request_hash_match_the_reference() -> None:
    assert hkdf_sha256(IKM, SESSION.encode()).hex() == (
        "4e86230ba407bc623132e84189722dc2b4ab73f217ff67e0492c82fdf0d66309")
    assert EnvelopeSigner(IKM, "k1").verify(REQUEST, "params", SESSION) is None
    assert request_hash(PARAMS) == (
        "1f73e15e340da6bc294e18e38557aef0241921fd3985c94266e1b7416c743058")


def test_response_signature_matches_the_reference() -> None:
    response: dict[str, Any] = {"jsonrpc": "2.0", "id": RID, "result": {
        "type": "final", "acs_version": "0.1.0", "request_id": RID, "decision": "deny",
        "reasoning": "blocked", "reason_codes": ["destructive_shell_command_blocked"],
        "chain_hash": "14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111"}}
    EnvelopeSigner(IKM, "k1").sign(response, "result", SESSION)
    assert response["result"]["signature"] == {
        "algorithm": "HMAC-SHA256", "value": "Shh4i+RWlfCNfAoFlE7gp5QUoyCI8jz3HMKHzH/2gG0=",
        "key_id": "k1"}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("params", "metadata", "session_id"), "another-session"),  # lifted into a session
        (("params", "payload", "raw_command"), "echo hi"),  # altered content
        (("method",), "steps/toolCallResult"),  # re-wrapped under another method
    ],
)
def test_an_altered_request_does_not_verify(path: tuple[str, ...], value: str) -> None:
    tampered = copy.deepcopy(REQUEST)
    node = tampered
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    assert EnvelopeSigner(IKM, "k1").verify(tampered, "params", SESSION) is not None


def independent_check(response: dict[str, Any], member: str, session: str) -> bool:
    body = copy.deepcopy(response)
    sig = body[member].pop("signature")
    prk = hmac.new(bytes(32), IKM, hashlib.sha256).digest()
    key = hmac.new(prk, session.encode() + b"\x01", hashlib.sha256).digest()
    mac = hmac.new(key, rfc8785.dumps(body), hashlib.sha256).digest()
    return bool(sig["value"] == base64.b64encode(mac).decode())


def test_a_signing_endpoint_requires_signed_requests_and_signs_every_answer() -> None:
    endpoint = AcsEndpoint(Guardian([]), signer=EnvelopeSigner(IKM, "k1"))
    hello = message("handshake/hello", client_hello(), SESSION)
    unsigned = checked(endpoint.handle(hello))
    assert unsigned["error"]["code"] == -32004
    assert independent_check(unsigned, "error", SESSION)
    EnvelopeSigner(IKM, "k1").sign(hello, "params", SESSION)
    answer = checked(endpoint.handle(hello), "handshake/hello")
    assert answer["result"]["signature_algorithms_supported"] == ["HMAC-SHA256"]
    assert answer["result"]["profiles_accepted"] == ["acs-core", "acs-audit"]
    assert independent_check(answer, "result", SESSION)
    ping = checked(endpoint.handle(message("system/ping", {}, SESSION, msg_id=2)))
    assert ping["result"]["decision"] == "allow" and "signature" not in ping["result"]


def test_no_profile_is_claimed_without_the_baseline_signature() -> None:
    """Issue 15: the ServerHello claimed ACS-Core (in the wrong case, too) with no signing
    key, though ACS-Core requires the §10 baseline signature."""
    answer = checked(AcsEndpoint(Guardian([])).handle(
        message("handshake/hello", client_hello(), SESSION)), "handshake/hello")
    assert answer["result"]["profiles_accepted"] == []
    assert answer["result"]["signature_algorithms_supported"] == []


def test_a_short_key_is_refused_without_showing_it() -> None:
    with pytest.raises(Exception, match="at least 16 bytes") as info:
        signer_from_text("tiny-key")
    assert "tiny-key" not in str(info.value)
