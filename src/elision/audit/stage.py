"""The audit log as the pipeline's audit stage (``elision.pipeline.Auditor``).

One entry per result binds the digest of the body the tool returned and of the body the
agent was shown. If the entry cannot be written the error propagates, so the pipeline returns
nothing: a result that could not be audited is not delivered (fail closed).

Given a store, the auditor also keeps both bodies the entry binds - the one the tool returned
and the one the agent was shown - under refs of a scope no client is ever given
(:data:`AUDIT_SCOPE`), so ``elision view`` can show them side by side, found by the digests
in the entry, for as long as the store's retention keeps them. A body that cannot be kept
(over the store's limits) is not an error: the entry still binds its digest, and the viewer
says it is not kept.
"""

from __future__ import annotations

import uuid
from collections import Counter
from contextlib import suppress

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.errors import StoreError
from elision.pipeline import AuditRecord
from elision.store.base import Store

#: The scope the auditor keeps bodies in: no client's scope is ever this (client scopes are
#: made by :mod:`elision.mcp.agent.scopes`), so no agent can fetch them; the store's owner
#: reads them in any scope.
AUDIT_SCOPE = "audit:bodies"


class LogAuditor:
    """Adapts an :class:`AuditLog` to the pipeline's ``Auditor`` protocol."""

    def __init__(
        self, log: AuditLog, *, session_id: str | None = None, store: Store | None = None
    ) -> None:
        self.log = log
        self.session_id = session_id
        self.store = store

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
        if self.store is not None:
            self._keep(capture.body, capture.sha256, capture.format)
            if record.shown_sha256 != capture.sha256:
                self._keep(shaped.body, record.shown_sha256, shaped.format)

    def _keep(self, body: bytes, sha256: str, format: str) -> None:
        """Keep ``body`` for the viewer; a body the store refuses stays unkept (its digest is
        in the entry, and the viewer says it is not kept)."""
        assert self.store is not None
        from elision.shape import new_ref

        with suppress(StoreError):
            self.store.put(body, ref=new_ref(), sha256=sha256, format=format,
                           scope=AUDIT_SCOPE, verified=True)
