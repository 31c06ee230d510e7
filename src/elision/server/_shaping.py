"""Shaping on the server: bound every bulk array by ``limit``, then fit the cap.

Both front ends (the ``MCPServer`` decorator and the FastMCP middleware) call
:func:`shape_value`. A ``limit`` cut is declared in the same envelope as a budget cut, with the
original totals, and ``sha256`` is the digest of what the tool returned before either cut, so a
consumer cannot tell a server-side envelope from the proxy's except by where it was made.

A **bulk array** is what the lint calls one: an array not inside another bulk array and not the
value of a caveat key (``warnings`` stay whole).

Caveat members are moved before the bulk of every object outside bulk arrays, even when nothing
is cut: the server's cap is not the consumer's, and a consumer that cuts at a smaller cap than
the server's must still find the totals first. ``sha256`` always binds the tool's own bytes.

Credentials are withheld first, by the same rules as the proxy, and listed under the
envelope's ``withheld`` (``redactor=None`` turns that off, on purpose).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY, VALUE_KEY, elided_entry, format_path, make_envelope
from elision.errors import ElisionError
from elision.pipeline import DEFAULT_REDACTOR, Capture, condense_withheld, resolve_redactor
from elision.shape import DEFAULT_CAVEAT_KEYS, ShapeContext, fit, shape, shape_body
from elision.shape.json import caveat_matcher, value_shaper
from elision.shape.jsonparse import dumps_value, parse_json

_is_caveat = caveat_matcher(DEFAULT_CAVEAT_KEYS)


@dataclass(frozen=True)
class ServerShaped:
    """A response shaped on the server: the JSON text, its parsed form and its envelope."""

    text: str
    value: Any
    envelope: dict[str, Any] | None


def bound_arrays(value: Any, limit: int) -> tuple[Any, list[dict[str, Any]]]:
    """``value`` with every bulk array cut to ``limit`` elements, and an entry per cut."""
    cuts: list[dict[str, Any]] = []

    def walk(node: Any, parts: list[str | int], depth: int) -> Any:
        if depth > 200:
            return node
        if isinstance(node, list):
            if len(node) > limit:
                cuts.append(elided_entry(format_path(parts), "array", limit, len(node)))
                return node[:limit]
            return node
        if isinstance(node, dict):
            return {
                key: member if _is_caveat(key) or (key == ENVELOPE_KEY and not parts)
                else walk(member, [*parts, key], depth + 1)
                for key, member in node.items()
            }
        return node

    return walk(value, [], 0), cuts


def caveats_first(value: Any, depth: int = 0) -> Any:
    """``value`` with its members in a head-slice-safe order, in every object outside arrays.

    Caveat members first, then scalars, then objects that hold caveats, then other objects,
    then arrays (stable within each class), so no count or warning follows a bulk array.
    """
    if not isinstance(value, dict) or depth > 200:
        return value

    def rank(key: str, member: Any) -> int:
        if _is_caveat(key) or (key == ENVELOPE_KEY and not depth):
            return 0
        if isinstance(member, list):
            return 4
        if isinstance(member, dict):
            return 2 if _holds_caveat(member, depth + 1) else 3
        return 1

    ordered = sorted(value.items(), key=lambda kv: rank(kv[0], kv[1]))
    return {
        k: v if rank(k, v) == 0 else caveats_first(v, depth + 1) for k, v in ordered
    }


def _holds_caveat(value: dict[str, Any], depth: int) -> bool:
    if depth > 200:
        return False
    return any(
        _is_caveat(k) or (isinstance(v, dict) and _holds_caveat(v, depth + 1))
        for k, v in value.items()
    )


def redact_parsed(value: Any, body: bytes, redactor: Any) -> tuple[Any, list[dict[str, Any]]]:
    """``value`` (parsed from, or serialized as, ``body``) with credentials withheld by
    ``redactor`` (see :func:`elision.pipeline.resolve_redactor`), and what was withheld."""
    stage = resolve_redactor(redactor)
    if stage is None:
        return value, []
    done = stage.redact(Capture(body, hashlib.sha256(body).hexdigest(), "json", value))
    return done.value, list(done.withheld)


def redact_string(text: str, redactor: Any) -> str:
    """``text`` with credentials withheld by ``redactor``, each as a stub in place."""
    stage = resolve_redactor(redactor)
    if stage is None:
        return text
    body = text.encode("utf-8", "surrogatepass")
    done = stage.redact(Capture(body, hashlib.sha256(body).hexdigest(), "text"))
    return done.value if done.withheld and isinstance(done.value, str) else text


def redact_exception(exc: BaseException, redactor: Any) -> None:
    """Withhold credentials from the string arguments of ``exc``, in place: a server shows a
    tool's error message to the client, and it may quote one. The type stays, so the server's
    own masking and formatting of errors are unchanged."""
    if resolve_redactor(redactor) is None:
        return
    exc.args = tuple(redact_string(a, redactor) if isinstance(a, str) else a for a in exc.args)


def shape_value(
    value: Any, cap: int, limit: int | None = None, *, redactor: Any = DEFAULT_REDACTOR
) -> ServerShaped:
    """Withhold credentials (unless ``redactor=None``), bound ``value``'s bulk arrays by
    ``limit`` (if given), then fit ``cap`` bytes. ``sha256`` binds the tool's own bytes."""
    budget = Budget(cap)
    full = dumps_value(value)
    digest = hashlib.sha256(full).hexdigest()
    value, withheld = redact_parsed(value, full, redactor)
    ordered = caveats_first(value)
    cuts: list[dict[str, Any]] = []
    limited = ordered
    if limit is not None:
        limited, cuts = bound_arrays(ordered, limit)
    if not cuts:
        body = full if ordered is value and not withheld else dumps_value(ordered)
        ctx = ShapeContext(sha256=digest, total_bytes=len(full), body=body,
                           withheld=condense_withheld(withheld, budget))
        if withheld:
            # Something was withheld: the envelope must say so, even when the rest fits.
            shaped = fit(value_shaper(ordered, ctx), budget)
        else:
            # Same members, so the same length: only the order (and so the digest) differs.
            shaped = shape_body(body, budget, "json", ctx)
        return ServerShaped(shaped.text, parse_json(shaped.body), shaped.envelope)
    # At a small cap the limit cuts' own entries can leave too little room for the rows the
    # limit keeps (the shaper needs its minimum budget): then fewer rows are kept, each cut
    # still declared with its original total, down to none at all.
    for keep in _fewer(limit):
        if keep != limit:
            limited, cuts = bound_arrays(ordered, keep)
        fitted = _fit(limited, cuts, withheld, digest, len(full), cap, budget)
        if fitted is not None:
            return fitted
    raise ElisionError(
        f"could not fit the {len(cuts)} limit cuts and the envelope in {cap} bytes; raise the "
        "cap or lower the limit"
    )


