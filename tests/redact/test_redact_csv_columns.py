"""A CSV or TSV column named like a credential withholds the cells under it.

Found by the csvnames session: ``id,user,password,api_key_2`` over ``1,alice,hunter2,9f8e…``
showed ``hunter2`` and the key to the model (through ``shape()``, a fetched page and the
proxy), where the JSON member ``"password": "hunter2"`` is withheld. Each header name is now
judged as a JSON key is, and each cell under a credential name as that member's value.
"""

from __future__ import annotations

import csv
import hashlib
import io
import string
from typing import Any

import mcp_types as types
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.mcp.gate.results import ResultShaper
from elision.pipeline import Pipeline
from elision.redact import redact_text
from elision.redact.rules import credential_stub
from elision.shape import shape
from elision.store import MemoryStore
from elision.store.fetch import parse_next
from support.traced import peak

STUB = credential_stub("credential-field")
KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
FOUND = f"id,user,password,api_key_2\n1,alice,hunter2,{KEY}\n2,bob,s3cr3t!,{KEY[::-1]}\n"


def rows_of(text: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


@pytest.mark.parametrize(
    ("text", "delimiter", "withheld"),
    [
        # the case as found: a bare name and an affixed one
        (FOUND, ",", {(1, 2), (1, 3), (2, 2), (2, 3)}),
        # TSV
        (FOUND.replace(",", "\t"), "\t", {(1, 2), (1, 3), (2, 2), (2, 3)}),
        # quoted cells holding the delimiter, a doubled quote and a line break
        ('user,password,note\nada,"hunter,2","a, b"\nbob,"pa""ss\nword",x\n', ",",
         {(1, 1), (2, 1)}),
        # hostile quoting the csv module reads all the same: a quote inside an unquoted cell,
        # a cell that goes on after its closing quote (withheld whole, quotes and all)
        ('user,password\nada,pa"ss\nbob,"hunter2"x\ncy,"a""b"\n', ",", {(1, 1), (2, 1), (3, 1)}),
        # affixed and camel-case names; CRLF line ends
        (f"name,passwordV2,apiKey_old,DB_PASSWORD_1\r\nx,hunter2,{KEY},p4ss\r\n", ",",
         {(1, 1), (1, 2), (1, 3)}),
        # benign names stay shown, with or without an affix
        ("password_policy,token_count,page_token,sort_key_2\nstrict,12,abc,created\n", ",",
         set()),
        # an empty, masked or placeholder cell, or a message, is no credential
        ("user,password\na,\nb,********\nc,${DB_PASS}\nd,must be at least 12 characters\n",
         ",", set()),
        # a weak name withholds an opaque value only, as a JSON member's does
        (f"id,token\n1,abc\n2,{KEY}\n", ",", {(2, 1)}),
    ],
)
def test_cells_under_a_credential_column_are_withheld(
    text: str, delimiter: str, withheld: set[tuple[int, int]],
) -> None:
    done = redact_text(text)
    before, after = rows_of(text, delimiter), rows_of(done.value, delimiter)
    assert [len(r) for r in after] == [len(r) for r in before]
    for r, row in enumerate(after):
        for c, cell in enumerate(row):
            if (r, c) in withheld:
                assert cell.rstrip("\r\n") == STUB, (r, c, cell)
            else:
                assert cell == before[r][c], (r, c, cell)
    assert len(done.withheld) == len(withheld)
    assert {e["reason"] for e in done.withheld} <= {"credential-field"}


def test_the_entries_name_each_cells_line() -> None:
    text = 'user,password\nada,"two\nlines"\nbob,hunter2\n'
    assert [e["line"] for e in redact_text(text).withheld] == [2, 4]
    # the multi-line cell's break is kept inside its quotes: every line keeps its number
    assert redact_text(text).value.count("\n") == text.count("\n")


@pytest.mark.parametrize(
    "text",
    [
        "Checking password, token rules\nall fine\n",  # prose with a comma, ragged
        "id,password\n",  # a header and no row
        "password\nhunter2\nletmein\n",  # one column: nothing tells it from text
    ],
)
def test_what_is_not_a_table_with_a_header_is_left_to_the_text_rules(text: str) -> None:
    # No header row names the values: a header-less table is not read by its columns.
    assert redact_text(text).value == text


def test_shape_of_a_csv_body_withholds_the_column() -> None:
    for fmt in ("auto", "csv"):
        shaped = shape(FOUND.encode(), Budget(4096), format=fmt)  # type: ignore[arg-type]
        assert shaped.format == "csv" or fmt == "auto"
        assert "hunter2" not in shaped.text and KEY not in shaped.text
        rows = rows_of(shaped.text)
        assert rows[0] == ["id", "user", "password", "api_key_2"]
        assert all(len(r) in (1, 4) for r in rows)  # the notice is one field


def test_a_later_page_withholds_the_column_its_header_names() -> None:
    # The page's lines do not hold the header; the column still names their values.
    rows = "".join(f"{i},user{i},pw-{i:04d}-Zq9,{i % 7}\n" for i in range(3000))
    body = ("id,user,password,shard\n" + rows).encode()
    store = MemoryStore()
    first = shape(body, Budget(2048), format="csv", store=store)
    assert first.envelope is not None and first.ref is not None
    assert "pw-0000-Zq9" not in first.text
    lines = parse_next(first.envelope["next"])["lines"]
    page = store.fetch(first.ref, lines=lines, budget=Budget(2048))
    data = [r for r in rows_of(page.text)[2:] if len(r) == 4]
    assert data and all(r[2] == STUB and r[1].startswith("user") for r in data)
    assert "pw-" not in page.text


def test_the_proxy_withholds_the_column_of_a_csv_text_result() -> None:
    store = MemoryStore()
    out = ResultShaper(Pipeline(budget=Budget(4096), store=store)).shape(
        types.CallToolResult(content=[types.TextContent(text=FOUND)]), scope="s", tool="t")
    shown = out.content[0]
    assert isinstance(shown, types.TextContent)
    assert "hunter2" not in shown.text and KEY not in shown.text
    assert rows_of(shown.text)[0] == ["id", "user", "password", "api_key_2"]


# Cells of letters, digits, spaces and the CSV's own specials: nothing another rule reads.
_CELL = st.text(alphabet=string.ascii_letters + string.digits + ' ,"\t\r\n-_', max_size=24)
_NAMES = ["id", "user", "note", "city", "password_policy", "token_count", "sort_key",
          "password", "db_password_2", "apiKey", "client_secret", "passwd_old", "auth_token"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.sampled_from(_NAMES), min_size=2, max_size=6, unique=True),
    data=st.data(),
    delimiter=st.sampled_from([",", "\t"]),
    crlf=st.booleans(),
)
def test_every_cell_under_a_credential_column_is_withheld(
    names: list[str], data: Any, delimiter: str, crlf: bool,
) -> None:
    """Every cell under a credential-named column is withheld (unless the JSON rule would
    show it: empty, masked, a message), every other cell is unchanged, and the output reads
    as a table of the same rows and columns."""
    from elision.redact.generic import is_credential_value, name_strength

    rows = data.draw(st.lists(st.lists(_CELL, min_size=len(names), max_size=len(names)),
                              min_size=1, max_size=8))
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\r\n" if crlf else "\n").writerows(
        [names, *rows])
    text = out.getvalue()
    # The writer leaves a lone \r unquoted (its line ends are \n): what a reader reads is the
    # table.
    before = rows_of(text, delimiter)
    assume(all(len(r) == len(names) for r in before))  # a ragged head is no table
    done = redact_text(text)
    after = rows_of(done.value, delimiter)
    assert [len(r) for r in after] == [len(r) for r in before] and after[0] == names
    for row, new in zip(before[1:], after[1:], strict=True):
        for name, cell, shown in zip(names, row, new, strict=False):
            if name_strength(name) and is_credential_value(name, cell):
                assert shown.rstrip("\r\n") == STUB and shown.count("\n") == cell.count("\n")
            else:
                assert shown == cell


