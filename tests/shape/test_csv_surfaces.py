"""CSV and NDJSON on every surface (issue 14, item 6).

Found as a newcomer: the CSV notice ``# [elision] partial: … of 4,001 shown; …`` holds commas,
so a CSV reader split it into fields and took it as the header; CSV was found only by file
extension (stdin and proxied CSV got the text header); a fetched CSV page lost the header row;
NDJSON pages fetched by ``lines=`` came back as text.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from elision.budget import Budget
from elision.shape import shape
from elision.shape.table import looks_like_csv
from elision.store import MemoryStore
from elision.store.fetch import parse_next

HEADER = ["id", "name", "city", "amount"]
TABLE = ("id,name,city,amount\n" + "".join(
    f'{i},"Name, {i}",Lyon,{i * 1.5}\n' for i in range(4000))).encode()
EVENTS = "".join(json.dumps({"id": i, "event": "login", "user": f"u{i}"}) + "\n"
                 for i in range(3000)).encode()


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_a_csv_reader_takes_the_real_header_row() -> None:
    shaped = shape(TABLE, Budget(2048), format="csv")
    reader = csv.DictReader(io.StringIO(shaped.text, newline=""))
    assert reader.fieldnames == HEADER
    notice, *data = list(reader)
    # The notice is one field: the reader puts it under the first column, nothing else.
    assert notice["id"].startswith("[elision] partial:") and "of 4,001 shown" in notice["id"]
    assert notice["name"] is None
    assert data and all(row["city"] == "Lyon" for row in data)


@pytest.mark.parametrize(
    ("body", "is_csv"),
    [
        (TABLE, True),  # a table with a header row
        (b"a,b\n1,2\n3,4\n", True),  # the smallest: a header and two rows
        (b"a,b\n1,2\n", False),  # too few rows to tell
        (b"1,2\n3,4\n5,6\n", False),  # a header of numbers is data, not names
        (b"name,name\nx,y\nz,w\n", False),  # repeated names are no header
        (b"2026-12-01 INFO started, 3 workers\n2026-12-01 INFO ready, 4 queues\n"
         b"2026-12-01 INFO done, 0 errors\n", False),  # a log with one comma a line
        (b"a,b\n1,2,3\n4,5\n", False),  # ragged rows
        (b"just,one line of prose, with commas\n" * 3, False),  # a name padded with a space
        (b"id\n1\n2\n3\n", False),  # one column: nothing to tell it from text
        (b'a,"b\n1,2\n3,4\n', False),  # a quote never closed
        (b"a,b\n\xff,2\n3,4\n", False),  # not UTF-8
    ],
)
def test_csv_is_found_by_content_conservatively(body: bytes, is_csv: bool) -> None:
    assert looks_like_csv(body) is is_csv


def test_csv_without_a_name_is_shaped_as_csv() -> None:
    # What stdin and a proxied result are: no file extension to go by.
    shaped = shape(TABLE, Budget(2048))
    assert shaped.format == "csv"
    rows = rows_of(shaped.text)
    assert rows[0] == HEADER and rows[1][0].startswith("[elision] partial:")


def test_a_fetched_csv_page_starts_with_the_header_row() -> None:
    store = MemoryStore()
    first = shape(TABLE, Budget(2048), format="csv", store=store)
    assert first.envelope is not None and first.ref is not None
    lines = parse_next(first.envelope["next"])["lines"]
    page = store.fetch(first.ref, lines=lines, budget=Budget(2048))
    rows = rows_of(page.text)
    assert rows[0] == HEADER
    assert len(rows[1]) == 1 and rows[1][0].startswith("[elision] partial: lines 1 and ")
    start = int(lines.split("-")[0])
    assert rows[2][0] == str(start - 2)  # line 2 of the original holds id 0
    assert len(page.body) <= 2048


def test_ndjson_pages_by_lines_stay_ndjson() -> None:
    store = MemoryStore()
    first = shape(EVENTS, Budget(2048), store=store)
    assert first.format == "ndjson" and first.ref is not None
    page = store.fetch(first.ref, lines="100-300", budget=Budget(2048))
    lines = page.text.splitlines()
    envelope = json.loads(lines[0])["__elision__"]
    assert envelope["page"] == "lines=100-300"
    records = [json.loads(line) for line in lines[1:]]  # every line parses
    assert records[0]["id"] == 99 and len(page.body) <= 2048
    # A page that fits still says which lines it is.
    small = store.fetch(first.ref, lines="5-6", budget=Budget(2048))
    assert json.loads(small.text.splitlines()[0])["__elision__"]["page"] == "lines=5-6"
