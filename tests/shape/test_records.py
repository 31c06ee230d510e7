"""NDJSON and CSV shaping: whole records only, the notice first, everything still parses."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision import shape
from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY, read_envelope
from elision.shape import ShapeContext, Shaped
from elision.shape.records import csv_shaper, ndjson_shaper

Shaper = Callable[[bytes, ShapeContext], Callable[[int], Shaped]]


def shape_at(make: Shaper, body: bytes, limit: int, fmt: str, **fields: Any) -> Shaped:
    ctx = ShapeContext(sha256=hashlib.sha256(body).hexdigest(), total_bytes=len(body),
                       body=body, format=fmt, **fields)
    return make(body, ctx)(limit)


def limit_for(data: st.DataObject, body: bytes) -> int:
    edges = [512, max(512, len(body)), max(512, len(body) - 1)]
    return data.draw(st.one_of(st.integers(512, max(512, len(body) + 16)), st.sampled_from(edges)))


# ---------------------------------------------------------------------------------------- NDJSON

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=8,
)


@st.composite
def ndjson_bodies(draw: st.DrawFn) -> bytes:
    records = draw(st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=4),
                            max_size=60))
    if draw(st.booleans()):  # a record larger than any budget drawn here
        records.insert(draw(st.integers(0, len(records))), {"blob": "x" * 5000})
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines = [orjson.dumps(r) + ending for r in records]
    if lines and draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), ending)  # a blank line is no record
    body = b"".join(lines)
    if body and draw(st.booleans()):
        body = body.rstrip(b"\r\n")  # no final line ending
    return body


def record_lines(body: bytes) -> list[bytes]:
    """Non-blank lines, each with its own ending: what an NDJSON reader sees as records."""
    return [line for line in body.splitlines(keepends=True) if line.strip()]


def check_ndjson(body: bytes, limit: int, shaped: Shaped) -> int:
    out = shaped.body
    assert len(out) <= limit
    if shaped.complete:
        assert out == body
        return len(body)
    lines = out.splitlines(keepends=True)
    for line in lines:
        orjson.loads(line)  # strict: every line of the result is JSON
    env = read_envelope(lines[0])
    assert env is not None and list(orjson.loads(lines[0])) == [ENVELOPE_KEY]
    assert env == shaped.envelope
    assert env["complete"] is False
    assert env["sha256"] == hashlib.sha256(body).hexdigest()
    assert env["bytes"] == {"shown": len(out), "total": len(body)}
    records = record_lines(body)
    kept = lines[1:]
    (entry,) = env["elided"]
    assert entry["kind"] == "records" and entry["total"] == len(records)
    assert entry["shown"] == len(kept) < len(records)
    head = next(h for h in range(len(kept) + 1) if kept[h:] == records[len(records) -
                                                                      len(kept) + h:])
    assert kept[:head] == records[:head]  # head a prefix, the rest a suffix
    return sum(map(len, kept))


@given(ndjson_bodies(), st.data())
def test_ndjson_every_line_parses_and_records_are_the_originals(
    body: bytes, data: st.DataObject
) -> None:
    limit = limit_for(data, body)
    check_ndjson(body, limit, shape_at(ndjson_shaper, body, limit, "ndjson"))


@given(ndjson_bodies(), st.data())
def test_ndjson_monotone_deterministic_idempotent(body: bytes, data: st.DataObject) -> None:
    small, large = sorted((limit_for(data, body), limit_for(data, body)))
    first = shape_at(ndjson_shaper, body, small, "ndjson")
    assert check_ndjson(body, small, first) <= \
        check_ndjson(body, large, shape_at(ndjson_shaper, body, large, "ndjson"))
    assert shape_at(ndjson_shaper, body, small, "ndjson").text == first.text
    assert shape_at(ndjson_shaper, first.body, small, "ndjson").text == first.text


def _events(n: int) -> bytes:
    return b"".join(orjson.dumps({"seq": i, "event": "login", "user": f"u{i:05d}"}) + b"\n"
                    for i in range(1, n + 1))


@pytest.mark.parametrize(
    ("body", "limit", "shown"),
    [
        (b"", 512, None),  # empty body: complete
        (_events(9)[:512], 512, None),  # whatever fits is returned as it is
        (_events(30), len(_events(30)), None),  # exactly fits
        (_events(30), len(_events(30)) - 1, "some"),  # one byte over: records dropped, whole
        (b'{"big": "' + b"y" * 4000 + b'"}\n', 512, 0),  # one record over budget: dropped, counted
        (b'{"a": 1}\r\n' * 200, 600, "some"),  # CRLF records keep their CR
        (b'{"a": 1}\n\n\n' * 200, 600, "some"),  # blank lines are not records
        (_events(100).rstrip(b"\n"), 700, "some"),  # no final newline
    ],
)
def test_ndjson_edges(body: bytes, limit: int, shown: int | str | None) -> None:
    shaped = shape_at(ndjson_shaper, body, limit, "ndjson")
    check_ndjson(body, limit, shaped)
    if shown is None:
        assert shaped.complete
    else:
        assert shaped.envelope is not None
        (entry,) = shaped.envelope["elided"]
        assert entry["shown"] > 0 if shown == "some" else entry["shown"] == shown
    assert shape(body, Budget(limit), format="ndjson").text == shaped.text


def test_ndjson_fills_the_budget_and_points_at_the_gap() -> None:
    from elision.store import MemoryStore

    body = _events(2000)
    shaped = shape(body, Budget(8192), format="ndjson", store=MemoryStore())
    assert shaped.format == "ndjson"
    assert len(shaped.body) >= 0.9 * 8192
    env = shaped.envelope
    assert env is not None
    (entry,) = env["elided"]
    (head_first, head_last), (tail_first, tail_last) = entry["ranges"]
    assert head_first == 1 and tail_last == 2000 and head_last < tail_first
    assert head_last + (2001 - tail_first) == entry["shown"]
    assert env["next"] == f'elision_fetch(ref="{shaped.ref}", lines="{head_last + 1}-' \
                          f'{tail_first - 1}")'


def test_ndjson_with_a_line_that_is_not_json_is_shaped_as_text() -> None:
    body = _events(100) + b"not json\n" + _events(100)
    shaped = shape(body, Budget(1024), format="ndjson")
    assert shaped.format == "text"
    assert shaped.text.startswith("[elision] partial:")
    assert shaped.envelope is not None
    assert any("line 101 is not JSON" in note for note in shaped.envelope["notes"])


# ------------------------------------------------------------------------------------------- CSV

#: ``[a-z0-9 ]``: the strings of ``st.from_regex(r"[a-z0-9 ]{0,10}", fullmatch=True)``, drawn
#: as text of that alphabet: from_regex costs 7x the CPU (100 tables drawn each way), and the
#: two CSV properties spent nearly all their time (cProfile: 98%) drawing their tables.
_PLAIN = "abcdefghijklmnopqrstuvwxyz0123456789 "
_FIELD = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=12),  # commas, quotes, CR/LF inside
    st.text(_PLAIN, max_size=10),
)


@st.composite
def csv_bodies(draw: st.DrawFn) -> bytes:
    width = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(_FIELD, min_size=width, max_size=width), min_size=1,
                         max_size=60))
    if draw(st.booleans()):  # often a table well over the smallest budget
        plain = st.text(_PLAIN, max_size=16)
        rows += draw(st.lists(st.lists(plain, min_size=width, max_size=width), min_size=40,
                              max_size=80))
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator=draw(st.sampled_from(["\r\n", "\n"]))).writerows(rows)
    return buffer.getvalue().encode()


def read_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


_NOTICE = re.compile(r"\[elision\] partial: .*; ([\d,]+) of ([\d,]+) data rows shown"
                     r"( after the header row)?")


def notice_row(rows: list[list[str]]) -> tuple[int, str]:
    """Where the notice is among the rows a CSV reader reads, and its text: one field."""
    at = next(i for i, row in enumerate(rows) if row and row[0].startswith("[elision] partial"))
    assert len(rows[at]) == 1, rows[at]  # its commas split nothing
    return at, rows[at][0]


def check_csv(body: bytes, limit: int, shaped: Shaped) -> int:
    out = shaped.body
    assert len(out) <= limit
    if shaped.complete:
        assert out == body
        return len(body)
    original = read_rows(body.decode())
    header, data_rows = original[0], original[1:]
    rows = read_rows(shaped.text)
    at, notice = notice_row(rows)
    match = _NOTICE.match(notice)
    assert match, notice
    assert f"{len(out):,} of {len(body):,} bytes" in notice
    shown, total = (int(g.replace(",", "")) for g in match.group(1, 2))
    assert total == len(data_rows) and shown < total
    kept = rows[at + 1:]
    if match[3]:
        assert at == 1 and rows[0] == header  # a CSV reader takes the real header row
    else:
        assert at == 0
    assert len(kept) == shown
    assert any(kept == data_rows[:h] + data_rows[total - (shown - h):] for h in range(shown + 1))
    assert shaped.envelope is not None
    assert shaped.envelope["elided"][0]["shown"] == shown
    return len(out) - len(shaped.text.splitlines()[at])


@given(csv_bodies(), st.data())
def test_csv_parses_and_rows_are_the_originals(body: bytes, data: st.DataObject) -> None:
    limit = limit_for(data, body)
    check_csv(body, limit, shape_at(csv_shaper, body, limit, "csv"))


@given(csv_bodies(), st.data())
def test_csv_monotone_deterministic_idempotent(body: bytes, data: st.DataObject) -> None:
    small, large = sorted((limit_for(data, body), limit_for(data, body)))
    first = shape_at(csv_shaper, body, small, "csv")
    check_csv(body, small, first)
    check_csv(body, large, shape_at(csv_shaper, body, large, "csv"))
    assert shape_at(csv_shaper, body, small, "csv").text == first.text
    assert shape_at(csv_shaper, first.body, small, "csv").text == first.text


def _table(n: int, note: str = "plain") -> bytes:
    lines = ["id,name,note"] + [f'{i},"name {i}","{note} {i}"' for i in range(1, n + 1)]
    return ("\r\n".join(lines) + "\r\n").encode()


@pytest.mark.parametrize(
    ("body", "limit"),
    [
        (_table(300), 1024),  # plain rows, CRLF as the csv module writes them
        (_table(300, "multi\nline, quoted"), 1024),  # embedded newlines: one record, never split
        (_table(300, 'say ""hi""'), 1024),  # escaped quotes inside quoted fields
        (_table(300).replace(b"\r\n", b"\n"), 700),  # LF endings
        (_table(300).rstrip(b"\r\n"), 700),  # no final line ending
        ("\ufeff".encode() + _table(300), 700),  # BOM stays on the header row
        (b"h\n" + b"z" * 3000 + b"\n", 512),  # the only data row is too long: dropped, counted
        (b"h" * 3000 + b"\n1\n2\n" * 100, 512),  # header row too long to show: said so
        (_table(30), len(_table(30)) - 1),  # one byte over
    ],
)
def test_csv_edges(body: bytes, limit: int) -> None:
    shaped = shape(body, Budget(limit), format="csv")
    assert not shaped.complete
    check_csv(body, limit, shaped)
    _, notice = notice_row(read_rows(shaped.text))
    header_row = body.splitlines(keepends=True)[0]
    # The header row is kept whenever it fits at all, first; when it cannot, the notice says so.
    if len(header_row) < 100:
        assert shaped.text.splitlines(keepends=True)[0].encode() == header_row
        assert "after the header row" in notice
    else:
        assert "header row too long to show" in notice


def test_csv_that_fits_is_unchanged() -> None:
    body = _table(40)
    shaped = shape(body, Budget(len(body)), format="csv")
    assert shaped.complete and shaped.body == body and shaped.envelope is None
    # The shaper itself (a chars budget calls it even for a body that fits) agrees.
    direct = shape_at(csv_shaper, body, len(body), "csv")
    assert direct.complete and direct.body == body


def test_csv_notice_says_where_the_rest_is() -> None:
    from elision.store import MemoryStore

    shaped = shape(_table(2000), Budget(4096), format="csv", store=MemoryStore())
    _, notice = notice_row(read_rows(shaped.text))
    assert shaped.envelope is not None
    assert f"next: {shaped.envelope['next']}" in notice
    assert notice.endswith(f"ref={shaped.ref}")
    assert len(shaped.body) >= 0.9 * 4096


def test_csv_invalid_utf8_is_replaced_and_counted() -> None:
    body = _table(200).replace(b"name 7", b"name \xff7")
    shaped = shape(body, Budget(1024), format="csv")
    assert "invalid UTF-8 byte" in notice_row(read_rows(shaped.text))[1]
    assert len(shaped.body) <= 1024


def test_pages_count_in_the_original_lines() -> None:
    # A page of lines 101-600 of a 2,001-line table: the original's header row first (given),
    # and every line number it states is the original's.
    lines = _table(2000).splitlines(keepends=True)
    page = b"".join(lines[100:600])
    shaped = shape_at(csv_shaper, page, 2048, "csv", root_offset=100, root_total=2001,
                      page="lines=101-600", fixed_ref="el_page", header_row=lines[0])
    rows = read_rows(shaped.text)
    at, notice = notice_row(rows)
    assert at == 1 and rows[0] == next(csv.reader([lines[0].decode()]))
    assert notice.startswith("[elision] partial: lines 1 and 101-")
    assert "of 2,001 shown" in notice and "after the header row" in notice
    assert rows[2] == next(csv.reader([lines[100].decode()]))
    assert shaped.envelope is not None and shaped.envelope["page"] == "lines=101-600"
    gap = re.search(r'lines="(\d+)-(\d+)"', shaped.envelope["next"])
    assert gap and 101 < int(gap[1]) <= int(gap[2]) < 600

    events = _events(1000).splitlines(keepends=True)
    page = b"".join(events[499:])
    shaped = shape_at(ndjson_shaper, page, 1024, "ndjson", root_offset=499, root_total=1000,
                      fixed_ref="el_page")
    assert shaped.envelope is not None
    (entry,) = shaped.envelope["elided"]
    assert entry["ranges"][0][0] == 500 and entry["ranges"][-1][1] == 1000
    assert entry["total"] == 501  # records in this page
    first_kept = orjson.loads(shaped.text.splitlines()[1])
    assert first_kept["seq"] == 500
