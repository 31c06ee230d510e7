"""Invariant 5: walking the pages of a kept body gives back exactly the original values.

The walk uses only what the wire contract says (``elided`` entries, ``from``/``shown``/``total``,
``next``), as a model would: no knowledge of the original guides it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY, VALUE_KEY
from elision.shape import Shaped, shape
from elision.shape.jsonparse import parse_json
from elision.shape.lines import line_ends
from elision.store.base import Store
from elision.store.fetch import parse_next
from elision.store.select import Index, Key, MemberRange, Slice, normalize_path, parse_path

PAGE_LIMIT = 5000

# Keys never spell "value", so a wrapped page ({"value": …}) is never mistaken for an object.
keys = st.text(alphabet="abcdéf_ ", min_size=1, max_size=6)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=30),
    st.floats(allow_nan=False, allow_infinity=False),
)
records = st.fixed_dictionaries({"id": st.integers(0, 10**6), "name": st.text(max_size=24),
                                 "ok": st.booleans() | st.none(),
                                 "price": st.floats(allow_nan=False, allow_infinity=False)})
repeats = st.integers(1, 60)  # repeating a drawn list makes big bodies cheaply
documents = st.one_of(
    st.builds(lambda total, warnings, rows, k: {"total": total, "warnings": warnings,
                                                "rows": rows * k},
              st.integers(0, 10**4), st.lists(st.text(max_size=20), max_size=2),
              st.lists(records, min_size=1, max_size=20), repeats),
    st.builds(lambda items, k: items * k, st.lists(scalars, min_size=1, max_size=30), repeats),
    st.builds(lambda text, k: {"content": text * k}, st.text(min_size=1, max_size=200), repeats),
    st.fixed_dictionaries({"stores": st.lists(st.fixed_dictionaries(
        {"name": st.text(max_size=10),
         "stock": st.builds(lambda xs, k: xs * k, st.lists(st.integers(), max_size=20),
                            st.integers(1, 20))}),
        max_size=12)}),
    st.dictionaries(keys, st.lists(st.integers(0, 99), max_size=60), max_size=3),
)


def unwrap(shaped: Shaped) -> tuple[Any, dict[str, Any]]:
    doc = parse_json(shaped.text.encode())
    envelope = doc.pop(ENVELOPE_KEY, None) if isinstance(doc, dict) else None
    if envelope is None:
        return doc, {}
    if set(doc) == {VALUE_KEY}:
        doc = doc[VALUE_KEY]
    return doc, envelope


def recover(store: Store, ref: str, path: str, budget: Budget, first: Shaped | None = None) -> Any:
    """The whole value at ``path``, fetched page by page within ``budget``."""
    steps = parse_path(path)
    whole: Any = None
    selector, start, pages = path, 0, 0
    while True:
        page = first if first is not None else store.fetch(ref, path=selector, budget=budget)
        first = None
        assert page.shown_bytes <= budget.limit
        pages += 1
        assert pages < PAGE_LIMIT, f"no progress walking {path}"
        value, envelope = unwrap(page)
        entries = envelope.get("elided", [])
        own = next((e for e in entries if e["path"] == path), None)
        if own is not None:
            assert own.get("from", 0) == start, (own, selector)
        if isinstance(value, dict):
            assert own is None or own["kind"] != "object", "object members were dropped"
        for child in _direct_children(entries, steps):
            position = child[-1]
            if isinstance(position, Index):
                value[position.index - start] = recover(store, ref, normalize_path(child), budget)
            else:
                assert isinstance(position, Key)
                value[position.name] = recover(store, ref, normalize_path(child), budget)
        whole = value if whole is None else whole + value
        if own is None or start + own["shown"] >= own["total"]:
            return whole
        assert own["shown"] == len(value) and own["shown"] > 0, own
        start += own["shown"]
        selector = f"{path}[{start}:]"
        if envelope.get("next") and entries[0] is own:
            # next starts where the first element not shown whole stops being whole: inside
            # one shown in part (test_following_next_alone_reaches_every_value).
            partial = [f"{path}[{k}]" for k in range(start - own["shown"], start)]
            nxt = parse_next(envelope["next"])["path"]
            assert nxt == selector or any(nxt.startswith((p + "[", p + ".")) for p in partial)
            assert parse_next(envelope["next"])["ref"] == ref


def _direct_children(entries: list[dict[str, Any]], steps: list[Any]) -> list[list[Any]]:
    found: list[list[Any]] = []
    for entry in entries:
        entry_steps = parse_path(entry["path"])
        if len(entry_steps) > len(steps) and entry_steps[: len(steps)] == steps:
            child = entry_steps[: len(steps) + 1]
            if child not in found:
                found.append(child)
    return found


# The PostgreSQL store's pool opens connections on a worker thread, which draws jitter from
# the ``random`` module; Hypothesis sees the module's state move while it draws an example.
_POOL_THREADS_USE_RANDOM = pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies"
    ":hypothesis.errors.HypothesisDeprecationWarning"
)


@_POOL_THREADS_USE_RANDOM
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents, st.integers(512, 2500))
def test_walking_json_pages_gives_back_the_original(
    backend: Any, document: Any, limit: int
) -> None:
    store = backend.shared()
    body = json.dumps(document, ensure_ascii=False).encode()
    budget = Budget(limit)
    shaped = shape(body, budget, store=store)
    assert shaped.shown_bytes <= limit
    if shaped.complete:
        assert parse_json(shaped.text.encode()) == parse_json(body)
        return
    envelope = shaped.envelope
    assert envelope is not None
    ref = envelope["ref"]
    assert envelope["sha256"] == hashlib.sha256(body).hexdigest() == store.info(ref).sha256
    assert store.read(ref) == body
    event("cut")
    assert recover(store, ref, "$", budget, first=shaped) == parse_json(body)


line_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30)


@_POOL_THREADS_USE_RANDOM
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(line_text, min_size=1, max_size=40), repeats, st.booleans(),
       st.integers(700, 2500))
def test_walking_text_pages_gives_back_every_line(
    backend: Any, lines: list[str], k: int, final_newline: bool, limit: int
) -> None:
    store = backend.shared()
    body = ("\n".join(lines * k) + ("\n" if final_newline else "")).encode()
    budget = Budget(limit)
    shaped = shape(body, budget, format="text", store=store)
    if shaped.complete:
        assert shaped.text.encode() == body
        return
    assert shaped.envelope is not None
    ref = shaped.envelope["ref"]
    event("cut")
    total = len(line_ends(body))
    seen: dict[int, bytes] = {}
    todo, page, pages = [], shaped, 0
    while True:
        pages += 1
        assert pages < PAGE_LIMIT and page.shown_bytes <= limit
        envelope = page.envelope
        assert envelope is not None
        entry = envelope["elided"][0] if envelope.get("elided") else None
        data = page.text.encode()
        ends = line_ends(data)
        shown = [data[a:b] for a, b in zip([0, *ends], ends, strict=False)][1:]  # after header
        ranges = entry["ranges"] if entry else []
        if envelope.get("next"):
            head = ranges[0][1] - ranges[0][0] + 1
            shown = shown[:head] + shown[head + 1:]  # drop the marker line
            todo.append(parse_next(envelope["next"])["lines"])
        numbers = [n for a, b in ranges for n in range(a, b + 1)]
        assert len(numbers) == len(shown)
        for number, line in zip(numbers, shown, strict=True):
            seen.setdefault(number, line)
        if not todo:
            break
        page = store.fetch(ref, lines=todo.pop(), budget=budget)
    assert sorted(seen) == list(range(1, total + 1))
    rebuilt = b"".join(seen[n] for n in range(1, total + 1))
    # The marker and header use the body's own line ending, so only the last line can differ.
    assert rebuilt.rstrip(b"\n") == body.rstrip(b"\n")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$.rows[1]", {"id": 1, "v": "b"}),  # one element, whole
        ("$.rows[-1].v", "c"),  # negative index, then a key
        ("$.meta", {"total": 3}),  # an object node
    ],
)
def test_small_nodes_come_back_whole(backend: Any, path: str, expected: Any) -> None:
    store = backend.open()
    doc = {"meta": {"total": 3}, "rows": [{"id": i, "v": "abc"[i]} for i in range(3)],
           "pad": "x" * 5000}
    body = json.dumps(doc).encode()
    shaped = shape(body, Budget(1024), store=store)
    assert shaped.envelope is not None
    page = store.fetch(shaped.envelope["ref"], path=path, budget=Budget(1024))
    assert unwrap(page)[0] == expected
    assert page.envelope is not None and page.envelope["sha256"] == shaped.sha256


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every leaf of ``value``: scalars, strings and empty containers, by path."""
    if isinstance(value, dict) and value:
        for key, member in value.items():
            yield from _leaves(member, (*path, key))
    elif isinstance(value, list) and value:
        for index, element in enumerate(value):
            yield from _leaves(element, (*path, index))
    else:
        yield path, value


