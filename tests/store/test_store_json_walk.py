"""Following `next` through a JSON body never serves the same page again.

At a small budget, a page deep in a document can have no room beside its envelope (the page's
path written three times, the ref twice) for even one element: it showed none and its `next`
named the page itself, so a model following it looped for ever (found by the seeded-secret
walk of tests/mcp/test_mcp_pipeline_redact.py at 512 bytes). Such a page is now refused with
a BudgetError that names a budget which makes progress; at that budget the page shows at least
one element more.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.errors import BudgetError
from elision.pipeline import Pipeline
from elision.redact import RedactStage
from elision.store import MemoryStore
from elision.store.fetch import parse_next

SECRET = "ghp_R4nd0mT0k3nF0rEl1s10nT3st1ngXyZ12345"
#: The document the seeded walk found: stubs too long to fit beside a deep page's envelope.
STALLED = {"data": [{"____________": ["", [None, None, None, None, [], "", "", "", ""], [
    "", "", "", {}, {"": "", "______ ": [
        "", -100, f"x {SECRET}", "", "", "", "", "", "_______", "_________", f"x {SECRET}",
        f"x {SECRET}"]}]]}], "deep": [{"x": {"y": SECRET}}], "text": f"see {SECRET} now"}


def _walk(value: Any, limit: int) -> list[str]:
    """Every page from the first result's `next` to the end; a page refused for its budget is
    asked again at the budget the refusal names."""
    store = MemoryStore()
    pipe = Pipeline(budget=Budget(limit), store=store, redactor=RedactStage(store=store))
    shaped = pipe.run(json.dumps(value), scope="s")
    pages = [shaped.text]
    call, budget = (shaped.envelope or {}).get("next"), limit
    seen: set[tuple[str, int]] = set()
    while call:
        assert (call, budget) not in seen, f"the walk came back to {call} at {budget}"
        seen.add((call, budget))
        args = parse_next(call)
        selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
        try:
            page = store.fetch(budget=Budget(budget), scope="s", **selector)
        except BudgetError as exc:
            asked = re.search(r"budget=(\d+)", str(exc))
            assert asked is not None, str(exc)
            assert int(asked[1]) > budget and "no room for one element" in str(exc)
            budget = int(asked[1])
            continue
        assert len(page.body) <= budget
        pages.append(page.text)
        nxt = (page.envelope or {}).get("next")
        assert nxt != call, f"{call} names itself as its next page"
        call, budget = nxt, limit
    return pages


def test_the_walk_that_looped_ends_and_shows_every_element() -> None:
    pages = _walk(STALLED, 512)
    shown = "".join(pages)
    assert SECRET not in shown
    for word in ("_______", "_________", "-100"):
        assert word in shown


JSON = st.recursive(
    st.none() | st.integers(-1000, 1000) | st.text(max_size=30)
    | st.sampled_from([f"x {SECRET}", "y" * 60]),
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(alphabet="_ab", min_size=0, max_size=14), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(value=JSON, limit=st.sampled_from([512, 640, 1024]))
def test_no_page_names_itself_as_its_next(value: Any, limit: int) -> None:
    for page in _walk({"data": value, "deep": [{"x": {"y": SECRET}}]}, limit):
        assert SECRET not in page


TEXT = "".join(f"<{i}>" for i in range(3000))


@pytest.mark.parametrize("document", [
    {"result": [TEXT]},  # a tool's list return as structuredContent (issue 23)
    {"rows": [{"a": TEXT, "b": list(range(300))}]},  # an element shown in part
])
def test_the_page_after_an_element_shown_in_part_shows_more_of_it(document: Any) -> None:
    """Issue 23: a structuredContent string's next page showed 17 characters fewer of the
    same string and nothing new: next named the element shown in part (`$.result[0]`), whose
    page starts it again from its first character with a slightly larger envelope. next is
    where the element stops being whole (`$.result[0][649:]`)."""
    store = MemoryStore()
    first = shape(document, Budget(1024), store=store, redactor=None)
    shown = {e["path"]: e["shown"] for e in (first.envelope or {})["elided"]}
    args = parse_next((first.envelope or {})["next"])
    page = store.fetch(args["ref"], path=args["path"], budget=Budget(1024))
    entries = (page.envelope or {})["elided"]
    string = next(e for e in entries if e["kind"] == "string")
    assert string.get("from", 0) == shown[string["path"]], (args["path"], entries)
