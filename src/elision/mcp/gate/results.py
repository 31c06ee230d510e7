"""Pipeline glue for MCP tool results: every block of a ``CallToolResult`` is made honest.

What the model sees is shaped; what the tool returned is kept (when there is a store):

* text blocks: each block, or the joined text when the blocks are one JSON document that
  arrived in pieces, shares the budget;
* ``structuredContent``: shaped once, consistently with its text echo (MCPServer sends a
  result twice: as structured content and as a JSON text block), so both say the same thing;
* image and audio: kept under their own budget, else replaced by a stub that names a ref;
* resource links: kept as they are; embedded resources: text shaped, blobs like media.

The envelope goes into ``_meta["elision/shaping"]``; JSON texts also carry it as
``__elision__``. Error results are shaped too and stay errors.

The server's own ``_meta`` reaches the agent too, so it is held to the same rules: keys under
``io.modelcontextprotocol/`` describe the server's connection, not the proxy's, and an
``elision/shaping`` it sends would be a forged envelope, so both are dropped; every other
member is redacted like content; one over :data:`META_LIMIT` bytes of JSON is replaced by
``_meta["elision/meta-withheld"]``, a sentence that says how big it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import orjson

from elision.budget import MINIMUM, MINIMUM_LINES, Budget
from elision.envelope import ENVELOPE_KEY, META_KEY, VERSION, format_next, make_envelope
from elision.errors import InputError, StoreError
from elision.mcp.gate.blocks import (
    block_lines,
    block_size,
    needs_array,
    shape_as_array,
    text_of,
)
from elision.mcp.gate.meta import without_reserved
from elision.pipeline import Capture, Decision, Pipeline, Redacted
from elision.shape import Shaped, new_ref
from elision.shape.jsonparse import parse_json
from elision.shape.lazyjson import LazyObject, is_lazy
from elision.withheld import Chained

#: Base64 characters of one image or audio block kept inline by default (~192 KB decoded).
DEFAULT_MEDIA_BUDGET = 256 * 1024
#: Bytes of JSON of a server's own ``_meta`` passed on; metadata, not a second body.
META_LIMIT = 16 * 1024
META_WITHHELD_KEY = "elision/meta-withheld"


@dataclass
class _Piece:
    """One text-bearing place in the result and what it was shaped into."""

    where: str
    capture: Capture
    size: int
    #: The content block it came from; ``None`` for structured content.
    index: int | None = None
    shaped: Shaped | None = None
    #: One entry per value withheld from it (the envelope may list them condensed).
    withheld: Sequence[dict[str, Any]] = ()


@dataclass
class ResultShaper:
    """Shapes one ``CallToolResult`` with a :class:`Pipeline`."""

    pipeline: Pipeline
    media_budget: int = DEFAULT_MEDIA_BUDGET

    def shape(
        self,
        result: types.CallToolResult,
        *,
        budget: Budget | None = None,
        scope: str | None = None,
        tool: str | None = None,
        server: str | None = None,
    ) -> types.CallToolResult:
        """Guard, redact, shape and audit one call's result.

        The guard decides once, on the whole result as it arrived, and the audit log gets one
        entry per call. Its full digest is over the body the tool returned: the text itself
        when the result is one text block (a JSON echo in ``structuredContent`` being the same
        document), else the compact JSON of the result's content, ``structuredContent`` and
        ``isError``; its shown digest is over the same form of what the agent gets. Raises
        :class:`~elision.errors.PolicyDenied` on a deny (already audited).
        """
        budget = budget or self.pipeline.budget
        if result.meta:
            meta = self._server_meta(result.meta, scope=scope, tool=tool, server=server)
            if meta is not result.meta:
                result = result.model_copy(update={"meta": meta})
        content = list(result.content)
        structured = result.structured_content
        pieces: list[_Piece] = []
        text_at = [i for i, block in enumerate(content) if isinstance(block, types.TextContent)]

        def capture(text: str) -> Capture:
            return self.pipeline.capture(text, tool=tool, server=server)

        joined = _joined_document(content, text_at)
        if joined is not None:
            # One JSON document that arrived in pieces is one document to the model.
            first = text_at[0]
            content[first] = types.TextContent(text=joined)
            content = [b for i, b in enumerate(content) if i == first or i not in text_at]
            text_at = [first]
        # MCPServer echoes structured content as a JSON text, or wraps a text in {"result": …}.
        echo_at: int | None = None
        echo_key: str | None = None
        for i in text_at:
            block = content[i]
            assert isinstance(block, types.TextContent)
            cap = capture(block.text)
            if echo_at is None and structured is not None:
                if _wraps(structured, block.text):
                    echo_at, echo_key = i, next(iter(structured))
                elif cap.is_json and _same_document(cap.value, block.text, structured):
                    echo_at = i
            pieces.append(_Piece(f"content[{i}]", cap, budget.measure(block.text), i))
        simple = (
            len(content) == 1 and len(pieces) == 1 and (structured is None or echo_at == 0)
            # A block's _meta and annotations, and a wrapper's key other than the SDK's own
            # "result", reach the agent too: then the judged view is the whole result.
            and not _has_members(content[0]) and echo_key in (None, "result")
            and not result.meta  # the server's own _meta (redacted above) is judged too
        )
        call = pieces[0].capture if simple else capture(_dumps_result(result))
        decision = self.pipeline.decide(call)
        governed: list[dict[str, Any]] = []
        if self.pipeline.redactor is not None and not simple:
            content, members = _governed_members(content, text_at, joined is None)
            governed.extend(members)
            if echo_key is not None and structured is not None:
                key = _redacted_key(echo_key)
                if key != echo_key:
                    structured = {key: structured[echo_key]}
                    governed.append({"path": "$.structuredContent", "reason": "key"})
                    echo_key = key

        presumed: Redacted | None = None
        # The wrapper is serialized last, and only for a body that fits: for a 100 MB text
        # the dump, and its decoded copy, were two more copies just to learn it did not fit.
        if (simple and joined is None and budget.unit == "bytes"
                and len(call.body) <= budget.limit and budget.fits_lines(call.body)
                and (echo_key is None or budget.measure(_dumps(structured)) <= budget.limit)):
            presumed = self.pipeline.redact_capture(call, scope=scope)
            if not presumed.withheld:
                # One text (and its echo) that fits and holds nothing to withhold goes out as
                # it came: the steps below would change nothing, so they are not run.
                if self.pipeline.auditor is not None:
                    self.pipeline.audit(call, Shaped(
                        _shown_text(result), True, None, call.format, call.sha256,
                        len(call.body),
                    ), decision, ())
                return result

        envelopes: list[dict[str, Any]] = []
        # A text's entries stay compact (elision.withheld): the audit counts them by reason.
        withheld = Chained(governed)
        if governed:
            envelopes.append({"at": "content", **make_envelope(
                sha256=call.sha256, shown_bytes=0, total_bytes=len(call.body), withheld=governed,
            )})
        texts = [block_size(b, budget) for b in content if text_of(b) is not None]
        if structured is not None and echo_at is None:
            texts.append(budget.measure(_dumps(structured)))
        if len(text_at) > 1 and (needs_array(texts, _shares(texts, budget), budget)
                                 or _lines_need_array(pieces, content, budget)):
            # Many blocks cannot each take a share: the content is one array (.blocks).
            out, envelopes, withheld = shape_as_array(
                self, result, content, call, budget=budget, scope=scope, tool=tool,
                server=server,
            )
            if envelopes:
                out.meta = {**(out.meta or {}), META_KEY: _combined(envelopes)}
            return self._audited(out, call, decision, withheld, simple=False)
        if self.pipeline.redactor is not None:
            for i, block in enumerate(content):
                redacted = self._redact_block(block, i, scope, tool, server)
                if redacted is not None:
                    content[i], env = redacted
                    envelopes.append({"at": f"content[{i}]", **env})
                    withheld.extend(env["withheld"])

        if structured is not None and echo_at is None:
            body = _dumps(structured)
            pieces.append(_Piece("structuredContent", capture(body), budget.measure(body)))
        for i, block in enumerate(content):
            if isinstance(block, types.EmbeddedResource) and isinstance(
                block.resource, types.TextResourceContents
            ):
                text = block.resource.text
                pieces.append(
                    _Piece(f"content[{i}].resource", capture(text), budget.measure(text), i)
                )

        line_shares = _line_shares(pieces, content, budget)
        for piece, share, lines in zip(
            pieces, _shares([p.size for p in pieces], budget), line_shares, strict=True
        ):
            limit = Budget(share, budget.unit, budget.counter, lines)
            known = presumed if piece is pieces[0] else None
            if echo_key is not None and piece.index == echo_at:
                piece.shaped, piece.withheld = self._shape_wrapped(
                    piece.capture, echo_key, limit, scope=scope, redacted=known
                )
            else:
                piece.shaped, piece.withheld = self.pipeline.redact_and_shape(
                    piece.capture, budget=limit, scope=scope, redacted=known,
                )
            withheld.extend(piece.withheld)

        for piece in pieces:
            shaped = piece.shaped
            assert shaped is not None
            piece_env = _envelope_of(shaped)
            if piece_env is not None:
                envelopes.append({"at": piece.where, **piece_env})
            index = piece.index
            if index is None:
                structured = _structured_from(shaped, structured)
                continue
            block = content[index]
            if isinstance(block, types.TextContent):
                if shaped.text == block.text:
                    continue  # a result that fits goes out as it came, echo and all
                content[index] = block.model_copy(update={"text": shaped.text})
                if index == echo_at and echo_key is not None:
                    wrapped = {echo_key: shaped.text}
                    structured = wrapped if budget.measure(_dumps(wrapped)) <= budget.limit else (
                        {ENVELOPE_KEY: _envelope_of(shaped)})
                elif index == echo_at:
                    structured = _structured_from(shaped, structured)
            elif isinstance(block, types.EmbeddedResource):
                resource = block.resource.model_copy(update={"text": shaped.text})
                content[index] = block.model_copy(update={"resource": resource})

        for i, block in enumerate(content):
            stub = self._media_stub(block, scope)
            if stub is not None:
                content[i], env = stub
                envelopes.append({"at": f"content[{i}]", **env})
                withheld.extend(env["withheld"])

        unchanged = (
            not envelopes and structured is result.structured_content
            and len(content) == len(result.content)
            and all(a is b for a, b in zip(content, result.content, strict=True))
        )
        if unchanged:
            out = result  # a small clean result goes out as it came: no model copy
        else:
            meta = dict(result.meta or {})
            if envelopes:
                meta[META_KEY] = _combined(envelopes)
            out = result.model_copy(update={
                "content": content, "structured_content": structured, "meta": meta or None,
            })
        return self._audited(out, call, decision, withheld, simple=simple)

    def _audited(
        self, out: types.CallToolResult, call: Capture, decision: Decision,
        withheld: Sequence[dict[str, Any]], *, simple: bool,
    ) -> types.CallToolResult:
        """``out``, once its audit entry is written (binding what the agent gets)."""
        if self.pipeline.auditor is not None:
            shown = _shown_text(out) if simple else _dumps_result(out)
            complete = not (out.meta or {}).get(META_KEY)
            self.pipeline.audit(call, Shaped(
                shown, complete, None, call.format, call.sha256, len(call.body),
            ), decision, withheld)
        return out

    def _shape_wrapped(
        self, capture: Capture, key: str, limit: Budget, *, scope: str | None,
        redacted: Redacted | None,
    ) -> tuple[Shaped, Sequence[dict[str, Any]]]:
        """A text shaped so that ``{key: text}``, as JSON, fits ``limit`` too: a client that
        shows the model structuredContent gets the escaped form, which can be larger."""
        if redacted is None and self.pipeline.redactor is not None:
            redacted = self.pipeline.redact_capture(capture, scope=scope)  # once, not per try
        target = limit.limit
        for _ in range(8):
            shaped, withheld = self.pipeline.redact_and_shape(
                capture, budget=limit.with_limit(target), scope=scope,
                redacted=redacted,
            )
            over = limit.measure(_dumps({key: shaped.text})) - limit.limit
            # The escapes grow with the text: shrink in proportion, and by the excess at least.
            target = min(target - over - 8, target * limit.limit // (limit.limit + over))
            if over <= 0 or target < MINIMUM[limit.unit]:
                break
        return shaped, withheld  # still over: the caller falls back to the envelope alone

    def _redact_block(
        self, block: Any, index: int, scope: str | None, tool: str | None, server: str | None
    ) -> tuple[Any, dict[str, Any]] | None:
        """A non-text block after the redaction rules (reference lanes, signed uris), or
        ``None`` when nothing in it was withheld."""
        if isinstance(block, types.TextContent):
            return None
        plain = block.model_dump(by_alias=True, mode="json", exclude_none=True)
        body = orjson.dumps(plain)
        cap = Capture(body, hashlib.sha256(body).hexdigest(), "json", plain, tool, server)
        redacted = self.pipeline.redact_capture(cap, scope=scope)
        if not redacted.withheld:
            return None
        entries = [
            {**w, "path": f"$.content[{index}]" + str(w.get("path", "$"))[1:]}
            for w in redacted.withheld
        ]
        new: Any = None
        # A stub in place of base64 data would make the block undecodable: show it as text.
        if not any(str(w.get("path", "")).endswith((".data", ".blob")) for w in entries):
            try:
                new = type(block).model_validate(redacted.value)
            except ValueError:
                new = None
        if new is None:
            new = types.TextContent(text=orjson.dumps(redacted.value).decode())
        shown = orjson.dumps(redacted.value)
        env = make_envelope(
            sha256=cap.sha256, shown_bytes=len(shown), total_bytes=len(body), withheld=entries
        )
        return new, env

    def _media_stub(
        self, block: Any, scope: str | None
    ) -> tuple[types.TextContent, dict[str, Any]] | None:
        kind: str
        if isinstance(block, types.ImageContent | types.AudioContent):
            data, mime, kind = block.data, block.mime_type, block.type
        elif isinstance(block, types.EmbeddedResource) and isinstance(
            block.resource, types.BlobResourceContents
        ):
            data, kind = block.resource.blob, "resource"
            mime = block.resource.mime_type or "application/octet-stream"
        else:
            return None
        if len(data) <= self.media_budget:
            return None
        body = data.encode("ascii", "replace")
        digest = hashlib.sha256(body).hexdigest()
        ref = self._keep(body, digest, scope)
        approx = len(data) * 3 // 4
        text = (
            f"[elision] {kind} {mime}, ~{approx:,} bytes, not shown: over the "
            f"{self.media_budget:,}-char media budget; sha256={digest}"
        )
        if ref is not None:
            text += f"; base64 fetchable with {format_next(ref)}"
        env = make_envelope(
            sha256=digest, shown_bytes=0, total_bytes=len(body), ref=ref,
            withheld=[{"path": "$", "reason": "media-over-budget", "stub": ref or "none"}],
            next_call=format_next(ref) if ref else None, stored=ref is not None,
        )
        return types.TextContent(text=text), env

    def _keep(
        self, body: bytes, digest: str, scope: str | None, *, format: str = "text"
    ) -> str | None:
        store = self.pipeline.store
        if store is None:
            return None
        ref = new_ref()
        try:
            # The digest was taken from these bytes a moment ago: no second hash.
            store.put(body, ref=ref, sha256=digest, format=format, scope=scope, verified=True)
        except StoreError:
            return None
        return ref

    def _server_meta(
        self, meta: dict[str, Any], *, scope: str | None, tool: str | None, server: str | None
    ) -> dict[str, Any] | None:
        """The server's ``_meta`` as the agent may see it (see the module docstring);
        ``meta`` itself when nothing in it changes."""
        kept = without_reserved(meta)
        kept.pop(META_KEY, None)
        if not kept:
            return None
        try:
            body = orjson.dumps(kept)
        except TypeError:
            body = json.dumps(kept, default=str).encode()
        if len(body) > META_LIMIT:
            return {META_WITHHELD_KEY: (
                f"the server's _meta was {len(body):,} bytes of JSON, over the {META_LIMIT:,} "
                "the proxy passes on; it was not forwarded"
            )}
        redacted = self.pipeline.redact_capture(
            self.pipeline.capture(body, tool=tool, server=server), scope=scope
        )
        if not redacted.withheld:
            return meta if len(kept) == len(meta) else kept
        value = redacted.value
        return value if isinstance(value, dict) else {META_WITHHELD_KEY: str(value)}


def _has_members(block: Any) -> bool:
    """Whether a block carries anything beside its text (``_meta``, ``annotations``)."""
    return isinstance(block, types.TextContent) and (
        block.meta is not None or block.annotations is not None
    )


def _governed_members(
    content: list[Any], text_at: list[int], seams: bool,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """``content`` with its text blocks' members (``_meta``, ``annotations``) redacted, and a
    credential that a seam between two adjacent text blocks splits withheld on both sides
    (:func:`elision.mcp.gate.seams.redact_seams`); and an entry for each value withheld."""
    from elision.mcp.gate.seams import redact_seams
    from elision.redact import redact_value

    out = list(content)
    withheld: list[dict[str, Any]] = []
    if seams and len(text_at) > 1:
        texts: list[str | None] = [text_of(b) if isinstance(b, types.TextContent) else None
                                   for b in out]
        seamed = redact_seams(texts)
        for i, (old, new) in enumerate(zip(texts, seamed, strict=True)):
            if new is not None and new != old:
                out[i] = out[i].model_copy(update={"text": new})
                withheld.append({"path": f"$.content[{i}].text", "reason": "split-credential"})
    for i in text_at:
        block = out[i]
        if not _has_members(block):
            continue
        plain = block.model_dump(by_alias=True, mode="json", exclude_none=True)
        members = {k: v for k, v in plain.items() if k not in ("type", "text")}
        done = redact_value(members, path_root=f"$.content[{i}]")
        if not done.withheld:
            continue
        withheld.extend(done.withheld)
        try:
            out[i] = types.TextContent.model_validate({**done.value, "text": block.text})
        except ValueError:
            # A stub where the protocol wants a fixed form (annotations' audience): the
            # annotations go; _meta, which may hold anything, stays redacted.
            meta = done.value.get("_meta") if isinstance(done.value, dict) else None
            out[i] = types.TextContent(text=block.text, _meta=meta)
    return out, withheld


def _redacted_key(key: str) -> str:
    from elision.redact import redact_text

    value = redact_text(key).value
    return value if isinstance(value, str) else key


def _same_document(exact: Any, text: str, structured: Any) -> bool:
    """Whether a JSON text is the structured content, as the SDK's own parser would see it."""
    if not is_lazy(exact) and exact == structured:
        return True
    # The exact parser keeps numbers it cannot hold losslessly as raw spellings; the SDK's
    # values are plain Python, so compare in that form before calling it a different document.
    if not isinstance(structured, dict) or not isinstance(exact, dict | LazyObject):
        return False
    try:
        return bool(json.loads(text) == structured)
    except ValueError:
        return False


