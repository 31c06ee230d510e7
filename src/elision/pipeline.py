"""The pipeline: capture -> guard -> redact -> shape -> audit, for one tool result.

Every front end (library call, CLI, MCP proxy, middleware, Guardian) is a thin adapter over
:class:`Pipeline`. The body is parsed once, at capture, and the parsed value is what the later
stages see; no stage re-parses.

The guard, redact and audit stages are small protocols with one method each. They default to
none, so a bare ``Pipeline()`` is just honest shaping.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from elision.budget import Budget
from elision.errors import InputError, PolicyDenied
from elision.shape import (
    DEFAULT_CAVEAT_KEYS,
    FORMATS,
    Format,
    ShapeContext,
    Shaped,
    fit,
    shape_body,
)

if TYPE_CHECKING:
    from elision.store.base import Store

#: What a parsed value is when the body is not JSON (``None`` is a valid JSON value).
NOT_JSON: Any = object()


@dataclass(frozen=True)
class Capture:
    """A tool result as it arrived: the full body, its digest, and its parsed value once."""

    body: bytes
    sha256: str
    format: str
    value: Any = NOT_JSON
    tool: str | None = None
    server: str | None = None

    @property
    def is_json(self) -> bool:
        return self.value is not NOT_JSON


@dataclass(frozen=True)
class Decision:
    """What the guard decided on the full body. ``reason`` is shown to the agent on a deny."""

    allowed: bool = True
    reason: str = ""


@dataclass(frozen=True)
class Redacted:
    """The value after redaction and one entry (path, reason, stub) per withheld value."""

    value: Any
    withheld: Sequence[dict[str, Any]] = ()


@dataclass(frozen=True)
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


@dataclass
class Pipeline:
    """Runs one tool result through every stage and returns what the agent sees.

    >>> Pipeline(budget=Budget(1024)).run('{"ok": true}').text
    '{"ok": true}'
    """

    budget: Budget = field(default_factory=lambda: Budget(8192))
    store: Store | None = None
    guard: Guard | None = None
    redactor: Redactor | None = None
    auditor: Auditor | None = None
    caveat_keys: Sequence[str] = DEFAULT_CAVEAT_KEYS

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
        body = _as_bytes(payload)
        digest = hashlib.sha256(body).hexdigest()
        value: Any = NOT_JSON
        fmt: str = format
        if format in ("auto", "json") and _may_be_json(body):
            try:
                value = parse_json(body)
            except InputError:
                if format == "json":
                    raise
            else:
                fmt = "json"
        return Capture(body, digest, fmt, value, tool, server)

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
        limit = self.budget if budget is None else budget
        if not isinstance(limit, Budget):
            limit = Budget(limit)
        decision = self.guard.decide(capture) if self.guard is not None else Decision()
        if not decision.allowed:
            self._audit(capture, None, decision)
            raise PolicyDenied(decision.reason or "the guard denied this result")
        value: Any = capture.value
        withheld: tuple[dict[str, Any], ...] = ()
        if self.redactor is not None:
            redacted = self.redactor.redact(capture)
            value, withheld = redacted.value, tuple(redacted.withheld)
        shaped = self._shape(capture, value, list(withheld), limit, scope)
        self._audit(capture, shaped, decision)
        return shaped

    def _shape(
        self,
        capture: Capture,
        value: Any,
        withheld: list[dict[str, Any]],
        budget: Budget,
        scope: str | None,
    ) -> Shaped:
        body, digest = capture.body, capture.sha256
        if withheld:
            # The store must never hold what redaction withheld, so the redacted document is
            # the body that is kept, digested and fetched; the audit stage binds the original.
            body = dump_value(value)
            digest = hashlib.sha256(body).hexdigest()
        ctx = ShapeContext(
            sha256=digest, total_bytes=len(body), body=body, store=self.store, scope=scope,
            caveat_keys=tuple(self.caveat_keys), format=capture.format, withheld=withheld,
        )
        if not capture.is_json:
            fmt = "auto" if capture.format == "auto" else capture.format
            return shape_body(body, budget, fmt, ctx)
        if not withheld and budget.unit == "bytes" and len(body) <= budget.limit:
            # A document that fits goes out byte for byte: no re-serialization.
            return Shaped(body.decode("utf-8"), True, None, "json", digest, len(body))
        from elision.shape.json import value_shaper

        ctx.format = "json"
        return fit(value_shaper(value, ctx), budget)

    def _audit(self, capture: Capture, shaped: Shaped | None, decision: Decision) -> None:
        if self.auditor is None:
            return
        if shaped is None:
            shaped = Shaped("", False, None, capture.format, capture.sha256, len(capture.body))
        shown = hashlib.sha256(shaped.body).hexdigest()
        self.auditor.record(AuditRecord(capture, shaped, decision, shown))


def parse_json(body: bytes) -> Any:
    """Parse a JSON body exactly (big integers, float spellings), or raise InputError."""
    from elision.shape.jsonparse import parse_json as exact_parse

    return exact_parse(body)


def dump_value(value: Any) -> bytes:
    """Compact JSON of a parsed value, in the parser's own exact spelling."""
    from elision.shape.jsondump import dumps_value

    return dumps_value(value)


def _as_bytes(payload: str | bytes) -> bytes:
    if isinstance(payload, bytes | bytearray | memoryview):
        return bytes(payload)
    try:
        return payload.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"text has a lone surrogate at char {exc.start} ({payload[exc.start]!r}), which no "
            "UTF-8 body can carry; decode the tool's bytes with errors='replace'"
        ) from None


def _may_be_json(body: bytes) -> bool:
    # Cheap sniff so a log file is never handed to the JSON parser.
    head = body.lstrip()[:1]
    return head in (b"{", b"[", b'"') or head.isdigit() or head in (b"-", b"t", b"f", b"n")


