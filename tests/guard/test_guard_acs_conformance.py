"""ACS-Core MUSTs (issue 15), each with the section it comes from. Every response is checked
against the standard's schemas by :class:`support.acs.Driver`.

Found by checking the Guardian against the standard's schemas and conformance list: 51 of 72
checks passed; these cases are the ones that did not.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from elision.audit.log import AuditLog
from elision.audit.verify import recompute_hash
from elision.guard.acs import AcsEndpoint
from elision.guard.acs_session import context_entry
from elision.guard.policy import Decision, Guardian, Redaction, ToolCall, ToolResult
from support.acs import HOOKS, Driver, checked, client_hello, message, request_payload


class Scripted:
    """Answers what the test sets, and remembers what it was shown."""

    id = "scripted"

    def __init__(self) -> None:
        self.answer = Decision.allow()
        self.seen: list[tuple[ToolResult, ToolCall]] = []

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        self.seen.append((result, call))
        return self.answer


@pytest.fixture
def log(unkeyed_log: AuditLog) -> AuditLog:
    return unkeyed_log


@pytest.fixture
def policy() -> Scripted:
    return Scripted()


@pytest.fixture
def endpoint(log: AuditLog, policy: Scripted) -> AcsEndpoint:
    return AcsEndpoint(Guardian([policy]), log)


@pytest.fixture
def driver(endpoint: AcsEndpoint) -> Driver:
    driver = Driver(endpoint.handle)
    driver.hello()
    return driver


# --- §3 envelope, conformance.md: request_id, timestamp, acs_version, metadata required ------


@pytest.mark.parametrize(
    "drop",
    ["timestamp", "request_id", "acs_version", "metadata.agent_id", "metadata.session_id"],
)
def test_a_request_missing_a_required_member_is_an_error_not_a_decision(
    driver: Driver, log: AuditLog, drop: str
) -> None:
    sent = message("steps/toolCallRequest", request_payload(q="x"), driver.session)
    container, _, name = drop.rpartition(".")
    (sent["params"][container] if container else sent["params"]).pop(name)
    response = checked(driver.send(sent))
    assert response["error"]["code"] == -32602
    assert name in response["error"]["message"]
    assert log.head() == (0, None)


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("request_id", "r-1"),  # §10.3: a UUID
        ("timestamp", "yesterday"),  # §10.3: ISO 8601
        ("acs_version", "0.1"),  # §3: X.Y.Z
    ],
)
def test_a_malformed_envelope_member_is_refused(
    driver: Driver, member: str, value: str
) -> None:
    response = driver.call("steps/toolCallRequest", request_payload(q="x"), **{member: value})
    assert response["error"]["code"] == -32602
    assert value not in response["error"]["message"] or member == "acs_version"


def test_a_replayed_nonce_is_refused(driver: Driver) -> None:
    """§10.3: duplicate nonce values within the session are REPLAY_DETECTED."""
    nonce = "n0nce-0123456789abcdef"
    assert "result" in driver.call("steps/toolCallRequest", request_payload(), nonce=nonce)
    again = driver.call("steps/toolCallRequest", request_payload(), nonce=nonce)
    assert again["error"]["code"] == -32005


@pytest.mark.parametrize(
    "method",
    ["steps/turnStart", "steps/postCompact", "agbom/snapshot", "protocols/MCP/tools/call"],
)
def test_a_defined_method_it_does_not_evaluate_is_not_negotiated(
    driver: Driver, method: str
) -> None:
    """§17.1: a method the handshake did not negotiate is -32003 with data.method; -32601
    is for methods ACS does not define."""
    error = driver.call(method, {})["error"]
    assert error["code"] == -32003
    assert error["data"]["method"] == method
    assert driver.call("steps/teleport", {})["error"]["code"] == -32601


def test_ping_results_carry_the_request_id(endpoint: AcsEndpoint) -> None:
    """§13 answers with the standard decision envelope, whose request_id is required."""
    sent = message("system/ping", {"echo": "hi"}, str(uuid.uuid4()))
    pong = checked(endpoint.handle(sent))["result"]
    assert pong["request_id"] == sent["params"]["request_id"]


# --- §4 handshake -----------------------------------------------------------------------


def test_the_version_is_negotiated_from_the_client_hello_payload(endpoint: AcsEndpoint) -> None:
    driver = Driver(endpoint.handle)
    hello = driver.hello(acs_versions_supported=["2.0.0", "0.1.3"])["result"]
    assert hello["negotiated_version"] == "0.1.0"
    # A version list beside the payload, not in it, is not a ClientHello.
    sent = message("handshake/hello", {}, driver.session, acs_versions_supported=["0.1.0"])
    assert checked(endpoint.handle(sent))["error"]["code"] == -32602


def test_methods_evaluated_is_what_the_client_declared(endpoint: AcsEndpoint) -> None:
    driver = Driver(endpoint.handle)
    hello = driver.hello(methods_implemented=["steps/toolCallResult", "steps/knowledgeRetrieval"])
    assert hello["result"]["methods_evaluated"] == ["steps/toolCallResult"]
    error = driver.call("steps/toolCallRequest", request_payload())["error"]
    assert error["code"] == -32003 and error["data"]["method"] == "steps/toolCallRequest"


def test_a_stale_handshake_is_refused(endpoint: AcsEndpoint) -> None:
    """§10.3: the skew window applies to every request, the handshake too."""
    driver = Driver(endpoint.handle)
    error = driver.call("handshake/hello", client_hello(), timestamp="2020-01-01T00:00:00Z")
    assert error["error"]["code"] == -32006
    assert error["error"]["data"]["skew_window_ms"] == 300_000


def test_a_client_on_stdio_only_is_refused(endpoint: AcsEndpoint) -> None:
    error = Driver(endpoint.handle).hello(transports_supported=["stdio"])["error"]
    assert error["code"] == -32000


# --- §6 dispositions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "member"),
    [
        (Decision.ask("a human must approve writes", "needs_approval",
                      approver={"type": "human", "id": "oncall"}), "ask_details"),
        (Decision.defer("the repository owner is not known yet", "owner_unknown",
                        defer_reason="pending_dependency"), "defer_details"),
    ],
)
def test_ask_and_defer_go_out_with_their_details(
    driver: Driver, policy: Scripted, log: AuditLog, answer: Decision, member: str
) -> None:
    policy.answer = answer
    result = driver.call("steps/toolCallRequest", request_payload(path="/etc"))["result"]
    assert result["decision"] == answer.kind
    assert result["reasoning"] == answer.reason
    assert result[member] == dict(answer.details or {})
    (entry,) = list(log.entries())
    assert entry["decision"] == answer.kind
    assert entry["shown"]["bytes"] == 0


def test_a_defer_without_a_timeout_decision_fails_closed(driver: Driver, policy: Scripted) -> None:
    policy.answer = Decision("defer", "unsure", details={"reason": "low_confidence"})
    result = driver.call("steps/toolCallRequest", request_payload())["result"]
    assert result["decision"] == "deny"
    assert result["reason_codes"] == ["policy_error"]


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        (("allow", "ask", "defer"), "defer"),  # a verdict not yet reachable comes before asking
        (("ask", "modify"), "ask"),  # a pause outranks a rewrite
        (("defer", "deny"), "deny"),  # a deny always wins
    ],
)
def test_dispositions_combine(kinds: tuple[str, ...], expected: str) -> None:
    answers = {
        "allow": Decision.allow(), "deny": Decision.deny("no", "x"),
        "ask": Decision.ask("approve?"), "defer": Decision.defer("later"),
        "modify": Decision.modify([Redaction("/x", "test")], "m"),
    }
    policies = []
    for n, kind in enumerate(kinds):
        p = Scripted()
        p.id = f"p{n}"  # type: ignore[misc]
        p.answer = answers[kind]
        policies.append(p)
    verdict = Guardian(policies).evaluate(ToolResult({}, 2, "0" * 64), ToolCall("t"))
    assert verdict.decision == expected


# --- §8 SessionContext and chain --------------------------------------------------------


def test_each_session_has_its_own_chain_rooted_at_null(
    endpoint: AcsEndpoint, log: AuditLog
) -> None:
    first, second = Driver(endpoint.handle), Driver(endpoint.handle)
    first.hello()
    second.hello()
    heads = [d.call("steps/toolCallRequest", request_payload())["result"]["chain_hash"]
             for d in (first, second, first)]
    entries = list(log.entries())
    links = [e["acs"] for e in entries]
    assert [link["previous_hash"] for link in links] == [None, None, heads[0]]
    assert [link["entry_id"] for link in links] == ["1", "1", "2"]
    for entry, head in zip(entries, heads, strict=True):
        content = context_entry(entry, entry["acs"]["entry_id"])
        assert recompute_hash({**content, "previous_hash": entry["acs"]["previous_hash"]}) == (
            head)  # §8.2, recomputed by the verifier's own code
    assert entries[1]["previous_hash"] == entries[0]["entry_hash"]  # the log chains them all


def test_a_disagreeing_chain_hash_is_chain_mismatch(driver: Driver, log: AuditLog) -> None:
    """§8.6: the client's session_state.chain_hash is cross-checked."""
    def meta(chain_hash: str) -> dict[str, Any]:
        return {"agent_id": "a", "session_id": driver.session,
                "session_state": {"chain_hash": chain_hash}}

    head = driver.call("steps/toolCallRequest", request_payload())["result"]["chain_hash"]
    fine = driver.call("steps/toolCallRequest", request_payload(), metadata=meta(head))
    assert "result" in fine
    stale = driver.call("steps/toolCallRequest", request_payload(), metadata=meta(head))
    assert stale["error"]["code"] == -32007
    assert stale["error"]["data"]["chain_hash"] == fine["result"]["chain_hash"]
    assert log.head()[0] == 2