def _page_base(envelope: dict[str, Any]) -> tuple[tuple[Any, ...], int]:
    """Where a page's root sits in the original: the path of its node and the first index
    (or char) it shows, read from the page's own selector."""
    steps = parse_path(envelope.get("page", "$"))
    offset = 0
    if steps and isinstance(steps[-1], Slice):
        offset = steps[-1].start or 0
        steps = steps[:-1]
    elif steps and isinstance(steps[-1], MemberRange):
        steps = steps[:-1]  # a member range's members are shown under their own keys
    return tuple(s.name if isinstance(s, Key) else s.index for s in steps), offset  # type: ignore[union-attr]


def _cover(
    value: Any, original: Any, path: tuple[Any, ...], offset: int,
    seen: dict[tuple[Any, ...], set[int] | bool],
) -> None:
    """Mark what a shown ``value`` (at ``path``, from ``offset``) shows of the original."""
    if isinstance(value, dict) and isinstance(original, dict):
        if not original:
            seen[path] = True
        for key, member in value.items():
            if key in original:
                _cover(member, original[key], (*path, key), 0, seen)
    elif isinstance(value, list) and isinstance(original, list):
        if not original:
            seen[path] = True
        for index, element in enumerate(value):
            _cover(element, original[offset + index], (*path, offset + index), 0, seen)
    elif isinstance(value, str) and isinstance(original, str):
        assert original[offset:offset + len(value)] == value
        chars = seen.setdefault(path, set())
        assert isinstance(chars, set)
        chars.update(range(offset, offset + len(value)))
    elif value == original and not isinstance(value, dict | list):
        seen[path] = True


