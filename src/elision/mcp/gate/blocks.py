"""A result of many content blocks, shaped as one array: whole blocks from the first.

MCPServer sends a tool's list as one text block per item. Splitting the budget among 600
blocks gives each less than the smallest budget, so each would get the minimum and the
result would be 600 minimums. The budget is per result instead: the content list is treated
like a JSON array (:mod:`elision.shape.json`) - blocks are kept whole, in order, while they
fit; a block too large to fit whole is shown in shaped form only when it is the first or
large (over an eighth of the budget), and nothing after it is shown. A notice block goes
first (a head slice keeps it) and says which blocks were shown of how many and how to fetch
the rest. Paths in the envelope are into the stored body: the compact JSON of the result as
it arrived, ``{"content": [...], "structuredContent": ..., "isError": ...}``, so
``elision_fetch(ref, path="$.content[7:]")`` pages through the blocks not shown.

``structuredContent`` that lists the same items (``{"result": [...]}`` with one item per
block) is cut to the items whose blocks were shown whole, and within the budget on its own:
a client shows the model one form or the other. Any other ``structuredContent`` shares the
budget with the blocks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp_types as types

from elision.budget import MINIMUM, MINIMUM_LINES, Budget, line_count
from elision.envelope import (
    ENVELOPE_KEY,
    elided_entry,
    format_next,
    format_path,
    make_envelope,
    text_header,
)
from elision.pipeline import Capture
from elision.withheld import Chained

if TYPE_CHECKING:
    from elision.mcp.gate.results import ResultShaper

#: A block larger than the budget divided by this may be shown in part after others.
PARTIAL_BLOCK_SHARE = 8
#: Room kept for the notice block's digits beyond its widest estimate.
_NOTICE_SLACK = 16


def needs_array(sizes: list[int], shares: list[int], budget: Budget) -> bool:
    """Whether splitting the budget among the pieces would overshoot it: every piece is held
    to the minimum budget at least, so many pieces cannot share one budget."""
    return len(sizes) > 1 and sum(
        min(size, share) for size, share in zip(sizes, shares, strict=True)
    ) > budget.limit


@dataclass
class _Kept:
    blocks: list[Any] = field(default_factory=list)
    #: Blocks shown whole, from the first (the rest of ``blocks`` is one block in part).
    whole: int = 0
    size: int = 0
    #: Lines of the blocks kept, each with the seam a harness puts before it (a line cap).
    lines: int = 0
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    #: Compact parts kept as they came (a text's entries are no dict a value).
    withheld: Chained = field(default_factory=Chained)


def shape_as_array(
    rs: ResultShaper,
    result: types.CallToolResult,
    content: list[Any],
    call: Capture,
    *,
    budget: Budget,
    scope: str | None,
    tool: str | None,
    server: str | None,
) -> tuple[types.CallToolResult, list[dict[str, Any]], Chained]:
    """The result with its content shaped as one array; also its envelopes and every
    withheld entry (for the audit)."""
    from elision.mcp.gate.results import _dumps, _structured_from

    structured = result.structured_content
    echo_key = _parallel_key(structured, content)
    content_limit = budget.limit
    struct_limit: int | None = None
    if structured is not None and echo_key is None:
        from elision.mcp.gate.results import _shares

        body = _dumps(structured)
        content_limit, struct_limit = _shares(
            [sum(block_size(b, budget) for b in content), budget.measure(body)], budget
        )
    ref = rs._keep(call.body, call.sha256, scope, format="json")
    total = len(content)
    widest = _notice(ref, call, total, total, total, budget.limit, call.sha256)
    room = content_limit - budget.measure(widest) - _NOTICE_SLACK
    kept = _keep_blocks(rs, content, room, content_limit, budget, scope, tool, server)
    shown = len(kept.blocks)
    rest = kept.whole
    envelopes = list(kept.envelopes)
    withheld = Chained(kept.withheld)
    blocks = list(kept.blocks)
    if shown < total or rest < total:
        notice = _notice(ref, call, rest, shown, total, kept.size, call.sha256)
        blocks.insert(0, types.TextContent(text=notice))
        size = kept.size + budget.measure(notice)
        array = _array_envelope(ref, call, rest, shown, total, size)
        envelopes.insert(0, {"at": "content", **array})
    if echo_key is not None and structured is not None:
        echoed: list[dict[str, Any]] = []
        if rs.pipeline.redactor is not None:
            # The items are the blocks' values again: withheld in them too (the audit
            # counts each value once, in its block).
            piece = rs.pipeline.capture(_dumps(structured), tool=tool, server=server)
            redacted = rs.pipeline.redact_capture(piece, scope=scope)
            if redacted.withheld:
                structured = json.loads(_dumps(redacted.value))
                echoed = list(redacted.withheld)
        structured = _cut_echo(structured, echo_key, rest, ref, call, budget, echoed)
    elif structured is not None and struct_limit is not None:
        body = _dumps(structured)
        piece = rs.pipeline.capture(body, tool=tool, server=server)
        shaped, more = rs.pipeline.redact_and_shape(
            piece, budget=budget.with_limit(struct_limit), scope=scope
        )
        withheld.extend(more)
        if not shaped.complete and shaped.envelope is not None:
            envelopes.append({"at": "structuredContent", **shaped.envelope})
        structured = _structured_from(shaped, structured)
    meta = dict(result.meta or {})
    out = result.model_copy(update={
        "content": blocks, "structured_content": structured, "meta": meta or None,
    })
    return out, envelopes, withheld


def _keep_blocks(
    rs: ResultShaper, content: list[Any], room: int, limit: int, budget: Budget,
    scope: str | None, tool: str | None, server: str | None,
) -> _Kept:
    kept = _Kept()
    pipeline = rs.pipeline
    large = limit // PARTIAL_BLOCK_SHARE
    minimum = MINIMUM[budget.unit]
    # A line cap holds the notice block and its seam too; without one, lines never end it.
    lines_left = (1 << 62) if budget.lines is None else budget.lines - 2
    for index, block in enumerate(content):
        text = text_of(block)
        if text is None:
            redacted = rs._redact_block(block, index, scope, tool, server) if (
                pipeline.redactor is not None) else None
            new = block
            if redacted is not None:
                new, env = redacted
                kept.envelopes.append({"at": f"content[{index}]", **env})
                kept.withheld.extend(env["withheld"])
            stub = rs._media_stub(new, scope)
            if stub is not None:
                new, env = stub
                kept.envelopes.append({"at": f"content[{index}]", **env})
                kept.withheld.extend(env["withheld"])
            size = block_size(new, budget)
            if size > room - kept.size or block_lines(new) + 1 > lines_left - kept.lines:
                break
            kept.blocks.append(new)
            kept.size += size
            kept.lines += block_lines(new) + 1
            kept.whole += 1
            continue
        cap = pipeline.capture(text, tool=tool, server=server)
        # A repeated key's shadowed members are withheld with or without a redactor.
        redacted_text = pipeline.redact_capture(cap, scope=scope) if (
            pipeline.redactor is not None or cap.shadowed) else None
        left = room - kept.size
        size = budget.measure(text)
        lines = lines_left - kept.lines - 1  # what this block may have, its seam aside
        fits = size <= left and line_count(text) <= lines
        if fits and (redacted_text is None or not redacted_text.withheld):
            kept.blocks.append(block)
            kept.size += size
            kept.lines += line_count(text) + 1
            kept.whole += 1
            continue
        if left < minimum or lines < MINIMUM_LINES or (kept.blocks and not fits and (
                size <= large)):
            break  # a small block that does not fit ends the array here
        shaped, withheld = pipeline.redact_and_shape(
            cap, scope=scope, redacted=redacted_text, budget=Budget(
                left, budget.unit, budget.counter, None if budget.lines is None else lines),
        )
        cut = bool((shaped.envelope or {}).get("elided"))
        if cut and kept.blocks and size <= large:
            break
        kept.blocks.append(with_text(block, shaped.text))
        kept.size += budget.measure(shaped.text)
        kept.lines += line_count(shaped.text) + 1
        kept.withheld.extend(withheld)
        if shaped.envelope is not None:
            kept.envelopes.append({"at": f"content[{index}]", **shaped.envelope})
        if cut:
            break  # shown in part: the array ends with it
        kept.whole += 1
    return kept


def text_of(block: Any) -> str | None:
    """The text of a text block or of an embedded text resource; ``None`` for other blocks."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.EmbeddedResource) and isinstance(
        block.resource, types.TextResourceContents
    ):
        return block.resource.text
    return None


