"""Adjacent text blocks read as one: a credential split across a seam is withheld on both sides.

A client may join a result's text blocks, so a token split across two of them reads whole
there, though neither half alone matches a rule.
"""

from __future__ import annotations

from typing import Any

#: How far either side of a seam between two text blocks a split credential is looked for.
SEAM_CHARS = 1024


def redact_seams(texts: list[str | None]) -> list[str | None]:
    """``texts`` (adjacent content blocks' texts; ``None`` for a block that is not text) with
    every credential that a seam between two adjacent texts splits withheld on both sides.

    A client that joins the blocks would read the halves as one token, though neither half
    alone matches a rule. The last :data:`SEAM_CHARS` of one text and the first of the next
    are read together; a span that crosses the seam is replaced by its stub in the first text
    (from where it starts) and its rest is taken out of the second.
    """
    from elision.redact.rules import credential_stub
    from elision.redact.scan import find_spans

    out = list(texts)
    for i in range(len(out) - 1):
        left, right = out[i], out[i + 1]
        if not left or not right:
            continue
        tail, head = left[-SEAM_CHARS:], right[:SEAM_CHARS]
        spans = [s for s in find_spans(tail + head) if s.start < len(tail) < s.end]
        if not spans:
            continue
        start = min(s.start for s in spans)
        end = max(s.end for s in spans)
        stub = credential_stub(spans[0].rule)
        out[i] = left[: len(left) - len(tail) + start] + stub
        out[i + 1] = stub + right[end - len(tail):]
    return out


def _seamed_content(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with :func:`redact_seams` applied to a result's ``content`` blocks."""
    result = message.get("result")
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list) or len(content) < 2:
        return message
    texts = [
        b.get("text") if isinstance(b, dict) and isinstance(b.get("text"), str) else None
        for b in content
    ]
    seamed = redact_seams(texts)
    if seamed == texts:
        return message
    blocks = [
        dict(b, text=t) if t is not None and t != old else b
        for b, t, old in zip(content, seamed, texts, strict=True)
    ]
    assert isinstance(result, dict)
    return {**message, "result": {**result, "content": blocks}}

