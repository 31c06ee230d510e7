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
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from elision.envelope import format_path
from elision.guard.combine import codes as _codes
from elision.guard.combine import disjoint as _disjoint
from elision.guard.pointers import apply_replacements, changed_nodes, walk_strings

DecisionKind = Literal["allow", "modify", "deny", "ask", "defer"]
#: ``Guardian(redactor=…)``'s default: the built-in redaction rules.
_DEFAULT: Any = object()
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

    A pattern matches the bare tool name or ``server/tool``. Deny wins; with an allow list,
    a tool on neither list is denied.
    """

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    id: str = "tool-lists"

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        if call.stage == "step":
            return Decision.allow()  # a userMessage or a sessionStart names no tool
        names = [call.tool] + ([f"{call.server}/{call.tool}"] if call.server else [])
        if any(fnmatch.fnmatchcase(n, p) for n in names for p in self.deny):
            return Decision.deny(
                f"tool {call.tool!r} is on the Guardian's deny list; use another tool or ask "
                "the operator to change the list",
                "tool_denied",
            )
        if self.allow and not any(fnmatch.fnmatchcase(n, p) for n in names for p in self.allow):
            return Decision.deny(
                f"tool {call.tool!r} is not on the Guardian's allow list "
                f"({', '.join(self.allow)}); use an allowed tool",
                "tool_not_allowed",
            )
        return Decision.allow()


class SpanLike(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def rule(self) -> str: ...


#: Finds what must be withheld in one string: the shape of ``elision.redact.scan.find_spans``.
SpanFinder = Callable[[str], Sequence[SpanLike]]


class RedactionPolicy:
    """The redaction rules as a policy: whatever they withhold becomes a modify, one JSON
    pointer redaction per changed node, with counts by rule (never the values).

    By default it runs :func:`elision.redact.redact_value` (reference lanes, signed URLs,
    credentials, credential-named keys) and hands each reference stub's host-private record
    to ``keep(stub_id, record)`` - the store's ``put_reference`` - so the stub can be
    resolved later; without ``keep`` such a stub cannot be fetched.

    ``find`` is the adapter slot for other rules: any function from a string to spans
    (``start``, ``end``, ``rule``); each span is replaced by a credential stub.
    """

    def __init__(
        self,
        find: SpanFinder | None = None,
        *,
        keep: Callable[[str, dict[str, Any]], None] | None = None,
        id: str = "redaction-rules",
    ) -> None:
        self._find, self._keep, self.id = find, keep, id

    @property
    def keeps_references(self) -> bool:
        """Whether reference stubs' records go anywhere (else such a stub cannot be fetched)."""
        return self._keep is not None

    def keeping(self, keep: Callable[[str, dict[str, Any]], None]) -> RedactionPolicy:
        """The same policy, handing each reference stub's record to ``keep``."""
        return RedactionPolicy(self._find, keep=keep, id=self.id)

    def decide(self, result: ToolResult, call: ToolCall) -> Decision:
        redactions = (
            self._with_rules(result.value, call.server) if self._find is None
            else self._with_spans(result.value, self._find)
        )
        if not redactions:
            return Decision.allow()
        rules = sorted({rule for r in redactions for rule in r.rules})
        count = sum(len(r.rules) for r in redactions)
        return Decision.modify(
            redactions,
            f"{count} value(s) withheld by the redaction rules ({', '.join(rules)})",
            "redacted",
        )

    def _with_rules(self, value: Any, server: str | None) -> list[Redaction]:
        from elision.redact import redact_text, redact_value

        # The server goes into each reference record: the one a stub may be read back through.
        done = redact_text(value) if isinstance(value, str) else redact_value(value, server=server)
        if not done.withheld:
            return []
        if self._keep is not None:
            for stub_id, record in done.references.items():
                self._keep(stub_id, record)
        reasons = [(str(w.get("path", "$")), str(w["reason"])) for w in done.withheld]
        redactions = []
        for pointer, parts, replacement in changed_nodes(value, done.value):
            where = format_path(parts)
            rules = tuple(reason for path, reason in reasons if _within(path, where))
            redactions.append(Redaction(pointer, rules[0] if rules else "redacted",
                                        replacement, rules or ("redacted",)))
        return redactions

    @staticmethod
    def _with_spans(value: Any, find: SpanFinder) -> list[Redaction]:
        redactions: list[Redaction] = []
        for pointer, text in walk_strings(value):
            spans = sorted(find(text), key=lambda s: s.start)
            if not spans:
                continue
            out, pos = [], 0
            for span in spans:
                out.append(text[pos:span.start])
                out.append(f"[credential withheld: {span.rule}]")
                pos = max(pos, span.end)
            out.append(text[pos:])
            redactions.append(Redaction(
                pointer, spans[0].rule, "".join(out), tuple(s.rule for s in spans)
            ))
        return redactions


def store_keeper(store: Any, *, scope: str | None = None) -> Callable[[str, dict[str, Any]], None]:
    """A ``keep`` for :class:`RedactionPolicy` that puts each record into ``store`` (its
    ``put_reference``), where ``elision_fetch_reference`` and ``lookup_reference`` find it."""

    def keep(stub_id: str, record: dict[str, Any]) -> None:
        store.put_reference(stub_id, record, scope=scope)

    return keep


def _within(path: str, where: str) -> bool:
    # A text's withheld entries carry a line, not a path: they all sit in the root.
    return where == "$" or path == where or path.startswith((where + ".", where + "["))


def apply_redactions(value: Any, redactions: Sequence[Redaction]) -> Any:
    """A copy of ``value`` with each redaction applied (paths that do not exist are skipped)."""
    return apply_replacements(value, [(r.path, r.to_wire()["replacement"]) for r in redactions])
