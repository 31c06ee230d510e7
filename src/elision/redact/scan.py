"""Find and replace every withheld span in a text, at about the cost of a substring search.

A long text is cut into chunks of about :data:`CHUNK` chars at line ends; a chunk that the
pre-filter rejects is kept as it is, so the precise rules only ever run on the few chunks that
might hold a secret. A PEM private key is the one shape that spans lines: a chunk that opens a
key is extended to the line that closes it, so no key is split between two chunks.
"""

from __future__ import annotations

from elision.redact.rules import Span, credential_stub, may_match
from elision.redact.secrets import find_credentials
from elision.redact.urls import find_signed_urls

#: Chars per pre-filtered chunk: big enough that the per-chunk cost is noise, small enough that
#: one secret does not send a whole log through the precise rules.
CHUNK = 1 << 16
_PEM_BEGIN = "-----BEGIN"
_PEM_END = "-----END"


def find_spans(text: str) -> list[Span]:
    """The non-overlapping spans of ``text`` that must be withheld, in order."""
    if len(text) <= CHUNK:
        return _merge(_precise(text, 0)) if may_match(text) else []
    found: list[Span] = []
    start, limit = 0, len(text)
    while start < limit:
        end = _chunk_end(text, start)
        chunk = text[start:end]
        if may_match(chunk):
            found.extend(_precise(chunk, start))
        start = end
    return _merge(found)


def redact_spans(text: str) -> tuple[str, list[Span]]:
    """``text`` with each withheld span replaced by its stub, and the spans (input offsets)."""
    spans = find_spans(text)
    if not spans:
        return text, spans
    out: list[str] = []
    pos = 0
    for span in spans:
        out.append(text[pos:span.start])
        out.append(credential_stub(span.rule))
        pos = span.end
    out.append(text[pos:])
    return "".join(out), spans


def _chunk_end(text: str, start: int) -> int:
    end = text.find("\n", start + CHUNK)
    end = len(text) if end < 0 else end + 1
    begin = text.rfind(_PEM_BEGIN, start, end)
    if begin >= 0 and text.find(_PEM_END, begin, end) < 0:
        close = text.find(_PEM_END, end)
        if close < 0:
            return len(text)
        line_end = text.find("\n", close)
        return len(text) if line_end < 0 else line_end + 1
    return end


def _precise(text: str, offset: int) -> list[Span]:
    spans = find_signed_urls(text)
    spans.extend(find_credentials(text))
    if offset:
        spans = [Span(s.start + offset, s.end + offset, s.rule) for s in spans]
    return spans


def _merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one, named by the one that starts first (the longer on a tie):
    a signed URL that carries a JWT is withheld once, as a URL."""
    if len(spans) < 2:
        return spans
    spans.sort(key=lambda s: (s.start, -s.end))
    merged = [spans[0]]
    for span in spans[1:]:
        last = merged[-1]
        if span.start < last.end:
            if span.end > last.end:
                merged[-1] = Span(last.start, span.end, last.rule)
        else:
            merged.append(span)
    return merged
