"""The lint's parts without processes: the offset scanner, each rule's sharp edges, scenarios,
and the report formats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.errors import InputError
from elision.lint.judge import ToolReport, judge_tool
from elision.lint.report import render, to_json, to_markdown
from elision.lint.rules import (
    TEXT_LEAD_LINES,
    Response,
    Verdict,
    is_aggregate,
    limit_argument,
    rule1_order,
    rule1_text,
    rule3_declared,
    rule4_induced,
    rule4_schema,
    rule4_zero,
    schema_order,
)
from elision.lint.runner import LintResult
from elision.lint.scan import scan
from elision.lint.scenarios import Scenario, load_scenarios, parse_scenarios
from elision.lint.textscan import coverage_kind


def resp(doc: Any, limit: int | None = None, failure: str | None = None,
         is_error: bool = False) -> Response:
    body = json.dumps(doc).encode()
    return Response("r", body, is_error, scan(body), limit, failure)


# -- the scanner ---------------------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(max_size=12) | (
    st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["rows", "total", "warnings", "a", "é", "b c", "count"]), inner,
        max_size=4),
    max_leaves=30,
)


def _at(doc: Any, path: str) -> Any:
    for part in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]", path):
        name, quoted, index = part
        doc = doc[int(index)] if index else doc[name or quoted]
    return doc


@given(doc=st.dictionaries(st.sampled_from(["rows", "total", "x", "é"]), values, max_size=5),
       indent=st.none() | st.integers(0, 2))
def test_every_scanned_node_slices_back_to_its_value(
    doc: dict[str, Any], indent: int | None
) -> None:
    body = json.dumps(doc, indent=indent, ensure_ascii=False).encode()
    found = scan(body)
    starts = [n.start for n in found.nodes]
    assert starts == sorted(starts)  # serialization order
    for node in found.nodes:
        value = json.loads(body[node.start:node.end])
        assert value == _at(doc, node.path)
        if node.key is not None:
            assert json.loads(body[node.key_start:].split(b":", 1)[0]) == node.key
        if node.kind == "array":
            assert node.value == len(value)


def test_bulk_arrays_are_skimmed_and_caveat_lists_are_not_bulk() -> None:
    found = scan(b'{"warnings":["a"],"rows":[{"total":1,"tags":[1]}],"__elision__":{"elided":[]}}')
    assert [(n.path, n.bulk, n.caveat) for n in found.nodes] == [
        ("$", False, False),
        ("$.warnings", False, True),
        ("$.warnings[0]", False, False),
        ("$.rows", True, False),  # its records are not walked: they are data, not coverage
        ("$.__elision__", False, True),  # elision's own envelope is one caveat
    ]


# -- rule by rule --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "fails"),
    [
        # Caveats first: nothing to say.
        ({"total": 3, "rows": [1, 2, 3]}, []),
        # A total after the rows is lost by any head slice that cuts the rows.
        ({"rows": [1, 2, 3], "total": 3},
         ["r: $.total (byte 20) comes after bulk array $.rows (bytes 9-18, 3 items)"]),
        # A nested caveat after a bulk array elsewhere is lost just the same.
        ({"rows": [1], "meta": {"count": 1}},
         ["r: $.meta.count (byte 23) comes after bulk array $.rows (bytes 9-12, 1 item)"]),
        # A key inside a record is data, not coverage.
        ({"rows": [{"tags": [1], "count": 2}]}, []),
        # An empty array after... is still bulk; a warnings list is not.
        ({"warnings": ["x"], "errors": []}, []),
    ],
)
def test_rule1_table(doc: Any, fails: list[str]) -> None:
    # These answers fit the tightest head slice whole, so a misorder is a note, not a FAIL
    # (issue 25: rule 1 is about bulk a cut can reach; tests/lint/test_lint_reach.py).
    found, notes = rule1_order(resp(doc))
    assert found == []
    assert [n.split("; the whole answer")[0] for n in notes if "comes after" in n] == fails


def test_rule1_names_what_each_head_slice_loses() -> None:
    # 100 strings of 102 bytes and 99 ", " separators, then the caveats: 10,455 bytes.
    doc = {"rows": ["x" * 100] * 100, "warnings": ["searched 5 of 9"], "total": 9}
    _, notes = rule1_order(resp(doc))
    assert notes == [
        f"r: a head slice at {cap} KB of 10,455 bytes loses $.warnings, $.total"
        for cap in (4, 8)
    ] + ["r: 10,455 bytes fit a head slice at 16 KB whole"]


@pytest.mark.parametrize(
    ("doc", "limit", "fails"),
    [
        # At its limit with a total beside it: declared.
        ({"total": 9, "rows": [1, 2]}, 2, 0),
        # At its limit and alone: silent truncation.
        ({"rows": [1, 2]}, 2, 1),
        # A cursor in the root counts for a nested array too.
        ({"next_cursor": "c", "data": {"rows": [1, 2]}}, 2, 0),
        # Under its limit: nothing was cut.
        ({"rows": [1]}, 2, 0),
        # An elision envelope declares every cut itself.
        ({"__elision__": {"v": 1}, "rows": [1, 2]}, 2, 0),
        # A bare note, and a bare flag: both say "cut" without numbers.
        ({"note": "Results truncated.", "total": 5, "rows": [1]}, 2, 1),
        ({"truncated": True, "rows": [1]}, None, 1),
        # The same flag beside a count is fine; a note with numbers is fine.
        ({"truncated": True, "total": 10, "rows": [1]}, None, 0),
        ({"note": "truncated: 1 of 10 shown", "rows": [1]}, None, 0),
    ],
)
def test_rule3_table(doc: Any, limit: int | None, fails: int) -> None:
    assert len(rule3_declared(resp(doc, limit))) == fails


def test_rule3_reads_text_answers_line_by_line() -> None:
    text = Response("r", b"ok\n[output truncated]\n", False, None)
    assert rule3_declared(text) == [
        "r: '[output truncated]' says it was cut without numbers; say shown-of-total, "
        "e.g. '37 of 2,000 rows'"]
    assert rule3_declared(Response("r", b"[3 of 9 lines truncated]", False, None)) == []


# -- rule 1 on text answers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        # True positives: how much there is or was shown, or how to get more.
        ("50 of 320 matches shown", "shown-of-total"),
        ("Showing 1-50 of 320", "shown-of-total"),
        ("showing 1\u201350 of 320 results", "shown-of-total"),  # an en dash
        ("Page 2 of 7", "shown-of-total"),
        ("searched 528 of 22,933 rows", "shown-of-total"),  # the design's own example
        ("WARNING: output truncated; 50 of 320 lines shown", "shown-of-total"),  # a notice
        ("[elision] partial: lines 1-48 and 2970-3000 of 3,000 shown; sha256=ab", "shown-of-total"),
        ("Showing first 50 results", "count shown"),
        ("270 lines omitted", "count shown"),
        ("50 rows returned", "count shown"),
        ("total: 2,000", "total"),
        ("Total = 2000", "total"),
        ("2,000 total", "total"),
        ("320 matches in total", "total"),
        ("Found 320 files", "total"),
        ("next page: cursor=eyJhIjoxfQ", "cursor"),
        ("next_cursor: abc", "cursor"),
        ("page_token = x", "cursor"),
        ("has_more: true", "has more"),
        ("... and 270 more", "has more"),
        ("(270 more rows)", "has more"),
        ("-- more results available: call again with offset=50 --", "has more"),
        ("[output truncated]", "truncation"),
        ("results truncated", "truncation"),
        ("partial results", "truncation"),
        ("output was cut at 8 KB", "truncation"),
        ("[partial]", "truncation"),  # a weak word in a notice's brackets
        ("Results were limited to 50.", "truncation"),
        # False positives avoided: data that merely looks alarming or has numbers.
        ("2026-11-30T12:00:00Z WARNING output truncated for job 7", None),  # a log record
        ("2026-11-30 12:00:01 ERROR fetched 50 of 320 rows", None),  # a log record
        ("WARNING  disk 91% full", None),  # a level word alone is not coverage
        ("[ERROR] truncated frame", None),  # a bracketed level: a log record
        ("INFO:root:showing 50 of 320 rows", None),  # Python logging's default format
        ("ERROR", None),
        ("ERROR connection refused (attempt 1 of 3)", None),  # N of M about something else
        ("3 of 5 shards failed", None),
        ("step 3 of 5", None),
        ("Chapter 3 of 10", None),
        ("version 1.2 of 3 modules", None),
        ("src/a.py:12:    print('showing 1-50 of 320 rows')", None),  # a grep match
        ("a.py-12-total: 5", None),  # a grep context line
        ("| total | 2,000 |", None),  # a table row
        ("id\ttotal\tqty", None),  # a tab-separated row
        ('{"id": 1, "total": 12.5}', None),  # an NDJSON record
        ("The director's cut was released in 2003.", None),  # prose: a weak word, no notice
        ("Cut the text into lines.", None),
        ("The partial derivative", None),
        ("# TODO: handle truncated input", None),  # a strong word about something else
        ("subtotal: 12.50", None),
        ("total_time: 3.2s", None),
        ("I need 2 more eggs", None),
        ("next: 0x7f3a", None),  # a linked list dump, not a cursor
        ("GET /x returned 200 in 3ms", None),
        ("x" * 290 + " total: 5 of 9 rows shown", None),  # over 300 chars: a paragraph
    ],
)
def test_coverage_lines_in_text(line: str, kind: str | None) -> None:
    assert coverage_kind(line) == kind


def _ungated(line: str) -> str | None:
    """coverage_kind without its word tests: every pattern, in the same order."""
    from elision.lint import textscan as ts

    t = line.strip()
    if not t or len(t) > ts.MAX_COVERAGE_CHARS or ts._RECORD.match(t) or ts._is_json_record(t):
        return None
    of_total = ts._OF_TOTAL.search(t)
    found = next((kind for kind, hit in [
        ("shown-of-total", of_total and ts._ABOUT_ANSWER.search(t)),
        ("cursor", ts._CURSOR.search(t)), ("has more", ts._HAS_MORE.search(t)),
        ("total", ts._TOTAL.search(t)), ("count shown", ts._COUNT_SHOWN.search(t))] if hit), None)
    cut = ts.TRUNCATION.search(t)
    if found is None and cut is not None:
        weak = ts._WEAK_TRUNCATION.match(cut.group())
        about = (ts._WEAK_ABOUT if weak else ts._SUBJECT).search(t)
        if ts._NOTICE.match(t) or of_total or about:
            found = "truncation"
    return found


_WORDS = ["50", "1-50", "2,000", "of", "OF", "out", "Total", "total:", "found", "Matched",
          "rows", "Lines", "shown", "Showing", "next", "page", "cursor=x", "token", "more",
          "and", "...", "[", "]", "has_more", "truncated", "partial", "cut", "results", "were",
          "limited", "omitted", "in", "KB", "the", "x", "(", ")", "Page_Token:", "elided"]


@given(st.lists(st.sampled_from(_WORDS), max_size=8))
def test_the_word_tests_only_skip_patterns_that_cannot_match(words: list[str]) -> None:
    line = " ".join(words)
    assert coverage_kind(line) == _ungated(line)


def text(body: str) -> Response:
    return Response("r", body.encode(), False, None)


ROWS = [f"trades.log:{i}:2026-01-{1 + i % 28:02d} ACME qty={10 + i % 7}" for i in range(1, 301)]
SUMMARY = "300 of 667 ACME trades shown; next page: offset=300"


@pytest.mark.parametrize(
    ("body", "fails"),
    [
        # Coverage first, or after a title and a header row: kept.
        ("\n".join([SUMMARY, *ROWS]), 0),
        ("Trades\nid qty\n1 10\n2 11\n2 of 2 rows shown", 0),
        # Five data lines lead and it still passes; the sixth makes them bulk, once the
        # answer is one a head slice cuts (issue 25: a 60-byte answer loses nothing).
        ("\n".join(["a", "b", "c", "d", "e", "5 of 9 rows shown", *ROWS]), 0),
        ("\n".join(["a", "b", "c", "d", "e", "f", "6 of 9 rows shown", *ROWS]), 1),
        ("\n".join(["a", "b", "c", "d", "e", "f", "6 of 9 rows shown"]), 0),
        # Coverage last after 300 rows: a head slice cuts it first. Each late line fails.
        ("\n".join([*ROWS, SUMMARY]), 1),
        ("\n".join([*ROWS, "[output truncated]", "total: 667"]), 2),
        # One line after a title, but 5 KB in: the tightest head slice (4 KB) cuts it.
        ("Title\n" + "x" * 5000 + "\n1 of 9 rows shown", 1),
        # CRLF line endings read the same.
        ("\r\n".join([*ROWS, SUMMARY]), 1),
        # Blank and rule lines are not data.
        ("Trades\n\n-----\n\n====\n\n\n2 of 2 rows shown", 0),
        # No coverage line at all, or a log whose WARNING lines are data: nothing to misplace.
        ("\n".join(ROWS), 0),
        ("\n".join([*ROWS, "2026-11-30T12:00:00Z WARNING 3 of 5 rows truncated"]), 0),
        # A gap marker after a header that came first marks its spot; without one it is late.
        ("\n".join([SUMMARY, *ROWS[:100], "[... 200 lines omitted ...]", *ROWS[-5:]]), 0),
        ("\n".join([*ROWS[:150], "[... 150 lines omitted ...]", *ROWS[-5:]]), 1),
    ],
)
def test_rule1_on_text_answers(body: str, fails: int) -> None:
    assert len(rule1_text(text(body))[0]) == fails


def test_rule1_on_text_names_the_line_its_offset_and_the_data_before_it() -> None:
    body = "\n".join([*ROWS, SUMMARY])
    offset = len("\n".join(ROWS)) + 1
    fails, notes = rule1_text(text(body))
    assert fails == [
        f"r: shown-of-total line 301 (byte {offset:,}) {SUMMARY!r} comes after 300 data lines "
        f"(lines 1-300, bytes 0-{offset - 1:,}); move it before the data (a title and header "
        "rows, up to 5 lines, may come first)"]
    assert notes == [
        f"r: a head slice at {cap} KB of {len(body):,} bytes loses line 301: {SUMMARY!r}"
        for cap in (4, 8)
    ] + [f"r: {len(body):,} bytes fit a head slice at 16 KB whole"]
    # Offsets are bytes, CRLF and invalid UTF-8 included: the quote stops before the \r.
    crlf = Response("r", b"\xff\xfe row\r\n" * 6 + b"6 of 9 rows shown\r\n" + b"x\r\n" * 2100,
                    False, None)
    assert rule1_text(crlf)[0] == [
        "r: shown-of-total line 7 (byte 48) '6 of 9 rows shown' comes after 6 data lines (lines "
        "1-6, bytes 0-46); move it before the data (a title and header rows, up to 5 lines, "
        "may come first)"]
    fails, notes = rule1_text(text("Title\n" + "x" * 5000 + "\n1 of 9 rows shown"))
    assert fails == ["r: shown-of-total line 3 (byte 5,007) '1 of 9 rows shown' comes after 2 "
                     "data lines (lines 1-2, bytes 0-5,006); it ends past 4 KB, where the "
                     "tightest head slice cuts; move it to the top"]


def test_rule1_on_text_says_what_it_read_when_the_answer_keeps_it() -> None:
    body = "\n".join([SUMMARY, *ROWS])
    assert rule1_text(text(body)) == ([], [
        f"r: text answer of 301 lines, 300 of them data; coverage line 1 {SUMMARY!r} comes "
        "before the data",
        *[f"r: a head slice at {cap} KB of {len(body):,} bytes keeps every caveat"
          for cap in (4, 8)],
        f"r: {len(body):,} bytes fit a head slice at 16 KB whole",
    ])
    assert rule1_text(text("a\nb")) == ([], [
        "r: text answer of 2 lines, 2 of them data; no line says how much there is or how to "
        "get more, so there is no coverage to misplace"])
    report = judge_tool("t", {"properties": {}}, None, [text(body)], [])
    assert report.verdicts[0].status == "pass"
    assert report.verdicts[0].evidence[0].startswith("r: text answer of 301 lines")


@given(lead=st.integers(0, 12), tail=st.integers(0, 12))
def test_rule1_on_text_depends_only_on_how_many_data_lines_lead(lead: int, tail: int) -> None:
    # rows after the summary make it an answer a head slice cuts (issue 25)
    body = "\n".join([*ROWS[:lead], SUMMARY, *ROWS[lead:lead + tail], *ROWS[100:220]])
    fails, _ = rule1_text(text(body))
    assert bool(fails) is (lead > TEXT_LEAD_LINES)


def test_elisions_own_shaped_text_keeps_rule_1() -> None:
    from elision import shape
    from elision.store.memory import MemoryStore

    log = "\n".join(f"2026-11-30T12:{i // 60 % 60:02d}:{i % 60:02d}Z INFO step {i} of the build"
                    for i in range(6000))
    shaped = shape(log, 8192, store=MemoryStore()).body
    marker = next(line for line in shaped.decode().splitlines() if "elided" in line)
    assert coverage_kind(marker) == "count shown"  # the gap marker is coverage, in place
    fails, notes = rule1_text(text(shaped.decode()))
    assert fails == []
    assert notes[0].startswith("r: text answer of")
    assert "coverage line 1 '[elision] partial: lines 1-" in notes[0]


def test_a_str_tool_result_is_read_as_its_text() -> None:
    import mcp_types as types

    from elision.lint.runner import response_of

    body = "\n".join([*ROWS, SUMMARY])
    # How SDKs wrap a tool that returns a str: the same text, also as {"result": ...}.
    wrapped = types.CallToolResult(content=[types.TextContent(text=body)],
                                   structured_content={"result": body})
    answer = response_of(wrapped, "r")
    assert answer.scan is None and answer.body == body.encode()
    # Structured content that says something else is still the JSON a consumer reads.
    other = types.CallToolResult(content=[types.TextContent(text="see structured")],
                                 structured_content={"result": "other"})
    assert response_of(other, "r").scan is not None


@pytest.mark.parametrize(
    ("doc", "fails"),
    [
        # A zero balance beside an error: reads like an empty account.
        ({"status": "upstream unavailable", "balance": 0}, 1),
        ({"error": {"code": 401}, "total_count": 0}, 1),
        # Zero without any error is an honest zero; null beside an error is honest too.
        ({"status": "ok", "balance": 0}, 0),
        ({"status": "token expired", "balance": None}, 0),
    ],
)
def test_rule4_zero_table(doc: Any, fails: int) -> None:
    assert len(rule4_zero(resp(doc))) == fails


@pytest.mark.parametrize(
    ("doc", "is_error", "fails"),
    [
        ({"balance": None}, False, 0),
        ({"balance": 0}, False, 1),
        # An empty month reads as "nothing happened".
        ({"trades": []}, False, 1),
        ({"balance": 0}, True, 0),  # an error result is an honest answer
    ],
)
def test_rule4_induced_table(doc: Any, is_error: bool, fails: int) -> None:
    found, _ = rule4_induced(resp(doc, failure="bad token", is_error=is_error))
    assert len(found) == fails


@pytest.mark.parametrize(
    ("schema", "fails"),
    [
        ({"properties": {"balance": {"type": "number"}}}, ["$.balance is number"]),
        ({"properties": {"balance": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}, []),
        ({"properties": {"rowCount": {"type": ["integer", "null"]}}}, []),
        # Through a $ref, and nested in an object.
        ({"properties": {"acct": {"$ref": "#/$defs/A"}},
          "$defs": {"A": {"properties": {"sum": {"type": "integer"}}}}}, ["$.acct.sum is integer"]),
        # Not an aggregate name; an untyped property can be null.
        ({"properties": {"name": {"type": "string"}, "total": {}}}, []),
    ],
)
def test_rule4_schema_table(schema: dict[str, Any], fails: list[str]) -> None:
    found = rule4_schema(schema)
    assert len(found) == len(fails)
    for message, fragment in zip(found, fails, strict=True):
        assert fragment in message


@pytest.mark.parametrize(
    ("name", "expected"),
    [("total", True), ("row_count", True), ("totalBalance", True), ("account", False),
     ("discount", False), ("summary", False), ("amount_usd", True)],
)
def test_is_aggregate(name: str, expected: bool) -> None:
    assert is_aggregate(name) is expected


@pytest.mark.parametrize(
    ("props", "expected"),
    [({"limit": {"type": "integer"}}, "limit"), ({"max_results": {}}, "max_results"),
     ({"pageSize": {"type": "integer"}}, "pageSize"), ({"limit": {"type": "string"}}, None),
     ({"query": {"type": "string"}}, None)],
)
def test_limit_argument(props: dict[str, Any], expected: str | None) -> None:
    assert limit_argument({"properties": props}) == expected


def test_schema_order_flags_caveats_declared_after_arrays() -> None:
    schema = {"properties": {"rows": {"type": "array"}, "total": {"type": "integer"}}}
    assert schema_order(schema) == (
        ["output schema: $.total is declared after array $.rows, so it serializes after it"],
        ["$.rows"])


def test_a_tool_without_scenarios_is_judged_from_its_schema_only() -> None:
    schema = {"properties": {"rows": {"type": "array"}, "total": {"type": "integer"}}}
    report = judge_tool("t", {"properties": {}}, schema, [], [])
    assert not report.exercised
    assert [v.status for v in report.verdicts] == ["fail", "fail", "not exercised", "fail"]


# -- scenarios -----------------------------------------------------------------------------------


def test_scenarios_in_json_toml_and_yaml_mean_the_same(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps({"tools": {"t": [
        {"name": "a year", "arguments": {"limit": 5}},
        {"arguments": {"token": "x"}, "induced_failure": "bad token"}]}}))
    (tmp_path / "s.toml").write_text(
        '[[tools.t]]\nname = "a year"\narguments = {limit = 5}\n'
        '[[tools.t]]\narguments = {token = "x"}\ninduced_failure = "bad token"\n')
    expected = {"t": [Scenario("t", "a year", {"limit": 5}),
                      Scenario("t", "#2", {"token": "x"}, "bad token")]}
    assert load_scenarios(tmp_path / "s.json") == expected
    assert load_scenarios(tmp_path / "s.toml") == expected
    pytest.importorskip("yaml")
    (tmp_path / "s.yaml").write_text(
        "tools:\n  t:\n    - name: a year\n      arguments: {limit: 5}\n"
        "    - arguments: {token: x}\n      induced_failure: bad token\n")
    assert load_scenarios(tmp_path / "s.yaml") == expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "expected a top-level 'tools' mapping"),
        ({"tool": {}}, "got ['tool']"),  # a typo in the top key is named
        ({"tools": {"t": {}}}, "tools.t must be a non-empty list"),
        ({"tools": {"t": ["x"]}}, "tools.t[0] must be a mapping"),
        ({"tools": {"t": [{"args": {}}]}}, "unknown keys ['args']"),
        ({"tools": {"t": [{"arguments": [1]}]}}, "tools.t[0].arguments must be a mapping"),
        ({"tools": {"t": [{"induced_failure": ""}]}}, "induced_failure must say what fails"),
    ],
)
def test_bad_scenarios_are_refused_with_the_place_named(data: Any, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        parse_scenarios(data)


def test_a_scenarios_file_of_unknown_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calls.ini"
    path.write_text("x")
    with pytest.raises(InputError, match=re.escape("must end in .json, .toml, .yaml or .yml")):
        load_scenarios(path)


# -- reports -------------------------------------------------------------------------------------


def _result() -> LintResult:
    good = ToolReport("good", True, "limit",
                      [Verdict(n, "pass", [f"ok {n}"]) for n in (1, 2, 3, 4)])
    bad = ToolReport("bad|pipe", False, None,
                     [Verdict(1, "fail", ["late total"]), Verdict(2, "not exercised"),
                      Verdict(3, "not exercised"), Verdict(4, "pass")], ["call timed out"])
    return LintResult("python s.py", [good, bad], ["ghost"])


def test_reports_list_every_tool_and_rule() -> None:
    data = to_json(_result())
    assert data["ok"] is False
    assert data["summary"] == {"tools": 2, "tools_failing": 1, "tools_not_exercised": 1,
                               "pass": 5, "fail": 1, "not exercised": 2}
    markdown = to_markdown(_result())
    assert "| `good` | yes | PASS | PASS | PASS | PASS |" in markdown
    assert "| `bad\\|pipe` | not exercised | FAIL | not exercised | not exercised | PASS |" \
        in markdown
    assert "- **call failed**: call timed out" in markdown
    assert "  - late total" in markdown
    assert "`ghost`" in markdown
    assert "No tool was called" not in markdown  # 'good' was
    idle = LintResult("python s.py", [ToolReport("t", False, None, [Verdict(1, "not exercised")])],
                      [])
    assert "**NOT EXERCISED**: 1 of 1 tools gave no answer to judge" in to_markdown(idle)
    assert idle.failed and idle.status == "not exercised"
    sarif = json.loads(render(_result(), "sarif"))
    kinds = [(r["ruleId"], r["kind"]) for r in sarif["runs"][0]["results"]]
    assert len(kinds) == 8 and ("ELISION001", "fail") in kinds
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == [
        "tool 'bad|pipe': call timed out", "scenarios name an unknown tool 'ghost'",
        "tool 'bad|pipe' was not exercised: no answer to judge; give it a scenario"]


def test_a_response_deeper_than_the_scanner_walks_is_read_as_text() -> None:
    import mcp_types as types

    from elision.errors import DepthError
    from elision.lint.runner import response_of

    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(DepthError, match="deeper than 200 levels"):
        scan(deep.encode())
    answer = response_of(types.CallToolResult(content=[types.TextContent(text=deep)]), "r")
    assert answer.scan is None
    assert answer.body == deep.encode()


# -- the runner's calls, with a stand-in client ---------------------------------------------------


class _Client:
    """Answers like a server whose tool hangs, raises, or returns rows."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        import anyio
        import mcp_types as types

        self.calls.append(arguments)
        if arguments.get("mode") == "hang":
            await anyio.sleep(30)
        if arguments.get("mode") == "raise":
            raise RuntimeError("Tool t has an output schema but did not return structured content")
        n = arguments.get("limit", 3)
        body = json.dumps({"total": 3, "rows": list(range(n)), "extra": [1, 2, 3]})
        return types.CallToolResult(content=[types.TextContent(text=body)])