def test_entries_carry_a_provenance_summary(driver: Driver, log: AuditLog) -> None:
    """§8.3: origins of the Provenance objects the step carried."""
    driver.call("steps/toolCallResult", {
        "tool": {"name": "t"}, "exit_status": "success", "outputs": [
            {"value": 1, "provenance": {"provenance_id": "p1", "origin": "tool_output"}},
            {"value": 2, "provenance": {"provenance_id": "p2", "origin": "tool_output"}}]})
    (entry,) = list(log.entries())
    assert entry["provenance_summary"] == {"origins_seen": ["tool_output"], "entry_count": 2,
                                           "entry_count_by_origin": {"tool_output": 2}}


# --- policies see raw_command ------------------------------------------------------------


def test_policies_see_raw_command_and_argument_values(driver: Driver, policy: Scripted) -> None:
    payload = {**request_payload("Bash", command="echo hi"), "raw_command": "echo hi; rm -rf /"}
    driver.call("steps/toolCallRequest", payload)
    (result, call) = policy.seen[-1]
    assert call.raw_command == "echo hi; rm -rf /"
    assert call.arguments == {"command": "echo hi"}
    assert result.value["raw_command"] == "echo hi; rm -rf /"


# --- conformance.md: the ACS-Core hook set ----------------------------------------------


