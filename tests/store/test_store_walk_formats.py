"""Invariant 12 for every format: following `next` from the first result always ends, and the
pages together show every record, element and line of the original.

Issue 23 asked for this walk over JSON, text, NDJSON and CSV at the smallest budget: NDJSON
pages at 512 bytes named themselves as `next` (0 records shown), CSV pages stalled after 122
pages, and a JSON member with a key longer than the budget left the first result
undeliverable. A walk either advances on every page or is refused with a BudgetError naming a
larger budget, at which the same call is asked again; either way it ends. What the pages
showed is checked against the original body, not against the counts the pages claim.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.envelope import ENVELOPE_KEY, VALUE_KEY, is_text_header
from elision.errors import BudgetError
from elision.shape import Shaped
from elision.shape.jsonparse import parse_json
from elision.store import MemoryStore
from elision.store.fetch import parse_next
from elision.store.select import Index, Key, MemberRange, Slice, parse_path

#: Pages a walk may take before it is judged not to end (the largest body here is ~60 records).
MAX_PAGES = 3000
budgets = st.just(512) | st.integers(512, 2048)  # the smallest budget, and others


def _walk(first: Shaped, store: MemoryStore, limit: int) -> list[Shaped]:
    """Every page from the first result on. A page refused for its budget is asked again at
    the budget the refusal names; the walk then goes on at ``limit``."""
    pages, call, budget = [first], (first.envelope or {}).get("next"), limit
    seen: set[tuple[str, int]] = set()
    for _ in range(MAX_PAGES):
        if not call:
            event(f"pages: {min(len(pages), 100) // 10 * 10}+")
            return pages
        assert (call, budget) not in seen, f"the walk came back to {call} at {budget}"
        seen.add((call, budget))
        args = parse_next(call)
        selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
        try:
            page = store.fetch(budget=Budget(budget), **selector)
        except BudgetError as exc:
            asked = re.search(r"budget=(\d+)", str(exc))
            assert asked is not None, str(exc)
            assert int(asked[1]) > budget, str(exc)
            budget = int(asked[1])
            continue
        assert len(page.body) <= budget
        pages.append(page)
        following = (page.envelope or {}).get("next")
        assert following != call, f"{call} names itself as its next page"
        call, budget = following, limit
    raise AssertionError("following next did not end")


# -- lines, NDJSON and CSV ---------------------------------------------------------------------

def _filler(line: int, size: int) -> str:
    """Text that says where it came from at every point, so a fragment is found in one line."""
    out, k, length = [], 0, 0
    while length < size:  # a running length: summing the pieces every turn was quadratic
        out.append(f"<{line}.{k}>")
        length += len(out[-1])
        k += 1
    return "".join(out)[:size]


def _content_lines(page: Shaped, fmt: str) -> list[str]:
    lines = page.text.split("\n")
    if fmt == "ndjson":
        return [line for line in lines if not line.startswith('{"' + ENVELOPE_KEY)]
    if fmt == "csv":
        return [line for line in lines if line != "a,b,c" and not line.startswith('"[elision]')]
    return [line for line in lines
            if not is_text_header(line) and not (line.startswith("[… ") and line.endswith("…]"))]


def _covered(line: str, fragments: set[str]) -> bool:
    """Whether the fragments shown (whole lines, or the parts of a line cut to fit) cover every
    char of ``line``."""
    if line in fragments:
        return True
    chars = [False] * len(line)
    for fragment in fragments:
        if fragment:
            at = line.find(fragment)
            while at >= 0:
                chars[at:at + len(fragment)] = [True] * len(fragment)
                at = line.find(fragment, at + 1)
    return all(chars)


line_sizes = st.integers(0, 90) | st.integers(0, 1600)  # lines longer than the budget too
sizes = st.lists(line_sizes, min_size=1, max_size=10) | st.lists(line_sizes, min_size=40,
                                                                 max_size=150)


@st.composite
def line_bodies(draw: st.DrawFn) -> tuple[str, list[str]]:
    fmt = draw(st.sampled_from(["text", "ndjson", "csv"]))
    lengths = draw(sizes)
    if fmt == "text":
        lines = [f"L{i}|" + _filler(i, n) for i, n in enumerate(lengths)]
        return fmt, lines
    if fmt == "ndjson":
        return fmt, [json.dumps({"i": i, "p": _filler(i, n)}) for i, n in enumerate(lengths)]
    return fmt, ["a,b,c", *(f'{i},"{_filler(i, n)}, quoted",z' for i, n in enumerate(lengths))]


@settings(max_examples=40, deadline=None)
@given(line_bodies(), budgets)
def test_walking_lines_and_records_ends_and_shows_every_line(
    drawn: tuple[str, list[str]], limit: int
) -> None:
    fmt, lines = drawn
    store = MemoryStore()
    first = shape("\n".join(lines) + "\n", Budget(limit), store=store, format=fmt,
                  redactor=None)
    assert len(first.body) <= limit
    fragments: set[str] = set()
    pages = _walk(first, store, limit)
    for page in pages:
        fragments.update(_content_lines(page, fmt))
    for number, line in enumerate(lines, 1):
        if fmt == "csv" and number == 1:
            assert all(page.text.startswith(line) for page in pages), "a page lost the header"
        elif fmt in ("ndjson", "csv"):  # records are never cut: each is shown whole
            assert line in fragments, f"line {number} was never shown"
        else:
            assert _covered(line, fragments), f"line {number} was never shown whole"


# -- JSON ----------------------------------------------------------------------------------------

strings = st.builds(lambda line, size: _filler(line, size), st.integers(0, 99),
                    st.integers(0, 1500))
keys = st.text(alphabet="ab'\"\\[]:. é_", max_size=6) | st.builds(
    lambda n: "k" * n, st.integers(0, 1400))  # keys longer than the budget too
small_values = st.recursive(
    st.none() | st.booleans() | st.integers() | strings,
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=25,
)
json_values = small_values | st.one_of(
    # Many small members (a map keyed by id) and many records: walks of many pages.
    st.builds(lambda n, v: {f"m{i}": v for i in range(n)}, st.integers(20, 400),
              st.integers() | st.text(max_size=30)),
    st.builds(lambda rows, k: {"total": len(rows) * k, "rows": rows * k},
              st.lists(st.dictionaries(st.sampled_from("abc"), st.integers() | strings,
                                       max_size=3), min_size=1, max_size=10),
              st.integers(1, 30)),
    st.lists(small_values, min_size=5, max_size=30),
)


def _unwrap(page: Shaped) -> tuple[Any, dict[str, Any]]:
    doc = parse_json(page.text.encode())
    envelope = doc.pop(ENVELOPE_KEY, None) if isinstance(doc, dict) else None
    if envelope is None:
        return doc, {}
    if set(doc) == {VALUE_KEY}:
        doc = doc[VALUE_KEY]
    return doc, envelope


def _page_base(envelope: dict[str, Any]) -> tuple[tuple[Any, ...], int]:
    """Where a page's root sits in the original, from the page's own selector."""
    steps = parse_path(envelope.get("page", "$"))
    offset = 0
    if steps and isinstance(steps[-1], Slice):
        offset = steps[-1].start or 0
        steps = steps[:-1]
    elif steps and isinstance(steps[-1], MemberRange):
        steps = steps[:-1]  # the members of an object are shown by their own keys
    path: list[Any] = []
    for step in steps:
        assert isinstance(step, Key | Index)
        path.append(step.name if isinstance(step, Key) else step.index)
    return tuple(path), offset


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict) and value:
        for key, member in value.items():
            yield from _leaves(member, (*path, key))
    elif isinstance(value, list) and value:
        for index, element in enumerate(value):
            yield from _leaves(element, (*path, index))
    else:
        yield path, value


def _cover(value: Any, original: Any, path: tuple[Any, ...], offset: int,
           seen: dict[tuple[Any, ...], Any]) -> None:
    """Mark what a shown ``value`` (at ``path``, from ``offset``) shows of the original, and
    check it is the original's."""
    if isinstance(value, dict) and isinstance(original, dict):
        if not original:
            seen[path] = True
        for key, member in value.items():
            assert key in original, f"{key!r} is no member of the original at {path}"
            _cover(member, original[key], (*path, key), 0, seen)
    elif isinstance(value, list) and isinstance(original, list):
        if not original:
            seen[path] = True
        for index, element in enumerate(value):
            _cover(element, original[offset + index], (*path, offset + index), 0, seen)
    elif isinstance(value, str) and isinstance(original, str):
        assert original[offset:offset + len(value)] == value, path
        seen.setdefault(path, set()).update(range(offset, offset + len(value)))
    else:
        assert value == original, path
        seen[path] = True


@settings(max_examples=60, deadline=None)
@given(json_values, budgets)
def test_walking_json_ends_and_shows_every_element(document: Any, limit: int) -> None:
    store = MemoryStore()
    body = json.dumps(document, ensure_ascii=False).encode()
    first = shape(body, Budget(limit), store=store, format="json", redactor=None)
    assert len(first.body) <= limit
    document = parse_json(body)  # exact numbers, as the pages show them
    seen: dict[tuple[Any, ...], Any] = {}
    for page in _walk(first, store, limit):
        value, envelope = _unwrap(page)
        path, offset = _page_base(envelope)
        node = document
        for part in path:
            node = node[part]
        _cover(value, node, path, offset, seen)
    for path, leaf in _leaves(document):
        got = seen.get(path)
        if isinstance(leaf, str) and leaf:
            assert isinstance(got, set) and got >= set(range(len(leaf))), path
        else:
            assert got is not None, (path, leaf)
