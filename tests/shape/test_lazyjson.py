"""The lazy read of big JSON bodies (elision.shape.lazyjson) against the whole parse.

Every test here shrinks the thresholds so that documents of a few KB take the lazy route with
every kind of node in it (lazy arrays, lazy objects, dense objects read in runs), and holds the
shaped output, byte for byte, to what the whole parse gives - or the error to the same error.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.errors import InputError
from elision.shape import lazyjson, shape
from elision.shape.jsonparse import parse_json
from support.built import strategies_built
from support.lazy_json import dense_text, json_text, shrink
from support.policies import Seen

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Thresholds small enough that a few KB exercise every lazy node."""
    monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0)
    monkeypatch.setattr(lazyjson, "NODE_BYTES", 48)
    monkeypatch.setattr(lazyjson, "BATCH_BYTES", 96)
    monkeypatch.setattr(lazyjson, "SAMPLE_BYTES", 24)
    monkeypatch.setattr(lazyjson, "BITMAP_BYTES", 1)
    yield


def _outcome(body: bytes, budget: Budget, fmt: str, *, lazy: bool) -> str:
    saved = lazyjson.LAZY_BYTES
    lazyjson.LAZY_BYTES = 0 if lazy else 1 << 62
    try:
        return shape(body, budget, format=fmt, redactor=None).text  # type: ignore[arg-type]
    except Exception as exc:  # the same error is part of the same behaviour
        return f"{type(exc).__name__}: {exc}"
    finally:
        lazyjson.LAZY_BYTES = saved


def _same(body: bytes, budgets: tuple[Budget, ...] = (Budget(512), Budget(2048))) -> None:
    for budget in budgets:
        for fmt in ("auto", "json"):
            assert _outcome(body, budget, fmt, lazy=True) == _outcome(
                body, budget, fmt, lazy=False
            ), (budget, fmt)


# --------------------------------------------------------------------------- generated bodies

@given(json_text() | dense_text())
# Found by this test: the second look at colliding keys read them with orjson, which refuses a
# number past a double's range that the exact parser keeps.
@example('{' + ",".join(f'"k{i}":1e400' for i in range(40)) + "}")
@example('{"a":1,"b":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20],"a":2}')
@example('{' + ",".join(f'"k{i}":{i}' for i in range(60)) + ',"k3":0}')  # a repeat across runs
@example('{"x\\u003ay":1,' + ",".join(f'"k{i}":{i}' for i in range(40)) + "}")  # escaped colon
@example('{"a":0,' + ",".join(f'"k{i:02d}":{i}' for i in range(40)) + ',"\\u0061":1}')
def test_the_lazy_read_shapes_every_document_as_the_whole_parse_does(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)  # a one-byte repeat filter: every key collides, the second look runs
        _same(text.encode())


@given(dense_text(), st.sampled_from([1, 1 << 10]))
def test_a_dense_object_declines_exactly_when_a_key_repeats(text: str, bitmap: int) -> None:
    """Across runs, in one, spelled as an escape or not, keys sorted or in no order: the dense
    read declines if and only if the whole parse finds a repeated key."""
    body = text.encode()
    repeated: list[str] = []
    parse_json(body, duplicates=repeated)
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        patch.setattr(lazyjson, "_bitmap_bytes", lambda length: bitmap)
        try:
            node = lazyjson.lazy_document(body)
        except lazyjson.Declined:
            assert repeated
            return
    assert not repeated
    assert isinstance(node, lazyjson.ChunkedObject)  # the runs were read, not the sparse route