def with_text(block: Any, text: str) -> Any:
    """A block that :func:`text_of` reads, with ``text`` in place of its text."""
    if isinstance(block, types.TextContent):
        return block.model_copy(update={"text": text})
    resource = block.resource.model_copy(update={"text": text})
    return block.model_copy(update={"resource": resource})


def block_lines(block: Any) -> int:
    """The lines a block is to a harness that caps lines: its text's; another block, shown
    as a line of its own, one."""
    text = text_of(block)
    return 1 if text is None else line_count(text)


def result_lines(content: list[Any]) -> int:
    """The lines of a result's content as a harness that caps lines counts them: the blocks
    joined with a blank line between (OpenCode joins them with two newlines)."""
    return sum(block_lines(b) for b in content) + max(0, len(content) - 1)


def block_size(block: Any, budget: Budget) -> int:
    """What a block costs of the text budget: its text; a media block what is left of it
    without its data (media have their own budget)."""
    text = text_of(block)
    if text is not None:
        return budget.measure(text)
    plain = block.model_dump(by_alias=True, mode="json", exclude_none=True)
    plain.pop("data", None)
    if isinstance(plain.get("resource"), dict):
        plain["resource"].pop("blob", None)
    return budget.measure(json.dumps(plain, separators=(",", ":")))


