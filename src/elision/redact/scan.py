"""Find and replace every withheld span in a text, at about the cost of a substring search.

The pre-filter's triggers are found first, in one search of the whole text
(:mod:`elision.redact.triggers`). A long text is cut into chunks of about :data:`CHUNK` chars
at line ends, and a chunk that holds no trigger is kept as it is. A chunk that holds one is
halved at a line end until the pieces are :data:`PIECE` chars or less, so the precise rules
only ever run on a few short pieces around each candidate, each read one line further so a
match that wraps a line (``Bearer`` then its token on the next) is not cut in two. A PEM
private key spans many lines, so that rule alone runs over the whole text (it is anchored on
a literal: cheap).
"""

from __future__ import annotations

import re
from bisect import bisect_left

from elision.redact.rules import Span, credential_stub
from elision.redact.secrets import CREDENTIAL_RULES, find_credentials
from elision.redact.triggers import text_triggers
from elision.redact.urls import find_signed_urls

#: Chars per pre-filtered chunk: big enough that the per-chunk cost is noise.
CHUNK = 1 << 16
#: The largest piece the precise rules run on once the pre-filter has flagged it.
PIECE = 1 << 10
#: Line breaks as the text shaper counts them (``bytes.splitlines``).
_BREAKS = re.compile(r"\r\n|\r|\n")
_PEM = next(rule for rule in CREDENTIAL_RULES if rule.id == "private-key")


def find_spans(text: str) -> list[Span]:
    """The non-overlapping spans of ``text`` that must be withheld, in order."""
    positions = text_triggers(text)
    if not positions:
        return []
    if len(text) <= PIECE:
        return _merge(_precise(text, 0))
    found: list[Span] = []
    if _PEM.exact[0] in text:
        found.extend(Span(m.start(), m.end(), _PEM.id) for m in _PEM.pattern.finditer(text))
    start, limit = 0, len(text)
    while start < limit:
        end = text.find("\n", start + CHUNK)
        end = limit if end < 0 else end + 1
        if _any(positions, start, end):
            _halve(text, start, end, found, positions)
        start = end
    return _merge(found)


def _any(positions: list[int], start: int, end: int) -> bool:
    i = bisect_left(positions, start)
    return i < len(positions) and positions[i] < end


def _halve(text: str, start: int, end: int, found: list[Span], positions: list[int]) -> None:
    # A trigger never spans a line end and every piece is whole lines, so a piece holds a
    # match only if it holds a trigger's position.
    pending = [(start, end)]
    while pending:
        a, b = pending.pop()
        if not _any(positions, a, b):
            continue
        cut = -1
        if b - a > PIECE:
            mid = (a + b) // 2
            cut = text.find("\n", mid, b - 1)
            if cut < 0:
                cut = text.rfind("\n", a, mid)
        if cut < 0:  # small enough, or one long line: nothing left to split on
            # Read one line past the piece: "Bearer" at a line end and its token on the next
            # line is one match, wherever the cut fell, however long that line is (a token
            # cut short would show its tail). A repeat found twice is merged.
            ahead = text.find("\n", b)
            stop = len(text) if ahead < 0 else ahead
            found.extend(_precise(text[a:stop], a))
        else:
            pending.append((cut + 1, b))
            pending.append((a, cut + 1))


def redact_spans(text: str, *, keep_lines: bool = False) -> tuple[str, list[Span]]:
    """``text`` with each withheld span replaced by its stub, and the spans (input offsets).

    With ``keep_lines``, a stub is followed by the line breaks of the span it replaces (a PEM
    key of 28 lines becomes the stub and 27 empty lines), so every line after it keeps its
    number: a text's pages, selected by ``lines=`` from its redacted view, then number lines as
    the original does, which is what the envelope and its ``next`` describe.
    """
    spans = find_spans(text)
    if not spans:
        return text, spans
    out: list[str] = []
    pos = 0
    for span in spans:
        out.append(text[pos:span.start])
        out.append(credential_stub(span.rule))
        if keep_lines:
            out.extend(_BREAKS.findall(text, span.start, span.end))
        pos = span.end
    out.append(text[pos:])
    return "".join(out), spans


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
