"""The redaction rules of :mod:`elision.redact` as a Guardian policy, and how its
redactions are applied.

Whatever the rules withhold becomes a ``modify`` with one JSON-pointer redaction per changed
node and counts by rule, never the values. The Guardian also runs this policy over every other
policy's modifications (:mod:`elision.guard.policy`), so a modified result never shows a
credential.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from elision.envelope import format_path
from elision.guard.decision import Decision, Redaction, ToolCall, ToolResult
from elision.guard.pointers import apply_replacements, changed_nodes, walk_strings


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
