"""Adjacent text blocks read as one: a credential split across a seam is withheld on both sides.

A client may join a result's text blocks, so a token split across two of them reads whole
there, though neither half alone matches a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elision.redact.rules import Span

#: How far either side of a seam between two text blocks a split credential is looked for.
SEAM_CHARS = 1024
#: The most seams judged together at once: the copies of their edges (up to two
#: :data:`SEAM_CHARS` each) are held that many at a time.
_SEAMS_AT_ONCE = 4096


def redact_seams(texts: list[str | None]) -> list[str | None]:
    """``texts`` (adjacent content blocks' texts; ``None`` for a block that is not text) with
    every credential that a seam between two adjacent texts splits withheld on both sides.

    A client that joins the blocks would read the halves as one token, though neither half
    alone matches a rule. The last :data:`SEAM_CHARS` of one text and the first of the next
    are read together; a span that crosses the seam is replaced by its stub in the first text
    (from where it starts) and its rest is taken out of the second.

    The seams are judged together (:func:`_spans_of`) and each is cut as it was when they
    were judged one by one: a seam whose left text a cut at the seam before changed is
    judged again as it now reads.
    """
    from elision.redact.rules import credential_stub
    from elision.redact.scan import find_spans

    out = list(texts)
    at = [i for i in range(len(out) - 1) if out[i] and out[i + 1]]
    for lo in range(0, len(at), _SEAMS_AT_ONCE):
        chunk = at[lo:lo + _SEAMS_AT_ONCE]
        told = _spans_of([_seam(texts, i) for i in chunk])
        if not told and out[chunk[0]] is texts[chunk[0]]:
            continue  # nothing found, nothing cut before: no seam of it changes
        for i in chunk:
            left, right = out[i], out[i + 1]
            assert left and right
            tail = left[-SEAM_CHARS:]
            if left is texts[i]:
                found = told.get(tail + right[:SEAM_CHARS], [])
            else:  # its start was cut at the seam before: read as it reads now
                found = find_spans(tail + right[:SEAM_CHARS])
            spans = [s for s in found if s.start < len(tail) < s.end]
            if not spans:
                continue
            start = min(s.start for s in spans)
            end = max(s.end for s in spans)
            stub = credential_stub(spans[0].rule)
            out[i] = left[: len(left) - len(tail) + start] + stub
            out[i + 1] = stub + right[end - len(tail):]
    return out


def _seam(texts: list[str | None], i: int) -> str:
    """What is read at the seam after ``texts[i]``: its end and the next text's start."""
    left, right = texts[i], texts[i + 1]
    assert left is not None and right is not None
    return left[-SEAM_CHARS:] + right[:SEAM_CHARS]


def _spans_of(seams: list[str]) -> dict[str, list[Span]]:
    """The spans :func:`~elision.redact.scan.find_spans` finds in each of ``seams`` that holds
    any, by its text. Judged one by one, 12,000 annotated blocks of a few chars were a
    judgement a seam, 51-59x the time of their prose. Here each distinct seam is asked once,
    and many are told apart in one pass over them joined by line breaks, which no trigger
    and no family's match crosses (:func:`elision.redact.batch.may_withhold`: a superset,
    so a seam it leaves out holds nothing); those it flags are judged together where they
    can be (:func:`elision.redact.batch.judged_together`), else alone."""
    from elision.redact.batch import BATCH, judged_together, may_withhold
    from elision.redact.scan import find_spans

    distinct = list(dict.fromkeys(seams))
    flagged = ([distinct[k] for k in sorted(may_withhold(distinct))]
               if len(distinct) >= BATCH else distinct)
    blocks = (judged_together(flagged) if len(flagged) >= BATCH
              else iter([(0, len(flagged), None)]))
    found: dict[str, list[Span]] = {}
    for lo, hi, told in blocks:
        for k in range(lo, hi):
            spans = find_spans(flagged[k]) if told is None else told.get(k, [])
            if spans:
                found[flagged[k]] = spans
    return found


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