def test_the_first_line_is_read_as_far_as_the_sniff_reads() -> None:
    from elision.redact.columns import HEADER_MOST
    from elision.shape.table import SNIFF_BYTES

    assert HEADER_MOST == SNIFF_BYTES


def _credential_table(rows: int, token_every: int = 0) -> str:
    """A table with two credential columns, and a GitHub token in a note every few rows
    (spans of other rules, in the same text)."""
    out = ["id,user,password,api_key_2,note"]
    for i in range(rows):
        note = f"see ghp_R4nd0mT0k3nF0rEl1s10nT3st1ngXy{i:06d}" if (
            token_every and i % token_every == 0) else f"plain note {i}"
        key = hashlib.sha256(str(i).encode()).hexdigest()[:32]
        out.append(f"{i},user{i},pw{i * 7919:x}q,{key},{note}")
    return "\n".join(out) + "\n"


def test_the_body_route_gives_what_the_text_route_gives() -> None:
    # The pipeline redacts a text as bytes, its spans compact: the cells' spans and the other
    # rules' are interleaved in order there.
    from elision.redact.bodyview import redact_body

    text = _credential_table(400, token_every=37)
    value, entries = redact_body(text.encode())
    done = redact_text(text)
    assert value.decode() == done.value and "ghp_" not in done.value
    assert [dict(e) for e in entries] == list(done.withheld)
    assert len(done.withheld) == 2 * 400 + len(range(0, 400, 37))


def test_a_tables_withheld_cells_are_held_compact() -> None:
    """A span a withheld cell, held as a list of spans, was 4x the table (1 MB: 27,000
    cells); the pipeline's route holds them as arrays, as it does a text's other spans."""
    from elision.redact.bodyview import redact_body

    body = _credential_table(4000).encode()
    redact_body(body)  # caches and databases, made
    assert peak(lambda: redact_body(body)) < 5.5 * len(body)  # 4.3x held compact; 7.5x as a list


_LINE_CHARS = st.sampled_from(["a", ",", "\t", "\r", "\n", "\r\n", "é", "Q" * 700])


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE_CHARS, max_size=200), st.booleans())
@example(["Q" * 700] * 100 + ["\n"], False)  # a first line past HEADER_MOST: cut there
@example(["Q" * 700] * 100 + ["\r"], True)
def test_a_texts_first_line_is_read_up_to_its_first_break(pieces: list[str], raw: bool) -> None:
    """What the regex of the chars no line break is read (``[^\\r\\n]*`` from the start, no
    further than HEADER_MOST), found by a search for each break: the regex was 0.8 ms of a
    1 MB line of base64, a quarter of its redaction (issue 23, the ndjcost session)."""
    import re

    from elision.redact import columns

    text = "".join(pieces)
    got = columns._first_line(text.encode() if raw else text)
    head = text.encode() if raw else text
    want = re.compile(b"[^\r\n]*" if raw else "[^\r\n]*").match(head, 0, columns.HEADER_MOST)
    assert want is not None
    assert got == want.group()
