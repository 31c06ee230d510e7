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

The entry is written before the result is delivered (fail closed); the bodies are kept off the
call's path, by one thread of the auditor's own (:class:`BodyKeeper`), so a call does not wait
for two more store writes. What waits to be kept is bounded (:data:`KEEP_PENDING_BYTES`);
past that a body is not kept, as one the store refused. :meth:`LogAuditor.close` keeps what
is pending before it returns (the proxy calls it before it closes the log).
"""

from __future__ import annotations

import queue
import threading
import uuid
from contextlib import suppress

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.errors import StoreError
from elision.pipeline import AuditRecord
from elision.store.base import Store
from elision.withheld import count_reasons

#: The scope the auditor keeps bodies in: no client's scope is ever this (client scopes are
#: made by :mod:`elision.mcp.agent.scopes`), so no agent can fetch them; the store's owner
#: reads them in any scope.
AUDIT_SCOPE = "audit:bodies"
#: Bytes of bodies waiting to be kept, at most; past it a body is left unkept.
KEEP_PENDING_BYTES = 64 * 1024 * 1024


class BodyKeeper:
    """Keeps bodies in a store on a thread of its own, in the order they were given."""

    def __init__(self, store: Store, *, pending_bytes: int = KEEP_PENDING_BYTES) -> None:
        self.store = store
        self.pending_bytes = pending_bytes
        self._queue: queue.SimpleQueue[tuple[bytes, str, str] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Bodies left unkept because too many bytes were waiting (tests read it).
        self.dropped = 0

    def keep(self, body: bytes, sha256: str, format: str) -> None:
        with self._lock:
            if self._closed or self._pending + len(body) > self.pending_bytes:
                self.dropped += 1
                return
            self._pending += len(body)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="elision-audit-keep",
                                                daemon=True)
                self._thread.start()
        self._queue.put((body, sha256, format))

    def close(self, timeout: float = 60.0) -> None:
        """Keep everything pending, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout)

    def _run(self) -> None:
        from elision.shape import new_ref

        while (item := self._queue.get()) is not None:
            body, sha256, format = item
            with suppress(StoreError):
                self.store.put(body, ref=new_ref(), sha256=sha256, format=format,
                               scope=AUDIT_SCOPE, verified=True)
            with self._lock:
                self._pending -= len(body)


class LogAuditor:
    """Adapts an :class:`AuditLog` to the pipeline's ``Auditor`` protocol."""

    #: Its records' withheld entries may come compact (elision.withheld): it only counts them.
    reads_compact = True

    def __init__(
        self, log: AuditLog, *, session_id: str | None = None, store: Store | None = None
    ) -> None:
        self.log = log
        self.session_id = session_id
        self.store = store
        self._keeper = BodyKeeper(store) if store is not None else None

    def record(self, record: AuditRecord) -> None:
        capture, shaped, decision = record.capture, record.shaped, record.decision
        listed = (shaped.envelope or {}).get("withheld") or ()
        # Counted from a compact form's numbers (elision.withheld): no dict an entry.
        withheld = count_reasons(listed) if listed else {}
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
        if self._keeper is not None:
            self._keeper.keep(capture.body, capture.sha256, capture.format)
            if record.shown_sha256 != capture.sha256:
                self._keeper.keep(shaped.body, record.shown_sha256, shaped.format)

    def close(self) -> None:
        """Keep the bodies still waiting (the log itself is closed by its owner)."""
        if self._keeper is not None:
            self._keeper.close()
