"""The audit log as the pipeline's audit stage (``elision.pipeline.Auditor``).

One entry per result binds the digest of the body the tool returned and of the body the
agent was shown. If the entry cannot be written the error propagates, so the pipeline returns
nothing: a result that could not be audited is not delivered (fail closed).
"""

from __future__ import annotations

import uuid
from collections import Counter

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.pipeline import AuditRecord


class LogAuditor:
    """Adapts an :class:`AuditLog` to the pipeline's ``Auditor`` protocol."""

    def __init__(self, log: AuditLog, *, session_id: str | None = None) -> None:
        self.log = log
        self.session_id = session_id

    def record(self, record: AuditRecord) -> None:
        capture, shaped, decision = record.capture, record.shaped, record.decision
        listed = (shaped.envelope or {}).get("withheld") or ()
        withheld = Counter(
            str(w.get("reason", "withheld")) for w in listed if isinstance(w, dict)
        ) if listed else {}
        self.log.append(tool_result_entry(
            step_id=str(uuid.uuid4()),
            session_id=self.session_id,
            tool=capture.tool or "",
            server=capture.server,
            full_sha256=capture.sha256,
            full_bytes=len(capture.body),
            shown_sha256=record.shown_sha256,
            shown_bytes=len(shaped.body),
            complete=shaped.complete and decision.allowed,
            withheld=dict(withheld),
            decision="allow" if decision.allowed else "deny",
            policy_ids=tuple(getattr(decision, "policy_ids", ())),
            reason_codes=tuple(getattr(decision, "reason_codes", ())),
        ))
