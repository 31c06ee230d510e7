"""The pipeline: capture -> guard -> redact -> shape -> audit, for one tool result.

Every front end (library call, CLI, MCP proxy, middleware, Guardian) is a thin adapter over
:class:`Pipeline`. The body is parsed once, at capture, and the parsed value is what the later
stages see; no stage re-parses.

The guard, redact and audit stages are small protocols with one method each. The guard and
audit stages default to none; the redact stage defaults to elision's own rules
(:data:`DEFAULT_REDACTOR`), so a bare ``Pipeline()`` never shows a credential. Redaction is
turned off only by asking: ``Pipeline(redactor=None)``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import orjson

from elision._record import field, record_class, replace
from elision._startup import collector_paused
from elision.budget import Budget
from elision.envelope import duplicate_entries
from elision.errors import InputError, PolicyDenied
from elision.shape import (
    DEFAULT_CAVEAT_KEYS,
    FORMATS,
    Format,
    ShapeContext,
    Shaped,
    body_bytes,
    fit,
    shape_body,
)
from elision.shape.bom import from_bom
from elision.shape.redactedbody import RedactedBody
from elision.withheld import LineEntries, PathEntries, is_compact, kept

if TYPE_CHECKING:
    from elision.redact import RedactStage
    from elision.store.base import Store

#: What a parsed value is when the body is not JSON (``None`` is a valid JSON value).
NOT_JSON: Any = object()


class _DefaultRedactor:
    """The default of every ``redactor=`` parameter: elision's own redaction rules.

    A sentinel rather than a stage, so that the default can be told from an explicit
    ``redactor=None`` (redaction off, on purpose) and is made with the caller's store, where
    reference stubs' records must go.
    """

    def __repr__(self) -> str:
        return "DEFAULT_REDACTOR"


#: ``redactor=DEFAULT_REDACTOR`` (the default everywhere): the built-in rules
#: (:class:`elision.redact.RedactStage`); ``redactor=None`` turns redaction off.
DEFAULT_REDACTOR: Any = _DefaultRedactor()


def resolve_redactor(redactor: Any, store: Store | None = None) -> Redactor | None:
    """The redact stage a ``redactor=`` argument stands for: the built-in rules (keeping
    reference records in ``store``) for the default, else the argument itself."""
    if redactor is DEFAULT_REDACTOR:
        from elision.redact import RedactStage

        return RedactStage(store=store)
    return cast("Redactor | None", redactor)


@record_class(frozen=True)
class Capture:
    """A tool result as it arrived: the full body, its digest, and its parsed value once."""

    body: bytes
    sha256: str
    format: str
    value: Any = NOT_JSON
    tool: str | None = None
    server: str | None = None
    #: The path of every member a repeated key shadows: ``value`` holds the last member only,
    #: so the guard and the redactor never see these, and the model must not either.
    shadowed: tuple[str, ...] = ()
    #: What the model must be told about ``body`` itself: a body that came with a UTF-16 or
    #: UTF-32 byte order mark is its UTF-8 re-encoding (:mod:`elision.shape.bom`).
    notes: tuple[str, ...] = ()
    #: The text ``body`` was encoded from, when the caller gave one: the redact stage reads it
    #: rather than a decoded copy of the body (a text with a trigger held the caller's text,
    #: the body and the copy, 3x its size, issue 23).
    text: str | None = None

    @property
    def is_json(self) -> bool:
        return self.value is not NOT_JSON


@record_class(frozen=True)
class Decision:
    """What the guard decided on the full body. ``reason`` is shown to the agent on a deny."""

    allowed: bool = True
    reason: str = ""


@record_class(frozen=True)
class Redacted:
    """The value after redaction and one entry (path, reason, stub) per withheld value."""

    value: Any
    withheld: Sequence[dict[str, Any]] = ()


@record_class(frozen=True)
class AuditRecord:
    """What the audit stage binds: the full and the shown digests, and the decision."""

    capture: Capture
    shaped: Shaped
    decision: Decision
    shown_sha256: str


@runtime_checkable
class Guard(Protocol):
    """Decides on the FULL body, before anything is cut."""

    def decide(self, capture: Capture) -> Decision: ...


@runtime_checkable
class Redactor(Protocol):
    """Replaces credentials and signed URIs with stubs in the parsed value."""

    def redact(self, capture: Capture) -> Redacted: ...


@runtime_checkable
class Auditor(Protocol):
    """Appends one entry per result to a tamper-evident log."""

    def record(self, record: AuditRecord) -> None: ...


@record_class
class Pipeline:
    """Runs one tool result through every stage and returns what the agent sees.

    >>> Pipeline(budget=Budget(1024)).run('{"ok": true}').text
    '{"ok": true}'

    ``redactor`` defaults to the built-in rules, made with ``store`` (so reference stubs can be
    resolved); ``redactor=None`` turns redaction off.
    """

    budget: Budget = field(default_factory=lambda: Budget(8192))
    store: Store | None = None
    guard: Guard | None = None
    redactor: Redactor | None = DEFAULT_REDACTOR
    auditor: Auditor | None = None
    caveat_keys: Sequence[str] = DEFAULT_CAVEAT_KEYS
    #: The redact stage for each scope, as made from ``redactor`` (see ``_redactor_for``).
    _scoped_redactors: dict[str | None, tuple[Redactor, Redactor]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.redactor = resolve_redactor(self.redactor, self.store)

    def capture(
        self,
        payload: str | bytes,
        *,
        format: Format = "auto",
        tool: str | None = None,
        server: str | None = None,
    ) -> Capture:
        """Digest the body and parse it once (when it is, or may be, JSON)."""
        if format not in FORMATS:
            raise InputError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
        # A UTF-16 or UTF-32 body is read in the encoding its mark names, by every stage: the
        # guard, the rules, the store and the digest all see the same UTF-8.
        encoded = body_bytes(payload)
        body, reencoded = from_bom(encoded)
        # The caller's text is the body's decoding exactly, unless a mark was read off it.
        text = payload if isinstance(payload, str) and body is encoded else None
        digest = hashlib.sha256(body).hexdigest()
        value: Any = NOT_JSON
        fmt: str = format
        shadowed: list[str] = []
        if format in ("auto", "json") and _may_be_json(body) and not (
            format == "auto" and _looks_like_ndjson(body)
        ):
            try:
                value = _parse_paused(body, shadowed)
            except InputError:
                if format == "json":
                    raise
            else:
                fmt = "json"
        return Capture(body, digest, fmt, value, tool, server, tuple(shadowed),
                       (reencoded,) if reencoded else (), text)

    def run(
        self,
        payload: str | bytes,
        *,
        budget: Budget | int | None = None,
        format: Format = "auto",
        scope: str | None = None,
        tool: str | None = None,
        server: str | None = None,
    ) -> Shaped:
        """Capture, guard, redact, shape and audit one result."""
        return self.run_capture(
            self.capture(payload, format=format, tool=tool, server=server),
            budget=budget, scope=scope,
        )

    def run_capture(
        self, capture: Capture, *, budget: Budget | int | None = None, scope: str | None = None
    ) -> Shaped:
        """Guard, redact, shape and audit one captured result (raises PolicyDenied on deny)."""
        decision = self.decide(capture)
        shaped, withheld = self.redact_and_shape(capture, budget=budget, scope=scope)
        self.audit(capture, shaped, decision, withheld)
        return shaped

    def decide(self, capture: Capture) -> Decision:
        """The guard's decision on the FULL body; a deny is audited, then raised.

        A guard that fails is a deny (fail closed): a result nobody could judge is not shown.
        """
        decision = Decision()
        if self.guard is not None:
            try:
                decision = self.guard.decide(capture)
            except Exception as exc:
                # The type only: the message may quote the body the guard choked on.
                decision = Decision(False, (
                    f"the guard could not decide on this result ({type(exc).__name__}); "
                    "elision fails closed, so it is withheld - fix the guard's policies"
                ))
        if not decision.allowed:
            self.audit(capture, None, decision)
            raise PolicyDenied(decision.reason or "the guard denied this result")
        return decision

    def redact_capture(
        self, capture: Capture, *, scope: str | None = None, text_as_bytes: bool = False
    ) -> Redacted:
        """The redact stage alone; reference records are kept in ``scope``.

        The members a repeated key shadows are withheld here too, first, with or without a
        redactor: nobody judged them, so they are dropped and declared, never passed on.
        With ``text_as_bytes``, a text's redacted value may come as its UTF-8 bytes, where the
        built-in stage gives it so (for the shaper: no redacted ``str`` and its encoding)."""
        redactor = self._redactor_for(scope)
        if redactor is None:
            redacted = Redacted(capture.value if capture.is_json else _text_of(capture))
        elif text_as_bytes and not capture.is_json and (stage := _as_stage(redactor)):
            redacted = stage.redact_bytes(capture)
        else:
            redacted = redactor.redact(capture)
        if capture.shadowed:
            redacted = Redacted(redacted.value, (
                *duplicate_entries(capture.shadowed), *redacted.withheld))
        return redacted

    def shape_capture(
        self, capture: Capture, *, budget: Budget | int | None = None, scope: str | None = None
    ) -> Shaped:
        """Redact and shape, with no guard and no audit."""
        return self.redact_and_shape(capture, budget=budget, scope=scope)[0]

    def redact_and_shape(
        self,
        capture: Capture,
        *,
        budget: Budget | int | None = None,
        scope: str | None = None,
        redacted: Redacted | None = None,
    ) -> tuple[Shaped, Sequence[dict[str, Any]]]:
        """Redact and shape; also every withheld entry, one per value (the envelope may list
        them condensed). A front end that audits a whole call at once runs this per part.
        ``redacted`` is the redact stage's result when the caller already has it (each value
        is withheld, and its record kept, once). A text's entries may come compact
        (:class:`elision.withheld.LineEntries`: each a dict only when read)."""
        limit = self.budget if budget is None else budget
        if not isinstance(limit, Budget):
            limit = Budget(limit)
        value: Any = capture.value
        withheld: Sequence[dict[str, Any]] = ()
        if self.redactor is not None or capture.shadowed:
            if redacted is None:
                redacted = self.redact_capture(capture, scope=scope, text_as_bytes=True)
            value, withheld = redacted.value, kept(redacted.withheld)
        shaped = self._shape(capture, value, condense_withheld(withheld, limit), limit, scope)
        return shaped, withheld

    def audit(
        self,
        capture: Capture,
        shaped: Shaped | None,
        decision: Decision,
        withheld: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        """Append one entry that binds the full and the shown digest (errors propagate, so an
        unaudited result is never delivered). ``withheld``, one entry per value, is what the
        log counts by rule; by default the envelope's list. The record's envelope holds it as
        a list, or as given where it is compact (:func:`elision.withheld.is_compact`) and the
        auditor says it reads that form (``reads_compact``, as :class:`LogAuditor`, which counts
        them by reason: 25,000 entries a MB are not made dicts to be counted). An auditor of
        one's own gets the list it can hand to orjson."""
        if self.auditor is None:
            return
        if withheld is not None and shaped is not None and (
            withheld or (shaped.envelope or {}).get("withheld")
        ):
            compact = is_compact(withheld) and getattr(self.auditor, "reads_compact", False)
            listed = withheld if compact else list(withheld)
            shaped = replace(shaped, envelope={**(shaped.envelope or {}), "withheld": listed})
        self._audit(capture, shaped, decision)

    def _redactor_for(self, scope: str | None) -> Redactor | None:
        redactor = self.redactor
        # A RedactStage keeps reference records in one scope; each client has its own, so a
        # stub is only resolvable by the client that was shown it.
        stage_scope = getattr(redactor, "scope", scope)
        store = getattr(redactor, "store", None)
        if redactor is None or stage_scope == scope or store is None:
            return redactor
        from elision.redact import RedactStage

        if type(redactor) is not RedactStage:
            return redactor
        cached = self._scoped_redactors.get(scope)
        if cached is not None and cached[0] is redactor:
            return cached[1]
        scoped = RedactStage(store=store, scope=scope, server=redactor.server)
        if len(self._scoped_redactors) >= _SCOPED_REDACTORS:
            self._scoped_redactors.clear()  # an HTTP proxy sees a scope per client
        self._scoped_redactors[scope] = (redactor, scoped)
        return scoped

    def _shape(
        self,
        capture: Capture,
        value: Any,
        withheld: list[dict[str, Any]],
        budget: Budget,
        scope: str | None,
    ) -> Shaped:
        # The store keeps, and the envelope digests, the ORIGINAL body: the digest binds what
        # the tool returned. What the model sees is the redacted value; pages served later are
        # redacted by the same rules on their way out (elision.store.fetch).
        body, digest = capture.body, capture.sha256
        ctx = ShapeContext(
            sha256=digest, total_bytes=len(body), body=body, store=self.store, scope=scope,
            caveat_keys=tuple(self.caveat_keys), format=capture.format, withheld=withheld,
            verified=True,  # a Capture's digest is of its body, computed as it arrived
            reencoded="; ".join(capture.notes) or None,
        )
        if not capture.is_json:
            fmt = "auto" if capture.format == "auto" else capture.format
            if not withheld:
                return shape_body(body, budget, fmt, ctx)
            from elision.store.fetch import remember_view, shape_view

            # The redact stage's view of a UTF-8 text (elision.shape.redactedbody) is read in
            # place: written whole, it was 1.4-3.8x the body where stubs outgrow values.
            view = (value.encode("utf-8") if isinstance(value, str)
                    else value if isinstance(value, RedactedBody) else bytes(value))
            shaped = shape_view(view, budget, fmt, ctx)
            if shaped.ref is not None:
                remember_view(shaped.ref, view, None, ctx.withheld, size=len(body))
            return shaped
        if not withheld and not capture.notes and budget.unit == "bytes" and (
            len(body) <= budget.limit and budget.fits_lines(body)
        ):
            # A document that fits goes out byte for byte: no re-serialization.
            return Shaped(body.decode("utf-8"), True, None, "json", digest, len(body))
        from elision.shape.json import value_shaper

        ctx.format = "json"
        shaped = fit(value_shaper(value, ctx), budget)
        if withheld and shaped.ref is not None:
            from elision.store.fetch import remember_view

            # Pages of this body show the same stubs, whose records are kept in this scope.
            remember_view(shaped.ref, None, value, ctx.withheld, size=len(body))
        return shaped

    def _audit(self, capture: Capture, shaped: Shaped | None, decision: Decision) -> None:
        if self.auditor is None:
            return
        if shaped is None:
            shaped = Shaped("", False, None, capture.format, capture.sha256, len(capture.body))
        body = shaped.body
        # A result that went out as it came is hashed once, at capture.
        shown = capture.sha256 if body == capture.body else hashlib.sha256(body).hexdigest()
        self.auditor.record(AuditRecord(capture, shaped, decision, shown))


