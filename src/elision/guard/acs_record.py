"""A verdict as the ACS wire says it, and as the audit entry binds it.

The response: ``reasoning`` on every disposition but a bare allow, ``modifications`` as
JSON-pointer redactions into the payload, ``ask_details`` / ``defer_details`` from the policy
that asked or deferred, and the policies behind it as ``policy_references``.

The entry: the full-body and shown-body digests, ``complete`` (never true for a bounded
output), the decision and its reason codes, ``request_hash`` (§8.1, ACS-Audit) and the
entry-level ``provenance_summary`` (§8.3): the origins of the Provenance objects the payload
carried.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from elision.audit.chain import TOOL_RESULT_STEP, request_hash, tool_result_entry
from elision.guard import acs_wire as wire
from elision.guard.acs_bounded import Output
from elision.guard.acs_wire import ACS_VERSION
from elision.guard.policy import ToolResult, Verdict, apply_redactions

#: The member that carries a disposition's details on the wire.
DETAILS = {"ask": "ask_details", "defer": "defer_details"}


def response_for(
    params: Mapping[str, Any], verdict: Verdict, pointer: Callable[[str], str]
) -> dict[str, Any]:
    """The result member of the response; ``pointer`` maps a policy's path to the payload's."""
    response: dict[str, Any] = {
        "type": "final", "acs_version": ACS_VERSION, "request_id": params["request_id"],
        "decision": verdict.decision,
    }
    if verdict.decision != "allow" or verdict.reason:
        response["reasoning"] = verdict.reason or verdict.decision
    if verdict.reason_codes:
        response["reason_codes"] = list(dict.fromkeys(verdict.reason_codes))
    if verdict.policy_ids:
        response["policy_references"] = [{"policy_id": p} for p in verdict.policy_ids]
    if verdict.decision == "modify":
        response["modifications"] = {"redactions": [
            {**_string_replacement(r.to_wire()), "path": pointer(r.path)}
            for r in verdict.redactions]}
    elif verdict.decision in DETAILS:
        response[DETAILS[verdict.decision]] = dict(verdict.details or {})
    return response


def _string_replacement(redaction: dict[str, Any]) -> dict[str, Any]:
    # modifications.json types a replacement as a string; a structured one goes as its JSON.
    value = redaction["replacement"]
    if not isinstance(value, str):
        redaction = {**redaction, "replacement": wire.canonical(value).decode()}
    return redaction


def entry_for(
    params: Mapping[str, Any], method: str, tool: str, server: str | None, result: ToolResult,
    verdict: Verdict, outputs: list[Output],
) -> dict[str, Any]:
    """The audit entry's content for one decided step (the session link is added after)."""
    bounded = any(o.bounded for o in outputs)
    if verdict.decision in ("deny", "ask", "defer"):
        shown = wire.digest_of(b"")  # only the reason reaches the agent
    elif verdict.decision == "modify":
        shown = wire.digest_of(wire.body_of(apply_redactions(result.value, verdict.redactions)))
    elif bounded:
        shown = _wire_digest(outputs)
    else:
        shown = (result.sha256, result.body_bytes)
    entry = tool_result_entry(
        step_id=str(params.get("request_id") or uuid.uuid4()), step_type=method,
        session_id=wire.session_id(params) or None, request_hash=request_hash(params),
        tool=tool, server=server, full_sha256=result.sha256, full_bytes=result.body_bytes,
        shown_sha256=shown[0], shown_bytes=shown[1],
        complete=result.complete and verdict.decision == "allow" and not bounded,
        withheld=verdict.withheld_counts(), decision=verdict.decision,
        policy_ids=verdict.policy_ids, reason_codes=list(dict.fromkeys(verdict.reason_codes)),
    )
    if method == TOOL_RESULT_STEP and (bounded or len(outputs) != 1):
        entry["outputs"] = [o.record() for o in outputs]
    if not result.complete:
        entry["evidence"] = "partial"
    entry["provenance_summary"] = provenance_summary(params.get("payload"))
    return entry


def _wire_digest(outputs: list[Output]) -> tuple[str, int]:
    """What the request carried of the outputs: the inline prefix of a bound."""
    if len(outputs) == 1:
        return wire.digest_of(outputs[0].wire_body)
    return wire.digest_of(b"".join(o.wire_body for o in outputs))


def provenance_summary(payload: Any) -> dict[str, Any]:
    """§8.3, entry level: which origins the payload's Provenance objects name, and how many."""
    counts: dict[str, int] = {}
    stack = [payload]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            prov = node.get("provenance")
            if isinstance(prov, Mapping) and isinstance(prov.get("origin"), str):
                counts[prov["origin"]] = counts.get(prov["origin"], 0) + 1
            stack.extend(v for k, v in node.items() if k != "provenance")
        elif isinstance(node, list):
            stack.extend(node)
    return {"origins_seen": sorted(counts), "entry_count": sum(counts.values()),
            "entry_count_by_origin": dict(sorted(counts.items()))}
