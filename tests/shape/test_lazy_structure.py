"""The lazy read chosen by structure, not only by size (issue 23).

Found by bench/hostile.py at 1-3 MiB: an array of documents nested 300 levels, under the lazy
read's 4 MiB threshold, was parsed whole at 37-39x its bytes (the JSON target is 3x). A body is
now read lazily when a few counts of its bytes say its whole parse would cost more than
:data:`~elision.shape.lazyjson.LAZY_COST` times its size, and the batches its small children
are checked in shrink with the body, so that no content, however dense in containers, makes
more than half the body at once. Peaks are traced allocations (tracemalloc), which do not
depend on the machine's load.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.errors import InputError
from elision.shape import lazyjson, shape
from elision.shape.jsonparse import outside_strings, parse_json
from elision.shape.lazyjson import parse_cost, parse_document, reads_lazily
from support.built import strategies_built
from support.lazy_json import json_text
from support.traced import peak as peak_of

MIB = 1 << 20
_DEEP = b'{"k":' * 300 + b'"x"' + b"}" * 300
_LISTS = b"[" * 300 + b"1" + b"]" * 300


def _deep_array(size: int, doc: bytes = _DEEP) -> bytes:
    return b"[" + b",".join([doc] * max(1, size // (len(doc) + 1))) + b"]"


# --------------------------------------------------------------------------- the regression


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(_DEEP, id="objects nested 300 levels"),
        pytest.param(_LISTS, id="arrays nested 300 levels"),
    ],
)
def test_an_array_of_deep_documents_under_4_mib_is_read_in_bounded_memory(doc: bytes) -> None:
    """1 MiB of documents nested 300 levels was parsed whole at 30x its bytes (traced; 37x
    in RSS), since the lazy read began at 4 MiB; read lazily it holds views and one small
    batch at a time."""
    body = _deep_array(MIB, doc)
    assert reads_lazily(body)
    peak = peak_of(lambda: parse_document(body))
    assert peak <= len(body), f"{peak / len(body):.1f}x the body"


def test_the_lazy_read_of_deep_documents_shapes_as_the_whole_parse_does() -> None:
    body = _deep_array(MIB // 4)
    lazy = shape(body, Budget(4096), redactor=None).text
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "STRUCTURE_BYTES", 1 << 62)
        whole = shape(body, Budget(4096), redactor=None).text
    assert lazy == whole


# --------------------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("body", "lazy"),
    [
        # Deep documents cost 30x their bytes parsed whole.
        pytest.param(_deep_array(128 << 10), True, id="deep documents, 128 KB"),
        # A record array of small rows: 5-8x.
        pytest.param(
            b"[" + b",".join(b'{"id":%d,"ok":true}' % i for i in range(8000)) + b"]",
            True,
            id="a record array",
        ),
        # Its graph is its string, about its bytes: parsed whole is fastest, and within 3x.
        pytest.param(
            b'{"note":"' + b"the quick brown fox " * 50_000 + b'"}', False, id="one long string"
        ),
        # Commas, brackets and braces inside strings cost nothing: only what is outside counts.
        pytest.param(
            b'{"note":"' + b"a [list], {of} words, " * 10_000 + b'","n":1}',
            False,
            id="a long string of commas",
        ),
        # A few strings first do not hide what follows them.
        pytest.param(
            rb'{"a":"x","b":"\\","c":"\"","rows":' + _deep_array(128 << 10) + b"}",
            True,
            id="deep documents after a few strings",
        ),
        # Under STRUCTURE_BYTES nothing is counted: its whole parse is a few MB at worst.
        pytest.param(_deep_array(32 << 10), False, id="deep documents, 32 KB"),
        # At LAZY_BYTES and over, size alone decides.
        pytest.param(b'["' + b"x" * (4 * MIB) + b'"]', True, id="a 4 MiB string"),
    ],
)
def test_which_bodies_are_read_lazily(body: bytes, lazy: bool) -> None:
    assert reads_lazily(body) is lazy


@pytest.mark.parametrize(
    ("body", "low", "high"),
    [
        pytest.param(_deep_array(64 << 10), 25, 35, id="objects nested 300 levels"),
        pytest.param(_deep_array(64 << 10, _LISTS), 35, 45, id="arrays nested 300 levels"),
        pytest.param(b'"' + b"x" * 1000 + b'"', 0, 0, id="a string"),
        pytest.param(b"[" + b"0," * 999 + b"0]", 45, 55, id="zeros"),
    ],
)
def test_parse_cost_estimates_the_whole_parse(body: bytes, low: float, high: float) -> None:
    assert low <= parse_cost(body) <= high


def test_parse_cost_stops_counting_once_past_enough() -> None:
    body = _deep_array(64 << 10)
    assert parse_cost(body, enough=1.0) < parse_cost(body)  # its one '[' was not counted
    assert parse_cost(body, enough=1.0) > 1.0


# --------------------------------------------------------------------------- both routes agree


# Built once: a composite that built them on every draw spent most of its time building.
_DEPTHS = st.integers(1, 400)
_LEVEL_KINDS = st.sampled_from(["[", "{", "{wide", "[wide"])
_LEAVES = json_text()
_COPIES = st.integers(1, 12)


@st.composite
def deep_text(draw: st.DrawFn) -> str:
    """An array of documents nested up to 400 levels (past orjson's 255 written levels), each
    level an array or an object with siblings or none, around any JSON leaf."""
    opens, closes = [], []
    for _ in range(draw(_DEPTHS)):
        kind = draw(_LEVEL_KINDS)
        if kind == "[":
            opens.append("[")
            closes.append("]")
        elif kind == "{":
            opens.append('{"k":')
            closes.append("}")
        elif kind == "{wide":
            opens.append('{"total":3,"rows":')
            closes.append(',"next":null}')
        else:
            opens.append('[1.10,"a:b",')
            closes.append(",{}]")
    leaf = draw(_LEAVES)
    doc = "".join(opens) + leaf + "".join(reversed(closes))
    count = draw(_COPIES)
    return "[" + ",".join([doc] * count) + "]"


def _shaped(body: bytes, budget: Budget, *, lazy: bool) -> str:
    with pytest.MonkeyPatch.context() as patch:
        if lazy:
            patch.setattr(lazyjson, "STRUCTURE_BYTES", 0)
            patch.setattr(lazyjson, "LAZY_COST", 0.0)
            patch.setattr(lazyjson, "MIN_BATCH_BYTES", 64)  # batches and nodes scale down
        else:
            patch.setattr(lazyjson, "STRUCTURE_BYTES", 1 << 62)
            patch.setattr(lazyjson, "LAZY_BYTES", 1 << 62)
        try:
            return shape(body, budget, format="json", redactor=None).text
        except Exception as exc:  # the same error is part of the same behaviour
            return f"{type(exc).__name__}: {exc}"


@settings(max_examples=60, deadline=None)
@given(deep_text(), st.sampled_from([Budget(512), Budget(4096)]))
@example('[{"k":[[{"total":3,"rows":"x","next":null}]]}]', Budget(512))
@example("[" + "[" * 300 + "1e400" + "]" * 300 + "]", Budget(4096))
def test_deep_documents_shape_the_same_read_lazily_or_whole(text: str, budget: Budget) -> None:
    body = text.encode()
    assert _shaped(body, budget, lazy=True) == _shaped(body, budget, lazy=False)


# --------------------------------------------------------------------------- refusals


def _refused(body: bytes) -> int:
    def read() -> Exception | None:
        try:
            parse_document(body)
        except InputError as exc:
            return exc
        return None

    assert read() is not None
    return peak_of(read)


@pytest.mark.parametrize(
    "body",
    [
        # A log whose first line opens with a bracket: orjson refuses it at its fifth byte.
        pytest.param(
            b"[" + b"2026-12-01 12:00:00 INFO request served from the cache shard\n" * 4000,
            id="a log that opens with a bracket",
        ),
        # Nested past orjson's 1,024 levels and msgspec's, and past the 10,000 elision reads
        # (whose stack, about 1.3 MB, is what is left).
        pytest.param(b"[" * (MIB // 2) + b"]" * (MIB // 2), id="nested to its size"),
    ],
)
def test_a_body_refused_as_json_is_refused_in_bounded_memory(body: bytes) -> None:
    """Found with bench/hostile.py's json-deep-one: orjson's refusal holds 12x what it was
    handed (its error keeps the text decoded), so a 10 MB log that opens with ``[`` cost 120 MB
    to be told it is no JSON. The first 16 KB tried alone, or msgspec's refusal in the lazy
    read, now send it to the exact parser, which refuses it with the same message."""
    assert _refused(body) <= 3 * len(body)


def test_a_refusal_reads_as_it_did() -> None:
    body = b"[" + b"2026-12-01 12:00:00 INFO request served\n" * 4000
    with pytest.raises(InputError, match=r"body is not valid JSON: .* at byte 5 \(line 1"):
        parse_document(body)


@pytest.mark.parametrize(
    ("body", "spans"),
    [
        (b'{"a":1}', [(0, 1), (4, 7)]),
        (b"[1,2]", [(0, 5)]),
        (rb'["a\\"]', [(0, 1), (6, 7)]),  # an escaped backslash, then the closing quote
        (rb'["a\\\"b"]', [(0, 1), (9, 10)]),  # and an escaped quote after it
        (b'["a', None),  # a string that does not end
        (b'["' + rb"\"" * 100 + b'"]', None),  # too many quotes to follow
    ],
)
def test_outside_strings(body: bytes, spans: list[tuple[int, int]] | None) -> None:
    assert outside_strings(body) == spans


_LONG = "x:" * (40 << 10)  # a string of 80 KB, colons and all


@pytest.mark.parametrize(
    ("text", "repeated"),
    [
        ('{"a":"' + _LONG + '","a":"y"}', ["$.a"]),
        ('{"n":{"a":1,"a":"' + _LONG + '"}}', ["$.n.a"]),
        ('{"a\\u003ab":"' + _LONG + '","c":1}', []),  # a colon spelled as an escape
        ('["' + _LONG + '",{"a":1},{"a":2}]', []),
    ],
)
def test_a_repeated_key_beside_a_big_string_is_found(text: str, repeated: list[str]) -> None:
    """A body of a few strings is proven free of repeats by its members, counted outside its
    strings (the colons of a 3 MB string were counted twice, as long as orjson's read)."""
    found: list[str] = []
    parse_json(text.encode(), duplicates=found)
    assert found == repeated


def test_drawing_deep_text_builds_no_strategy() -> None:
    """Red before: each draw built its level strategies again (3,555 for 20 texts, one per
    level), a third of this file's CPU."""
    assert strategies_built(deep_text(), examples=5) < 5
