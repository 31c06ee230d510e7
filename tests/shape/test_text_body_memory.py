"""shape() of a text body holds one copy of it at most (issue 23: text's target is 1.5x).

Found by tracing shape() of 1 MB of each text class (tracemalloc snapshots grouped by line): a
log with a token every 500 lines, given as bytes, held 3.0x the input above it, the body's
decoding, the redacted text's pieces, the redacted text and then its UTF-8 encoding; and the
CSV sniff of any text held 0.37 MB (a slice of a slice, and a StringIO at 4 bytes a char).
Counted with tracemalloc, not a clock or the RSS.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.pipeline import Pipeline
from elision.redact import redact_text
from elision.redact.bodyview import redact_body
from elision.shape import shape
from elision.shape.table import looks_like_csv
from support.calls import counted
from support.traced import peak

MB = 1 << 20
_TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
_WORDS = ("the", "quick", "brown", "fox", "request", "served", "in", "12", "ms", "café")


def _log(size: int, *, every: int, extra: str = "") -> bytes:
    line = "2026-11-30T12:00:00Z INFO request served in 12 ms by shard 7 of 9 ok\n"
    lines = [line] * (size // len(line))
    for i in range(every // 2, len(lines), every or 1) if every else ():
        lines[i] = f"{extra}token={_TOKEN} {line}"
    return "".join(lines).encode()


@pytest.mark.parametrize(
    ("body", "most"),
    [
        # Before: 3.0x (the decoding, the redacted str's pieces, the str, its encoding).
        pytest.param(_log(MB, every=500), 1.5, id="log-with-tokens"),
        # Before: 0.41x, the CSV sniff's copies; after it 0.13x (the line index, the output).
        pytest.param(_log(MB, every=0), 0.3, id="log-clean"),
    ],
)
def test_shape_of_a_text_body_holds_at_most_one_copy(body: bytes, most: float) -> None:
    budget = Budget(4096)
    shape(body[:65536], budget)  # caches and databases, made
    held = peak(lambda: shape(body, budget))
    assert held <= most * len(body), f"{held / len(body):.2f}x the input"


def test_a_body_of_a_value_a_line_is_written_into_one_buffer() -> None:
    """Just under the density bound (a withheld value every 41 bytes, 25,000 a MB: each its
    entry, the format's own 5-6x) the redacted body was joined from a list of a slice a
    span: 13.9x the body held through ``shape()``, 9.7x before the bytes path; now about 8x."""
    line = b"password=hunter2 " + b"x" * 23 + b"\n"
    body = line * ((1 << 20) // len(line))
    shape(body[: 64 << 10], Budget(4096))
    assert peak(lambda: shape(body, Budget(4096))) < 11 * len(body)


def test_csv_sniff_holds_its_head_and_its_decoding_only() -> None:
    body = b"the quick brown fox, jumps over\n" * (MB // 32)
    looks_like_csv(body)
    # The head and its decoding, 64 KB each; before, 0.4 MB (a StringIO is 4 bytes a char).
    assert peak(lambda: looks_like_csv(body)) <= 5 * (64 << 10) // 2


# ------------------------------------------------------------------ same result as the str path

_PIECES = st.sampled_from([
    "ok ", "the fox ", "café ", "😀", "\n", "\r\n", "\r", f"token={_TOKEN}", "password=hunter2 ",
    "api_key=abc\n", "https://u:p@example.com/x ", "-----BEGIN PRIVATE KEY-----\nMIIE\n",
    "-----END PRIVATE KEY-----\n", "x" * 300, "\n" * 3, "Bearer abcdefghijklmnop1234 ",
])


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(_PIECES, max_size=40))
    repeat = draw(st.sampled_from([1, 1, 1, 200]))  # a dense stretch now and then
    return "".join(parts) * repeat


@settings(max_examples=150, deadline=None)
@given(texts())
@example("api_key=abc\n" * 400)
@example("é\rtoken=" + _TOKEN + "\r\n" + "x" * 600 + "password=hunter2 \r")
def test_redact_body_is_redact_text_encoded(text: str) -> None:
    body = text.encode()
    want = redact_text(text)
    got, withheld = redact_body(body)
    assert got == str(want.value).encode()
    assert withheld == list(want.withheld)
    assert redact_body(body, text) == (got, withheld)


@settings(max_examples=80, deadline=None)
@given(texts(), st.sampled_from(["auto", "text", "ndjson", "csv"]),
       st.integers(512, 4096))
def test_shaped_text_is_the_same_from_bytes_or_str_redaction(
    text: str, fmt: str, limit: int,
) -> None:
    """The bytes path (what the pipeline takes) against the redacted str encoded (the path
    every other caller of the redact stage takes)."""
    pipeline = Pipeline(budget=Budget(limit))
    for payload in (text, text.encode()):
        capture = pipeline.capture(payload, format=fmt)  # type: ignore[arg-type]
        by_bytes, withheld = pipeline.redact_and_shape(capture)
        by_str, withheld_str = pipeline.redact_and_shape(
            capture, redacted=pipeline.redact_capture(capture))
        assert by_bytes.text == by_str.text
        assert by_bytes.envelope == by_str.envelope
        assert withheld == withheld_str


def _sniffed_as_before(body: bytes) -> bool:
    """The sniff as it read its head first: through ``io.StringIO(newline="")``."""
    import csv
    import io
    from itertools import islice

    from elision.shape import table

    head = body[:table.SNIFF_BYTES]
    if len(body) > table.SNIFF_BYTES:
        head = head[: head.rfind(b"\n") + 1]
    try:
        text = head.decode("utf-8")
        rows = list(islice(csv.reader(io.StringIO(text, newline=""), strict=True),
                           table.MAX_ROWS))
    except (UnicodeDecodeError, csv.Error):
        return False
    while rows and not rows[-1]:
        rows.pop()
    if len(rows) < table.MIN_ROWS or len(rows[0]) < 2:
        return False
    header, width = rows[0], len(rows[0])
    if any(len(row) != width for row in rows):
        return False
    names = [n for n in header if n and n == n.strip() and len(n) <= table.MAX_NAME]
    if len(names) != width or len(set(names)) != width:
        return False
    return not all(table._is_number(name) for name in names)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a,b", "c,d", "id,n", "1,2", '"x\ny",z', '"q\rr",s', "\r\n", "\r",
                                 "\n", ",", "e", "é", '"', "\x0b", "\u2028"]), max_size=30))
@example(["a,b", "\r", "c,d", "\r", "e,f", "\r"])  # old Mac line ends: CSV all the same
def test_csv_sniff_reads_lines_as_stringio_does(parts: list[str]) -> None:
    body = "".join(parts).encode()
    assert looks_like_csv(body) == _sniffed_as_before(body)


def test_a_csv_with_carriage_returns_alone_is_csv() -> None:
    assert looks_like_csv(b"name,size\rfox,3\rdog,4\r")


def test_a_clean_text_body_is_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: the bytes path asked whether the body was clean, then handed it to
    ``redact()``, which searched it again (a trigger pass of every clean text result)."""
    import elision.redact as redact

    calls = counted(monkeypatch, redact, "utf8_text_has_triggers")
    body = _log(1 << 16, every=0)
    assert shape(body, Budget(4096)).complete is False
    assert len(calls) == 1
