"""Where the coverage lines are in a plain-text answer, by line number and byte offset.

A text answer (a grep-like listing, a log, a table) has no keys to tell coverage from data, so
each line is classified by what it says. A **coverage line** says how much there is or was
shown, or how to get more:

=================  ==========================================================================
kind               examples
=================  ==========================================================================
shown-of-total     ``50 of 320 matches shown``, ``showing 1-50 of 320``, ``Page 2 of 7``
count shown        ``Showing first 50 results``, ``270 lines omitted``, ``50 rows returned``
total              ``total: 2,000``, ``2,000 total``, ``320 matches in total``, ``Found 320 files``
cursor             ``next page: cursor=eyJ…``, ``next_cursor: abc``, ``page_token = x``
has more           ``has_more: true``, ``... and 270 more``, ``(270 more rows)``
truncation         ``[output truncated]``, ``results truncated``, ``partial results`` (the
                   words of rule 3's check, about the output; ``cut``, ``partial`` and
                   ``clipped``, which prose uses too, only in a notice's shape such as
                   ``[partial]``, beside ``N of M``, or next to what they cut)
=================  ==========================================================================

Precision matters more than recall: a false coverage line after the rows fails a tool that keeps
the rule. So a line is **data**, whatever it says, when it is shaped like a record: a log record
(a timestamp first, ``[LEVEL]``, ``LEVEL  message`` or ``LEVEL:logger:`` -- but ``WARNING: 50
of 320 rows shown`` is a notice, not a record), a grep match (``path:12:`` or ``path-12-``), a
table row (``| … |`` or two tabs), a JSON record, or a line over 300 characters. ``N of M`` needs
a word that makes it about the answer (a unit such as rows or matches, a verb such as shown, or
``page``): ``attempt 1 of 3`` and ``3 of 5 shards failed`` are data. A level word alone (WARNING,
ERROR) is never coverage.

A **gap marker** is a coverage line wrapped in ellipses with data after it (``[… 2,909 lines
elided …]``, ``... 270 lines omitted ...``): it says what is missing at that spot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from itertools import pairwise

#: A line longer than this is data: coverage is a one-line notice, not a paragraph.
MAX_COVERAGE_CHARS = 300

#: Words that say an answer was cut; rule 3 reads them too (with no number beside, a bare cut).
TRUNCATION = re.compile(
    r"truncat|\bpartial\b|\bcut\b|clipped|omitted|more results|results? (?:were|was) limited",
    re.IGNORECASE,
)
_N = r"\d[\d,_]*(?:\.\d+)?"
_DASH = r"[-\u2013]"  # a hyphen or an en dash, as in 1-50 of 320
_UNIT = (
    r"(?:results?|match(?:es)?|hits?|rows?|lines?|items?|entr(?:y|ies)|records?|files?|"
    r"documents?|docs?|pages?|objects?|events?|messages?|bytes?|chars?|characters?|tokens?|"
    r"KB|MB|elements?|values?|keys?|commits?|issues?|trades?|transactions?)"
)
_SHOWN = (
    r"(?:shown|showing|displayed|displaying|returned|returning|listed|listing|printed|"
    r"printing|included|kept|searched|scanned|read|fetched|loaded|omitted|hidden|skipped|"
    r"elided|truncated|dropped|not shown)"
)
_OF_TOTAL = re.compile(
    rf"(?<![\w.:/-]){_N}(?:\s*{_DASH}\s*{_N})?\s+(?:of|out of)\s+(?:about\s+|~|≈)?{_N}(?![\w.:/-])",
    re.IGNORECASE,
)
_ABOUT_ANSWER = re.compile(rf"\b{_UNIT}\b|\b{_SHOWN}\b|\bpage\b", re.IGNORECASE)
_COUNT_SHOWN = re.compile(
    rf"\b(?:showing|displaying|returning|listing|printing)\s+(?:only\s+)?(?:the\s+)?"
    rf"(?:first\s+|last\s+|top\s+)?{_N}(?:\s*{_DASH}\s*{_N})?\b"
    rf"|\b{_N}\s+(?:\w+\s+)?{_UNIT}\s+(?:were\s+|was\s+)?{_SHOWN}\b",
    re.IGNORECASE,
)
_TOTAL = re.compile(
    rf"\btotal\b[\"']?\s*(?:[:=]|\bof\b)\s*[~≈]?{_N}"
    rf"|(?<![\w.])({_N})\s+(?:{_UNIT}\s+)?(?:in\s+)?total\b"
    rf"|\b(?:found|matched|total)\s+(?:about\s+|~)?{_N}\s+(?:\w+\s+)?{_UNIT}\b",
    re.IGNORECASE,
)
_CURSOR = re.compile(
    r"\bnext[ _-]?(?:page|cursor|token|offset|link)\b"
    r"|\b(?:page[ _-]?token|continuation[ _-]?token|cursor)[\"']?\s*[:=]\s*\S",
    re.IGNORECASE,
)
_HAS_MORE = re.compile(
    rf"\bhas[ _-]?more\b|\bmore\s+{_UNIT}\s+(?:are\s+)?(?:available|exist|remain|not shown)\b"
    rf"|(?:\.\.\.|…|\band\b|\+)\s*{_N}\s+more\b|\b{_N}\s+more\s+(?:{_UNIT}|not shown|omitted)\b",
    re.IGNORECASE,
)
#: Truncation words that prose uses in other senses: a coverage signal only in a notice.
_WEAK_TRUNCATION = re.compile(r"^(?:cut|partial|clipped)$", re.IGNORECASE)
_SUBJECTS = rf"(?:output|results?|response|listing|list|content|answer|body|log|data|{_UNIT})"
_SUBJECT = re.compile(rf"\b{_SUBJECTS}\b", re.IGNORECASE)
#: A weak word right beside what it cut: "partial results", "output was cut".
_WEAK_ABOUT = re.compile(
    rf"\bpartial\s+{_SUBJECTS}\b|\b{_SUBJECTS}\s+(?:(?:was|were|is|are|has been|have been)\s+)?"
    r"(?:cut|clipped)\b",
    re.IGNORECASE,
)
_NOTICE = re.compile(
    r"^(?:\[|\(|<|\.\.\.|…|--|==|\*\*|(?:note|notice|warning|warn|info|caution|hint)\s*:)",
    re.IGNORECASE,
)
_LEVEL = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC)"
_RECORD = re.compile(
    r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"  # ISO timestamp
    r"|^\[?\d{2}:\d{2}:\d{2}"  # a time of day
    r"|^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}"  # syslog
    r"|^[IWEF]\d{4} \d{2}:\d{2}"  # glog
    rf"|^\[{_LEVEL}\]|^{_LEVEL}(?:\s|:[\w.]+:)"  # [ERROR] x, ERROR  x, ERROR:root:x
    r"|^[^\s:]+[:-]\d+[:-]"  # grep: path:12: or path-12-
    r"|^\||\t.*\t"  # table rows
)
_DIGIT = re.compile(r"\d")
#: Words one of which each pattern needs (lower case): a line without them skips the pattern.
_SHOWN_STEMS = ("show", "display", "return", "list", "print", "includ", "kept", "search",
                "scann", "read", "fetch", "load", "omit", "hidden", "skip", "elid", "truncat",
                "dropp")
_CUT_STEMS = ("truncat", "partial", "cut", "clipped", "omitted", "more results", "limited")
_GAP = re.compile(r"^[\[(]?\s*(?:\.\.\.|…).*(?:\.\.\.|…)\s*[\])]?$")
_WORDY = re.compile(r"\w")


def coverage_kind(line: str) -> str | None:
    """What ``line`` says about the answer's coverage (see the module table), or ``None``."""
    text = line.strip()
    if not text or len(text) > MAX_COVERAGE_CHARS or _RECORD.match(text) or _is_json_record(text):
        return None
    # Each pattern is tried only when a word it needs is in the line: together the patterns
    # cost tens of microseconds a line, the word tests a fraction of that, and most lines of a
    # long answer are plain data.
    lower = text.lower()
    digit = _DIGIT.search(text) is not None
    of_total = _OF_TOTAL.search(text) if digit and "of" in lower else None
    if of_total and _ABOUT_ANSWER.search(text):
        return "shown-of-total"
    if any(w in lower for w in ("next", "cursor", "token")) and _CURSOR.search(text):
        return "cursor"
    if "more" in lower and _HAS_MORE.search(text):
        return "has more"
    if ("total" in lower or (digit and ("found" in lower or "matched" in lower))) and (
        _TOTAL.search(text)
    ):
        return "total"
    if digit and any(w in lower for w in _SHOWN_STEMS) and _COUNT_SHOWN.search(text):
        return "count shown"
    cut = TRUNCATION.search(text) if any(w in lower for w in _CUT_STEMS) else None
    if cut is not None:
        notice = _NOTICE.match(text) is not None or of_total is not None
        if _WEAK_TRUNCATION.match(cut.group()):
            about = _WEAK_ABOUT.search(text) is not None
        else:
            about = _SUBJECT.search(text) is not None
        if notice or about:
            return "truncation"
    return None


