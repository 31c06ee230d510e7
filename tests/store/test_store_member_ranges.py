"""Member ranges, selections past the end, and results whose envelope fits beside nothing.

Issue 23: an object of 20,000 small members (a map keyed by id, as many APIs return) was walked
one member per `next` page, 20,000 calls where a page holds hundreds: `next` named the first
member not shown (`$.items.k358`), and that page's `next` the member after it. A member range
(`$.items['k358':]`) selects the members from a key on, in the document's order, so a page
holds as many as fit. And `$.rows[99999:]` answered `complete: true` with `value: []`, no word
that the index was past the end, and a `next` to a member the first page had shown.

Issue 22: a 16 KB JSON key at budget 8192 left no room for `next`, and the agent got "could not
be shaped" with no ref: the body was lost to it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision import Budget, shape
from elision.envelope import LONG_KEY, format_path, member_range
from elision.errors import BudgetError, SelectorError
from elision.shape import Shaped
from elision.store import MemoryStore
from elision.store.fetch import parse_next
from elision.store.select import Key, MemberRange, normalize_path, parse_path


def _walk(store: MemoryStore, first: Shaped, limit: int, most: int) -> list[Shaped]:
    """The pages from ``first`` on, at most ``most``; a refused page is asked again at the
    budget its refusal names."""
    pages, call, budget = [first], (first.envelope or {}).get("next"), limit
    while call:
        assert len(pages) <= most, f"more than {most} pages; now at {call}"
        args = parse_next(call)
        selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
        try:
            page = store.fetch(budget=Budget(budget), **selector)
        except BudgetError as exc:
            asked = re.search(r"budget=(\d+)", str(exc))
            assert asked is not None and int(asked[1]) > budget, str(exc)
            budget = int(asked[1])
            continue
        assert len(page.body) <= budget
        pages.append(page)
        call, budget = (page.envelope or {}).get("next"), limit
    return pages


def _members(page: Shaped) -> dict[str, Any]:
    """The members of ``$.items`` a page shows: under ``items`` on the first result, at the
    root of a page of a member range of it."""
    doc = json.loads(page.text)
    envelope = doc.pop("__elision__", {})
    return dict(doc if "page" in envelope else doc.get("items", {}))


def test_an_object_of_20000_members_is_walked_a_page_of_members_at_a_time() -> None:
    items = {f"k{i}": i for i in range(20_000)}
    store = MemoryStore()
    first = shape({"items": items}, Budget(4096), store=store, redactor=None)
    # 20,000 members at ~10 bytes each in 4 KB pages: about 60 pages, never one a member.
    pages = _walk(store, first, 4096, most=120)
    seen: dict[str, Any] = {}
    for page in pages:
        seen.update(_members(page))
    assert seen == items
    assert all(len(_members(page)) > 100 for page in pages[:-1])
    page_two = (first.envelope or {})["next"]
    assert "path=\"$.items['k" in page_two and "':]" in page_two, page_two


def test_a_member_range_with_an_end_shows_the_members_before_it_and_goes_on_from_it() -> None:
    store = MemoryStore()
    first = shape({"items": {f"k{i}": "v" * 300 for i in range(10)}, "total": 10},
                  Budget(1024), store=store, redactor=None)
    assert first.ref is not None
    page = store.fetch(first.ref, path="$.items['k2':'k4']", budget=Budget(2048))
    doc = json.loads(page.text)
    assert list(doc) == ["__elision__", "k2", "k3"]
    assert page.envelope is not None and page.envelope["page"] == "$.items['k2':'k4']"
    assert parse_next(page.envelope["next"])["path"] == "$.items['k4':]"
    # A page that shows its members in part counts them against the whole object.
    many = shape({"items": {f"k{i}": i for i in range(300)}}, Budget(1024), store=store,
                 redactor=None)
    assert many.ref is not None
    part = store.fetch(many.ref, path="$.items['k20':]", budget=Budget(1024))
    entry = next(e for e in (part.envelope or {})["elided"] if e["path"] == "$.items")
    assert entry["from"] == 20 and entry["total"] == 300 and 20 < entry["shown"] < 280
    shown = [key for key in json.loads(part.text) if key != "__elision__"]
    assert shown == [f"k{i}" for i in range(20, 20 + entry["shown"])]
    following = f"$.items['k{20 + entry['shown']}':]"
    assert parse_next((part.envelope or {})["next"])["path"] == following


@pytest.mark.parametrize(("path", "message"), [
    ("$.items['nope':]", "$.items has no key 'nope'; its keys are 'a', 'b', 'c'"),
    ("$.items['c':'a']", "ends before it starts"),
    ("$.rows['a':]", "$.rows is an array of 2, so it has no member range"),
    ("$.items['a':].x", "a step after a slice or member range"),
    ("$.items['a'", "unclosed"),
    ("$.items['a' 'b']", "not followed by ']' or ':'"),
])
def test_a_member_range_that_cannot_select_says_why(path: str, message: str) -> None:
    store = MemoryStore()
    first = shape({"items": {"a": "x" * 900, "b": 1, "c": 2}, "rows": [1, 2]}, Budget(512),
                  store=store, redactor=None)
    assert first.ref is not None
    with pytest.raises(SelectorError, match=re.escape(message)):
        store.fetch(first.ref, path=path, budget=Budget(1024))


# Any key at all: quotes, backslashes, brackets, colons, dots, blanks, line breaks, NUL.
any_key = st.text(st.characters(exclude_categories=["Cs"]), max_size=40) | st.text(
    alphabet="'\"\\[]:. \n\t$", max_size=12)


@given(any_key, any_key)
def test_every_key_round_trips_through_a_member_range(start: str, end: str) -> None:
    spelled = member_range("$.items", start, 7)
    assert parse_path(spelled) == [Key("items"), MemberRange(start, None)]
    both = normalize_path([Key("items"), MemberRange(start, end)])
    assert parse_path(both) == [Key("items"), MemberRange(start, end)]
    assert normalize_path(parse_path(both)) == both
    assert parse_path(format_path([start])) == [Key(start)]


@given(st.lists(any_key, min_size=2, max_size=8, unique=True), st.data())
def test_a_member_range_from_any_key_selects_from_that_key_on(
    keys: list[str], data: st.DataObject
) -> None:
    store = MemoryStore()
    items = {key: "x" * 600 for key in keys}
    first = shape({"items": items}, Budget(512), store=store, redactor=None)
    assert first.ref is not None
    at = data.draw(st.integers(0, len(keys) - 1))
    page = store.fetch(first.ref, path=member_range("$.items", keys[at], at),
                       budget=Budget(128 * 1024))
    doc = json.loads(page.text)
    doc.pop("__elision__")
    assert doc == {"value": dict(list(items.items())[at:])} or doc == dict(
        list(items.items())[at:])


def test_a_long_key_is_named_by_its_position() -> None:
    key = "k" * (LONG_KEY + 1)
    assert member_range("$.items", key, 3) == "$.items[3:]"
    assert member_range("$.items", "k" * LONG_KEY, 3) == f"$.items['{'k' * LONG_KEY}':]"


# -- past the end ---------------------------------------------------------------------------


def _kept(payload: Any, fmt: str = "auto") -> tuple[MemoryStore, str]:
    store = MemoryStore()
    first = shape(payload, Budget(512), store=store, format=fmt, redactor=None)  # type: ignore[arg-type]
    assert first.ref is not None
    return store, first.ref


@pytest.mark.parametrize(("payload", "path", "total", "unit"), [
    ({"rows": list(range(2000)), "total": 2000}, "$.rows[99999:]", "2,000", "elements"),
    ({"rows": list(range(2000)), "total": 2000}, "$.rows[2000:]", "2,000", "elements"),
    ({"items": {f"k{i}": i for i in range(300)}}, "$.items[300:]", "300", "members"),
    ({"text": "x" * 3000}, "$.text[5000:]", "3,000", "chars"),
])
def test_a_slice_past_the_end_says_so_and_goes_nowhere(
    payload: Any, path: str, total: str, unit: str
) -> None:
    store, ref = _kept(payload)
    page = store.fetch(ref, path=path, budget=Budget(512))
    envelope = page.envelope or {}
    assert f"shown 0 of {total}, index past the end: there are {total} {unit}" in envelope.get(
        "notes", [])
    assert "next" not in envelope


_LINES = "\n".join(f"line {i} " + "x" * 40 for i in range(200))
_NDJSON = "\n".join(json.dumps({"i": i, "p": "x" * 40}) for i in range(200))
_CSV = "a,b\n" + "\n".join(f"{i},{'x' * 40}" for i in range(200))


@pytest.mark.parametrize(("body", "fmt", "total"), [
    (_LINES, "text", "200"), (_NDJSON, "ndjson", "200"), (_CSV, "csv", "201"),
])
def test_lines_past_the_end_say_so_and_go_nowhere(body: str, fmt: str, total: str) -> None:
    store, ref = _kept(body, fmt)
    page = store.fetch(ref, lines="9000-", budget=Budget(512))
    assert f"shown 0 of {total}, index past the end" in page.text
    envelope = page.envelope or {}
    assert "next" not in envelope and "next" not in page.text
    assert page.format == fmt
    if fmt == "csv":
        assert page.text.startswith("a,b\n")


# -- a result whose envelope fits beside nothing ------------------------------------------------


@pytest.mark.parametrize(("key_bytes", "limit"), [(16_000, 8192), (1_000_000, 4096)])
def test_a_key_longer_than_the_budget_is_delivered_with_a_ref_and_a_next(
    key_bytes: int, limit: int
) -> None:
    key = "k" * key_bytes
    store = MemoryStore()
    first = shape({key: "the value", "total": 1}, Budget(limit), store=store, redactor=None)
    assert len(first.body) <= limit
    envelope = first.envelope or {}
    assert first.ref is not None and envelope["ref"] == first.ref
    assert not first.complete and "next" in envelope
    assert key not in envelope["next"]  # named by position: a next that fits
    pages = _walk(store, first, limit, most=10)
    assert any(key in page.text and "the value" in page.text for page in pages)


def _count_keys_walked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list that counts the keys a dense object hands to Python from now on."""
    from elision.shape.lazyjson import ChunkedObject

    yielded = [0]
    walk = ChunkedObject.__iter__

    def counted(self: ChunkedObject) -> Any:
        for key in walk(self):
            yielded[0] += 1
            yield key

    monkeypatch.setattr(ChunkedObject, "__iter__", counted)
    return yielded


