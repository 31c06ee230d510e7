"""Rule 1 is about bulk a cut can reach; rule 2 about rows however they are printed (issue 25).

Found by running `elision lint` as a new user would, on two small servers: a tool that answered
50,000 rows (4 MB) as one line of text, with no limit argument, passed rule 2 (it counted
lines: one); a tool whose 54-byte, 3-item answer put its total last failed rule 1 while the
same report said the answer fits a 4 KB head slice whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from elision.lint.judge import UNBOUNDED_ITEMS, judge_tool
from elision.lint.rules import HEAD_SLICE_CAPS, Response, rule1_order, rule1_text
from elision.lint.scan import scan
from elision.lint.textscan import text_rows

NO_LIMIT: dict[str, Any] = {"properties": {"query": {"type": "string"}}}
ROWS = [{"id": i, "date": "2026-11-01", "symbol": "ACME", "qty": i % 500, "price": 101.25}
        for i in range(50_000)]


def as_json(doc: Any) -> Response:
    body = json.dumps(doc).encode()
    return Response("r", body, False, scan(body))


def as_text(body: str) -> Response:
    return Response("r", body.encode(), False, None)


# -- rule 1 ---------------------------------------------------------------------------------

def test_a_small_answer_with_its_total_last_passes_rule_1_and_says_why() -> None:
    answer = as_json({"items": ["alpha", "beta", "gamma"], "total": 3})
    assert len(answer.body) < HEAD_SLICE_CAPS[0]
    fails, notes = rule1_order(answer)
    assert fails == []
    assert any("$.total" in n and "comes after bulk array $.items" in n and "4 KB" in n
               for n in notes), notes
    verdict = judge_tool("t", NO_LIMIT, None, [answer], []).verdicts[0]
    assert verdict.status == "pass", verdict.evidence


def test_a_total_after_bulk_a_cut_reaches_still_fails_rule_1() -> None:
    answer = as_json({"items": [f"item {i:05d}" for i in range(600)], "total": 600})
    assert len(answer.body) > HEAD_SLICE_CAPS[0]
    fails, _ = rule1_order(answer)
    assert fails and "$.total" in fails[0]
    assert judge_tool("t", NO_LIMIT, None, [answer], []).verdicts[0].status == "fail"


@pytest.mark.parametrize(("body", "fails"), [
    # six data lines, then the count, all in 60 bytes: no head slice cuts it
    ("\n".join(["a", "b", "c", "d", "e", "f", "6 of 9 rows shown"]), 0),
    # the same order, 5 KB of rows before the count: the 4 KB cut loses it
    ("\n".join([f"row {i:04d} " + "x" * 40 for i in range(100)] + ["100 of 900 rows shown"]), 1),
])
def test_rule_1_on_text_fails_only_where_a_cut_reaches(body: str, fails: int) -> None:
    found, notes = rule1_text(as_text(body))
    assert len(found) == fails, (found, notes)
    if not fails:
        assert any("comes after" in n and "fits" in n for n in notes), notes


# -- rule 2 ---------------------------------------------------------------------------------

def one_line(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(how the rows are printed on one line, the body)"""
    return [
        ("a Python repr of a list of dicts", repr(rows)),
        ("records joined by '; '", "; ".join(
            f"id={r['id']} date={r['date']} qty={r['qty']}" for r in rows)),
        ("records joined by ' | '", " | ".join(f"{r['id']},{r['symbol']},{r['qty']}"
                                                for r in rows)),
        ("tab-separated cells of one row each", "\t".join(str(r["id"]) for r in rows)),
    ]


ONE_LINE = one_line(ROWS)
#: The lint's other rules read a 4 MB text slowly (rule 3 searches it whole): the verdict is
#: judged on 2,000 rows, the count on the whole 50,000.
SOME = one_line(ROWS[:2000])


@pytest.mark.parametrize(("how", "body"), ONE_LINE, ids=[h for h, _ in ONE_LINE])
def test_rows_on_one_line_of_text_are_counted(how: str, body: str) -> None:
    assert "\n" not in body
    assert len(body) > 250_000
    assert text_rows(body.encode()) == 50_000, how


@pytest.mark.parametrize(("how", "body"), SOME, ids=[h for h, _ in SOME])
def test_rows_on_one_line_of_text_fail_rule_2_without_a_limit(how: str, body: str) -> None:
    verdict = judge_tool("t", NO_LIMIT, None, [as_text(body)], []).verdicts[1]
    assert verdict.status == "fail", (how, verdict.evidence)
    assert "2,000 rows on 1 line" in verdict.evidence[0]


@pytest.mark.parametrize(("how", "body"), [
    ("a paragraph of prose", "The quick brown fox, as usual; jumps over (the) lazy dog. " * 40),
    ("a short listing", "\n".join(f"file{i}.txt" for i in range(20))),
    ("a record or two on one line", "id=1 qty=3; id=2 qty=4"),
    ("one long token", "x" * 100_000),
])
def test_text_without_rows_to_count_is_not_called_unbounded(how: str, body: str) -> None:
    assert text_rows(body.encode()) <= UNBOUNDED_ITEMS, how
    assert judge_tool("t", NO_LIMIT, None, [as_text(body)], []).verdicts[1].status == "pass"


def test_lines_still_count_as_rows() -> None:
    body = "\n".join(f"row {i}" for i in range(500))
    assert text_rows(body.encode()) == 500
    assert judge_tool("t", NO_LIMIT, None, [as_text(body)], []).verdicts[1].status == "fail"
