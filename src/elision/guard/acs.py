"""The Agent Control Standard (v0.1) JSON-RPC endpoint of the Guardian, transport-free.

Every request is checked against the standard's schemas first (:mod:`acs_schema`): a
request missing ``timestamp``, ``request_id``, ``acs_version`` or ``metadata.agent_id`` is
an error, never a decision. Then ``handshake/hello`` (:mod:`acs_hello`) opens a session; the
ACS-Core hooks it negotiated are evaluated by the Guardian's policies and each writes one
entry to the session's chain (:mod:`acs_session`) and to the audit log. ``system/ping`` needs
no session and writes nothing. A method the specification defines but this Guardian does not
evaluate is -32003; one it does not define is -32601.

Decisions go out in the wire's lowercase names: ``allow``, ``deny``, ``modify`` (JSON-pointer
redactions into the payload), ``ask`` (with ``ask_details``) and ``defer`` (with
``defer_details``), and every response for a step that wrote an entry carries the session's
``chain_hash``.

A ``toolCallResult`` may carry **bounded** outputs (:mod:`acs_bounded`). A bound the Guardian
cannot resolve to its whole body is never decided on its prefix: a Guardian must not allow on
evidence it could not see. The answer is ``deny`` (or ``defer``, if the operator chose it)
with ``partial_evidence``, and the entry says ``evidence: "partial"``. An entry never claims
``complete: true`` for a bounded output: what the agent is shown of it is the client's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import orjson

from elision.audit.chain import TOOL_REQUEST_STEP, TOOL_RESULT_STEP, now_timestamp
from elision.errors import ElisionError
from elision.guard import acs_wire as wire
from elision.guard.acs_bounded import Output, outputs_pointer, read_outputs
from elision.guard.acs_hello import AUDIT_ONLY, EVALUATED, is_defined, negotiate
from elision.guard.acs_record import entry_for, response_for
from elision.guard.acs_schema import check_request, problems
from elision.guard.acs_session import Session, Sessions
from elision.guard.acs_wire import (
    ACS_VERSION,
    CHAIN_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_NEGOTIATED,
    PARSE_ERROR,
    REPLAY_DETECTED,
    SIGNATURE_INVALID,
    AcsError,
)
from elision.guard.policy import Guardian, ToolCall, ToolResult, Verdict
from elision.shape.jsonparse import repeated_keys

if TYPE_CHECKING:
    from elision.audit.log import AuditLog
    from elision.guard.signing import EnvelopeSigner
    from elision.store.base import Store

#: What a Guardian answers when it could not see the whole of a bounded output.
PartialEvidence = Literal["deny", "defer"]
#: How long a deferred partial-evidence verdict waits for a resubmission before it denies.
DEFER_TIMEOUT_MS = 30_000
#: Kept for callers of the old name: the steps about tools.
STEPS = (TOOL_REQUEST_STEP, TOOL_RESULT_STEP)


class AcsEndpoint:
    """Answers ACS JSON-RPC messages with the Guardian's verdicts, writing the audit chain."""

    def __init__(
        self, guardian: Guardian, log: AuditLog | None = None, store: Store | None = None,
        *, signer: EnvelopeSigner | None = None, on_partial_evidence: PartialEvidence = "deny",
    ) -> None:
        """With ``signer``, requests must carry a valid §10 signature and every response
        (whose ``chain_hash`` it covers) is signed; ``system/ping`` is exempt both ways.

        ``on_partial_evidence`` is the answer to a bounded output whose full body could not
        be had: ``deny`` (the default) or ``defer`` (ACS §6, with ``timeout_decision: deny``).
        """
        if on_partial_evidence not in ("deny", "defer"):
            raise ValueError("on_partial_evidence must be deny or defer, got "
                             f"{on_partial_evidence!r}")
        self.guardian, self.log, self.store, self.signer = guardian, log, store, signer
        self.on_partial_evidence: PartialEvidence = on_partial_evidence
        self.sessions = Sessions()

    def handle_bytes(self, raw: bytes) -> bytes:
        """One HTTP body in, one out."""
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return orjson.dumps(wire.error(None, AcsError(
                PARSE_ERROR, f"the request body is not JSON: {exc}", "parse_error")))
        repeats = len(repeated_keys(raw, message))
        if repeats:
            # A reader that keeps the first member would see another request than this one.
            return orjson.dumps(wire.error(_message_id(message), AcsError(
                INVALID_REQUEST, f"the request repeats an object key ({repeats} member(s) "
                "shadowed by a later one with the same key); a Guardian decides on one value "
                "per key: send each key once", "duplicate_keys")))
        return orjson.dumps(self.handle(message))

    def handle(self, message: Any) -> dict[str, Any]:
        msg_id = _message_id(message)
        try:
            response = {"jsonrpc": "2.0", "id": msg_id, "result": self._dispatch(message)}
        except AcsError as exc:
            response = wire.error(msg_id, exc)
        if self.signer is not None and isinstance(message, dict) and (
            message.get("method") != "system/ping"
        ):
            params = message.get("params")
            session = wire.session_id(params) if isinstance(params, Mapping) else ""
            self.signer.sign(response, "result" if "result" in response else "error", session)
        return response

    def _dispatch(self, message: Any) -> dict[str, Any]:
        if isinstance(message, list):
            raise AcsError(INVALID_REQUEST, "batches are not supported; send requests one by "
                           "one", "batch_unsupported")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(
            message.get("method"), str
        ):
            raise AcsError(INVALID_REQUEST, "not a JSON-RPC 2.0 request (needs jsonrpc "
                           "\"2.0\", a method and an id)", "invalid_request")
        if message.get("id") is None:
            raise AcsError(INVALID_REQUEST, "ACS has no notifications: give every request an "
                           "id", "invalid_request")
        method = message["method"]
        if method not in ("handshake/hello", "system/ping") and not is_defined(method):
            raise AcsError(METHOD_NOT_FOUND, f"unknown method {wire.short(method)}; this "
                           f"Guardian evaluates {', '.join(EVALUATED)}", "method_not_found")
        check_request(message)
        params: dict[str, Any] = message["params"]
        if method == "system/ping":
            return self._ping(params)
        if self.signer is not None:
            problem = self.signer.verify(message, "params", wire.session_id(params))
            if problem is not None:
                raise AcsError(SIGNATURE_INVALID, f"{problem}; sign the request per ACS §10 "
                               "with this Guardian's key", "signature_invalid")
        wire.check_timestamp(params["timestamp"])
        if method == "handshake/hello":
            return self._hello(params)
        if method not in EVALUATED:
            raise AcsError(NOT_NEGOTIATED, f"{method} is defined by ACS but this Guardian does "
                           f"not evaluate it; it evaluates {', '.join(EVALUATED)}",
                           "not_negotiated", method=method)
        session = self._admit(method, params)
        return self._step(method, params, session)

    # --- session control ----------------------------------------------------------------

    def _hello(self, params: dict[str, Any]) -> dict[str, Any]:
        found = problems("handshake.json#/$defs/ClientHello", params["payload"])
        if found:
            raise AcsError(INVALID_PARAMS, "params.payload is not a ClientHello (ACS §4): "
                           + "; ".join(found[:5]), "invalid_params", problems=found[:20])
        hello = negotiate(params["payload"], signs=self.signer is not None)
        self.sessions.open(wire.session_id(params), frozenset(hello["methods_evaluated"]))
        # response-envelope.json makes every result an AcsResult; the ServerHello's members
        # sit beside its own, so the one object is valid as both.
        return {"type": "final", "acs_version": ACS_VERSION,
                "request_id": params["request_id"], "decision": "allow", **hello}

    def _admit(self, method: str, params: dict[str, Any]) -> Session:
        session = self.sessions.get(wire.session_id(params))
        if session is None:
            raise AcsError(NOT_NEGOTIATED, f"{method} before handshake/hello for session "
                           f"{wire.short(wire.session_id(params))}; send handshake/hello first",
                           "not_negotiated", method=method)
        if method not in session.methods:
            raise AcsError(NOT_NEGOTIATED, f"{method} was not negotiated for this session: "
                           "declare it in the ClientHello's methods_implemented and shake "
                           "hands again", "not_negotiated", method=method)
        state = params["metadata"].get("session_state")
        claimed = state.get("chain_hash") if isinstance(state, Mapping) else None
        with session.lock:
            if claimed is not None and claimed != session.head:
                raise AcsError(CHAIN_MISMATCH, "metadata.session_state.chain_hash does not "
                               "match this Guardian's head of the session's chain (ACS §8.6); "
                               "re-fetch the head from the last response", "chain_mismatch",
                               chain_hash=session.head)
            replayed = session.remember(params["request_id"], params.get("nonce"))
        if replayed is not None:
            raise AcsError(REPLAY_DETECTED, f"this {replayed} was already used in this "
                           f"session; send a fresh {replayed}", "replay_detected")
        return session

    def _ping(self, params: dict[str, Any]) -> dict[str, Any]:
        payload = params["payload"]
        out: dict[str, Any] = {"status": "ok", "server_timestamp": now_timestamp()}
        if isinstance(payload.get("echo"), str):
            out["echo"] = payload["echo"]
        return {"type": "final", "acs_version": ACS_VERSION, "request_id": params["request_id"],
                "decision": "allow", "payload": out}

    # --- steps --------------------------------------------------------------------------

    def _step(self, method: str, params: dict[str, Any], session: Session) -> dict[str, Any]:
        payload = params["payload"]
        outputs: list[Output] = []
        pointer = _payload_pointer
        if method == TOOL_REQUEST_STEP:
            tool, server = wire.tool(payload)
            arguments = payload["arguments"]
            value: Any = {"arguments": arguments}
            if "raw_command" in payload:
                value["raw_command"] = payload["raw_command"]
            call = ToolCall(tool, server, {k: a.get("value") for k, a in arguments.items()},
                            "request", raw_command=payload.get("raw_command"))
            body = wire.canonical(value)
            result = ToolResult(value, len(body), wire.digest_of(body)[0])
        elif method == TOOL_RESULT_STEP:
            tool, server = wire.tool(payload)
            outputs = read_outputs(payload["outputs"], self.store)
            call = ToolCall(tool, server, {}, "result")
            result = _decided_on(outputs)
            pointer = outputs_pointer
        else:
            tool, server = "", None
            call = ToolCall(method, None, {}, "step")
            body = wire.canonical(payload)
            result = ToolResult(payload, len(body), wire.digest_of(body)[0])
        if method in AUDIT_ONLY:
            verdict = Verdict("allow", "", ())
        else:
            verdict = self.guardian.evaluate(result, call)
        shadowed = sum(o.shadowed for o in outputs)
        if shadowed:
            verdict = _repeated_keys(verdict, shadowed)
        if not result.complete:
            verdict = self._partial(verdict)
        response = response_for(params, verdict, pointer)
        if self.log is None:
            return response
        try:
            response["chain_hash"] = self._record(session, entry_for(
                params, method, tool, server, result, verdict, outputs))
        except ElisionError as exc:
            return {**{k: v for k, v in response.items() if k not in (
                "modifications", "ask_details", "defer_details")},
                "decision": "deny", "reason_codes": ["audit_failed"],
                "reasoning": f"the Guardian could not write its audit record ({exc}); "
                "denied, because a decision that is not recorded is not made"}
        return response

    def _record(self, session: Session, content: dict[str, Any]) -> str:
        assert self.log is not None
        with session.lock:
            linked = session.link(content)
            self.log.append(linked)
            return session.advance(linked)

    def _partial(self, verdict: Verdict) -> Verdict:
        """The verdict on a bound the Guardian could not resolve: never an allow (nor a
        modify, whose redactions would address a body it never saw). A policy's deny stands."""
        seen = "decided on nothing past the inline prefix: content_ref could not be resolved " \
            "against this Guardian's store, or the body there does not match the digest"
        codes = (*verdict.reason_codes, "partial_evidence")
        if verdict.decision == "deny":
            return replace(verdict, reason=f"{verdict.reason}; {seen}", reason_codes=codes)
        if self.on_partial_evidence == "defer":
            return Verdict("defer", f"{seen}; deferred until the full body can be read "
                           "(resubmit with a content_ref this Guardian's store holds)",
                           verdict.policy_ids, (), ("partial_evidence",), details={
                               "reason": "insufficient_context",
                               "resolution_method": "resubmit",
                               "resolution_timeout_ms": DEFER_TIMEOUT_MS,
                               "timeout_decision": "deny"})
        return Verdict("deny", f"{seen}; denied, because a Guardian does not allow on "
                       "evidence it could not see - keep the body in the store this Guardian "
                       "reads, or send it whole", verdict.policy_ids, (), ("partial_evidence",))