def _wraps(structured: Any, text: str) -> bool:
    return (
        isinstance(structured, dict) and len(structured) == 1
        and next(iter(structured.values())) == text
    )


def _joined_document(content: list[Any], text_at: list[int]) -> str | None:
    """The joined text when several text blocks are the pieces of one JSON document."""
    if len(text_at) < 2:
        return None
    joined = "".join(content[i].text for i in text_at)
    if joined.lstrip()[:1] not in ("{", "["):
        return None
    try:
        parse_json(joined.encode("utf-8", "surrogatepass"))
    except InputError:  # not one document: the blocks are separate texts
        return None
    # Blocks that are each whole JSON are separate documents, not pieces.
    try:
        parse_json(content[text_at[0]].text.encode("utf-8", "surrogatepass"))
    except InputError:
        return joined
    return None


def _shares(sizes: list[int], budget: Budget) -> list[int]:
    """Split the budget: pieces under their fair share keep all of theirs, the rest split."""
    limits = [budget.limit] * len(sizes)
    if sum(sizes) <= budget.limit or len(sizes) < 2:
        return limits
    remaining, left = budget.limit, len(sizes)
    for i in sorted(range(len(sizes)), key=lambda k: sizes[k]):
        share = remaining // left
        # Below the minimum not even an envelope fits; the minimum wins over an exact split.
        limits[i] = max(min(sizes[i], share), MINIMUM[budget.unit])
        remaining -= min(sizes[i], share)
        left -= 1
    return limits


