"""Fetching the remainder: select part of a stored original and shape it as a page.

Every backend reads the exact original bytes and hands them here, so a page looks the same
whichever store served it. A page is shaped to the budget like any result, but its envelope
counts shown-of-total against the ORIGINAL node, and its ``next`` points into the original,
so a model can walk a 100 MB result one budget at a time.

The store keeps the original (its digest binds what the tool returned), so no page is served
from it directly: every page is selected from the body's *redacted view* - the same
redaction rules the first result went through - and lists its own ``withheld`` entries.
Selecting from the redacted whole, never redacting a selected part, matters: a part can cut
a PEM key in two, or pick the value of a credential-named key out of its object, where no
rule would see it. The view of a body the pipeline shaped in this process is the one it
showed (the same stubs, whose records are kept in the client's scope); any other body is
redacted afresh, and a reference stub in such a page has no record, so resolving it is
refused rather than guessed.

A text's redacted view has the original's lines: a stub that replaces a value spanning N lines
(a PEM key) is followed by its N-1 line breaks (:func:`elision.redact.redact_text`), so
``lines=`` selects, and a page's header and ``next`` number, the same lines as in the original
the envelope describes. Byte offsets (``bytes=``) are offsets in the redacted view; byte
counts (a header's total, a ``lines=`` page's marker) are the original's, found by those lines
(``ShapeContext.original_start``), so a page's numbers add up as the first result's do.

A JSON body that repeats a key has a view with each shadowed member withheld (reason
``duplicate-key``), so none of its pages - ``lines=`` and ``bytes=`` included - is ever cut
from the raw bytes, where those members still are.

A JSON body of ``LAZY_BYTES`` or more is read as the shaper reads it, as a lazy skeleton
(:mod:`elision.shape.lazyjson`) wherever that proves itself, else whole; the selector walks the
skeleton, so a page costs about what shaping the body cost. Such a body's parse is not kept
between pages, and a view the pipeline showed for one is kept as its serialization.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import orjson

from elision.budget import Budget
from elision.envelope import duplicate_entries, format_next
from elision.errors import BudgetError, InputError, SelectorError, quoted
from elision.pipeline import condense_withheld
from elision.shape import ShapeContext, Shaped, fit, lazyjson, shape_body
from elision.shape.lazyjson import OBJECTS, fresh, is_lazy, parse_document
from elision.shape.lines import is_utf8, line_start
from elision.shape.redactedbody import RedactedBody
from elision.store.select import (
    VALID_PATH_FORMS,
    Key,
    TextSelection,
    bytes_reach,
    following,
    normalize_path,
    parse_path,
    select,
    select_bytes,
    select_lines,
)
from elision.withheld import kept

#: Walking the pages of one large body would redact it once per page; keep the last one (a
#: JSON value only below lazyjson.LAZY_BYTES, see _worth_keeping).
_PARSED_CACHE_MAX_BYTES = 64 * 1024 * 1024
_cache_lock = threading.Lock()
_cache: tuple[str, Any, tuple[str, ...]] | None = None
#: Redacted views kept by ref; the bound is on the view bytes they hold.
_VIEWS_MAX = 16
_VIEWS_MAX_BYTES = 64 * 1024 * 1024
_views: OrderedDict[str, _View] = OrderedDict()
#: Read in a page's bytes, not a decoding of them: the pattern is ASCII, and a byte that is
#: not UTF-8 decodes to U+FFFD without moving an ASCII byte, so the matches are the same.
_STUB_IN_TEXT = re.compile(
    rb"\[(?:credential withheld: ([A-Za-z0-9._-]+)"
    rb"|(credential-dense) text withheld: [0-9,]+ bytes)\]"  # elision.redact.scan.dense_stub
)


@dataclass(frozen=True)
class _View:
    """A body as the model may see it: redacted text bytes, or a redacted JSON value (kept as
    its serialization, ``json``, for a body of ``LAZY_BYTES`` or more)."""

    text: bytes | RedactedBody | None
    value: Any
    #: A text's entries compact (elision.withheld.LineEntries), as the pipeline made them.
    withheld: Sequence[dict[str, Any]]
    size: int
    json: bytes | None = None

    def document(self) -> Any:
        """The redacted JSON value: as kept, or read back (lazily, when big) from its bytes."""
        if self.json is not None:
            return parse_document(self.json)
        # A fresh copy a page: what the page's reading parses goes with it, where the kept
        # view kept every child a page read (0.34x a body's size after 280 pages); a deep
        # spine's lazy bottom too (its levels copied).
        return fresh(self.value)


def remember_view(
    ref: str,
    text: bytes | RedactedBody | None,
    value: Any,
    withheld: Sequence[dict[str, Any]],
    *,
    size: int,
) -> None:
    """Keep the redacted view the pipeline showed for ``ref``, so its pages agree with it.

    ``size`` is the original body's length: the cache is bounded by what its views stand for.
    The value of a body of ``LAZY_BYTES`` or more is kept as its serialization, about the
    body's size where the value is 5-10x it, and each page reads it back as a skeleton. A
    lazy value (the redaction walk's copy of a lazily read body) is kept as it is: it views
    the body and holds only what the walk changed.
    """
    view = _View(text, value, kept(withheld), size)
    if value is not None and size >= lazyjson.LAZY_BYTES and not is_lazy(value):
        from elision.shape.jsondump import dumps_value

        with suppress(InputError):  # a value JSON cannot spell (a lone surrogate) stays a value
            view = _View(text, None, view.withheld, size, dumps_value(value))
    with _cache_lock:
        _views[ref] = view
        _views.move_to_end(ref)
        while len(_views) > _VIEWS_MAX or (
            len(_views) > 1 and sum(v.size for v in _views.values()) > _VIEWS_MAX_BYTES
        ):
            _views.popitem(last=False)


def shape_page(
    body: bytes,
    *,
    ref: str,
    sha256: str,
    format: str,
    budget: Budget,
    path: str | None = None,
    lines: str | None = None,
    byte_range: str | None = None,
    redact: bool = True,
) -> Shaped:
    """One page of ``body`` (already read and digest-checked), redacted and shaped to ``budget``.

    ``redact=False`` pages the original as it is (``elision fetch --no-redact``)."""
    given = [name for name, value in (("path", path), ("lines", lines), ("bytes", byte_range))
             if value is not None]
    if len(given) > 1:
        raise SelectorError(
            f"give at most one of path, lines or bytes, got {' and '.join(given)}; "
            "a path selects within JSON, lines and bytes within text"
        )
    ctx = ShapeContext(sha256=sha256, total_bytes=len(body), body=body, fixed_ref=ref,
                       format=format)
    view = (
        _view_of(body, ref=ref, sha256=sha256, format=format, as_json=path is not None)
        if redact else _original_view(body, sha256=sha256, format=format, as_json=path is not None)
    )
    if path is not None:
        return _json_page(view, path, ctx, budget)
    text, one_line = _view_text(view, body, None if byte_range is None else bytes_reach(byte_range))
    view_is_text = view.text is not None
    withheld, whole = view.withheld, lines is None and byte_range is None
    redacted = view.document() if withheld and whole else None  # a lines= page reads text
    # What follows reads the text, or the redacted value: a skeleton the view holds goes now
    # (shaping the original reads it afresh; two at once cost a skeleton more).
    del view
    if lines is not None or byte_range is not None:
        if lines is not None:
            selection = select_lines(text, lines)
            ctx.page = f"lines={selection.normalized}"
            if text is not body and view_is_text and not selection.past_end:
                # A redacted text has the original's lines: the page's marker counts their
                # bytes in the original, the unit of its header's total.
                ctx.original_start = line_start(body, selection.lines_before)
        else:
            assert byte_range is not None
            selection = select_bytes(text, byte_range, one_line=one_line)
            ctx.page = f"bytes={selection.normalized}"
        ctx.withheld = condense_withheld(_stubs_in(selection.body, selection.lines_before),
                                         budget)
        if selection.past_end:
            return _past_end_lines_page(selection, text, format, ctx, budget)
        if lines is not None and format in ("csv", "ndjson"):
            return _record_page(selection, text, format, ctx, budget)
        return _text_page(selection, ctx, budget)
    # No selector: the whole original, shaped as it was the first time.
    ctx.withheld = condense_withheld(withheld, budget)
    if redacted is not None:
        from elision.shape.json import value_shaper

        ctx.format = "json"
        return fit(value_shaper(redacted, ctx), budget)
    fmt = format if format in ("text", "ndjson", "csv") else "auto"
    return shape_view(text, budget, fmt, ctx)


def shape_view(
    view: bytes | RedactedBody, budget: Budget, fmt: str, ctx: ShapeContext
) -> Shaped:
    """Shape ``view`` (a redacted text) while ``ctx`` names the original's digest and size.

    Unlike :func:`shape_body`, a view with withheld values never takes the fits-unchanged
    path: what was withheld must still be said, in the envelope.
    """
    if not ctx.withheld:
        return shape_body(bytes(view), budget, fmt, ctx)
    from elision.shape import _shaper_for  # the one format dispatch; no second copy of it

    return fit(_shaper_for(view, fmt, ctx), budget)


def _view_of(body: bytes, *, ref: str, sha256: str, format: str, as_json: bool) -> _View:
    with _cache_lock:
        known = _views.get(ref)
    if known is not None and isinstance(known.text, RedactedBody):
        # The pipeline's view, read in place while it shaped: a page reads the text whole
        # (its lines, its bytes), so it is written once now and kept so.
        known = _View(bytes(known.text), None, known.withheld, known.size)
        remember_view(ref, known.text, None, known.withheld, size=known.size)
    if known is not None and (
        known.value is not None or known.json is not None or not as_json
    ):
        return known
    from elision.redact import redact_text, redact_value

    if format == "json" or as_json:
        document, shadowed = parsed_document(body, sha256)
        done = redact_value(document, body=body)
        # The members a repeated key shadows were judged by nobody: withheld in every page,
        # and a view with anything withheld is never served from the raw bytes.
        withheld = (*duplicate_entries(shadowed), *done.withheld)
        view = _View(None, done.value, withheld, len(body))
    elif is_utf8(body):
        # Redacted as the pipeline redacts a text: as bytes, its entries compact (no dict
        # a value: 5.5x the body just under the density bound, issue 23).
        from elision.redact.bodyview import redact_body

        data, entries = redact_body(body)
        view = _View(data, None, entries, len(body))
    else:
        text = body.decode("utf-8", errors="replace")
        done = redact_text(text)
        data = str(done.value).encode("utf-8") if done.withheld else body
        view = _View(data, None, done.withheld, len(body))
    if _worth_keeping(body, view.value):
        # Walking the pages of one body redacts it once, not once per page.
        remember_view(ref, view.text, view.value, view.withheld, size=len(body))
    return view


def _worth_keeping(body: bytes, value: Any) -> bool:
    """Whether the parse or view of ``body`` is kept for its next page: a text view is about
    its bytes, a JSON value of a body under ``LAZY_BYTES`` 5-10x of them. A bigger body's value
    is read again by each page (at about what shaping it costs): its skeleton holds the body it
    views while the next page reads that body again, and would keep every row its pages parsed;
    a value parsed whole (or by a redaction walk) holds 5-10x the body, between calls."""
    if len(body) > _PARSED_CACHE_MAX_BYTES:
        return False
    return value is None or len(body) < lazyjson.LAZY_BYTES


def _original_view(body: bytes, *, sha256: str, format: str, as_json: bool) -> _View:
    # Never cached as the ref's view: every other page of this ref is redacted.
    if format == "json" or as_json:
        document, _ = parsed_document(body, sha256)
        return _View(None, document, (), len(body))
    return _View(body, None, (), len(body))


def _view_text(view: _View, body: bytes, reach: int | None = None) -> tuple[bytes, int | None]:
    """The text a lines= or bytes= page of ``view`` selects from, and ``None``; or, when a
    bytes= page reads only its first ``reach`` bytes and the view is a lazy one already
    written whole once, as one line, only its first bytes, and its whole length."""
    if view.text is not None:
        # Written whole by _view_of, which every page's view comes from.
        return bytes(view.text), None
    if not view.withheld:
        return body, None
    if view.json is not None:
        return view.json, None
    # Lines or bytes of a redacted JSON body: ranges over the redacted serialization; a lazy
    # view (the redaction walk's copy of a lazily read body) is written a piece at a time,
    # and a page of its first bytes writes those (a page near the start costs its page).
    size = lazyjson.written_size(view.value)
    if reach is not None and size is not None and reach < size:
        return lazyjson.serialize(view.value, stop=reach), size
    return lazyjson.serialize(view.value), None


def _stubs_in(page: bytes, lines_before: int) -> list[dict[str, Any]]:
    """Withheld entries for the credential stubs a text page shows, by line."""
    entries: list[dict[str, Any]] = []
    # A page to the end of a 1 MB view held its decoded copy beside it and the view: 2.76x the
    # body at its peak (bench/fetch.py --view-pages). Lines are counted on from the last stub,
    # not from the page's start at each (a page of many stubs cost their number times it).
    line, at = lines_before + 1, 0
    for match in _STUB_IN_TEXT.finditer(page):
        line += page.count(b"\n", at, match.start())
        at = match.start()
        entries.append({"line": line, "reason": (match.group(1) or match.group(2)).decode()})
    return entries


def _json_page(view: _View, path: str, ctx: ShapeContext, budget: Budget) -> Shaped:
    steps = parse_path(path)
    document = view.document()
    selection = select(document, steps)
    from elision.shape.json import value_shaper

    ctx.format = "json"
    ctx.page = normalize_path(steps)
    ctx.root_path = selection.node_path
    ctx.root_offset = selection.offset
    ctx.root_total = selection.total
    ctx.following = following(document, steps)
    if selection.past_end:
        # An empty selection that looks like a page of everything would be silent: say why
        # it is empty, and go nowhere (what follows it was not asked for).
        ctx.notes.append(past_end_note(selection.total or 0, _unit_of(selection.value)))
        ctx.following = None
    ctx.withheld = condense_withheld([
        w for w in view.withheld
        if _in_selection(str(w.get("path", "")), selection.node_path, selection.total,
                         selection.offset, selection.value)
    ], budget)
    try:
        page: Shaped | None = fit(value_shaper(selection.value, ctx), budget)
    except BudgetError:
        page = None  # not even the envelope alone fits: its path is long (a long key)
    if page is not None and not _stalls(page, ctx, path):
        return page
    more = _budget_that_shows_more(selection.value, ctx, budget, path)
    raise BudgetError(
        f"a page of {budget.limit:,} {budget.unit} has no room for one element of "
        f"{ctx.page} beside its envelope (the path and the ref it must name), so it would "
        f"show nothing and point at itself; ask for this page with budget={more} "
        f"(elision fetch --budget {more})"
    )


def past_end_note(total: int, unit: str) -> str:
    """What a page of a selection that starts past the end of its node says (issue 23)."""
    return f"shown 0 of {total:,}, index past the end: there are {total:,} {unit}"


def _unit_of(value: Any) -> str:
    if isinstance(value, OBJECTS):
        return "members"
    return "chars" if isinstance(value, str) else "elements"


def _stalls(page: Shaped, ctx: ShapeContext, path: str) -> bool:
    """Whether ``page`` names its own selector as its next page: it shows nothing new."""
    following = (page.envelope or {}).get("next")
    ref = ctx.fixed_ref or ""
    return following is not None and following in (
        format_next(ref, path=ctx.page), format_next(ref, path=path))


def _budget_that_shows_more(value: Any, ctx: ShapeContext, budget: Budget, path: str) -> int:
    """The least doubling of ``budget`` whose page of ``value`` is not stalled."""
    from elision.shape.json import value_shaper

    limit = budget.limit
    for _ in range(24):
        limit *= 2
        try:
            page = fit(value_shaper(value, ctx), budget.with_limit(limit))
        except BudgetError:
            continue
        if not _stalls(page, ctx, path):
            break
    return limit


def _text_page(selection: TextSelection, ctx: ShapeContext, budget: Budget) -> Shaped:
    from elision.shape.text import text_shaper

    ctx.format = "text"
    ctx.root_offset = selection.lines_before
    ctx.root_total = selection.total_lines
    ctx.root_byte_offset = selection.byte_offset
    return _progressing(text_shaper(selection.body, ctx), ctx, budget, "line")


def _progressing(
    shaper: Callable[[int], Shaped], ctx: ShapeContext, budget: Budget, unit: str
) -> Shaped:
    """The page ``shaper`` makes at ``budget``, unless it shows nothing of its selection (its
    ``next`` would be its own call, and a reader following it would loop): then a BudgetError
    naming the least doubling of the budget at which the page shows something (invariant 12)."""
    page = fit(shaper, budget)
    if not _shows_nothing(page):
        return page
    limit = budget.limit
    for _ in range(24):
        limit *= 2
        if not _shows_nothing(fit(shaper, budget.with_limit(limit))):
            break
    raise BudgetError(
        f"a page of {budget.limit:,} {budget.unit} has no room for one {unit} of "
        f"{ctx.page} beside its notice (the range and the ref it must name), so it would "
        f"show nothing and point at itself; ask for this page with budget={limit} "
        f"(elision fetch --budget {limit})"
    )


def _shows_nothing(page: Shaped) -> bool:
    """Whether a lines/records page shows no line or record of its selection, and no part of
    one (a cut line shows part of one), while some are left to show."""
    envelope = page.envelope or {}
    if any("cut at char" in note for note in envelope.get("notes", ())):
        return False
    return any(entry.get("shown") == 0 and entry.get("kind") in ("lines", "records", "rows")
               for entry in envelope.get("elided", ()))


def _past_end_lines_page(
    selection: TextSelection, whole: bytes, format: str, ctx: ShapeContext, budget: Budget
) -> Shaped:
    """A ``lines=`` page that starts after the last line: it shows no line, says so in its
    format (a text header, an NDJSON envelope line, a CSV notice after the header row), and
    has no ``next``."""
    from elision.envelope import ENVELOPE_KEY, make_envelope, text_header
    from elision.shape.table import header_row

    ref = ctx.fixed_ref
    note = past_end_note(selection.total_lines, "lines")
    fmt = format if format in ("ndjson", "csv") else "text"
    # A CSV page starts with the header row, unless that row would not leave room for more.
    row = (header_row(whole) or b"").decode("utf-8", errors="replace") if fmt == "csv" else ""
    if len(row.encode()) > budget.limit // 2:
        row = ""

    def compose(shown: int) -> str:
        if fmt == "ndjson":
            return orjson.dumps({ENVELOPE_KEY: envelope(shown)}).decode()
        header = text_header(shown_ranges=[], total_lines=selection.total_lines,
                             shown_bytes=shown, total_bytes=ctx.total_bytes, sha256=ctx.sha256,
                             ref=ref, extra=[note])
        if fmt == "text":
            return header + "\n"
        return row + '"' + header.replace('"', '""') + '"\n'

    def envelope(shown: int) -> dict[str, Any]:
        env = make_envelope(sha256=ctx.sha256, shown_bytes=shown, total_bytes=ctx.total_bytes,
                            withheld=ctx.withheld, ref=ref, page=ctx.page, notes=[note])
        env["complete"] = False
        return env

    shown = 0
    for _ in range(4):  # the shown bytes are part of what they count: settle their digits
        size = len(compose(shown).encode())
        if size == shown:
            break
        shown = size
    return Shaped(compose(shown), False, envelope(shown), fmt, ctx.sha256, ctx.total_bytes,
                  ref)


def _record_page(
    selection: TextSelection, whole: bytes, format: str, ctx: ShapeContext, budget: Budget
) -> Shaped:
    """Lines of a CSV or NDJSON body, shaped as that format: NDJSON pages stay NDJSON (a
    first line that is the envelope), CSV pages start with the original's header row."""
    from elision.shape.records import csv_shaper, ndjson_shaper
    from elision.shape.table import header_row

    ctx.root_offset = selection.lines_before
    ctx.root_total = selection.total_lines
    if format == "ndjson":
        shaper = ndjson_shaper(selection.body, ctx)
    else:
        if selection.lines_before:
            ctx.header_row = header_row(whole)
        shaper = csv_shaper(selection.body, ctx)
    # A body that is not NDJSON (or CSV) after all is shaped as text: its unit is a line.
    return _progressing(shaper, ctx, budget, "line" if ctx.format == "text" else "record")


def _in_selection(path: str, node: str, total: int | None, offset: int, value: Any) -> bool:
    if node == "$":
        rest = path[1:]
    elif path == node or path.startswith((node + ".", node + "[")):
        rest = path[len(node):]
    else:
        return False
    if total is None or isinstance(value, str):
        return True  # a whole node, or a slice of a string (its own path)
    if isinstance(value, OBJECTS):  # a member range: the members it holds
        try:
            first = parse_path("$" + rest)[:1]
        except SelectorError:
            return False
        return bool(first) and isinstance(first[0], Key) and first[0].name in value
    index = re.match(r"\[(\d+)\]", rest)
    return index is not None and offset <= int(index.group(1)) < offset + len(value)


def parsed_document(body: bytes, sha256: str) -> tuple[Any, tuple[str, ...]]:
    """The JSON value of ``body``, parsed with exact numbers, and the paths of the members its
    repeated keys shadow; a text body is a SelectorError.

    A big body is read as a lazy skeleton (:func:`elision.shape.lazyjson.parse_document`),
    which proves it has no repeated key, else it is parsed whole, shadowed paths and all: a
    page costs about what shaping the body cost, and says the same."""
    global _cache
    with _cache_lock:
        if _cache is not None and _cache[0] == sha256:
            return _cache[1], _cache[2]
    shadowed: list[str] = []
    try:
        document = parse_document(body, duplicates=shadowed)
    except (InputError, orjson.JSONDecodeError, ValueError) as exc:
        raise SelectorError(
            f"this body is not JSON ({exc}), so a path cannot select in it; "
            "use lines=\"a-b\" or bytes=\"a-b\" instead; for JSON, " + VALID_PATH_FORMS
        ) from None
    if _worth_keeping(body, document):
        with _cache_lock:
            _cache = (sha256, document, tuple(shadowed))
    return document, tuple(shadowed)


_NEXT_CALL = re.compile(r"\s*elision_fetch\((.*)\)\s*\Z", re.DOTALL)
_NEXT_ARG = re.compile(r'\s*(ref|path|lines|bytes)\s*=\s*("(?:[^"\\]|\\.)*")\s*(?:,|\Z)')


def parse_next(call: str) -> dict[str, str]:
    """The arguments of an envelope's ``next``: ``elision_fetch(ref="…", path="…")``.

    Returns keys ``ref`` and one of ``path``, ``lines`` or ``bytes``, so a person can paste a
    ``next`` into ``elision fetch`` as it was printed.
    """
    match = _NEXT_CALL.match(call)
    if match is None:
        raise SelectorError(
            f"not a next call: {quoted(call)}; expected elision_fetch(ref=\"el_…\", path=\"$…\")"
        )
    args: dict[str, str] = {}
    inner, pos = match.group(1), 0
    while pos < len(inner):
        arg = _NEXT_ARG.match(inner, pos)
        if arg is None:
            raise SelectorError(
                f"cannot read the arguments of {quoted(call)} at char {pos}; expected "
                'ref="…" and one of path="…", lines="…", bytes="…"'
            )
        args[arg.group(1)] = orjson.loads(arg.group(2))
        pos = arg.end()
    if "ref" not in args:
        raise SelectorError(f"the next call {quoted(call)} has no ref=\"…\"; copy it whole")
    return args
