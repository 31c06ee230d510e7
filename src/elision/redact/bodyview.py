"""A UTF-8 body's redaction, built as bytes from the body's own.

:func:`elision.redact.redact_text` gives a ``str``, which the text shaper then encoded: a log
with a few tokens in it held the body, its decoding, the redacted text's pieces, the redacted
text and its encoding at once, 4x the body (issue 23: text's target is 1.5x). Here the spans
are found in the decoding, their offsets turned into the body's, and the decoding let go before
the redacted bytes are written, each stretch between two spans from a view of the body into
one buffer (no object a stretch). What comes out is
``redact_text(body.decode()).value.encode()`` exactly, with the same withheld entries.
"""

from __future__ import annotations

import io
import re

from elision.redact.rules import credential_stub
from elision.redact.scan import DENSE, SpanArrays, dense_stub_of, find_spans, utf8_between
from elision.shape.redactedbody import RedactedBody
from elision.withheld import LineEntries

_BREAKS = re.compile(rb"\r\n|\r|\n")


def redact_body(body: bytes, text: str | None = None) -> tuple[bytes, LineEntries]:
    """``body`` (valid UTF-8) with each withheld span replaced by its stub, lines kept, and
    one entry (``line``, ``reason``, ``bytes`` for a dense stretch) per span, held compact
    (:class:`~elision.withheld.LineEntries`: no dict a value).

    ``text`` is ``body`` decoded, when the caller holds it already; otherwise it is decoded
    here and let go as soon as the spans are found."""
    spans = _byte_spans(body, text)
    if spans is None:
        return body, LineEntries()
    withheld = _entries(body, spans)
    starts, ends, rules, names = spans.starts, spans.ends, spans.rules, spans.names
    plain = b"\r" not in body
    view = memoryview(body)
    # Written as it is built: a list of a slice a span held an object of some 70 bytes each
    # beside the joined result (25,000 spans a MB just under the density bound: 1.8x the body,
    # issue 23). BytesIO hands back its own buffer when it is read once, whole.
    out = io.BytesIO()
    put = out.write
    stubs: dict[str, bytes] = {}
    pos = 0
    for start, end, rule_at in zip(starts, ends, rules, strict=True):
        rule = names[rule_at]
        put(view[pos:start])
        if rule == DENSE:
            put(dense_stub_of(end - start).encode())
        else:
            stub = stubs.get(rule)
            if stub is None:
                stub = stubs[rule] = credential_stub(rule).encode()
            put(stub)
        # Every line after a span keeps its number: the span's breaks follow its stub.
        if plain:
            if body.find(b"\n", start, end) >= 0:
                put(b"\n" * body.count(b"\n", start, end))
        else:
            for brk in _BREAKS.findall(body, start, end):
                put(brk)
        pos = end
    put(view[pos:])
    del view, spans, starts, ends, rules
    return out.getvalue(), withheld


def redacted_body(body: bytes, text: str | None = None) -> tuple[bytes | RedactedBody, LineEntries]:
    """:func:`redact_body`'s bytes as a :class:`~elision.shape.redactedbody.RedactedBody`:
    the body and its spans, each stretch written when it is read. A YAML list of
    ``- hunter2x`` redacts to 3.8x its size, written whole before the text shaper read its
    head and tail (6.0x traced through ``shape()``, issue 23). ``body`` itself when nothing
    is withheld."""
    spans = _byte_spans(body, text)
    if spans is None:
        return body, LineEntries()
    withheld = _entries(body, spans)
    names = spans.names
    stubs = [None if rule == DENSE else credential_stub(rule).encode() for rule in names]
    view = RedactedBody(body, spans.starts, spans.ends, spans.rules, stubs, _dense_stub)
    return view, withheld


def _dense_stub(size: int) -> bytes:
    return dense_stub_of(size).encode()


def _byte_spans(body: bytes, text: str | None) -> SpanArrays | None:
    """The withheld spans of ``body``, their offsets the body's bytes'; ``None`` if none."""
    if text is None:
        text = body.decode("utf-8")
    # Compact: a Span and its offsets a value were 3.5x the body just under the density
    # bound, held while the text is judged (issue 23); iterated, each is made and let go.
    found = find_spans(text, body, compact=True, columns=True)
    if not found:
        return None
    if isinstance(found, SpanArrays):
        spans = found
    else:  # a short text's few spans
        spans = SpanArrays()
        spans.extend(found)
    del found
    # The spans' own arrays are the bounds: a copy of their offsets (16 bytes a span) and a
    # list of their rules (8) were 1.9x a YAML list of passwords at the peak (issue 23). In
    # ASCII a char's offset is its byte's; otherwise each is made its byte's in place.
    spans.hold(len(body))
    starts, ends = spans.starts, spans.ends
    if len(text) != len(body):
        at = done = 0
        for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
            done += utf8_between(text, at, start)
            starts[i] = done
            done += utf8_between(text, start, end)
            ends[i] = done
            at = end
    return spans  # the text (the largest copy) is gone before anything is written


def _entries(body: bytes, spans: SpanArrays) -> LineEntries:
    """One entry a span: the line it starts on, its rule, a dense stretch's size."""
    withheld = LineEntries()
    add = withheld.append
    plain = b"\r" not in body
    names = spans.names
    counted = 0
    line = 1
    for start, end, rule_at in zip(spans.starts, spans.ends, spans.rules, strict=True):
        rule = names[rule_at]
        # Lines end at \n, \r\n or \r, as the text shaper counts them; counted from the
        # last span's start, as redact_text counts them.
        line += body.count(b"\n", counted, start)
        if not plain:
            line += body.count(b"\r", counted, start) - body.count(b"\r\n", counted, start)
        counted = start
        if rule == DENSE:
            add(line, rule, end - start)
        else:
            add(line, rule)
    return withheld
