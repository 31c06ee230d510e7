"""Shaping: fit a body to a budget without ever making a cut look complete.

:func:`shape` takes a body (text, bytes or a JSON value), decides its format, and hands it to
the format's shaper (``json``, ``text``, ``ndjson``, ``csv``). A body that fits is returned
byte for byte; one that doesn't comes back within the budget with an envelope (JSON) or a header
line (text) that says what was shown of what.

Format shapers work in UTF-8 bytes, the unit that is cheap and exact. A budget in chars or tokens
is met by searching for the largest byte limit whose output measures within it: every shaper is
monotone in its byte limit, and a char or a byte-level BPE token is never smaller than a byte, so
the budget's own limit is always a safe starting point. A budget's line cap is met the same way:
the largest byte limit whose output has no more lines than the cap (:func:`fit`).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from elision._record import field, record_class
from elision.budget import Budget, line_count, utf8_len
from elision.errors import BudgetError, ElisionError, InputError, StoreError
from elision.shape.redactedbody import RedactedBody

if TYPE_CHECKING:
    from elision.store.base import Store

Format = Literal["auto", "json", "text", "ndjson", "csv"]
FORMATS: tuple[str, ...] = ("auto", "json", "text", "ndjson", "csv")

#: Keys whose values are coverage or caveats: kept whole and placed before bulk arrays.
#: A key matches when, lower-cased, it equals an entry or starts with an entry ending in ``*``.
DEFAULT_CAVEAT_KEYS: tuple[str, ...] = (
    "warning*", "caveat*", "note*", "error*", "message", "total*", "count*", "matched",
    "scanned*", "searched*", "coverage*", "has_more", "hasmore", "more", "next_cursor",
    "nextcursor", "cursor", "next_page*", "nextpage*", "next", "from", "to", "since", "until",
    "range*", "date_range", "period", "start*", "end*", "truncated", "partial", "incomplete",
    "status", "limit", "offset", "page", "page_size", "pagesize", "per_page", "num_*",
    "n_*", "skipped*", "dropped*", "omitted*", "missing*", "shown", "returned*", "summary",
)


#: ``shape(redactor=…)``'s default, standing for :data:`elision.pipeline.DEFAULT_REDACTOR`
#: (the pipeline imports this module, so it cannot be imported here at load time).
_DEFAULT: Any = object()


def _token_urlsafe(size: int) -> str:
    # secrets.token_urlsafe without importing secrets (and random behind it) on a hook's start.
    return base64.urlsafe_b64encode(os.urandom(size)).rstrip(b"=").decode("ascii")


def new_ref() -> str:
    """An opaque, unguessable ref: 144 random bits, never derived from the content."""
    return "el_" + _token_urlsafe(18)


@record_class(frozen=True)
class Shaped:
    """A shaped result: what the model sees, and what was done to get it."""

    text: str
    complete: bool
    envelope: dict[str, Any] | None
    format: str
    sha256: str
    total_bytes: int
    ref: str | None = None

    @property
    def body(self) -> bytes:
        """``text`` as UTF-8 bytes."""
        return self.text.encode("utf-8")

    @property
    def shown_bytes(self) -> int:
        return utf8_len(self.text)


@record_class
class ShapeContext:
    """What a format shaper needs besides the document and its byte limit.

    ``keep()`` puts the body in the store the first time a shaper finds it must cut, and gives
    the ref (or ``None`` when there is no store or the body could not be kept).
    """

    sha256: str
    total_bytes: int
    body: bytes
    caveat_keys: Sequence[str] = DEFAULT_CAVEAT_KEYS
    store: Store | None = None
    scope: str | None = None
    format: str = "json"
    #: For pages: the path of the root node in the original, and where the root slice starts.
    root_path: str = "$"
    root_offset: int = 0
    #: For pages of a slice: the length of the original node (elements, chars or lines).
    root_total: int | None = None
    #: For CSV pages: the original's header row (its bytes), shown first on every page.
    header_row: bytes | None = None
    #: For text pages: the byte offset in the original body where the page body starts.
    root_byte_offset: int = 0
    #: For a ``lines=`` page of a redacted text: where its first line starts in ``body``, the
    #: original, whose bytes its marker counts (the page's own are the redacted view's).
    original_start: int | None = None
    page: str | None = None
    #: For a page: the selector of what follows its selection in the original, where its
    #: ``next`` goes once the page shows all of the selection.
    following: str | None = None
    #: Set for a page: the ref of the body it is a page of (already stored).
    fixed_ref: str | None = None
    #: ``sha256`` was computed from ``body`` itself, so the store need not hash it again.
    verified: bool = False
    notes: list[str] = field(default_factory=list)
    #: Set when ``body`` is the UTF-8 re-encoding of a body that came with a UTF-16 or UTF-32
    #: byte order mark: the note that says so, which the model is always shown.
    reencoded: str | None = None
    #: Entries for values the redaction stage withheld (path, reason, stub); they make the
    #: result incomplete even when it fits.
    withheld: list[dict[str, Any]] = field(default_factory=list)
    _ref: str | None = None
    _kept: bool | None = None

    def keep(self) -> str | None:
        """Store the body (once) and return its ref, or ``None`` if it is not kept."""
        if self.fixed_ref is not None:
            return self.fixed_ref
        if self._kept is None:
            if self.store is None:
                self._kept = False
            else:
                ref = new_ref()
                try:
                    self.store.put(
                        self.body, ref=ref, sha256=self.sha256, format=self.format,
                        scope=self.scope, verified=self.verified,
                    )
                except StoreError as exc:
                    self._kept = False
                    self.notes.append(f"body not kept: {exc}")
                else:
                    self._kept, self._ref = True, ref
        return self._ref

    @property
    def stored(self) -> bool | None:
        """False when a store was given but the body could not be kept."""
        if self.fixed_ref is not None:
            return True
        if self.store is None:
            return None
        return self._kept


def shape(
    payload: str | bytes | Any,
    budget: Budget | int = 8192,
    *,
    format: Format = "auto",
    store: Store | None = None,
    scope: str | None = None,
    caveat_keys: Sequence[str] | None = None,
    redactor: Any = _DEFAULT,
) -> Shaped:
    """Fit ``payload`` to ``budget``, honestly, with credentials withheld.

    ``payload`` is text, UTF-8 bytes, or a JSON value (dict, list, str, number, bool, None);
    a JSON value is serialized compactly first and that serialization is the body. With a
    ``store``, a body that had to be cut is kept and the envelope gains ``ref`` and ``next``.
    Signed URLs, tokens and keys become stubs listed under the envelope's ``withheld``, as in
    the proxy (``redactor`` is a :class:`elision.pipeline.Redactor`; ``None`` shapes the body
    as it is, secrets and all).
    """
    if not isinstance(budget, Budget):
        budget = Budget(budget)
    if format not in FORMATS:
        raise InputError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    if redactor is not None:
        from elision.pipeline import DEFAULT_REDACTOR, Pipeline

        pipeline = Pipeline(
            budget=budget, store=store,
            redactor=DEFAULT_REDACTOR if redactor is _DEFAULT else redactor,
            caveat_keys=tuple(caveat_keys) if caveat_keys is not None else DEFAULT_CAVEAT_KEYS,
        )
        if isinstance(payload, str):
            # As it is: the pipeline encodes it once, and its redact stage reads this text
            # rather than a decoding of that body (one copy less of a text with a trigger).
            return pipeline.run(payload, format=format, scope=scope)
        body, fmt = _as_body(payload, format)
        return pipeline.run(body, format=fmt, scope=scope)  # type: ignore[arg-type]
    body, fmt = _as_body(payload, format)
    from elision.shape.bom import from_bom

    body, reencoded = from_bom(body)
    digest = hashlib.sha256(body).hexdigest()
    ctx = ShapeContext(
        sha256=digest, total_bytes=len(body), body=body, store=store, scope=scope,
        caveat_keys=tuple(caveat_keys) if caveat_keys is not None else DEFAULT_CAVEAT_KEYS,
        verified=True, reencoded=reencoded,
    )
    return shape_body(body, budget, fmt, ctx)


def shape_body(body: bytes, budget: Budget, fmt: str, ctx: ShapeContext) -> Shaped:
    """Shape raw ``body`` bytes whose digest and context are already known."""
    if (budget.unit == "bytes" and len(body) <= budget.limit and ctx.reencoded is None
            and budget.fits_lines(body)):
        # The common case: a body that fits is returned unchanged, if it is what it seems.
        text = _decode_whole(body)
        light = _light_format(body, fmt) if text is not None else None
        if text is not None and light is not None:
            return Shaped(text, True, None, light, ctx.sha256, len(body))
    shaper = _shaper_for(body, fmt, ctx)
    return fit(shaper, budget)


def fit(shaper: Callable[[int], Shaped], budget: Budget) -> Shaped:
    """The largest output of ``shaper(byte_limit)`` that measures within ``budget``, and has
    no more lines than its line cap."""
    best = _fit_size(shaper, budget)
    if budget.lines is None or line_count(best.text) <= budget.lines:
        return best
    return _fit_lines(shaper, budget, best)


def _fit_size(shaper: Callable[[int], Shaped], budget: Budget) -> Shaped:
    if budget.unit == "bytes":
        return shaper(budget.limit)
    best = shaper(budget.limit)
    if budget.measure(best.text) > budget.limit:
        raise ElisionError(
            f"shaper overshot a {budget.limit}-{budget.unit} budget at a byte limit of the same "
            "number; this is a bug in elision, please report it with the input"
        )
    if best.complete:
        return best
    # Chars and tokens are never smaller than bytes here, so the byte limit can only grow.
    lo, hi = budget.limit, budget.limit * (4 if budget.unit == "chars" else 8)
    while hi - lo > max(16, lo // 64):
        mid = (lo + hi) // 2
        candidate = shaper(mid)
        if budget.measure(candidate.text) <= budget.limit:
            lo, best = mid, candidate
            if candidate.complete:
                break
        else:
            hi = mid
    return best


#: Shaper calls spent meeting a line cap after the first: a few proportional steps down, then
#: narrowing the gap between a byte limit whose output is within the cap and one whose is not.
_LINE_STEPS = 24


def _fit_lines(shaper: Callable[[int], Shaped], budget: Budget, over: Shaped) -> Shaped:
    """The output of the largest byte limit found, below the one that gave ``over``, whose
    lines are within ``budget.lines``: a shaper shows fewer lines at a smaller limit.

    A smaller byte limit measures within the budget too, so lines are what is searched: first
    down in proportion to the excess, then between a limit known to be within the cap (or too
    small to shape at all) and one known to be over it, where the lines' count says (shown
    lines grow about in proportion to the limit), every other step halving the gap so that a
    text of uneven lines still narrows it. It stops once the cap is all but used. Below the
    budget's minimum a text shaper still says what it cut (its header alone at the very least),
    which is how a body of empty lines meets a small cap; a JSON shaper refuses a limit its
    envelope does not fit, and the search goes up from there.
    """
    cap = budget.lines
    assert cap is not None
    hi, hi_lines = utf8_len(over.text), line_count(over.text)
    lo, lo_lines, best, stepping = -1, 0, None, True
    for step in range(_LINE_STEPS):
        if stepping:
            # Room for a header and a marker line, so one step is most often enough.
            mid = max(0, min(hi - 1, hi * (cap - 2) // hi_lines))
        elif hi - lo <= max(16, lo // 256) or (best is not None and lo_lines >= cap - cap // 128):
            break
        elif step % 2 and lo >= 0 and hi_lines > lo_lines:
            mid = lo + (hi - lo) * (cap - lo_lines) // (hi_lines - lo_lines)
            mid = min(max(mid, lo + 1), hi - 1)
        else:
            mid = (lo + hi) // 2
        try:
            candidate = shaper(mid)
        except BudgetError:
            lo, lo_lines, stepping = mid, 0, False  # too small to shape: what fits is above
            continue
        counted = line_count(candidate.text)
        if counted <= cap and budget.measure(candidate.text) <= budget.limit:
            if candidate.complete:
                return candidate  # all of it, compact JSON say: a larger limit shows no more
            lo, lo_lines, best, stepping = mid, counted, candidate, False
        else:
            hi, hi_lines = mid, counted
        if stepping and mid == 0:
            break
    if best is None:
        raise BudgetError(
            f"could not show this result in {cap:,} lines: even its header alone takes more; "
            "raise the line cap (--client-budget NAME=BYTES,LINES)"
        )
    return best


def body_bytes(payload: str | bytes | bytearray | memoryview) -> bytes:
    """The UTF-8 body of a text or bytes payload; a lone surrogate is a clear error."""
    if isinstance(payload, bytes | bytearray | memoryview):
        return bytes(payload)
    try:
        return payload.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"text has a lone surrogate at char {exc.start} ({payload[exc.start]!r}), "
            "which no UTF-8 body can carry; decode the tool's bytes with errors='replace'"
        ) from None


def _as_body(payload: Any, fmt: str) -> tuple[bytes, str]:
    if isinstance(payload, str | bytes | bytearray | memoryview):
        return body_bytes(payload), fmt
    from elision.shape.jsondump import dumps_value

    return dumps_value(payload), "json" if fmt == "auto" else fmt


def _decode_whole(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _light_format(body: bytes, fmt: str) -> str | None:
    """The format of a ``body`` that fits, or ``None`` when it may not go out as it came.

    JSON is held to one rule at every size: ``format="json"`` refuses what the parser refuses
    (NaN, a byte order mark, a lone surrogate escape) with the same InputError an oversized
    body gets, and a document that repeats a key is shaped (its earlier members withheld), not
    passed through, in every format that reads it as JSON. In ``auto``, a body the parser
    refuses is text, whatever its size."""
    if fmt not in ("auto", "json"):
        return fmt
    head = body.lstrip()[:1]
    if fmt == "auto" and head not in (b"{", b"["):
        return "text"
    from elision.shape.jsonparse import parse_json

    shadowed: list[str] = []
    try:
        parse_json(body, duplicates=shadowed)
    except InputError:
        if fmt == "json":
            raise
        return "text"
    return None if shadowed else "json"


#: What a JSON document can be when it starts with neither ``{``, ``[`` nor ``"``: one number or
#: literal between JSON whitespace (RFC 8259; the parser refuses anything else).
_SCALAR_DOCUMENT = re.compile(
    rb"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)[ \t\n\r]*"
)
_JSON_WS = re.compile(rb"[ \t\n\r]*")


def may_be_json(body: bytes | RedactedBody) -> bool:
    """False when ``body`` is certainly no JSON document, judged without parsing it.

    A log or other text body would otherwise be parsed (decoded whole, several times its
    size) only to be refused. A body starting with ``{``, ``[`` or ``"`` is always tried.
    """
    if isinstance(body, RedactedBody):
        # A redacted view holds a stub (``[…]``), which no scalar document does: its first
        # char past white space tells, read a chunk at a time.
        for chunk in body.chunks():
            at = _JSON_WS.match(chunk).end()  # type: ignore[union-attr]
            if at < len(chunk):
                return chunk[at:at + 1] in (b"{", b"[", b'"')
        return False
    start = _JSON_WS.match(body)
    at = start.end() if start else 0
    head = body[at : at + 1]
    if head in (b"{", b"[", b'"'):
        return True
    return _SCALAR_DOCUMENT.fullmatch(body, at) is not None


def _shaper_for(
    body: bytes | RedactedBody, fmt: str, ctx: ShapeContext
) -> Callable[[int], Shaped]:
    from elision.shape.records import looks_like_ndjson

    # Two JSON lines are never one JSON document (the first value ends before the second line),
    # so NDJSON skips a whole-body parse attempt that would fail only after scanning it all.
    ndjson = fmt == "ndjson" or (fmt == "auto" and looks_like_ndjson(body))
    if fmt == "json" or (fmt == "auto" and not ndjson and may_be_json(body)):
        from elision.shape.json import json_shaper

        # Only a text's reading is a redacted view's: other shapers read it written whole.
        shaper = json_shaper(bytes(body), ctx, strict=fmt == "json")
        if shaper is not None:
            return shaper
        # Not one JSON document: in auto mode it may still be NDJSON, else it is text.
    if ndjson:
        from elision.shape.records import ndjson_shaper

        ctx.format = "ndjson"
        return ndjson_shaper(bytes(body), ctx)
    if fmt == "auto":
        from elision.shape.table import looks_like_csv

        if looks_like_csv(body):
            fmt = "csv"
    if fmt == "csv":
        from elision.shape.records import csv_shaper

        ctx.format = "csv"
        return csv_shaper(bytes(body), ctx)
    from elision.shape.text import text_shaper

    ctx.format = "text"
    return text_shaper(body, ctx)
