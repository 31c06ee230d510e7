"""What a Guardian policy is given and what it answers: the vocabulary every policy speaks.

A policy sees a :class:`ToolResult` (the whole parsed result, its size and digest) and the
:class:`ToolCall` it answers, and returns a :class:`Decision`: ``allow``; ``modify`` with
JSON-pointer :class:`Redaction` s; ``deny``; ``ask`` or ``defer`` (ACS §6). The Guardian
(:mod:`elision.guard.policy`) combines every policy's decision into one :class:`Verdict`.
These types carry no behaviour of the Guardian's, so the built-in policies and the ACS wire
code can use them without the Guardian.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

DecisionKind = Literal["allow", "modify", "deny", "ask", "defer"]
#: ``step``: an ACS hook that is not about a tool (a userMessage, a sessionStart); its
#: ``tool`` is the method's name.
Stage = Literal["request", "result", "step"]


@dataclass(frozen=True)
class ToolCall:
    """The call a result answers (or, at the ``request`` stage, the call about to be made)."""

    tool: str
    server: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    stage: Stage = "result"
    #: The command line as the client would run it (ACS ``payload.raw_command``), if sent.
    raw_command: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """The whole result: its parsed value (a JSON value, or the text), size and digest.

    ``complete`` is false only when the Guardian was handed a bounded prefix it could not
    resolve to the full body; policies then decide on what there is, and the audit entry
    says so.
    """

    value: Any
    body_bytes: int
    sha256: str
    complete: bool = True


@dataclass(frozen=True)
class Redaction:
    """Replace the value at JSON pointer ``path`` (RFC 6901) by ``replacement``.

    ``rules`` lists the rule of each value withheld inside it (a string can hold several
    secrets); it defaults to ``(reason,)``.
    """

    path: str
    reason: str
    replacement: Any = None
    rules: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        replacement = (
            self.replacement if self.replacement is not None else f"[withheld: {self.reason}]"
        )
        return {"path": self.path, "reason": self.reason, "replacement": replacement}


@dataclass(frozen=True)
class Decision:
    """One policy's answer. Build it with :meth:`allow`, :meth:`modify` or :meth:`deny`."""

    kind: DecisionKind
    reason: str = ""
    redactions: tuple[Redaction, ...] = ()
    reason_codes: tuple[str, ...] = ()
    details: Mapping[str, Any] | None = None

    @classmethod
    def allow(cls) -> Decision:
        return cls("allow")

    @classmethod
    def modify(
        cls, redactions: Sequence[Redaction], reason: str, *codes: str
    ) -> Decision:
        return cls("modify", reason, tuple(redactions), codes)

    @classmethod
    def deny(cls, reason: str, *codes: str) -> Decision:
        return cls("deny", reason, (), codes)

    @classmethod
    def ask(cls, reason: str, *codes: str, approver: Mapping[str, Any] | None = None,
            **details: Any) -> Decision:
        """Pause for approval. ``approver`` is ``{type, id, endpoint}`` (ACS §9)."""
        extra = {"approver": dict(approver)} if approver is not None else {}
        return cls("ask", reason, (), codes, {**extra, **details})

    @classmethod
    def defer(cls, reason: str, *codes: str, defer_reason: str = "insufficient_context",
              resolution_method: str = "out_of_band", resolution_timeout_ms: int = 30_000,
              timeout_decision: str = "deny", **details: Any) -> Decision:
        """No verdict yet (ACS §6): how it may resolve, within how long, and what holds if
        it does not (``deny`` unless said otherwise)."""
        return cls("defer", reason, (), codes, {
            "reason": defer_reason, "resolution_method": resolution_method,
            "resolution_timeout_ms": resolution_timeout_ms,
            "timeout_decision": timeout_decision, **details})


@runtime_checkable
class Policy(Protocol):
    """Decides on one full result. ``id`` names it in verdicts and audit entries."""

    @property
    def id(self) -> str: ...

    def decide(self, result: ToolResult, call: ToolCall) -> Decision: ...


@dataclass(frozen=True)
class Verdict:
    """The Guardian's combined decision.

    ``policy_ids`` names the policies that denied or modified, or - for an allow - every
    policy that was consulted, so an audit entry always says which rules stood behind it.
    """

    decision: DecisionKind
    reason: str = ""
    policy_ids: tuple[str, ...] = ()
    redactions: tuple[Redaction, ...] = ()
    reason_codes: tuple[str, ...] = ()
    #: ``ask_details`` of an ask, ``defer_details`` of a defer (ACS §6); else ``None``.
    details: Mapping[str, Any] | None = None

    def withheld_counts(self) -> dict[str, int]:
        """How many values each rule withheld (never the values themselves)."""
        counts: dict[str, int] = {}
        for r in self.redactions:
            for rule in r.rules or (r.reason,):
                counts[rule] = counts.get(rule, 0) + 1
        return counts
