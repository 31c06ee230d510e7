"""What shaping a hostile body holds and does: big strings, deep documents, long lines (issue 23).

Found by bench/hostile.py: a JSON document that is one 4 MB string took 5x its size to shape
(joined into a batch, parsed, then written back whole to count its colons) and 9x the floor's
time; 300-deep documents were parsed twice (orjson, then the standard library, because orjson
will not write past 255 levels to count colons) at 65x their size; a text of one 1 MB line
took 6x the floor's time to learn it had no line ending. Peaks are traced allocations
(tracemalloc), which do not depend on the machine's load.
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from elision.budget import Budget
from elision.shape import jsonparse, lazyjson, shape
from elision.shape.jsonparse import parse_json, repeated_keys, written_colons
from elision.shape.lines import first_eol
from elision.shape.sizes import bounded_size, string_size
from support.traced import peak as peak_of

MIB = 1 << 20
_DEEP = '{"k":' * 300 + '"x"' + "}" * 300


def _outcome(body: bytes, budget: Budget, *, lazy: bool) -> str:
    saved = lazyjson.LAZY_BYTES
    lazyjson.LAZY_BYTES = 0 if lazy else 1 << 62
    try:
        return shape(body, budget, format="json", redactor=None).text
    except Exception as exc:  # the same error is part of the same behaviour
        return f"{type(exc).__name__}: {exc}"
    finally:
        lazyjson.LAZY_BYTES = saved


# --------------------------------------------------------------------------- big strings

_CHARS = st.sampled_from(["a", " ", ":", ",", '"', "\\", "\n", "\t", "é", "\u2028", "😀", "/"])
_RAW = st.sampled_from(["a", ":", ",", "é", " "])


@st.composite
def string_spellings(draw: st.DrawFn) -> str:
    """A JSON string long enough to be a large child: escaped by orjson, or written raw (only
    chars that need no escape), or broken (a control char, a bad escape, a lone quote)."""
    how = draw(st.sampled_from(["escaped", "raw", "broken"]))
    if how == "escaped":
        return orjson.dumps("".join(draw(st.lists(_CHARS, min_size=40, max_size=160)))).decode()
    text = "".join(draw(st.lists(_RAW, min_size=40, max_size=160)))
    if how == "raw":
        return f'"{text}"'
    at = draw(st.integers(0, len(text)))
    return '"' + text[:at] + draw(st.sampled_from(["\x01", "\\q", '"', "\\u12"])) + text[at:] + '"'


@given(st.lists(string_spellings(), min_size=1, max_size=4), st.booleans())
@example(['"' + "a" * 60 + '"'], False)
@example([orjson.dumps("line\n" * 20).decode(), '"' + "é:" * 30 + '"'], True)
def test_big_strings_shape_as_the_whole_parse_does(strings: list[str], as_array: bool) -> None:
    if as_array:
        body = ("[" + ",".join([*strings, "1", '{"total":3}']) + "]").encode()
    else:
        body = ("{" + ",".join(f'"s{i}":{s}' for i, s in enumerate(strings))
                + ',"total":3}').encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "NODE_BYTES", 48)
        patch.setattr(lazyjson, "BATCH_BYTES", 16)
        for budget in (Budget(512), Budget(2048)):
            assert _outcome(body, budget, lazy=True) == _outcome(body, budget, lazy=False)


def test_a_document_that_is_one_big_string_is_read_without_copies() -> None:
    """The lazy read of ``{"note": <8 MB>}`` holds the string once: it was joined into a batch
    (two copies), parsed, and written back to count its colons (13x the body, traced)."""
    body = orjson.dumps({"note": "the quick brown fox: jumps " * (8 * MIB // 27)})

    def read() -> Any:
        node = lazyjson.lazy_document(body)
        return node, node["note"]

    assert peak_of(read) < 1.2 * len(body)
    node, note = read()
    assert note == orjson.loads(body)["note"] and node["note"] is note


def test_a_big_string_is_never_written_whole_to_learn_it_does_not_fit() -> None:
    text = "x" * (4 * MIB)
    assert string_size(text, 4096) is None
    assert bounded_size({"a": text}, 4096, 10) is None
    assert peak_of(lambda: bounded_size([1, text], 4096, 10)) < 64 << 10


@given(st.text(max_size=80), st.integers(0, 120))
def test_string_size_is_the_written_size_within_the_limit(text: str, limit: int) -> None:
    size = len(orjson.dumps(text))
    assert string_size(text, limit) == (size if size <= limit else None)


# --------------------------------------------------------------------------- counting colons

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 99) | st.text(":a\"\\é", max_size=6),
    lambda inner: st.lists(inner, max_size=12)
    | st.dictionaries(st.text(":ab", max_size=3), inner, max_size=12),
    max_leaves=60,
)


@given(_JSON, st.integers(0, 3), st.integers(1, 3))
def test_written_colons_counts_what_orjson_writes(value: Any, opens: int, members: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonparse, "OPEN_CONTAINERS", opens)
        patch.setattr(jsonparse, "OPEN_MEMBERS", members)
        patch.setattr(jsonparse, "_WRITE_SLICE", 2)
        assert written_colons(value) == orjson.dumps(value).count(b":")


@pytest.mark.parametrize("depth", [254, 300, 900, 1020])
def test_written_colons_counts_past_what_orjson_and_msgspec_write(depth: int) -> None:
    body = ('[{"a:b":1},' + '{"k":' * depth + '"x:y"' + "}" * depth + "]").encode()
    assert written_colons(orjson.loads(body)) == body.count(b":")


def test_a_deep_document_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """300 levels is past what orjson writes, so its colons could not be counted that way and
    the exact parser parsed the document a second time (4x the floor's time, 65x its size)."""
    body = ("[" + ",".join([_DEEP] * 20) + "]").encode()

    def refuse(*args: Any) -> Any:
        raise AssertionError("parsed a second time by the exact parser")

    monkeypatch.setattr(jsonparse, "_parse_exact", refuse)
    shadowed: list[str] = []
    assert parse_json(body, duplicates=shadowed) == orjson.loads(body) and shadowed == []
    assert repeated_keys(body, orjson.loads(body)) == []


def test_a_repeated_key_under_300_levels_is_still_found() -> None:
    body = ("[" + _DEEP + "," + '{"k":' * 300 + '{"a":1,"a":2}' + "}" * 300 + "]").encode()
    shadowed: list[str] = []
    parse_json(body, duplicates=shadowed)
    assert shadowed == ["$[1]" + ".k" * 300 + ".a"]


def test_msgspec_writes_deeper_than_orjson() -> None:
    """written_colons leans on it: orjson refuses past 255 levels, msgspec writes 300."""
    value = orjson.loads(_DEEP)
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(value)
    assert msgspec.json.encode(value).count(b":") == _DEEP.count(":")


# --------------------------------------------------------------------------- lines


@pytest.mark.parametrize(("data", "eol"), [
    (b"", "\n"),
    (b"one line, no ending", "\n"),
    (b"a\nb\r\n", "\n"),
    (b"a\r\nb\n", "\r\n"),
    (b"a\rb\n", "\r"),
    (b"a\r", "\r"),
    (b"a\n\rb", "\n"),  # the \r comes after the first ending
    (b"\r\n", "\r\n"),
    (b"a" * 100_000 + b"\r\n", "\r\n"),
])
def test_first_eol(data: bytes, eol: str) -> None:
    assert first_eol(data) == eol
    assert first_eol(data, newline_only=True) == "\n"


def test_ndjson_is_read_in_small_chunks() -> None:
    """A chunk of 1 MiB was held twice over (the one being split, the next one being cut, and
    its lines): 3 MB beside a body of a few MB, 2x a 1 MB NDJSON body (target 1.5x). What is
    left is an offset (8 bytes) per record, 0.13x for these 60-byte ones, in an array that
    grows by doubling."""
    record = b'{"id":1,"event":"login","detail":{"ok":true,"note":"fine"}}\n'
    body = record * (4 * MIB // len(record))
    peak = peak_of(lambda: shape(body, Budget(4096), format="ndjson", redactor=None))
    assert peak < 0.4 * len(body)


def test_an_ndjson_result_is_not_parsed_whole_to_be_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``elision shape`` (redaction on: the pipeline) of a 4 MB NDJSON stream peaked at 2.04x
    its size where shape() without redaction held 1.09x: the pipeline's capture tried the whole
    stream as one JSON document, and orjson copied it before refusing it at line 2."""
    from elision import pipeline

    def refuse(body: bytes, **_: Any) -> Any:
        raise AssertionError("an NDJSON stream was parsed as one document")

    monkeypatch.setattr(pipeline, "parse_document", refuse)
    body = b'{"id":1,"ok":true}\n{"id":2,"ok":false}\n' * 200
    assert pipeline.Pipeline().capture(body).format == "auto"
    assert shape(body, Budget(512)).format == "ndjson"