def _fewer(limit: int | None) -> list[int]:
    """``limit``, then half as many, and so on down to 0."""
    assert limit is not None
    counts = [limit]
    while counts[-1] > 0:
        counts.append(counts[-1] // 2)
    return counts


def _fit(
    limited: Any, cuts: list[dict[str, Any]], withheld: list[dict[str, Any]], digest: str,
    total: int, cap: int, budget: Budget,
) -> ServerShaped | None:
    target = cap
    for _ in range(6):
        text, doc, envelope = _compose(limited, cuts, withheld, digest, total, target)
        size = len(text.encode("utf-8"))
        if size <= cap:
            return ServerShaped(text, doc, envelope)
        target -= size - cap + 16
        if target < budget.limit // 2:
            break
    return None


def _compose(
    limited: Any, cuts: list[dict[str, Any]], withheld: list[dict[str, Any]], digest: str,
    total: int, target: int,
) -> tuple[str, Any, dict[str, Any]]:
    # The limit cuts and the withheld entries go in the outer envelope: reserve their room
    # before shaping the rest (which was redacted already).
    listed = condense_withheld(withheld, Budget(max(target, 512)))
    reserve = len(dumps_value(cuts)) + len(dumps_value(listed)) + 96
    inner = shape(limited, Budget(max(target - reserve, 512)), format="json", redactor=None)
    doc = parse_json(inner.body)
    elided = list(cuts)
    if inner.envelope is not None:
        by_path = {c["path"]: c for c in cuts}
        elided = []
        for entry in inner.envelope.get("elided", []):
            cut = by_path.pop(entry["path"], None)
            elided.append({**entry, "total": cut["total"]} if cut else entry)
        elided += by_path.values()
        doc = {k: v for k, v in doc.items() if k != ENVELOPE_KEY}
        if set(doc) == {VALUE_KEY} and not isinstance(limited, dict):
            doc = doc[VALUE_KEY]
    body = doc
    shown = 0
    text = ""
    envelope: dict[str, Any] = {}
    for _ in range(3):  # bytes.shown counts itself: settle its digits
        envelope = make_envelope(sha256=digest, shown_bytes=shown, total_bytes=total,
                                 elided=elided, withheld=listed)
        if isinstance(body, dict) and ENVELOPE_KEY not in body:
            out: dict[str, Any] = {ENVELOPE_KEY: envelope, **body}
        else:
            out = {ENVELOPE_KEY: envelope, VALUE_KEY: body}
        text = dumps_value(out).decode("utf-8")
        size = len(text.encode("utf-8"))
        if size == shown:
            break
        shown = size
    return text, parse_json(text.encode("utf-8")), envelope