@settings(max_examples=150, deadline=None)
@given(documents, st.integers(512, 2500))
def test_following_next_alone_reaches_every_value(document: Any, limit: int) -> None:
    """Issue 14: at 1 KB a kept row was itself trimmed ($.rows[0] shown 3 of 7 members) while
    next pointed at $.rows[1:], so a reader that followed next never saw that row whole (29 of
    120 rows). Following next, and nothing else, must show every leaf of the original."""
    from elision.store import MemoryStore

    store = MemoryStore()
    body = json.dumps(document, ensure_ascii=False).encode()
    original = parse_json(body)
    page = shape(body, Budget(limit), store=store)
    seen: dict[tuple[Any, ...], set[int] | bool] = {}
    for _ in range(PAGE_LIMIT):
        assert page.shown_bytes <= limit
        value, envelope = unwrap(page)
        path, offset = _page_base(envelope)
        node = original
        for part in path:
            node = node[part]
        _cover(value, node, path, offset, seen)
        if not envelope.get("next"):
            break
        args = parse_next(envelope["next"])
        page = store.fetch(args["ref"], path=args["path"], budget=Budget(limit))
    else:
        raise AssertionError("next never ended")
    for path, leaf in _leaves(original):
        got = seen.get(path)
        if isinstance(leaf, str):
            assert isinstance(got, set) and got >= set(range(len(leaf))), path
        else:
            assert got is True, (path, leaf)