def test_a_member_range_page_near_the_end_does_not_walk_the_keys_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page of a member range cost more the later it started: its bounds were found by
    walking the object's keys one by one in Python, twice a page (the selection, then its
    ``next``), so a page near the end of 200,000 members took 239 ms of CPU against 166 ms at
    the start. Found by timing ``$['k…':]`` pages at 0, 50 and 99% of a dense object (issue
    23's paging hunt, bench/fuzz_linear.py's session)."""
    from elision.store.fetch import parse_next, shape_page

    count = 20_000
    body = json.dumps({f"k{i:06d}": i for i in range(count)}, separators=(",", ":")).encode()
    yielded = _count_keys_walked(monkeypatch)
    page = shape_page(body, ref="el_member_range_end", sha256="0" * 64, format="json",
                      budget=Budget(4096), path=f"$['k{count - 300:06d}':]")
    assert f'"k{count - 300:06d}":{count - 300}' in page.text
    assert page.envelope is not None and "next" in page.envelope
    assert parse_next(page.envelope["next"])["path"].startswith("$['k0")
    # The keys of the page and its next, not the 19,700 before it (twice).
    assert yielded[0] < 2_000


@pytest.mark.parametrize("path", [
    "$['k019700':'k019800']",  # a member range with an end: its next starts at that end
    "$[19700:19800]",  # a slice of an object: its next names the member at 19800
])
def test_a_bounded_page_near_the_end_names_its_next_without_walking_the_keys_before_it(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The member a bounded page's ``next`` starts from was found by walking every key before
    it in Python. Found beside the member-range bounds above (issue 23's paging hunt)."""
    from elision.store.fetch import parse_next, shape_page

    body = json.dumps({f"k{i:06d}": i for i in range(20_000)}, separators=(",", ":")).encode()
    yielded = _count_keys_walked(monkeypatch)
    page = shape_page(body, ref="el_member_range_next", sha256="0" * 64, format="json",
                      budget=Budget(65536), path=path)
    assert page.envelope is not None
    assert parse_next(page.envelope["next"])["path"] == "$['k019800':]"
    assert yielded[0] < 2_000
