"""A text body's redaction holds little beyond its input and its output (issue 23: text's
target is 1.5x the input; a stub longer than its value makes the output the larger part).

Found by ``bench/fuzz_linear.py --classes yaml-plural-long ... --targets shape`` (peak 16.9x a MB
through ``shape()``) and a tracemalloc snapshot taken at the peak of ``redact_body``, grouped by
line: a YAML list of passwords under one ``passwords:`` is judged a piece at a time, and the
list is then read on from its header (``blocks.continued``), which finds the first piece's
values again. Added after every other span, those were out of order, so the compact spans
were all made ``Span`` objects to be sorted: 11x the text. Counted with tracemalloc.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.redact import bodyview, redact_text
from elision.redact.bodyview import redact_body
from elision.redact.rules import Span
from elision.redact.scan import SpanArrays, _interleaved, _merge, find_spans
from support.spans import span_lists
from support.traced import peak

KB = 1 << 10


def _yaml_list(size: int, value: str = "hunter2x") -> str:
    item = f"  - {value}\n"  # bench/fuzz_linear.py: yaml-plural-long
    return "passwords:\n" + item * (size // len(item))


@pytest.mark.parametrize("text", [
    pytest.param(_yaml_list(32 * KB), id="ascii"),
    # Offsets made bytes' in place of chars': the same spans, the same bound.
    pytest.param(_yaml_list(32 * KB, "hünter2x"), id="past-ascii"),
])
def test_a_long_yaml_list_of_passwords_is_redacted_without_a_span_object_each(text: str) -> None:
    body = text.encode()
    redact_body(body[: 8 * KB])  # caches and databases, made
    out, withheld = redact_body(body)
    assert len(withheld) == text.count("\n") - 1  # every item withheld, none twice
    assert out == redact_text(text).value.encode()
    held = peak(lambda: redact_body(body))
    # Beyond the redacted body: 10.5x the input before (10.1x past ASCII), 1.5x (1.3x) after.
    assert held - len(out) < 4 * len(body)


def test_the_redacted_body_is_written_from_the_spans_own_arrays() -> None:
    """The redacted body is built from the spans' arrays: a copy of their offsets and a list
    of their rules, 1.9x the text at the peak of a YAML list of passwords, are not made.
    Found in the same snapshot, once the spans were compact to the end."""
    text = _yaml_list(32 * KB)
    body = text.encode()
    spans = find_spans(text, body, compact=True, columns=True)
    assert isinstance(spans, SpanArrays)
    want, entries = redact_body(body)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bodyview, "find_spans", lambda *_, **__: spans)
        out, withheld = redact_body(body, text)
        assert out == want and withheld == entries
        held = peak(lambda: redact_body(body, text))
    # Beyond the output: 2.5x before (with the spans compact to the end), 0.7x after.
    assert held - len(out) < 1.5 * len(body)


def test_a_long_line_of_url_users_is_judged_without_a_span_object_each() -> None:
    """Found by the same snapshot of ``shape()`` of a MB of ``url-users`` (a URL whose user
    is a generated token, 35,714 on one line; 12x a MB through ``shape()``): a line is one
    piece, and its URLs' bounds were kept as a table of tuples and then made a list of
    spans, 6.5x the text, before they went into the text's compact spans."""
    text = "https://Xq7vR2mK9pL4wT8n@h/ " * (32 * KB // 28)  # bench/fuzz_linear.py: url-users
    body = text.encode()
    redact_body(body[: 20 * KB])  # a long line's databases, made (a piece over 16 KB)
    out, withheld = redact_body(body)
    assert len(withheld) == text.count("@")
    assert out == redact_text(text).value.encode()
    held = peak(lambda: redact_body(body))
    # Beyond the redacted body: 5.7x the input before, 2.0x after.
    assert held - len(out) < 4 * len(body)


def test_a_compact_span_takes_ten_bytes() -> None:
    """Found in the snapshot of the YAML list's peak once its spans stayed compact: their
    arrays were 1.4x the text, two 8-byte offsets a span where a text under 4 GB needs 4."""
    spans = [Span(13 * i, 13 * i + 8, "credential-assignment") for i in range(20_000)]
    arrays = SpanArrays()
    held = peak(lambda: arrays.extend(spans))
    assert list(arrays) == spans
    assert held < 12 * len(spans)  # 19 bytes a span before (arrays grow by a sixteenth)


_FAR = 1 << 32  # past a 4-byte offset


@pytest.mark.parametrize(("spans", "offset"), [
    pytest.param([(3, 9), (_FAR + 1, _FAR + 7)], 0, id="start-past-4-gb"),
    # The start fits and is taken; the end does not: the start is not taken twice.
    pytest.param([(3, 9), (_FAR - 2, _FAR + 7)], 0, id="end-past-4-gb"),
    pytest.param([(3, 9), (12, 20)], _FAR, id="moved-past-4-gb"),
])
def test_offsets_past_4_gb_widen_the_arrays(spans: list[tuple[int, int]], offset: int) -> None:
    arrays = SpanArrays()
    arrays.extend(Span(a, b, "jwt") for a, b in spans)
    arrays.move(offset)
    assert list(arrays) == [Span(a + offset, b + offset, "jwt") for a, b in spans]
    assert arrays.merge() and len(arrays) == 2


@given(span_lists(), span_lists(), span_lists(6), st.booleans())
def test_runs_interleaved_merge_as_all_of_them_at_once(
    found: list[Span], later: list[Span], cells: list[Span], compact_cells: bool,
) -> None:
    """The read-on spans kept apart and interleaved with the rest give what one merge of
    all of them gave: the same spans, named by the same rules (a tie to the run added
    first, as the stable sort kept it)."""
    runs = [sorted(run, key=lambda s: s.start) for run in (found, later, cells)]
    arrays = [SpanArrays() for _ in runs]
    for array, run in zip(arrays, runs, strict=True):
        array.extend(run)
    last = arrays[2] if compact_cells else runs[2]
    assert list(_interleaved(arrays[0], arrays[1], last)) == _merge([*runs[0], *runs[1],
                                                                       *runs[2]])
