"""The Agent Control Standard (v0.1) JSON-RPC endpoint of the Guardian, transport-free.

Methods: ``handshake/hello`` (before any step), ``steps/toolCallRequest`` and
``steps/toolCallResult`` (both evaluated by the same policies), and ``system/ping``. Decisions
go out in the wire's lowercase names, with ``reasoning`` on deny and modify, modifications as
JSON-pointer redactions, and the audit chain's head as ``chain_hash`` on every response for a
step that wrote an entry.

A ``toolCallResult`` may carry a **bounded** output: ``{"inline": <prefix>, "digest":
"sha256:<hex of the complete body>", "truncated": true, "content_ref": <ref>, "bytes": <n>}``.
The Guardian resolves ``content_ref`` only against the store the operator configured - never
by fetching a URI from the payload - and checks the body against ``digest``. If it cannot, it
does not decide on the prefix: a Guardian must not allow on evidence it could not see. The
answer is ``deny`` (or ``defer``, if the operator chose it) with ``partial_evidence``, and the
entry binds the digest with ``complete: false`` and ``evidence: "partial"``.

One chain per log: every session's entries go to the same chain (each entry names its
``session_id``), so one ``elision audit verify`` checks everything this Guardian decided.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import orjson

from elision.audit.chain import (
    TOOL_REQUEST_STEP,
    TOOL_RESULT_STEP,
    now_timestamp,
    request_hash,
    tool_result_entry,
)
from elision.errors import ElisionError
from elision.guard import acs_wire as wire
from elision.guard.acs_wire import (
    ACS_VERSION,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_NEGOTIATED,
    PARSE_ERROR,
    REPLAY_DETECTED,
    SIGNATURE_INVALID,
    SKEW_WINDOW_MS,
    UNSUPPORTED_VERSION,
    AcsError,
)
from elision.guard.policy import Guardian, ToolCall, ToolResult, Verdict, apply_redactions

if TYPE_CHECKING:
    from elision.audit.log import AuditLog
    from elision.guard.signing import EnvelopeSigner
    from elision.store.base import Store

#: Request ids remembered per session for replay detection.
REPLAY_MEMORY = 100_000
STEPS = (TOOL_REQUEST_STEP, TOOL_RESULT_STEP)
#: What a Guardian answers when it could not see the whole of a bounded output.
PartialEvidence = Literal["deny", "defer"]
#: How long a deferred partial-evidence verdict waits for a resubmission before it denies.
DEFER_TIMEOUT_MS = 30_000


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
        self._sessions: dict[str, OrderedDict[str, None]] = {}
        self._lock = threading.Lock()

    def handle_bytes(self, raw: bytes) -> bytes:
        """One HTTP body in, one out."""
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return orjson.dumps(wire.error(None, AcsError(
                PARSE_ERROR, f"the request body is not JSON: {exc}", "parse_error")))
        return orjson.dumps(self.handle(message))

    def handle(self, message: Any) -> dict[str, Any]:
        msg_id = message.get("id") if isinstance(message, dict) else None
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
        params = message.get("params", {})
        if not isinstance(params, dict):
            raise AcsError(INVALID_PARAMS, f"params must be an object, got {wire.kind(params)}",
                           "invalid_params")
        if method == "system/ping":
            return self._ping(params)
        if self.signer is not None:
            problem = self.signer.verify(message, "params", wire.session_id(params))
            if problem is not None:
                raise AcsError(SIGNATURE_INVALID, f"{problem}; sign the request per ACS §10 "
                               "with this Guardian's key", "signature_invalid")
        if method == "handshake/hello":
            return self._hello(params)
        if method not in STEPS:
            raise AcsError(METHOD_NOT_FOUND, f"unknown method {wire.short(method)}; this Guardian "
                           f"evaluates {', '.join(STEPS)}", "method_not_found")
        session = self._admit(method, params, message["id"])
        if method == TOOL_REQUEST_STEP:
            return self._tool_call_request(params, session)
        return self._tool_call_result(params, session)

    # --- session control ----------------------------------------------------------------

    def _hello(self, params: dict[str, Any]) -> dict[str, Any]:
        offered = params.get("acs_versions_supported") or [params.get("acs_version")]
        if not isinstance(offered, list) or not any(
            isinstance(v, str) and v.split(".")[:2] == ["0", "1"] for v in offered
        ):
            raise AcsError(UNSUPPORTED_VERSION, "no common ACS version: offered "
                           f"{wire.short(offered)}, this Guardian speaks {ACS_VERSION}",
                           "unsupported_version",
                           supported_versions=[ACS_VERSION])
        with self._lock:
            self._sessions.setdefault(wire.session_id(params), OrderedDict())
        return {
            "negotiated_version": ACS_VERSION,
            "methods_evaluated": list(STEPS),
            "selected_transport": "http",
            "signature_algorithms_supported": ["HMAC-SHA256"] if self.signer else [],
            "timeout_config": {"default_ms": 10_000},
            "on_decision_failure": "deny",
            "skew_window_ms": SKEW_WINDOW_MS,
            "approver_types_supported": [],
            "policy_requires_provenance": False,
            "profiles_accepted": ["ACS-Core"],
        }

    def _admit(self, method: str, params: dict[str, Any], msg_id: Any) -> str:
        session = wire.session_id(params)
        request_id = params.get("request_id", msg_id)
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            raise AcsError(INVALID_PARAMS, "request_id must be a string, got "
                           f"{wire.short(request_id)}", "invalid_params")
        wire.check_timestamp(params.get("timestamp"))
        with self._lock:
            seen = self._sessions.get(session)
            if seen is None:
                raise AcsError(NOT_NEGOTIATED, f"{method} before handshake/hello for session "
                               f"{wire.short(session)}; send handshake/hello first",
                               "not_negotiated", method=method)
            key = str(request_id)
            if key in seen:
                raise AcsError(REPLAY_DETECTED, f"request_id {wire.short(key)} was already used "
                               "in this session; send a fresh request_id", "replay_detected")
            seen[key] = None
            if len(seen) > REPLAY_MEMORY:
                seen.popitem(last=False)
        return session

    def _ping(self, params: dict[str, Any]) -> dict[str, Any]:
        payload = params.get("payload") if isinstance(params.get("payload"), dict) else {}
        out: dict[str, Any] = {"status": "ok", "server_timestamp": now_timestamp()}
        if isinstance(payload, dict) and isinstance(payload.get("echo"), str):
            out["echo"] = payload["echo"]
        return {"type": "final", "acs_version": ACS_VERSION, "decision": "allow", "payload": out}

    # --- steps --------------------------------------------------------------------------

    def _tool_call_request(self, params: dict[str, Any], session: str) -> dict[str, Any]:
        payload = wire.payload(params)
        tool, server = wire.tool(payload)
        arguments = payload.get("arguments", {})
        if not isinstance(arguments, dict):
            raise AcsError(INVALID_PARAMS, f"payload.arguments must be an object, got "
                           f"{wire.kind(arguments)}", "invalid_params")
        body = wire.canonical(arguments)
        result = ToolResult(arguments, len(body), hashlib.sha256(body).hexdigest())
        verdict = self.guardian.evaluate(result, ToolCall(tool, server, arguments, "request"))
        return self._decide(params, session, TOOL_REQUEST_STEP, tool, server, result, verdict,
                            prefix="/arguments")

    def _tool_call_result(self, params: dict[str, Any], session: str) -> dict[str, Any]:
        payload = wire.payload(params)
        tool, server = wire.tool(payload)
        if "outputs" not in payload:
            raise AcsError(INVALID_PARAMS, "payload.outputs is missing", "invalid_params")
        result = self._full_result(payload["outputs"])
        verdict = self.guardian.evaluate(result, ToolCall(tool, server, {}, "result"))
        return self._decide(params, session, TOOL_RESULT_STEP, tool, server, result, verdict,
                            prefix="/outputs")

    def _full_result(self, outputs: Any) -> ToolResult:
        if not (isinstance(outputs, dict) and isinstance(outputs.get("truncated"), bool)
                and "digest" in outputs):
            body = outputs.encode() if isinstance(outputs, str) else wire.canonical(outputs)
            return ToolResult(outputs, len(body), hashlib.sha256(body).hexdigest())
        digest = wire.digest(outputs["digest"])
        inline = outputs.get("inline", "")
        if not isinstance(inline, str):
            raise AcsError(INVALID_PARAMS, "a bounded output's inline prefix must be a string",
                           "invalid_params")
        if not outputs["truncated"]:
            if hashlib.sha256(inline.encode()).hexdigest() != digest:
                raise AcsError(INVALID_PARAMS, "outputs.truncated is false but digest is not "
                               "the sha256 of inline; send the digest of the body you sent",
                               "digest_mismatch")
            return ToolResult(wire.parsed(inline.encode()), len(inline.encode()), digest)
        full = self._resolve(outputs.get("content_ref"), digest)
        if full is not None:
            return ToolResult(wire.parsed(full), len(full), digest)
        declared = outputs.get("bytes")
        size = declared if isinstance(declared, int) and not isinstance(declared, bool) else (
            len(inline.encode()))
        return ToolResult(inline, size, digest, complete=False)

    def _resolve(self, ref: Any, digest: str) -> bytes | None:
        # Only ever the operator's store: a ref is a key into it, never a URI to fetch.
        if self.store is None or not isinstance(ref, str) or not ref:
            return None
        try:
            body = self.store.read(ref)
        except ElisionError:
            return None
        return body if hashlib.sha256(body).hexdigest() == digest else None

    def _decide(
        self, params: dict[str, Any], session: str, step: str, tool: str, server: str | None,
        result: ToolResult, verdict: Verdict, *, prefix: str,
    ) -> dict[str, Any]:
        if not result.complete:
            verdict = self._partial(verdict)
        codes = list(verdict.reason_codes)
        reasoning = verdict.reason
        response: dict[str, Any] = {
            "type": "final", "acs_version": ACS_VERSION,
            "request_id": params.get("request_id"), "decision": verdict.decision,
        }
        if self.log is not None:
            try:
                response["chain_hash"] = self._record(
                    params, session, step, tool, server, result, verdict, codes)
            except ElisionError as exc:
                return {**response, "decision": "deny", "reason_codes": ["audit_failed"],
                        "reasoning": f"the Guardian could not write its audit record ({exc}); "
                        "denied, because a decision that is not recorded is not made"}
        if verdict.decision != "allow" or reasoning:
            response["reasoning"] = reasoning or "allowed"
        if codes:
            response["reason_codes"] = codes
        if verdict.policy_ids:
            response["policy_references"] = [{"policy_id": p} for p in verdict.policy_ids]
        if verdict.decision == "modify":
            response["modifications"] = {"redactions": [
                {**r.to_wire(), "path": prefix + r.path} for r in verdict.redactions]}
        elif verdict.decision == "defer":
            response["defer_details"] = dict(verdict.details or {})
        return response

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

    def _record(
        self, params: dict[str, Any], session: str, step: str, tool: str, server: str | None,
        result: ToolResult, verdict: Verdict, codes: list[str],
    ) -> str:
        assert self.log is not None
        if verdict.decision in ("deny", "ask", "defer"):
            shown_sha, shown_bytes = wire.digest_of(b"")  # only the reason reaches the agent
        elif verdict.decision == "modify":
            shown_sha, shown_bytes = wire.digest_of(
                wire.body_of(apply_redactions(result.value, verdict.redactions)))
        elif result.complete:
            shown_sha, shown_bytes = result.sha256, result.body_bytes
        else:
            shown_sha, shown_bytes = wire.digest_of(wire.body_of(result.value))
        entry = tool_result_entry(
            step_id=str(params.get("request_id") or uuid.uuid4()), step_type=step,
            session_id=session or None, request_hash=request_hash(params), tool=tool,
            server=server, full_sha256=result.sha256, full_bytes=result.body_bytes,
            shown_sha256=shown_sha, shown_bytes=shown_bytes,
            complete=result.complete and verdict.decision == "allow",
            withheld=verdict.withheld_counts(), decision=verdict.decision,
            policy_ids=verdict.policy_ids, reason_codes=codes,
        )
        if not result.complete:
            entry["evidence"] = "partial"
        return str(self.log.append(entry)["entry_hash"])