@settings(max_examples=40)  # the shaping property above draws the same documents and more
@given(json_text())
def test_a_lazy_document_reads_back_as_the_parsed_one(text: str) -> None:
    """materialize() of the skeleton is the value parse_json makes (when no key repeats)."""
    body = text.encode()
    repeated: list[str] = []
    try:
        expected = parse_json(body, duplicates=repeated)
    except InputError:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "NODE_BYTES", 48)
        patch.setattr(lazyjson, "BATCH_BYTES", 96)
        patch.setattr(lazyjson, "SAMPLE_BYTES", 24)
        try:
            lazy = lazyjson.lazy_document(body)
        except lazyjson.Declined:
            return
    assert not repeated, "a document that repeats a key must decline the lazy read"
    got = lazyjson.materialize(lazy)
    assert orjson.dumps(got, default=_raw) == orjson.dumps(expected, default=_raw)
    assert len(lazy) == len(expected)


def _raw(obj: Any) -> Any:
    return orjson.Fragment(obj.raw)


# --------------------------------------------------------------------------- sharp edges

_DENSE = ",".join(f'"k{i:03d}":{i}' for i in range(80))
_BIG_ARRAY = ",".join(f'{{"n":{i},"s":"{"x" * 20}"}}' for i in range(30))


@pytest.mark.parametrize("body", [
    pytest.param('{' + _DENSE + ',"k010":7}', id="a key repeated in a later run"),
    pytest.param('{"k000":1,' + _DENSE + '}', id="a key repeated in the first run"),
    pytest.param('[' + _BIG_ARRAY + ',{"n":1,"n":2}]', id="a repeat inside a lazy array"),
    pytest.param('{"rows":[' + _BIG_ARRAY + '],"rows":[]}', id="a repeat in a sparse object"),
    pytest.param('{"a\\u003ab":1,' + _DENSE + '}', id="a key spelling a colon as an escape"),
    pytest.param('[' + _BIG_ARRAY + ',"\\ud800"]', id="a lone surrogate escape"),
    pytest.param(('[' + _BIG_ARRAY + ',"').encode() + b'\xff"]', id="invalid UTF-8 in a string"),
    pytest.param('{' + _DENSE + ',}', id="a trailing comma in a dense object"),
    pytest.param('[' + _BIG_ARRAY + ',NaN]', id="NaN"),
    pytest.param('[' + _BIG_ARRAY + '] [1]', id="trailing data"),
    pytest.param("[" * 1500 + "]" * 1500, id="deeper than the skeleton reads"),
    pytest.param('{"_elision":{"v":1},' + _DENSE + '}', id="the envelope key in a dense object"),
    pytest.param('{' + _DENSE + ',"warnings":["late"],"total":80}', id="caveats written last"),
    pytest.param("[\n" + ",\n".join(f'    {{ "n" : {i} }}' for i in range(40)) + "\n]",
                 id="pretty-printed, whole once compact"),
    pytest.param('[' + ",".join(["1.10", "1E5", "-0", "1e400", "123456789012345678901234"] * 9)
                 + "]", id="numbers the fast parser would re-spell"),
    pytest.param('{"s":"' + "a, \\\"b\\\": 1" * 30 + '",' + _DENSE + '}',
                 id="commas and quotes inside a long string"),
])
def test_sharp_edges_shape_as_the_whole_parse_does(tiny: None, body: str | bytes) -> None:
    data = body if isinstance(body, bytes) else body.encode()
    _same(data, (Budget(512), Budget(1024), Budget(512, "chars"), Budget(600, "tokens")))

@pytest.mark.parametrize("tail", [",}", ", }", ",\n}"])
def test_a_trailing_comma_declines_the_dense_read_wherever_a_run_ends(
    tiny: None, tail: str
) -> None:
    """Found while reworking the repeat check: when a run of members ended at the object's
    trailing comma, nothing was left after it to fail, and the object was read as valid; the
    whole parse refuses it (and ``format="auto"`` shapes it as text)."""
    for count in range(20, 140):  # every place the last run can end, at these thresholds
        body = ("{" + ",".join(f'"k{i}":{i}' for i in range(count)) + tail).encode()
        with pytest.raises(lazyjson.Declined):
            lazyjson.lazy_document(body)
    _same(("{" + ",".join(f'"k{i}":{i}' for i in range(119)) + tail).encode())



