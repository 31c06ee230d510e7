"""Fetching the remainder: select part of a stored original and shape it as a page.

Every backend reads the exact original bytes and hands them here, so a page looks the same
whichever store served it. A page is shaped to the budget like any result, but its envelope
counts shown-of-total against the ORIGINAL node, and its ``next`` points into the original,
so a model can walk a 100 MB result one budget at a time.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import orjson

from elision.budget import Budget
from elision.errors import InputError, SelectorError
from elision.shape import ShapeContext, Shaped, fit, shape_body
from elision.store.select import (
    VALID_PATH_FORMS,
    TextSelection,
    normalize_path,
    parse_path,
    select,
    select_bytes,
    select_lines,
)

#: Walking the pages of one large document would parse it once per page; keep the last one.
_PARSED_CACHE_MAX_BYTES = 64 * 1024 * 1024
_cache_lock = threading.Lock()
_cache: tuple[str, Any] | None = None


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
) -> Shaped:
    """One page of ``body`` (already read and digest-checked), shaped to ``budget``."""
    given = [name for name, value in (("path", path), ("lines", lines), ("bytes", byte_range))
             if value is not None]
    if len(given) > 1:
        raise SelectorError(
            f"give at most one of path, lines or bytes, got {' and '.join(given)}; "
            "a path selects within JSON, lines and bytes within text"
        )
    ctx = ShapeContext(sha256=sha256, total_bytes=len(body), body=body, fixed_ref=ref,
                       format=format)
    if path is not None:
        return _json_page(body, path, ctx, budget)
    if lines is not None or byte_range is not None:
        if lines is not None:
            selection = select_lines(body, lines)
            ctx.page = f"lines={selection.normalized}"
        else:
            assert byte_range is not None
            selection = select_bytes(body, byte_range)
            ctx.page = f"bytes={selection.normalized}"
        return _text_page(selection, ctx, budget)
    # No selector: the whole original, shaped as it was the first time.
    fmt = format if format in ("text", "ndjson", "csv") else "auto"
    return shape_body(body, budget, fmt, ctx)


def _json_page(body: bytes, path: str, ctx: ShapeContext, budget: Budget) -> Shaped:
    steps = parse_path(path)
    document = parsed_document(body, ctx.sha256)
    selection = select(document, steps)
    from elision.shape.json import value_shaper

    ctx.format = "json"
    ctx.page = normalize_path(steps)
    ctx.root_path = selection.node_path
    ctx.root_offset = selection.offset
    ctx.root_total = selection.total
    return fit(value_shaper(selection.value, ctx), budget)


def _text_page(selection: TextSelection, ctx: ShapeContext, budget: Budget) -> Shaped:
    from elision.shape.text import text_shaper

    ctx.format = "text"
    ctx.root_offset = selection.lines_before
    ctx.root_total = selection.total_lines
    return fit(text_shaper(selection.body, ctx), budget)


def parsed_document(body: bytes, sha256: str) -> Any:
    """The JSON value of ``body``, parsed with exact numbers; a text body is a SelectorError."""
    global _cache
    with _cache_lock:
        if _cache is not None and _cache[0] == sha256:
            return _cache[1]
    try:
        document = parse_json(body)
    except (InputError, orjson.JSONDecodeError, ValueError) as exc:
        raise SelectorError(
            f"this body is not JSON ({exc}), so a path cannot select in it; "
            "use lines=\"a-b\" or bytes=\"a-b\" instead; for JSON, " + VALID_PATH_FORMS
        ) from None
    if len(body) <= _PARSED_CACHE_MAX_BYTES:
        with _cache_lock:
            _cache = (sha256, document)
    return document


def parse_json(body: bytes) -> Any:
    """Parse with the project's exact-number parser, or orjson until that one is installed."""
    try:
        from elision.shape.jsonparse import parse_json as exact_parse
    except ModuleNotFoundError as exc:
        if exc.name != "elision.shape.jsonparse":
            raise
        return orjson.loads(body)
    return exact_parse(body)


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
            f"not a next call: {call!r}; expected elision_fetch(ref=\"el_…\", path=\"$…\")"
        )
    args: dict[str, str] = {}
    inner, pos = match.group(1), 0
    while pos < len(inner):
        arg = _NEXT_ARG.match(inner, pos)
        if arg is None:
            raise SelectorError(
                f"cannot read the arguments of {call!r} at char {pos}; expected "
                'ref="…" and one of path="…", lines="…", bytes="…"'
            )
        args[arg.group(1)] = orjson.loads(arg.group(2))
        pos = arg.end()
    if "ref" not in args:
        raise SelectorError(f"the next call {call!r} has no ref=\"…\"; copy it whole")
    return args
