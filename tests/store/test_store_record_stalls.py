"""Issue 23: a `lines=` page of NDJSON or CSV that shows no record named itself as `next`.

At budget 512 an NDJSON page deep in a body had no room beside its envelope line for one
record: it showed 0 records and its `next` was its own call, so a reader following it looped
for ever; CSV pages stalled the same way after 122 pages. JSON pages already answered with a
BudgetError naming a budget that shows more (tests/store/test_store_json_walk.py); record pages
must too. Found by walking `next` at the smallest budget.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.errors import BudgetError
from elision.store import MemoryStore
from elision.store.fetch import parse_next


def _ndjson() -> str:
    # Records of growing size: somewhere past the head they stop fitting beside the envelope.
    return "\n".join(json.dumps({"id": i, "pad": "x" * (i % 700)}) for i in range(300))


def _csv() -> str:
    return "a,b,c\n" + "\n".join(f"{i},{'y' * (i % 500)},z" for i in range(400))


@pytest.mark.parametrize(("fmt", "body"), [("ndjson", _ndjson()), ("csv", _csv())])
def test_a_record_page_that_shows_no_record_names_a_budget_that_does(fmt: str, body: str) -> None:
    store = MemoryStore()
    shaped = shape(body, 512, store=store, format=fmt, redactor=None)
    call = (shaped.envelope or {}).get("next")
    refused = 0
    for _ in range(1000):
        if not call:
            break
        args = parse_next(call)
        try:
            page = store.fetch(args["ref"], lines=args["lines"], budget=Budget(512))
        except BudgetError as exc:
            asked = re.search(r"budget=(\d+)", str(exc))
            assert asked is not None and int(asked[1]) > 512, str(exc)
            assert "no room for one record" in str(exc)
            refused += 1
            bigger = store.fetch(args["ref"], lines=args["lines"], budget=Budget(int(asked[1])))
            assert len(bigger.body) <= int(asked[1])
            page = bigger
        nxt = (page.envelope or {}).get("next")
        assert nxt != call, f"{call} names itself as its next page"
        call = nxt
    else:
        raise AssertionError("the walk did not end")
    assert refused, "the body was meant to hold records too big for a 512-byte page"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 600), min_size=6, max_size=40), st.integers(512, 1500),
       st.integers(2, 30))
def test_a_csv_page_with_the_header_row_stays_within_its_budget(
    sizes: list[int], limit: int, first: int
) -> None:
    """Found by the walk above: a CSV page given the original's header row says "after the
    header row" in its notice, which the notice's reserve did not count: 1,027 bytes at 1,024."""
    body = "a,b,c\n" + "".join(f"{i},{'y' * n},z\n" for i, n in enumerate(sizes))
    store = MemoryStore()
    shaped = shape(body, 512, store=store, format="csv", redactor=None)
    assume(shaped.ref is not None)
    assert shaped.ref is not None
    try:
        page = store.fetch(shaped.ref, lines=f"{min(first, len(sizes) + 1)}-", budget=Budget(limit))
    except BudgetError:
        return
    assert len(page.body) <= limit
