"""The Guardian: policies that decide on the FULL result, before anything is cut.

A policy is a small object with an ``id`` and one method, ``decide(result, call)``, over the
whole parsed result and the call's tool, server, arguments (and, from an ACS client, its
``raw_command``). It returns a :class:`Decision`: ``allow``; ``modify`` with JSON-pointer
redactions (each with a reason); ``deny`` with a reason that goes back to the agent as an
error result; ``ask`` (pause for an approver, with ``ask_details``) or ``defer`` (no verdict
yet, with ``defer_details``; ACS §6).

The :class:`Guardian` runs every policy and combines their decisions: any deny wins, then a
defer (a verdict not yet reachable is no ground to ask an approver), then an ask, else the
modifications of every policy are merged, else allow. It fails closed: a policy that
raises, or returns something that is not a valid decision, turns the verdict into a deny
that says which policy failed.

Built in: :class:`SizeCeiling` (a body over the ceiling is refused whole, never silently cut),
:class:`ToolLists` (allow and deny lists of tool names, with ``*`` wildcards) and
:class:`RedactionPolicy` (the redaction rules of :mod:`elision.redact` as a policy).

The types policies speak live in :mod:`elision.guard.decision`, the redaction policy in
:mod:`elision.guard.redaction`; both are re-exported here, where they are imported from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from elision.errors import quoted
from elision.guard.combine import codes as _codes
from elision.guard.combine import disjoint as _disjoint
from elision.guard.decision import (
    Decision,
    DecisionKind,
    Policy,
    Redaction,
    Stage,
    ToolCall,
    ToolResult,
    Verdict,
)
from elision.guard.names import matches
from elision.guard.redaction import (
    RedactionPolicy,
    SpanFinder,
    SpanLike,
    apply_redactions,
    store_keeper,
)

#: Re-exported: the Guardian's vocabulary (elision.guard.decision) and its redaction policy
#: (elision.guard.redaction) were defined here first, and are imported from here.
__all__ = [
    "Decision",
    "DecisionKind",
    "Guardian",
    "Policy",
    "Redaction",
    "RedactionPolicy",
    "SizeCeiling",
    "SpanFinder",
    "SpanLike",
    "Stage",
    "ToolCall",
    "ToolLists",
    "ToolResult",
    "Verdict",
    "apply_redactions",
    "store_keeper",
]

#: ``Guardian(redactor=…)``'s default: the built-in redaction rules.
_DEFAULT: Any = object()


class Guardian:
    """Runs every policy over the full result and combines what they decide.

    A modified result never shows a credential: when the verdict is ``modify``, each
    replacement and the rest of the result as modified go through the redaction rules
    (:class:`RedactionPolicy`), whose own redactions join the verdict; the reasons given to
    the agent are redacted too. ``redactor`` is that policy (default: the built-in rules);
    ``redactor=None`` applies the policies' modifications exactly as they are.
    """

    def __init__(self, policies: Sequence[Policy] = (), *, redactor: Any = _DEFAULT) -> None:
        self.policies = list(policies)
        self.redactor: RedactionPolicy | None = (
            RedactionPolicy() if redactor is _DEFAULT else redactor
        )
        if redactor is _DEFAULT:
            # A redaction policy of the Guardian's own keeps reference records somewhere:
            # the modify path uses it, so its stubs resolve too.
            own = [p for p in self.policies if isinstance(p, RedactionPolicy)]
            if own:
                self.redactor = own[0]

    def evaluate(self, result: ToolResult, call: ToolCall) -> Verdict:
        denies: list[tuple[str, Decision]] = []
        pauses: list[tuple[str, Decision]] = []
        modifies: list[tuple[str, Decision]] = []
        for policy in self.policies:
            pid = _policy_id(policy)
            try:
                decision = policy.decide(result, call)
            except Exception as exc:
                # Only the exception's type: its message may quote the result it choked on.
                denies.append((pid, Decision.deny(
                    f"policy {pid!r} could not decide ({type(exc).__name__}); the Guardian "
                    "fails closed, so the result is denied - fix or remove that policy",
                    "policy_error",
                )))
                continue
            problem = _invalid(decision)
            if problem is not None:
                denies.append((pid, Decision.deny(
                    f"policy {pid!r} returned an invalid decision ({problem}); the Guardian "
                    "fails closed, so the result is denied",
                    "policy_error",
                )))
            elif decision.kind == "deny":
                denies.append((pid, decision))
            elif decision.kind == "modify":
                modifies.append((pid, decision))
            elif decision.kind in ("ask", "defer"):
                pauses.append((pid, decision))
        if denies:
            return Verdict(
                "deny", self._said("; ".join(d.reason for _, d in denies)),
                tuple(pid for pid, _ in denies), (), _codes(d for _, d in denies),
            )
        for kind in ("defer", "ask"):
            pausing = [(pid, d) for pid, d in pauses if d.kind == kind]
            if pausing:
                # The first such policy's details: two approvers cannot both be asked.
                return Verdict(
                    kind, self._said("; ".join(d.reason for _, d in pausing)),
                    tuple(pid for pid, _ in pausing), (), _codes(d for _, d in pausing),
                    details=pausing[0][1].details,
                )
        if modifies:
            verdict = Verdict(
                "modify", "; ".join(d.reason for _, d in modifies),
                tuple(pid for pid, _ in modifies),
                _disjoint(r for _, d in modifies for r in d.redactions),
                _codes(d for _, d in modifies),
            )
            return self._redacted(verdict, result, call)
        return Verdict("allow", "", tuple(_policy_id(p) for p in self.policies))

    def _said(self, reason: str) -> str:
        # A policy's reason goes to the agent: it must not quote a credential either.
        if self.redactor is None or not reason:
            return reason
        from elision.redact import redact_text

        return str(redact_text(reason).value)

    def _redacted(self, verdict: Verdict, result: ToolResult, call: ToolCall) -> Verdict:
        """``verdict`` (a modify) such that applying it leaves no credential in the result."""
        rules = self.redactor
        if rules is None:
            return verdict
        cleaned: list[Redaction] = []
        for r in verdict.redactions:
            replacement = r.to_wire()["replacement"]
            inner = rules.decide(ToolResult(replacement, 0, ""), call)
            if inner.kind == "modify":
                found = tuple(rule for x in inner.redactions for rule in x.rules)
                r = replace(r, replacement=apply_redactions(replacement, inner.redactions),
                            rules=(r.rules or (r.reason,)) + found)
            cleaned.append(r)
        modified = apply_redactions(result.value, cleaned)
        rest = rules.decide(replace(result, value=modified), call)
        reason = verdict.reason
        policy_ids = verdict.policy_ids
        if rest.kind == "modify":
            reason = f"{reason}; {rest.reason}"
            if rules.id not in policy_ids:
                policy_ids = (*policy_ids, rules.id)
        extra = rest.redactions if rest.kind == "modify" else ()
        return replace(
            verdict, reason=self._said(reason), policy_ids=policy_ids,
            redactions=_disjoint([*cleaned, *extra]),
            reason_codes=_codes([verdict, rest]) if extra else verdict.reason_codes,
        )


def _policy_id(policy: Any) -> str:
    pid = getattr(policy, "id", None)
    return pid if isinstance(pid, str) and pid else type(policy).__name__


def _invalid(decision: Any) -> str | None:
    if not isinstance(decision, Decision):
        return f"expected a Decision, got {type(decision).__name__}"
    if decision.kind not in ("allow", "modify", "deny", "ask", "defer"):
        return f"unknown kind {decision.kind!r}"
    if decision.kind in ("deny", "ask", "defer") and not decision.reason:
        return f"a {decision.kind} needs a reason for the agent"
    if decision.kind == "defer" and (decision.details or {}).get("timeout_decision") not in (
        "allow", "deny"
    ):
        return "a defer needs timeout_decision allow or deny"
    if decision.kind == "modify":
        if not decision.redactions or not decision.reason:
            return "a modify needs redactions and a reason"
        bad = [r.path for r in decision.redactions if not _is_pointer(r.path)]
        if bad:
            return f"not a JSON pointer: {bad[0]!r}"
    return None


def _is_pointer(path: Any) -> bool:
    return isinstance(path, str) and (path == "" or path.startswith("/"))


# --- built-in policies ----------------------------------------------------------------------


@dataclass(frozen=True)
class SizeCeiling:
    """Refuse a result whose full body is over ``max_bytes``: whole, never cut to fit."""

    max_bytes: int
    id: str = "size-ceiling"
    #: It judges the size alone: a lazily read body need not be parsed whole for it.
    reads_values: ClassVar[bool] = False

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        if result.body_bytes <= self.max_bytes:
            return Decision.allow()
        return Decision.deny(
            f"the {call.stage} of {call.tool!r} is {result.body_bytes:,} bytes, over the "
            f"Guardian's {self.max_bytes:,}-byte ceiling; it was refused whole rather than "
            "cut - ask for less (a narrower query or one page) or raise the ceiling",
            "size_ceiling",
        )


@dataclass(frozen=True)
class ToolLists:
    """Allow and deny lists of tool names (``*`` and ``?`` wildcards).

    Names and patterns are compared normalized (:mod:`elision.guard.names`: NFKC, case
    folded, invisible characters removed, Cyrillic and Greek look-alikes read as Latin), bare,
    as ``server/tool`` and without a ``<server>__`` prefix. Deny wins; with an allow list, a
    tool on neither list is denied, and so is a look-alike of an allowed name.
    """

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    id: str = "tool-lists"
    #: It judges the tool's name alone.
    reads_values: ClassVar[bool] = False

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        if call.stage == "step":
            return Decision.allow()  # a userMessage or a sessionStart names no tool
        if matches(self.deny, call.tool, call.server, allow=False):
            return Decision.deny(
                f"tool {quoted(call.tool)} is on the Guardian's deny list; use another tool "
                "or ask the operator to change the list",
                "tool_denied",
            )
        if self.allow and not matches(self.allow, call.tool, call.server, allow=True):
            return Decision.deny(
                f"tool {quoted(call.tool)} is not on the Guardian's allow list "
                f"({', '.join(self.allow)}); use an allowed tool (a name that only looks "
                "like an allowed one is not it)",
                "tool_not_allowed",
            )
        return Decision.allow()
