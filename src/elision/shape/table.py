"""CSV found by its content, and the header row a CSV page repeats.

The sniffer is conservative: a false CSV would cost a log its head-and-tail shaping. A body is
CSV when the rows of its first :data:`SNIFF_BYTES` (at least :data:`MIN_ROWS` of them) all
read, with the :mod:`csv` module, as the same number of comma-separated fields, at least two,
and its first row looks like a header: every name non-empty, distinct, no longer than
:data:`MAX_NAME` chars, not padded with spaces, and not all of them numbers. A log whose lines
happen to hold one comma each has no such header; a JSON or NDJSON body never gets here.
"""

from __future__ import annotations

import csv
import io
import re
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elision.shape.redactedbody import RedactedBody

SNIFF_BYTES = 64 * 1024
MIN_ROWS = 3
MAX_ROWS = 50
MAX_NAME = 64
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def looks_like_csv(body: bytes | RedactedBody) -> bool:
    """Whether ``body`` reads as a comma-separated table with a header row."""
    # One copy of the head: a slice of a slice, and a StringIO (4 bytes a char), took 0.37 MB
    # of a 1 MB text (issue 23: text's peak target is 1.5x the input).
    # A redacted view (elision.shape.redactedbody) is written as far as the head only.
    head = body if isinstance(body, bytes) else body[:SNIFF_BYTES]
    end = len(body) if len(body) <= SNIFF_BYTES else head.rfind(b"\n", 0, SNIFF_BYTES) + 1
    try:
        text = head[:end].decode("utf-8")  # whole lines only
    except UnicodeDecodeError:
        return False
    return table_header(text) is not None


def table_header(
    head: str, delimiter: str = ",", *, min_rows: int = MIN_ROWS, strict: bool = True,
) -> list[str] | None:
    """The header row's names when ``head`` (whole lines) reads as a table of ``delimiter``
    separated fields by the rules above, with ``min_rows`` rows at least; else ``None``.
    The redaction asks it with two rows, not ``strict`` (:mod:`elision.redact.columns`): a
    header and one row are enough to name what the row holds, and a cell that reopens after
    its closing quote (``"a"b``) must not spare the table's other cells."""
    # Read a row at a time, and no further than the first that says no: an NDJSON text's
    # first line read as a header (a key names a credential, and it holds a comma) had
    # its 64 KB head parsed, 0.5 ms a text, a tenth of its redaction (issue 23).
    # Lines as StringIO(newline="") gives them: ended by \r\n, \r or \n only.
    lines = (line.group() for line in _LINE.finditer(head))
    rows = islice(csv.reader(lines, delimiter=delimiter, strict=strict), MAX_ROWS)
    try:
        header = next(rows, [])
        width = len(header)
        names = [name for name in header
                 if name and name == name.strip() and len(name) <= MAX_NAME]
        if width < 2 or len(names) != width or len(set(names)) != width or all(
                _is_number(name) for name in names):
            return None
        count, blank = 1, False
        for row in rows:
            if not row:
                blank = True  # a blank row ends the table, unless a row follows it
            elif blank or len(row) != width:
                return None
            else:
                count += 1
    except csv.Error:
        return None
    return header if count >= min_rows else None


def header_row(body: bytes, *, most: int = 1024 * 1024) -> bytes | None:
    """The first record of a CSV ``body``, its line ending included (a quoted field may hold
    newlines); ``None`` when none ends within its first ``most`` bytes."""
    end = 0
    while end < min(len(body), most):
        nl = body.find(b"\n", end)
        end = len(body) if nl < 0 else nl + 1
        piece = body[:end].decode("utf-8", "replace")
        try:
            rows = list(csv.reader(io.StringIO(piece, newline=""), strict=True))
        except csv.Error:
            continue  # a quoted field goes on past this line
        if len(rows) == 1:
            return body[:end]
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