def test_calls_that_hang_or_raise_are_reported_and_limit_is_set_to_1() -> None:
    import anyio
    import mcp_types as types

    from elision.lint.runner import _lint_tool

    tool = types.Tool(name="t", input_schema={"type": "object", "properties": {
        "limit": {"type": "integer"}, "mode": {"type": "string"}}})
    scenarios = [Scenario("t", "hangs", {"mode": "hang"}),
                 Scenario("t", "raises", {"mode": "raise"}),
                 Scenario("t", "three", {"limit": 3})]
    client = _Client()
    seen: list[str] = []
    report = anyio.run(lambda: _lint_tool(client, tool, scenarios, 0.2, seen.append))
    # The limit check reuses the first scenario without an induced failure: the hanging one.
    assert client.calls[-1] == {"mode": "hang", "limit": 1}
    assert seen == ["t: scenario 'hangs'", "t: scenario 'raises'", "t: scenario 'three'",
                    "t: scenario 'hangs' with limit=1"]
    assert report.errors == [
        "scenario 'hangs': no answer within 0.2 s",
        "scenario 'raises': the call failed: RuntimeError: Tool t has an output schema but did "
        "not return structured content",
        "scenario 'hangs' with limit=1: no answer within 0.2 s",
    ]
    assert report.failed
    # The one answer still gets judged: three rows at limit 3 with a total beside them.
    assert [v.status for v in report.verdicts] == ["pass", "not exercised", "pass", "pass"]