def _is_json_record(text: str) -> bool:
    if not (text[0] == "{" and text[-1] == "}") and not (text[0] == "[" and text[-1] == "]"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class CoverageLine:
    """One coverage line, and the data that comes before it."""

    number: int  # 1-based
    start: int  # byte offset of the line
    end: int  # byte offset just past its text (line ending excluded)
    text: str
    kind: str
    #: Data lines before this one, the first of them (number, byte offset) and the last one
    #: (number, byte offset just past it). ``data_before == 0`` leaves the others at 0.
    data_before: int
    first_data: tuple[int, int]
    last_data: tuple[int, int]
    #: Wrapped in ellipses with data after it: it marks a gap in place.
    gap: bool = False


@dataclass
class TextScan:
    """The coverage lines of one text answer, in order, and how much data it holds."""

    size: int
    lines: int
    data_lines: int
    coverage: list[CoverageLine] = field(default_factory=list)


def scan_text(body: bytes) -> TextScan:
    """Classify each line of ``body`` as coverage, data, or neither (blank or a rule line)."""
    out = TextScan(size=len(body), lines=0, data_lines=0)
    first = last = (0, 0)
    number = 0
    start = 0
    while start < len(body) or number == 0:
        newline = body.find(b"\n", start)
        stop = len(body) if newline < 0 else newline
        number += 1
        end = stop - 1 if stop > start and body[stop - 1] == 0x0D else stop  # CRLF
        text = body[start:end].decode("utf-8", "replace")
        kind = coverage_kind(text)
        if kind is not None:
            gap = _GAP.match(text.strip()) is not None
            out.coverage.append(CoverageLine(number, start, end, text.strip(), kind,
                                             out.data_lines, first, last, gap))
        elif _WORDY.search(text):
            # A title, a header row or a record: data. Blank and rule lines (----) are not.
            if out.data_lines == 0:
                first = (number, start)
            last = (number, end)
            out.data_lines += 1
        if newline < 0:
            break
        start = newline + 1
    out.lines = number
    # A gap marker needs data after it; one at the very end is a closing summary.
    out.coverage = [
        c if not c.gap or out.data_lines > c.data_before else replace(c, gap=False)
        for c in out.coverage
    ]
    return out


#: What records printed on one line start with, or are separated by, most telling first.
_RECORD_MARKS = (b"{", b"(", b"<", b"; ", b" | ", b"\t", b";", b"|", b", ")
#: A line shorter than this is one row whatever it holds.
_ROW_LINE_BYTES = 1024
#: How even the gaps between marks must be for them to part records (their coefficient of
#: variation): records of one shape vary a little in length, prose a lot.
_EVEN_GAPS = 0.5


def text_rows(body: bytes) -> int:
    """How many rows a text answer holds, however they are printed: its data lines, or, when
    one long line holds more, the records on it (``[{...}, {...}]``, ``a; b; c``, ``a | b``),
    counted by the mark that recurs most at even gaps."""
    rows = scan_text(body).data_lines
    start = 0
    while start < len(body):
        stop = body.find(b"\n", start)
        stop = len(body) if stop < 0 else stop
        if stop - start >= _ROW_LINE_BYTES:
            rows = max(rows, records_on_line(body[start:stop]))
        start = stop + 1
    return rows


def records_on_line(line: bytes) -> int:
    """Records on one line of text, 1 when no mark parts it into records of one shape.

    The marks are tried most telling first (a record's opening brace before the commas between
    its fields): the first that recurs at even gaps counts the records."""
    for mark in _RECORD_MARKS:
        count = line.count(mark)
        if count < 3:
            continue
        at = [m.start() for m in re.finditer(re.escape(mark), line)]
        gaps = [b - a for a, b in pairwise(at)]
        mean = sum(gaps) / len(gaps)
        spread = (sum((g - mean) ** 2 for g in gaps) / len(gaps)) ** 0.5
        if spread <= _EVEN_GAPS * mean:
            # an opener starts each record; a separator comes between two
            return count if mark[:1] in b"{(<" else count + 1
    return 1