def test_a_repeated_key_declines_the_lazy_read(tiny: None) -> None:
    """The withheld entries of a repeated key need the whole parse: the lazy read declines."""
    with pytest.raises(lazyjson.Declined):
        lazyjson.lazy_document(('{' + _DENSE + ',"k010":7}').encode())


def test_dense_objects_are_read_in_runs_and_big_arrays_lazily(tiny: None) -> None:
    """The test above would pass vacuously if nothing took the lazy route: it does."""
    dense = lazyjson.lazy_document(('{' + _DENSE + '}').encode())
    assert isinstance(dense, lazyjson.ChunkedObject)
    assert len(dense) == 80 and dense["k079"] == 79 and "k080" not in dense
    rows = lazyjson.lazy_document(('{"rows":[' + _BIG_ARRAY + '],"total":30}').encode())
    assert isinstance(rows, lazyjson.LazyObject)
    assert isinstance(rows["rows"], lazyjson.LazyArray) and rows["rows"][-1]["n"] == 29


@given(st.integers(0, 40), st.none() | st.integers(-50, 50), st.none() | st.integers(-50, 50))
def test_a_window_of_a_lazy_array_reads_as_the_slice_of_the_parsed_one(
    count: int, start: int | None, end: int | None
) -> None:
    """A page of a big array (elision.store.select) is a window of it, never a list of it."""
    body = ("[" + ",".join(f'{{"n":{i},"big":[{",".join(["7"] * 20)}]}}' for i in range(count))
            + "]").encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "NODE_BYTES", 48)  # every element is a lazy node of its own
        rows = lazyjson.lazy_document(body)
        window = rows.window(start, end)
        assert isinstance(window, lazyjson.LazyArray)
        assert lazyjson.materialize(window) == parse_json(body)[start:end]


def test_what_a_window_parses_stays_with_the_window(tiny: None) -> None:
    """Pages read through windows do not pile up parsed rows in the array they came from."""
    rows = lazyjson.lazy_document(("[" + _BIG_ARRAY + "]").encode())
    window = rows.window(10, 20)
    first = window[0]
    assert first == {"n": 10, "s": "x" * 20} and window[0] is first
    assert rows[10] == first and rows[10] is not first


@pytest.mark.parametrize(("body", "packed"), [
    pytest.param("[" + _BIG_ARRAY + "]", True, id="compact"),
    pytest.param("[ \n" + _BIG_ARRAY + "\t ]", True, id="white space inside the brackets only"),
    pytest.param(" [" + _BIG_ARRAY + "] ", True, id="white space around the root"),
    pytest.param("[" + _BIG_ARRAY.replace("},{", "}, {", 1) + "]", False,
                 id="one space after one comma"),
    pytest.param("[" + _BIG_ARRAY.replace("},{", "} ,{", 1) + "]", False,
                 id="one space before one comma"),
    pytest.param("[" + _BIG_ARRAY.replace("},{", "}, {") + "]", False, id="json.dumps' ', '"),
    pytest.param('["a,b",' + ",".join(['"c, \\\\ d"'] * 20) + ',[1, 2],{"k": ", "}]', True,
                 id="commas and spaces inside elements"),
    pytest.param('{"rows":[' + _BIG_ARRAY + '],"total":30}', True, id="nested in an object"),
    # Runs are cut at a comma followed by what the first element opens with ("," + "{" here):
    # elements of another kind, and ",{" or ',"' inside elements, must not fool it.
    pytest.param("[" + _BIG_ARRAY + ',"tail, \\"{x",7,[1,{"a":1}],null]', True,
                 id="objects, then elements of other kinds"),
    pytest.param("[" + ",".join(['{"a":[1,{"b":2},{"c":[3,{"d":4}]}],"s":",{x"}'] * 40) + "]",
                 True, id="',{' inside every element"),
    pytest.param("[" + ",".join(['"prose, with \\",\\" and ,{ in it"'] * 60) + "]", True,
                 id="strings holding ',\"'"),
    pytest.param('[7,' + _BIG_ARRAY + ']', True, id="a number first, then objects"),
])
def test_a_big_array_without_white_space_between_elements_is_kept_as_offsets(
    tiny: None, body: str, packed: bool
) -> None:
    """The elements read back exactly, packed or not; packed only where the lengths prove
    every separator is one byte (bench/proxy.py --peak: a Raw per 70-byte row was 0.8x the
    body)."""
    data = body.encode()
    lazy = lazyjson.lazy_document(data)
    array = lazy["rows"] if isinstance(lazy, lazyjson.LazyObject) else lazy
    assert isinstance(array, lazyjson.PackedArray) is packed
    assert lazyjson.materialize(lazy) == parse_json(data)
    assert [array[i] for i in range(-len(array), len(array))] == list(array) * 2
    with pytest.raises(IndexError):
        array[len(array)]
    whole = parse_json(data)
    rows = whole["rows"] if isinstance(whole, dict) else whole
    for start, end in ((1, -1), (None, 3), (-2, None), (5, 2)):
        assert lazyjson.materialize(array.window(start, end)) == rows[start:end]
    _same(data, (Budget(512), Budget(1024)))


