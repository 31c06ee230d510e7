"""Text shaping: whole head and tail lines, the header first, counts that are right."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from elision import shape
from elision.budget import Budget
from elision.envelope import is_text_header
from elision.shape import ShapeContext, Shaped
from elision.shape.text import text_shaper

_HEADER = re.compile(
    r"\[elision\] partial: (?:lines (?P<ranges>[\d,]+(?:-[\d,]+)?(?: and [\d,]+(?:-[\d,]+)?)?)"
    r" of (?P<total>[\d,]+) shown|no lines of (?P<total0>[\d,]+) shown); "
    r"(?P<shown>[\d,]+) of (?P<bytes>[\d,]+) bytes(?P<extra>(?:; [^;]+)*?); "
    r"sha256=(?P<sha>[0-9a-f]{64})(?:; ref=(?P<ref>\S+))?\Z"
)
_CUT = re.compile(r"line (\d+) cut at char ([\d,]+) of ([\d,]+)")


def reference_lines(body: bytes) -> list[bytes]:
    """An independent splitter: a line ends at \\n, \\r\\n or a lone \\r."""
    lines, current, i = [], bytearray(), 0
    while i < len(body):
        byte = body[i : i + 1]
        current += byte
        if byte == b"\r" and body[i + 1 : i + 2] == b"\n":
            current += b"\n"
            i += 1
        if byte in (b"\n", b"\r"):
            lines.append(bytes(current))
            current = bytearray()
        i += 1
    if current:
        lines.append(bytes(current))
    return lines


def _num(text: str) -> int:
    return int(text.replace(",", ""))


def shaper_for(body: bytes, **fields: object) -> tuple[ShapeContext, Callable[[int], Shaped]]:
    ctx = ShapeContext(sha256=hashlib.sha256(body).hexdigest(), total_bytes=len(body),
                       body=body, format="text", **fields)  # type: ignore[arg-type]
    return ctx, text_shaper(body, ctx)


def shape_at(body: bytes, limit: int, **fields: object) -> Shaped:
    _, shaper = shaper_for(body, **fields)
    return shaper(limit)


@dataclass
class Reading:
    head: int
    tail: int
    cut_bytes: int
    content_bytes: int


def check(body: bytes, limit: int, shaped: Shaped) -> Reading:
    """Every claim of a shaped valid-UTF-8 text, checked against the original."""
    out = shaped.body
    assert len(out) <= limit
    lines = reference_lines(body)
    n = len(lines)
    if shaped.complete:
        assert out == body
        return Reading(n, 0, 0, len(body))
    eol = next((line[len(line.rstrip(b"\r\n")):] for line in lines
                if line.endswith((b"\n", b"\r"))), b"\n")
    header, _, rest = out.partition(eol)
    assert is_text_header(header.decode())
    match = _HEADER.match(header.decode())
    assert match, header
    assert _num(match["total"] or match["total0"]) == n
    assert _num(match["shown"]) == len(out)
    assert _num(match["bytes"]) == len(body)
    assert match["sha"] == hashlib.sha256(body).hexdigest()
    ranges = []
    for part in (match["ranges"] or "").split(" and ") if match["ranges"] else []:
        a, _, b = part.partition("-")
        ranges.append((_num(a), _num(b or a)))
    # From 512 bytes up, a line (or a cut of line 1) always fits beside header and marker.
    assert ranges or n == 0
    cut = _CUT.search(match["extra"])
    if cut:
        assert ranges == [(1, 1)]
        line1 = lines[0].rstrip(b"\r\n")
        shown_chars, total_chars = _num(cut[2]), _num(cut[3])
        assert total_chars == len(line1.decode())
        prefix = line1.decode()[:shown_chars].encode()
        assert 0 < shown_chars < total_chars or n > 1
        assert rest.startswith(prefix + eol)
        marker = rest[len(prefix + eol):]
        assert marker.startswith(b"[\xe2\x80\xa6 rest of line 1")
        assert marker.endswith(eol) and marker.count(eol) == 1
        return Reading(0, 0, len(prefix), len(prefix))
    head = ranges[0][1] if ranges and ranges[0][0] == 1 else 0
    tail = n - ranges[-1][0] + 1 if ranges and ranges[-1][1] == n and ranges[-1][0] > head \
        else 0
    if ranges and ranges[0] == (1, n):
        head, tail = n, 0
    assert len(ranges) == (head > 0) + (tail > 0)
    head_bytes = b"".join(lines[:head])
    tail_bytes = b"".join(lines[n - tail:])
    assert rest.startswith(head_bytes)
    assert rest.endswith(tail_bytes)
    middle = rest[len(head_bytes):len(rest) - len(tail_bytes)]
    if head + tail < n:
        elided = n - head - tail
        noun = "line" if elided == 1 else "lines"
        expected = f"[… {elided:,} {noun} elided ({len(body) - len(head_bytes + tail_bytes):,} "
        assert middle.decode().startswith(expected), middle
        assert f"lines {head + 1}-{n - tail}" in middle.decode() or \
            f'lines="{head + 1}-{n - tail}"' in middle.decode()
        assert middle.endswith(eol) and middle.count(eol) == 1
    else:
        assert middle == b""
    return Reading(head, tail, 0, len(head_bytes) + len(tail_bytes))


_CHARS = st.characters(codec="utf-8", exclude_characters="\r\n")
_ENDING = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def texts(draw: st.DrawFn) -> bytes:
    line = st.one_of(st.text(_CHARS, max_size=30), st.text(_CHARS, max_size=30),
                     st.just(""), st.text(_CHARS, min_size=200, max_size=900))
    parts = draw(st.lists(st.tuples(line, _ENDING), max_size=150))
    if draw(st.booleans()):  # often a body well over the smallest budget
        parts += draw(st.lists(st.tuples(st.text(_CHARS, max_size=60), _ENDING), min_size=40,
                               max_size=80))
    body = "".join(a + b for a, b in parts)
    if draw(st.booleans()):
        body += draw(st.text(_CHARS, min_size=1, max_size=30))  # no final line ending
    return body.encode()


def limit_for(data: st.DataObject, body: bytes) -> int:
    # Mostly limits the body overflows, so most examples exercise a cut, some exactly at it.
    edges = [512, max(512, len(body)), max(512, len(body) - 1)]
    return data.draw(st.one_of(st.integers(512, max(512, len(body) + 16)), st.sampled_from(edges)))


@given(texts(), st.data())
def test_every_claim_holds_at_any_limit(body: bytes, data: st.DataObject) -> None:
    limit = limit_for(data, body)
    check(body, limit, shape_at(body, limit))


@given(texts(), st.data())
def test_a_larger_limit_never_shows_less(body: bytes, data: st.DataObject) -> None:
    small, large = sorted((limit_for(data, body), limit_for(data, body)))
    assert check(body, small, shape_at(body, small)).content_bytes <= \
        check(body, large, shape_at(body, large)).content_bytes


@given(texts(), st.data())
def test_deterministic_and_idempotent(body: bytes, data: st.DataObject) -> None:
    limit = limit_for(data, body)
    first = shape_at(body, limit)
    assert shape_at(body, limit).text == first.text
    again = shape_at(first.body, limit)
    assert again.text == first.text
    # The shaper is cheap to call again: the same object gives the same answer.
    _, shaper = shaper_for(body)
    assert shaper(limit).text == shaper(limit).text == first.text


@given(texts(), st.data())
def test_public_api_bytes_and_chars(body: bytes, data: st.DataObject) -> None:
    limit = limit_for(data, body)
    by_bytes = shape(body, Budget(limit), format="text")
    check(body, limit, by_bytes)
    by_chars = shape(body, Budget(limit, "chars"), format="text")
    assert len(by_chars.text) <= limit
    assert by_chars.complete == (len(body.decode()) <= limit)


def _log(n: int) -> bytes:
    return "".join(f"2026-11-30T12:00:{i % 60:02d}Z INFO step {i} done\n"
                   for i in range(1, n + 1)).encode()


def test_budget_is_filled() -> None:
    body = _log(6001)
    for limit in (512, 1024, 8192, 65536):
        shaped = shape_at(body, limit)
        assert not shaped.complete
        # Lines here are ~40 bytes: anything under 90% would be a line or more left unused.
        assert len(shaped.body) >= 0.9 * limit, (limit, len(shaped.body))
        reading = check(body, limit, shaped)
        assert reading.head > reading.tail > 0  # head-first split, both sides kept


@pytest.mark.parametrize(
    ("where", "limits"),
    [
        ("head", (1024, 2048, 2500)),  # the head's turn comes early (60%): the tail fills
        ("tail", (1024, 3000, 3500)),  # the tail's turn comes later (40%): the head fills
    ],
)
def test_a_long_line_on_one_side_leaves_its_share_to_the_other(
    where: str, limits: tuple[int, ...]
) -> None:
    lines = reference_lines(_log(3000))
    # Long enough that the path turns to it before the budget is spent: the fill must act.
    long_line = b"stack trace " * 125 + b"\n"
    lines.insert(2 if where == "head" else len(lines) - 2, long_line)
    body = b"".join(lines)
    for limit in limits:
        shaped = shape_at(body, limit)
        reading = check(body, limit, shaped)
        assert len(shaped.body) >= 0.9 * limit, (limit, len(shaped.body))
        blocked, other = (reading.head, reading.tail) if where == "head" else \
            (reading.tail, reading.head)
        assert blocked <= 2 < other


@pytest.mark.parametrize(
    ("body", "limit", "kind"),
    [
        (b"", 512, "complete"),  # empty body: nothing to cut
        (b"x" * 512, 512, "complete"),  # exactly fits
        (b"x" * 513, 512, "cut"),  # one byte over: one long line, cut
        (b"\n" * 2000, 512, "lines"),  # only newlines: empty lines are lines too
        (b"\r\n" * 700, 600, "lines"),  # CRLF pairs are one ending, never split
        (b"\r" * 900, 600, "lines"),  # old Mac endings
        (b"a\r\nb\rc\n" * 200, 700, "lines"),  # mixed endings kept as they were
        ("é" * 2000, 512, "cut"),  # one huge line of 2-byte chars: cut between chars
        ("€" * 2000 + "\nend\n", 512, "lines"),  # huge first line, small last: last shown whole
        ("\ufeffcol\n" + "row\n" * 500, 600, "lines"),  # BOM stays part of line 1
        (b"line\n" * 300 + b"last without ending", 700, "lines"),  # no trailing newline
        (b"z" * 5000 + b"\n" + b"y" * 5000, 700, "cut"),  # both ends too long: cut line 1
    ],
)
def test_edges(body: bytes | str, limit: int, kind: str) -> None:
    raw = body.encode() if isinstance(body, str) else body
    shaped = shape_at(raw, limit)
    assert shaped.complete is (kind == "complete")
    reading = check(raw, limit, shaped)
    assert (reading.cut_bytes > 0) is (kind == "cut")
    if kind == "cut":
        # The cut takes what the budget leaves (less the widest-case reserve for its numbers).
        assert len(shaped.body) >= 0.9 * limit
    via_api = shape(raw, Budget(limit), format="text")
    assert via_api.text == shaped.text


def test_crlf_body_uses_crlf_for_header_and_marker() -> None:
    body = b"".join(b"row %d\r\n" % i for i in range(400))
    out = shape_at(body, 700).body
    assert b"\n" not in out.replace(b"\r\n", b"")
    assert out.split(b"\r\n")[0].startswith(b"[elision] partial:")


def test_cut_never_splits_a_character() -> None:
    body = ("a" + "😀" * 3000).encode()
    for limit in range(512, 530):
        shaped = shape_at(body, limit)
        assert len(shaped.body) <= limit
        shaped.body.decode("utf-8")  # strict: a split character would raise
        assert "line 1 cut at char" in shaped.text.splitlines()[0]


@pytest.mark.parametrize(
    ("body", "bad"),
    [
        (b"ok\n\xff\xfe bad\n" * 200, 400),  # two bad bytes per line, cut
        (b"caf\xc3\n", 1),  # truncated sequence, fits: still a header, not "complete"
        (b"\x80" * 3, 3),  # only continuation bytes, no line ending
    ],
)
def test_invalid_utf8_is_replaced_and_counted(body: bytes, bad: int) -> None:
    shaped = shape(body, Budget(1024), format="text")
    header = shaped.text.splitlines()[0]
    assert f"{bad:,} invalid UTF-8 byte" in header
    assert not shaped.complete
    assert shaped.envelope is not None and shaped.envelope["complete"] is False
    assert "\ufffd" in shaped.text
    assert len(shaped.body) <= 1024
    assert f"of {len(body):,} bytes" in header


def test_store_gives_a_ref_and_a_fetchable_marker() -> None:
    from elision.store import MemoryStore

    store = MemoryStore()
    body = _log(6001)
    shaped = shape(body, Budget(8192), format="text", store=store)
    ref = shaped.ref
    assert ref is not None and shaped.envelope is not None
    lines = reference_lines(body)
    reading = check(body, 8192, shaped)
    gap = f"{reading.head + 1}-{6001 - reading.tail}"
    assert f'elision_fetch(ref="{ref}", lines="{gap}")' in shaped.text
    assert shaped.text.splitlines()[0].endswith(f"ref={ref}")
    env = shaped.envelope
    assert env["ref"] == ref and env["next"] == f'elision_fetch(ref="{ref}", lines="{gap}")'
    assert env["elided"] == [{"path": "lines", "kind": "lines",
                              "shown": reading.head + reading.tail, "total": 6001,
                              "ranges": [[1, reading.head], [6002 - reading.tail, 6001]]}]
    assert env["bytes"] == {"shown": len(shaped.body), "total": len(body)}
    assert store.read(ref) == body
    # A page of the gap keeps the original's line numbers and total.
    page = store.fetch(ref, lines=gap, budget=Budget(2048))
    first = page.text.splitlines()[0]
    assert f"lines {reading.head + 1}-" in first and "of 6,001 shown" in first
    assert page.text.splitlines()[1].encode() + b"\n" == lines[reading.head]


def test_a_page_that_fits_still_says_which_lines_it_is() -> None:
    body = _log(50)
    page = b"".join(reference_lines(body)[9:20])
    _, shaper = shaper_for(page, root_offset=9, root_total=50, page="lines=10-20",
                           fixed_ref="el_test")
    shaped = shaper(4096)
    assert shaped.text.startswith("[elision] partial: lines 10-20 of 50 shown;")
    assert shaped.text.endswith(page.decode())
    assert shaped.envelope["next"] == 'elision_fetch(ref="el_test", lines="21-50")'
    assert shaped.envelope["page"] == "lines=10-20"


def test_absurd_counts_still_fit_the_smallest_budget() -> None:
    # A caller's total-lines hint so large that header and marker alone would overflow 512
    # bytes: the header still comes first, still fits, and states its own size.
    body = _log(100)
    _, shaper = shaper_for(body, root_total=10**80, page="lines=1-100", fixed_ref="el_x" * 20)
    shaped = shaper(512)
    assert len(shaped.body) <= 512
    assert is_text_header(shaped.text)
    assert f"{len(shaped.body):,} of" in shaped.text
    assert not shaped.complete


def test_token_budget_is_met_by_searching_byte_limits() -> None:
    from elision.errors import TokenizerUnavailable

    budget = Budget(600, "tokens")
    try:
        budget.token_counter()
    except TokenizerUnavailable as exc:
        pytest.skip(str(exc))
    body = "".join(f"2026-11-30T12:00:00Z INFO step {i} 日本語 done\n" for i in range(3000))
    shaped = shape(body, budget, format="text")
    assert not shaped.complete
    # Within the budget, and not far under it: the search found a larger byte limit.
    assert 0.9 * 600 <= budget.measure(shaped.text) <= 600
    assert len(shaped.body) > 600


def test_format_is_text_whatever_the_context_said() -> None:
    body = _log(200)
    ctx = ShapeContext(sha256=hashlib.sha256(body).hexdigest(), total_bytes=len(body), body=body)
    shaped = text_shaper(body, ctx)(1024)
    assert shaped.format == "text" == ctx.format


def test_a_store_that_fails_is_said_and_the_marker_says_what_to_do() -> None:
    from elision.errors import StoreError

    class FullStore:
        def put(self, body: bytes, **_: object) -> None:
            raise StoreError("store is full")

    body = _log(500)
    shaped = shape(body, Budget(2048), format="text", store=FullStore())  # type: ignore[arg-type]
    header = shaped.text.splitlines()[0]
    assert "body not kept" in header and "ref=" not in header
    assert "could not be kept; shape again with a store or a larger budget" in shaped.text
    assert shaped.ref is None and shaped.envelope is not None
    assert shaped.envelope["stored"] is False
    assert any("store is full" in note for note in shaped.envelope["notes"])
    check(body, 2048, shaped)


def test_withheld_values_make_a_fitting_text_incomplete() -> None:
    body = b"see [ref_k3f9] image/png, ~120 KB\n"
    withheld = [{"path": "lines", "reason": "signed-uri", "stub": "ref_k3f9"}]
    shaped = shape_at(body, 512, withheld=withheld)
    assert shaped.body == body  # the stub is already in the text
    assert not shaped.complete
    assert shaped.envelope is not None and shaped.envelope["withheld"] == withheld


def _bad_bytes(body: bytes) -> int:
    """Invalid bytes counted with the codec's own error ranges, independent of the shaper."""
    bad, pos = 0, 0
    while True:
        try:
            body[pos:].decode("utf-8")
        except UnicodeDecodeError as exc:
            bad += exc.end - exc.start
            pos += exc.end
        else:
            return bad


#: The UTF-16 and UTF-32 byte order marks: a body opening with one is read in that encoding.
_MARKS = (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00", b"\xfe\xff", b"\xff\xfe")


@example(b"\xfe\xff", 512)  # a UTF-16BE mark alone: found by the dev profile (issue 23)
@given(st.binary(max_size=3000), st.integers(512, 2048))
def test_any_bytes_give_an_honest_text(body: bytes, limit: int) -> None:
    shaped = shape(body, Budget(limit), format="text")
    out = shaped.body
    assert len(out) <= limit
    out.decode("utf-8")  # strict: the result is always valid UTF-8
    bad = _bad_bytes(body)
    if body.startswith(_MARKS):
        # Read by its mark, not as UTF-8: the header says so, and what was sent.
        header = shaped.text.splitlines()[0]
        assert is_text_header(header)
        assert "decoded from UTF-" in header and f"{len(body):,} bytes as the tool sent" in header
        assert not shaped.complete
    elif bad:
        header = shaped.text.splitlines()[0]
        assert is_text_header(header)
        assert f"{bad:,} invalid UTF-8 byte" in header
        assert not shaped.complete
    else:
        assert shaped.complete == (out == body)