#: How many scopes' redact stages a pipeline keeps made.
_SCOPED_REDACTORS = 256
#: The share of a budget the ``withheld`` list may take before it is condensed.
WITHHELD_SHARE = 4
_INDEX = re.compile(r"\[\d+\]")


def condense_withheld(
    withheld: Sequence[dict[str, Any]], budget: Budget
) -> list[dict[str, Any]]:
    """``withheld`` as it is, or - when listing every entry would take over a quarter of the
    budget - one entry per path pattern and reason with a ``count``, so a result with a
    thousand signed URLs still fits and still says what was withheld where. Stubs stay in
    the value itself; a page of the body lists its own entries one by one.
    """
    share = budget.limit // WITHHELD_SHARE
    total = len(withheld)
    # Each entry takes two bytes and a comma at the least: past that, the list is not
    # serialized to be found too long (1.25 MB for a MB of dense assignments, issue 23).
    if not total or 3 * total < share:
        entries = list(withheld)
        if not entries or len(orjson.dumps(entries)) <= share:
            return entries
    counted = withheld.groups(_where) if isinstance(withheld, PathEntries) else None
    if isinstance(withheld, LineEntries):
        # Grouped from its numbers: the same entries, no dict a value made to be grouped.
        condensed: list[dict[str, Any]] = [
            {"lines": f"{low}-{high}", "reason": reason, "count": count}
                     for reason, low, high, count in withheld.spans()]
    elif counted is not None:
        # The same, an array's pattern written once: no dict or path an entry.
        condensed = [{"path": where, "reason": reason, "count": count}
                     for (where, reason), count in counted.items()]
    else:
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for entry in withheld:
            where = _where(str(entry["path"])) if "path" in entry else "lines"
            groups.setdefault((where, str(entry.get("reason", "withheld"))), []).append(entry)
        condensed = [_group_entry(where, reason, group)
                     for (where, reason), group in groups.items()]
    if len(orjson.dumps(condensed)) <= share:
        return condensed
    by_reason: dict[str, int] = {}
    for entry in condensed:
        by_reason[entry["reason"]] = by_reason.get(entry["reason"], 0) + entry["count"]
    by_rule = [{"path": "$", "reason": reason, "count": n} for reason, n in by_reason.items()]
    if len(orjson.dumps(by_rule)) <= share:
        return by_rule
    # A budget this small has room for the count alone; the audit entry keeps the rules.
    return [{"path": "$", "reason": "several", "count": total}]