def test_a_lazy_node_is_refused_by_code_that_does_not_know_it(tiny: None) -> None:
    """No silent empty container: orjson refuses the type instead of writing {}."""
    lazy = lazyjson.lazy_document(('[' + _BIG_ARRAY + ']').encode())
    with pytest.raises(TypeError):
        orjson.dumps(lazy)


@pytest.mark.parametrize("kind", ["ledger", "deep", "keys", "keys-shuffled"])
def test_the_bench_corpus_shapes_as_the_whole_parse_does(tiny: None, kind: str) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import corpus
    finally:
        sys.path.remove(str(BENCH))
    body, _ = corpus.make(kind, 0.03)
    _same(body, (Budget(512), Budget(4096), Budget(4096, "chars")))


# --------------------------------------------------------------------------- the stages around it


@pytest.mark.parametrize(("reads_values", "lazy"), [
    (None, False),  # a policy that says nothing may read any value: it gets the whole parse
    (True, False),
    (False, True),  # one that judges something else (as the size ceiling does) gets the skeleton
])
def test_a_guard_policy_is_handed_the_whole_value_unless_it_reads_none(
    tiny: None, reads_values: bool | None, lazy: bool
) -> None:
    from elision.guard.policy import Guardian, SizeCeiling
    from elision.guard.stage import GuardStage
    from elision.pipeline import Pipeline

    policy = Seen(reads_values)
    pipeline = Pipeline(guard=GuardStage(Guardian([SizeCeiling(1 << 30), policy])),
                        redactor=None)
    body = ('{"rows":[' + _BIG_ARRAY + '],"total":30}').encode()
    pipeline.run(body, budget=512)
    (seen,) = policy.values
    assert lazyjson.is_lazy(seen) is lazy
    assert lazyjson.materialize(seen) == parse_json(body)


def test_a_body_the_redaction_search_flags_is_walked_whole(tiny: None) -> None:
    """A secret deep in a lazily read body is withheld, as in a body parsed whole."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    rows = ",".join(f'{{"n":{i},"s":"{"x" * 20}"}}' for i in range(30))
    body = ('{"rows":[' + rows + f',{{"n":30,"note":"{token}"}}],"total":31}}').encode()
    lazy = shape(body, 8192).text
    saved = lazyjson.LAZY_BYTES
    lazyjson.LAZY_BYTES = 1 << 62
    try:
        whole = shape(body, 8192).text
    finally:
        lazyjson.LAZY_BYTES = saved
    assert token not in lazy
    assert lazy == whole


def test_drawing_json_text_builds_no_strategy() -> None:
    """Red before: each draw built its strategies again (2,740 for 20 texts), most of the CPU
    of the tests drawing them."""
    assert strategies_built(json_text()) < 20