def _parallel_key(structured: Any, content: list[Any]) -> str | None:
    """The key of a ``structuredContent`` that lists one item per text block, or ``None``."""
    if not isinstance(structured, dict) or len(structured) != 1:
        return None
    key, items = next(iter(structured.items()))
    if not isinstance(items, list) or len(items) != len(content):
        return None
    if not all(isinstance(b, types.TextContent) for b in content):
        return None
    return str(key)


def _cut_echo(
    structured: dict[str, Any], key: str, whole: int, ref: str | None, call: Capture,
    budget: Budget, withheld: list[dict[str, Any]],
) -> dict[str, Any]:
    """The listed items whose blocks were shown whole, fewer if that is over the budget."""
    from elision.mcp.gate.results import _dumps

    items = structured[key]
    path = format_path(["structuredContent", key])

    def cut(n: int) -> dict[str, Any]:
        shown = [
            {**w, "path": "$.structuredContent" + str(w["path"])[1:]} for w in withheld
            if _index_under(str(w.get("path", "")), format_path([key])) < n
        ]
        env = make_envelope(
            sha256=call.sha256, shown_bytes=0, total_bytes=len(call.body),
            elided=[elided_entry(path, "array", n, len(items))], withheld=shown, ref=ref,
            next_call=format_next(ref, path=f"{path}[{n}:]") if ref else None,
            stored=None if ref else False,
        )
        doc = {ENVELOPE_KEY: env, key: items[:n]}
        env["bytes"]["shown"] = budget.measure(_dumps(doc))
        return doc

    lo, hi = 0, whole
    while lo < hi:  # the most items whose form fits
        mid = (lo + hi + 1) // 2
        if budget.measure(_dumps(cut(mid))) <= budget.limit:
            lo = mid
        else:
            hi = mid - 1
    return cut(lo)


def _index_under(path: str, array: str) -> int:
    """The index of the element of ``array`` that ``path`` is in (a large number if none)."""
    match = re.match(re.escape(array) + r"\[(\d+)\]", path)
    return int(match.group(1)) if match else 1 << 62


def _next_of(ref: str | None, rest: int) -> str | None:
    return format_next(ref, path=f"$.content[{rest}:]") if ref else None


def _notice(
    ref: str | None, call: Capture, rest: int, shown: int, total: int, shown_size: int,
    sha256: str,
) -> str:
    nxt = _next_of(ref, rest)
    extra = [f"the rest: {nxt}"] if nxt else ["the rest was not kept"]
    return text_header(
        shown_ranges=[(1, shown)] if shown else [], total_lines=total, shown_bytes=shown_size,
        total_bytes=len(call.body), sha256=sha256, ref=ref, unit_name="content blocks",
        extra=extra,
    )


def _array_envelope(
    ref: str | None, call: Capture, rest: int, shown: int, total: int, shown_size: int
) -> dict[str, Any]:
    elided = [elided_entry("$.content", "array", shown, total)]
    return make_envelope(
        sha256=call.sha256, shown_bytes=shown_size, total_bytes=len(call.body), elided=elided,
        ref=ref, next_call=_next_of(ref, rest), stored=None if ref else False,
    )