@pytest.mark.parametrize("hook", HOOKS)
def test_every_core_hook_is_evaluated_and_audited(
    driver: Driver, policy: Scripted, log: AuditLog, hook: str
) -> None:
    policy.answer = Decision.deny("this Guardian refuses everything", "refused")
    payloads = {"steps/toolCallRequest": request_payload(),
                "steps/toolCallResult": {"tool": {"name": "t"}, "exit_status": "success",
                                         "outputs": [{"value": "x"}]}}
    result = driver.call(hook, payloads.get(hook, {"content": "hello"}))["result"]
    (entry,) = list(log.entries())
    assert entry["step_type"] == hook
    assert result["chain_hash"] == entry["acs"]["entry_hash"]
    if hook == "steps/sessionEnd":  # audit finalization: not decision-eligible
        assert result["decision"] == "allow" and not policy.seen
    else:
        assert result["decision"] == "deny"
        assert policy.seen[-1][1].stage == ("step" if "toolCall" not in hook else (
            "request" if hook.endswith("Request") else "result"))


# --- the verifier checks each session's chain too ----------------------------------------


def test_audit_verify_checks_the_session_chains_and_knows_their_heads(
    endpoint: AcsEndpoint, log: AuditLog
) -> None:
    """A published chain_hash is a session's head: `audit verify --head` must accept it, and a
    session link that does not recompute must fail even when the log's own links do."""
    from elision.audit.chain import link
    from elision.audit.verify import verify_entries

    driver = Driver(endpoint.handle)
    driver.hello()
    heads = [driver.call("steps/toolCallRequest", request_payload())["result"]["chain_hash"]
             for _ in range(3)]
    entries = list(log.entries())
    assert verify_entries(entries, heads=heads).ok
    forged = [dict(e) for e in entries]
    forged[1]["acs"] = {**forged[1]["acs"], "previous_hash": None}  # a second root
    relinked, previous = [], None
    for entry in forged:  # the log's own links made whole again over the forgery
        relinked.append(link(entry, previous))
        previous = relinked[-1]["entry_hash"]
    result = verify_entries(relinked)
    assert not result.ok
    assert result.first_bad == 2
    assert "session" in (result.problem or "")
