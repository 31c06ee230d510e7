"""Selectors: the JSONPath subset, line ranges and byte ranges."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elision.errors import SelectorError
from elision.store.select import (
    count_lines,
    normalize_path,
    parse_path,
    select,
    select_bytes,
    select_lines,
)

DOC: dict[str, Any] = {
    "stores": [{"name": "a", "stock": list(range(20))}, {"name": "b", "stock": []}],
    "content": "héllo wörld",
    "key with space": {"it's": 1},
    "n": 7,
}


@pytest.mark.parametrize(
    ("path", "value", "node_path", "offset", "total"),
    [
        ("$", DOC, "$", 0, None),  # the whole document
        ("$.n", 7, "$.n", 0, None),  # dot key
        ("$['n']", 7, "$.n", 0, None),  # single-quoted key normalizes to dot form
        ('$["n"]', 7, "$.n", 0, None),  # double-quoted key
        ("$['key with space']['it\\'s']", 1, "$['key with space']['it\\'s']", 0, None),  # escapes
        ("$.stores[1].name", "b", "$.stores[1].name", 0, None),  # index then key
        ("$.stores[-1].name", "b", "$.stores[1].name", 0, None),  # negative index resolves
        ("$.stores[0].stock[10:]", list(range(10, 20)), "$.stores[0].stock", 10, 20),  # open slice
        ("$.stores[0].stock[:3]", [0, 1, 2], "$.stores[0].stock", 0, 20),  # head slice
        ("$.stores[0].stock[-2:]", [18, 19], "$.stores[0].stock", 18, 20),  # negative slice
        ("$.stores[0].stock[15:99]", list(range(15, 20)), "$.stores[0].stock", 15, 20),  # clamped
        ("$.stores[0].stock[30:]", [], "$.stores[0].stock", 20, 20),  # past the end: empty
        ("$.content[1:4]", "éll", "$.content", 1, 11),  # strings slice in chars, not bytes
        (" $.n ", 7, "$.n", 0, None),  # surrounding whitespace is forgiven
    ],
)
def test_valid_paths(
    path: str, value: Any, node_path: str, offset: int, total: int | None
) -> None:
    selection = select(DOC, parse_path(path))
    assert selection.value == value
    assert (selection.node_path, selection.offset, selection.total) == (node_path, offset, total)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("rows", "must start with '\\$'"),  # no root
        ("$.", "cannot be read"),  # dangling dot
        ("$[abc]", "cannot be read"),  # bare word in brackets
        ("$['open", "unclosed quoted key"),  # unterminated quote
        ("$.stores[1:2].name", "step after a slice"),  # slice only last
        ("$.a..b", "cannot be read"),  # recursive descent is not supported
        ("$.stores[*]", "cannot be read"),  # wildcards are not supported
    ],
)
def test_bad_selectors_show_valid_forms(path: str, message: str) -> None:
    with pytest.raises(SelectorError, match=message) as caught:
        parse_path(path)
    assert "valid forms" in str(caught.value)


@pytest.mark.parametrize(
    ("path", "deepest"),
    [
        ("$.nope", "$ has no key 'nope'"),  # missing top-level key
        ("$.stores[5]", "$.stores has 2 elements"),  # index out of range
        ("$.stores[0].stock.x", "$.stores[0].stock is an array of 20"),  # key on an array
        ("$.n[0]", "$.n is a scalar"),  # index on a scalar
        ("$.content.x", "$.content is a string"),  # key on a string
        ("$.stores[0].name[0]", "$.stores[0].name is a string"),  # index on a string
        ("$.n[1:]", "$.n is a scalar"),  # slice on a scalar
    ],
)
def test_missing_path_names_deepest_existing_part(path: str, deepest: str) -> None:
    with pytest.raises(SelectorError) as caught:
        select(DOC, parse_path(path))
    assert str(caught.value).startswith(deepest)


keys = st.text(min_size=0, max_size=8)
steps = st.lists(
    st.one_of(keys.map(lambda k: ("key", k)), st.integers(-50, 50).map(lambda i: ("idx", i))),
    max_size=6,
)


@given(steps, st.one_of(st.none(), st.tuples(st.none() | st.integers(-9, 9),
                                             st.none() | st.integers(-9, 9))))
def test_normalized_path_parses_back_to_itself(
    parts: list[tuple[str, Any]], tail: tuple[int | None, int | None] | None
) -> None:
    text = "$" + "".join(
        f"[{v}]" if kind == "idx" else "['" + v.replace("\\", "\\\\").replace("'", "\\'") + "']"
        for kind, v in parts
    )
    if tail is not None:
        text += f"[{'' if tail[0] is None else tail[0]}:{'' if tail[1] is None else tail[1]}]"
    parsed = parse_path(text)
    normalized = normalize_path(parsed)
    assert parse_path(normalized) == parsed
    assert normalize_path(parse_path(normalized)) == normalized


@pytest.mark.parametrize(
    ("body", "spec", "selected", "before", "total", "normalized"),
    [
        (b"a\nb\nc\n", "2-3", b"b\nc\n", 1, 3, "2-3"),  # inclusive range
        (b"a\nb\nc", "2-", b"b\nc", 1, 3, "2-"),  # open end, no final newline
        (b"a\nb\nc\n", "2", b"b\n", 1, 3, "2-2"),  # one line
        (b"a\nb\nc\n", "1-99", b"a\nb\nc\n", 0, 3, "1-99"),  # end past the last line clamps
    ],
)
def test_line_ranges(
    body: bytes, spec: str, selected: bytes, before: int, total: int, normalized: str
) -> None:
    sel = select_lines(body, spec)
    assert (sel.body, sel.lines_before, sel.total_lines, sel.normalized) == (
        selected, before, total, normalized)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0-3", "starts below 1"),  # lines are 1-based
        ("3-2", "ends before it starts"),  # reversed
        ("a-b", "not a range"),  # not numbers
    ],
)
def test_bad_line_ranges(spec: str, message: str) -> None:
    with pytest.raises(SelectorError, match=message):
        select_lines(b"a\nb\nc\n", spec)


def test_lines_past_the_end_select_nothing_and_say_so() -> None:
    # Issue 23: a page past the end says "shown 0 of N, index past the end", not an error.
    sel = select_lines(b"a\nb\nc\n", "9-")
    assert (sel.body, sel.past_end, sel.total_lines, sel.lines_before) == (b"", True, 3, 3)
    assert not select_lines(b"a\nb\nc\n", "3-").past_end


@pytest.mark.parametrize(
    ("spec", "selected", "normalized"),
    [
        ("0-0", b"a", "0-0"),  # one ASCII byte
        ("1-1", "é".encode(), "1-2"),  # first byte of é: the end snaps forward
        ("2-2", "é".encode(), "1-2"),  # second byte of é: the start snaps back
        ("3-", "b\n€".encode(), "3-7"),  # open end
    ],
)
def test_byte_ranges_snap_to_characters(spec: str, selected: bytes, normalized: str) -> None:
    sel = select_bytes("aéb\n€".encode(), spec)
    assert (sel.body, sel.normalized) == (selected, normalized)


@given(st.text(max_size=60), st.integers(0, 200), st.integers(0, 200))
def test_any_byte_range_decodes_and_covers_the_request(text: str, a: int, length: int) -> None:
    body = text.encode("utf-8", "surrogatepass")
    if a >= len(body):
        with pytest.raises(SelectorError):
            select_bytes(body, f"{a}-{a + length}")
        return
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return  # lone surrogates are not UTF-8 bodies
    sel = select_bytes(body, f"{a}-{a + length}")
    sel.body.decode("utf-8")  # never a torn character
    start = int(sel.normalized.split("-")[0])
    assert start <= a
    assert body[start:start + len(sel.body)] == sel.body
    assert start + len(sel.body) >= min(len(body), a + length + 1)
    # Whole lines before the page: a "\r\n" split by the start has not ended yet.
    ended = len(re.findall(rb"\r\n|\r|\n", body[:start]))
    split_crlf = body[:start].endswith(b"\r") and body[start:start + 1] == b"\n"
    assert sel.lines_before == ended - split_crlf


@given(st.lists(st.text(alphabet="ab\r", max_size=5), min_size=1, max_size=10), st.data())
def test_line_pages_tile_the_body(lines: list[str], data: st.DataObject) -> None:
    body = "\n".join(lines).encode()
    total = count_lines(body)
    if total == 0:
        return
    # Walking consecutive ranges reassembles the body exactly.
    out, first = b"", 1
    while first <= total:
        last = data.draw(st.integers(first, total))
        out += select_lines(body, f"{first}-{last}").body
        first = last + 1
    assert out == body