def _where(path: str) -> str:
    # An element's path is its array's and its own "[i]", which this reads on its own: a
    # "[" ends any index before it, so PathEntries may write an array's pattern once.
    return _INDEX.sub("[*]", path)


def _group_entry(where: str, reason: str, group: list[dict[str, Any]]) -> dict[str, Any]:
    if where == "lines":
        lines = [int(e["line"]) for e in group if isinstance(e.get("line"), int)]
        span = f"{min(lines)}-{max(lines)}" if lines else "?"
        return {"lines": span, "reason": reason, "count": len(group)}
    return {"path": where, "reason": reason, "count": len(group)}


def expand_withheld(withheld: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per withheld value again (a condensed entry stands for ``count`` of them)."""
    out: list[dict[str, Any]] = []
    for entry in withheld:
        count = entry.get("count")
        out.extend([entry] * (count if isinstance(count, int) and count > 0 else 1))
    return out


#: Bodies above this size are parsed with the cycle collector paused.
GC_PAUSE_BYTES = 64 * 1024


def parse_document(body: bytes, *, duplicates: list[str] | None = None) -> Any:
    """:func:`elision.shape.lazyjson.parse_document`, imported with the first body that may
    be JSON: a text result (a shell's output) never loads the JSON readers (issue 24)."""
    from elision.shape.lazyjson import parse_document as parse

    return parse(body, duplicates=duplicates)


def _parse_paused(body: bytes, shadowed: list[str]) -> Any:
    # A large body is read lazily (elision.shape.lazyjson): the stages that must see every
    # value (a guard, a redaction walk) parse it whole themselves; shaping does not.
    if len(body) < GC_PAUSE_BYTES:
        return parse_document(body, duplicates=shadowed)
    with collector_paused():
        return parse_document(body, duplicates=shadowed)


def _as_stage(redactor: Redactor) -> RedactStage | None:
    """The built-in stage, which can give a text's redaction as bytes; ``None`` for another."""
    from elision.redact import RedactStage

    return redactor if isinstance(redactor, RedactStage) else None


def _text_of(capture: Capture) -> str:
    return capture.body.decode("utf-8", errors="replace")


def _looks_like_ndjson(body: bytes) -> bool:
    # Two JSON lines are never one document, so NDJSON is not parsed whole to be refused (as
    # shape() does): orjson copied the whole stream first, 2x its size beside it (issue 23).
    from elision.shape.records import looks_like_ndjson

    return looks_like_ndjson(body)


def _may_be_json(body: bytes) -> bool:
    # Cheap sniff so a log file is never handed to the JSON parser. A document that opens
    # with a digit, "-", "t", "f" or "n" is one number or literal, so it is matched whole (a
    # superset of the grammar): a log of timestamps ("2026-11-30T...") was parsed, and a
    # failed parse of 100 MB still costs a decoded copy. No lstrip() either: it copied a
    # body that opened with a blank line.
    start = _LEADING_SPACE.match(body)
    head = body[start.end():start.end() + 1] if start else b""
    if head in (b"{", b"[", b'"'):
        return True
    return _SCALAR.fullmatch(body) is not None


_LEADING_SPACE = re.compile(rb"\s*")
_SCALAR = re.compile(rb"\s*(?:-?[0-9][0-9.eE+-]*|true|false|null)\s*")