def _message_id(message: Any) -> str | int | float | None:
    """The id to answer ``message`` with: its own when it is one JSON-RPC allows."""
    msg_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(msg_id, str | int | float) or isinstance(msg_id, bool):
        return None
    return msg_id


def _payload_pointer(path: str) -> str:
    return path


def _decided_on(outputs: list[Output]) -> ToolResult:
    """The outputs as one result for the policies: the list of their whole values."""
    values = [o.value for o in outputs]
    if len(outputs) == 1:
        sha, size = outputs[0].sha256, outputs[0].body_bytes
    else:
        sha = wire.digest_of(wire.canonical(values))[0]
        size = sum(o.body_bytes for o in outputs)
    return ToolResult(values, size, sha, complete=all(o.evidence == "full" for o in outputs))


def _repeated_keys(verdict: Verdict, shadowed: int) -> Verdict:
    """The verdict on a body that repeats a key: never an allow (nor a modify). Policies saw
    the last member of each key only, and the host shows the model the body's every byte, so
    the shadowed members would reach it unjudged. A policy's deny stands."""
    seen = (f"the body repeats an object key: {shadowed} member(s) are shadowed by a later "
            "one with the same key, and no policy saw them")
    codes = (*verdict.reason_codes, "duplicate_keys")
    if verdict.decision == "deny":
        return replace(verdict, reason=f"{verdict.reason}; {seen}", reason_codes=codes)
    return Verdict("deny", f"{seen}; denied, because the host would show them - have the "
                   "tool write each key once", verdict.policy_ids, (), ("duplicate_keys",))