def _line_shares(pieces: list[_Piece], content: list[Any], budget: Budget) -> list[int | None]:
    """Split a line cap among the pieces shown as text, as :func:`_shares` splits the budget.

    A harness that caps lines counts the whole result: every block (another block than a
    piece's, a stub or an image, as a line) and the blank line it joins two with. The
    structured content, compact JSON, is one line; it takes its line from the cap too.
    """
    if budget.lines is None:
        return [None] * len(pieces)
    shown = {p.index for p in pieces if p.index is not None}
    others = sum(1 for i in range(len(content)) if i not in shown)
    room = budget.lines - others - max(0, len(content) - 1)
    sizes = [1 if p.index is None else block_lines(content[p.index]) for p in pieces]
    if sum(sizes) <= room or len(pieces) < 2:
        return [max(room, MINIMUM_LINES)] * len(pieces)
    shares: list[int | None] = [None] * len(pieces)
    left, count = room, len(pieces)
    for i in sorted(range(len(pieces)), key=lambda k: sizes[k]):
        share = min(sizes[i], left // count)
        shares[i] = max(share, MINIMUM_LINES)
        left, count = left - share, count - 1
    return shares


def _lines_need_array(pieces: list[_Piece], content: list[Any], budget: Budget) -> bool:
    """Whether the line cap cannot be split among the text blocks, each held to the least
    line cap at least (many short blocks): then they are one array, as for the budget."""
    if budget.lines is None:
        return False
    shares = _line_shares(pieces, content, budget)
    used = sum(min(block_lines(content[p.index]), share or 0) if p.index is not None else 1
               for p, share in zip(pieces, shares, strict=True))
    others = len(content) - len(pieces)
    return used + others + max(0, len(content) - 1) > budget.lines


def _envelope_of(shaped: Shaped) -> dict[str, Any] | None:
    if shaped.complete:
        return None
    if shaped.envelope is not None:
        return shaped.envelope
    return make_envelope(
        sha256=shaped.sha256, shown_bytes=shaped.shown_bytes, total_bytes=shaped.total_bytes,
        ref=shaped.ref,
    )


def _structured_from(shaped: Shaped, original: Any) -> Any:
    if shaped.complete and shaped.envelope is None:
        return original
    try:
        # Plain Python values: the SDK serializes structured content itself, and the exact
        # parser's number wrappers are not something it knows.
        return json.loads(shaped.text)
    except ValueError:  # a text-shaped echo: structured content has no honest JSON form
        return {ENVELOPE_KEY: _envelope_of(shaped)}


def _combined(envelopes: list[dict[str, Any]]) -> dict[str, Any]:
    if len(envelopes) == 1:
        env = dict(envelopes[0])
        env.pop("at")
        return env
    return {"v": VERSION, "complete": False, "parts": envelopes}


def _dumps_result(result: types.CallToolResult) -> str:
    """The compact JSON of what a result says, its ``_meta`` included (the agent sees it
    too): the judged and audited form of a result that is not a single text."""
    plain = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    said = {k: plain[k] for k in ("content", "structuredContent", "isError", "_meta")
            if k in plain}
    return orjson.dumps(said).decode("utf-8")


def _shown_text(result: types.CallToolResult) -> str:
    block = result.content[0]
    return block.text if isinstance(block, types.TextContent) else _dumps_result(result)


def _dumps(value: Any) -> str:
    from elision.shape.jsondump import dumps_value

    return dumps_value(value).decode("utf-8")
