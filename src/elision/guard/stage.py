"""The Guardian as the pipeline's guard stage (``elision.pipeline.Guard``).

The pipeline's guard answers allow or deny; it has no way to apply a modification. So, as the
Agent Control Standard prescribes for a client that cannot apply MODIFY (§6.5), a modify
verdict becomes a deny whose reason names the intended change, with ``modify_unsupported``.
An ``ask`` or a ``defer`` becomes a deny too: no one in a pipeline can approve or resolve
it, so, as §9.2 prescribes, an ask is a deny with ``approver_unavailable`` and a defer takes
its ``timeout_decision`` (deny) at once, with ``deferred``.
In a pipeline, withholding secrets is the redaction stage's job: leave
:class:`~elision.guard.policy.RedactionPolicy` out of a Guardian used here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elision.guard.policy import Guardian, ToolCall, ToolResult
from elision.pipeline import Capture, Decision
from elision.shape.lazyjson import materialize


class _UnreadText:
    """What a policy that reads no values is handed for a text body, instead of the text."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNREAD_TEXT"


UNREAD_TEXT: Any = _UnreadText()


@dataclass(frozen=True)
class GuardDecision(Decision):
    """A pipeline decision that also carries the Guardian's policy ids and reason codes."""

    verdict: str = "allow"
    policy_ids: tuple[str, ...] = ()
    reason_codes: tuple[str, ...] = ()


class GuardStage:
    """Adapts a :class:`Guardian` to the pipeline's ``Guard`` protocol."""

    def __init__(self, guardian: Guardian) -> None:
        self.guardian = guardian

    def decide(self, capture: Capture) -> Decision:
        # A policy may read any value, so a lazily read body is parsed whole for it, and a
        # text decoded, unless every policy says it judges something else (a size, a tool's
        # name): then the skeleton, or no text (a decoded copy of a 100 MB log, for nobody).
        reads = any(getattr(policy, "reads_values", True) for policy in self.guardian.policies)
        value: Any
        if capture.is_json:
            # materialize: a lazy root, or a deep spine's lazy bottom (any other is itself).
            value = materialize(capture.value) if reads else capture.value
        else:
            value = capture.body.decode("utf-8", "replace") if reads else UNREAD_TEXT
        verdict = self.guardian.evaluate(
            ToolResult(value, len(capture.body), capture.sha256),
            ToolCall(capture.tool or "", capture.server),
        )
        if verdict.decision == "allow":
            return GuardDecision(True, "", "allow", verdict.policy_ids)
        if verdict.decision == "modify":
            return GuardDecision(
                False,
                f"the Guardian would modify this result ({verdict.reason}) but this front end "
                "cannot apply modifications, so it is denied",
                "deny", verdict.policy_ids, (*verdict.reason_codes, "modify_unsupported"),
            )
        pause = {"ask": ("approver_unavailable", "no approver can be asked here"),
                 "defer": ("deferred", "a deferred verdict cannot wait here")}
        if verdict.decision in pause:
            code, why = pause[verdict.decision]
            return GuardDecision(
                False, f"{verdict.reason} ({why}, so it is denied)", "deny", verdict.policy_ids,
                (*verdict.reason_codes, code),
            )
        return GuardDecision(
            False, verdict.reason, "deny", verdict.policy_ids, verdict.reason_codes
        )
