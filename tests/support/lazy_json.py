"""JSON texts for the lazy read's differential tests (elision.shape.lazyjson), and the
thresholds that make a few KB of them take every lazy route."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from elision.shape import lazyjson

_SPELLINGS = ["0", "-0", "1.10", "1E5", "2e-7", "1e400", "12345678901234567890123", "-17",
              "3.141592653589793238", "0.5", "100"]
_KEYS = ["id", "name", "total", "warnings", "next_cursor", "a:b", "k", "é", "_elision"]


# The strategies json_text draws through are made once, not on every draw: one made inside a
# composite is built and validated again each time (``st.characters`` with a list argument is
# not even cached), which was most of the CPU of the tests drawing these texts. The same
# draws give the same texts.
_WS = st.sampled_from(["", " ", "\n  "])
_KIND = {True: st.integers(0, 9), False: st.integers(0, 4)}
_SPELLING = st.sampled_from(_SPELLINGS)
_LITERAL = st.sampled_from(["true", "false", "null"])
_STRING = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
_KEY = st.sampled_from(_KEYS) | st.text("abcxyz", min_size=1, max_size=6)
_AT_DEPTH: dict[int, st.SearchStrategy[str]] = {}
_ITEMS_AT: dict[int, st.SearchStrategy[list[str]]] = {}
_MEMBERS_AT: dict[int, st.SearchStrategy[list[tuple[str, str]]]] = {}


def json_text(depth: int = 0) -> st.SearchStrategy[str]:
    """JSON text with the spellings, spaces, escapes and repeats a real tool may write."""
    if depth not in _AT_DEPTH:
        _AT_DEPTH[depth] = _json_text(depth)
    return _AT_DEPTH[depth]


def _items(depth: int) -> st.SearchStrategy[list[str]]:
    if depth not in _ITEMS_AT:  # made at the first draw that needs it: depth has no bound
        _ITEMS_AT[depth] = st.lists(json_text(depth + 1), max_size=8)
    return _ITEMS_AT[depth]


def _members(depth: int) -> st.SearchStrategy[list[tuple[str, str]]]:
    if depth not in _MEMBERS_AT:
        _MEMBERS_AT[depth] = st.lists(st.tuples(_KEY, json_text(depth + 1)), max_size=10)
    return _MEMBERS_AT[depth]


@st.composite
def _json_text(draw: st.DrawFn, depth: int) -> str:
    ws = draw(_WS)
    kind = draw(_KIND[depth < 3])
    if kind == 0:
        return draw(_SPELLING)
    if kind == 1:
        return draw(_LITERAL)
    if kind in (2, 3, 4):
        value = draw(_STRING)
        quoted = orjson.dumps(value).decode()
        return quoted.replace("/", "\\/") if draw(st.booleans()) else quoted
    if kind in (5, 6):
        items = draw(_items(depth))
        return "[" + ws + ("," + ws).join(items) + ws + "]"
    members = draw(_members(depth))
    inner = ("," + ws).join(f"{orjson.dumps(k).decode()}:{ws}{v}" for k, v in members)
    return "{" + ws + inner + ws + "}"


@st.composite
def dense_text(draw: st.DrawFn) -> str:
    """A dense object (many small members) with its keys repeated, if at all, where the lazy
    read's runs must find them: in one run, in two, spelled with an escape in one of them;
    its keys sorted (each run's range apart from the others'), reversed or in no order, with
    caveat keys after them or not."""
    keys = [f"k{i:03d}" for i in range(draw(st.integers(12, 90)))]
    order = draw(st.sampled_from(["sorted", "reversed", "shuffled"]))
    if order == "reversed":
        keys.reverse()
    elif order == "shuffled":
        keys = list(draw(st.permutations(keys)))
    keys += draw(st.lists(st.sampled_from(["total", "warnings", "a", "é"]), unique=True,
                          max_size=2))
    for _ in range(draw(st.integers(0, 2))):  # a repeat: some key again, anywhere
        keys.insert(draw(st.integers(0, len(keys))), keys[draw(st.integers(0, len(keys) - 1))])
    escaped = draw(st.sets(st.integers(0, len(keys) - 1), max_size=3))
    ws = draw(st.sampled_from(["", " ", "\n  "]))
    spelled = [
        (f"\\u{ord(key[0]):04x}{key[1:]}" if at in escaped else key) for at, key in enumerate(keys)
    ]
    return "{" + ("," + ws).join(f'"{key}":{ws}{at}' for at, key in enumerate(spelled)) + "}"


def shrink(patch: pytest.MonkeyPatch, *, every_key_collides: bool = True) -> None:
    """Thresholds small enough that a few KB exercise every lazy node: lazy arrays and
    objects, dense objects read in runs (and, by default, a one-byte repeat filter, so that
    keys collide in it and the second look runs). ``LAZY_BYTES`` is left alone: a
    differential test sets it to take one route or the other."""
    patch.setattr(lazyjson, "NODE_BYTES", 48)
    patch.setattr(lazyjson, "BATCH_BYTES", 96)
    patch.setattr(lazyjson, "SAMPLE_BYTES", 24)
    if every_key_collides:
        patch.setattr(lazyjson, "BITMAP_BYTES", 1)
        patch.setattr(lazyjson, "_bitmap_bytes", lambda length: 1)


@contextmanager
def lazy_route(route: str) -> Iterator[None]:
    """Where ``route`` is ``"lazy"``, every body read lazily (:func:`shrink`'s thresholds, and
    no size too small for the lazy read) for the block; any other route, as it is."""
    with pytest.MonkeyPatch.context() as mp:
        if route == "lazy":
            shrink(mp)
            mp.setattr(lazyjson, "LAZY_BYTES", 0)
        yield


def redact_lazily(body: bytes) -> Any:
    """``redact_value`` of ``body`` read lazily with :func:`shrink`'s thresholds (every node
    lazy), or ``None`` when the lazy read declines it (a repeated key or the like: the whole
    parse decides)."""
    from elision.redact import redact_value

    with pytest.MonkeyPatch.context() as mp:
        shrink(mp)
        mp.setattr(lazyjson, "LAZY_BYTES", 0)
        try:
            document = lazyjson.lazy_document(body)
        except lazyjson.Declined:
            return None
        return redact_value(document, body=body)


def normalized(value: Any, withheld: tuple[dict[str, Any], ...]) -> tuple[bytes, list[Any]]:
    """A redaction's value and entries, with the reference ids (random) taken out."""
    text = re.sub(rb"ref_[a-z0-9]+", b"ref_", lazyjson.serialize(value))
    entries = [{k: v for k, v in w.items() if k != "stub"} for w in withheld]
    return text, [orjson.dumps(w, option=orjson.OPT_SORT_KEYS) for w in entries]


def assert_redacts_as(body: bytes, whole: Any) -> None:
    """``body`` redacted now, parsed whole and read lazily, gives what ``whole`` (the same
    redaction with a fast path switched off) gave."""
    from elision.redact import redact_value
    from elision.shape.jsonparse import parse_json

    now = redact_value(parse_json(body), body=body)
    assert normalized(now.value, now.withheld) == normalized(whole.value, whole.withheld)
    assert len(now.references) == len(whole.references)
    lazy = redact_lazily(body)
    if lazy is not None:  # else a repeated key or the like: the whole parse decides
        assert normalized(lazy.value, lazy.withheld) == normalized(whole.value, whole.withheld)
