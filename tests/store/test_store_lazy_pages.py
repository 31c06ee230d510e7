"""Pages of a big kept JSON body are selected from its lazy skeleton (issue 17), and say what the
whole parse says: for every document and selector, the page from the skeleton is byte for byte
the page from the whole parse, errors included.

The thresholds are shrunk (support.lazy_json.shrink) so that documents of a few KB take every
lazy route: lazy arrays and objects, dense objects read in runs, and the whole parse where the
skeleton declines (a repeated key, whose shadowed members a page must still withhold).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from elision.budget import Budget
from elision.envelope import ENVELOPE_KEY
from elision.errors import InputError
from elision.redact import redact_value
from elision.shape import lazyjson
from elision.shape.jsondump import dumps_value
from elision.shape.jsonparse import parse_json
from elision.store import fetch
from elision.store.select import Index, Key, MemberRange, Slice, Step, normalize_path, select
from support.lazy_json import json_text, shrink

REF = "el_lazyPagesTest0000000000"
BENCH = Path(__file__).resolve().parents[2] / "bench"
#: Keys a model may have to quote, or that no document holds.
ODD_KEYS = ["a:b", "é", "a'b", 'a"b', "a]b", "a b", "", "\\", "_elision", "missing", "k"]


@pytest.fixture(autouse=True)
def _forget_kept_views() -> Iterator[None]:
    yield
    _forget()


def _forget() -> None:
    # A page is served from a kept parse or view when there is one: each route parses afresh.
    fetch._cache = None
    fetch._views.clear()


def _page(body: bytes, selector: dict[str, str], budget: Budget, redact: bool, *,
          lazy: bool) -> str:
    _forget()
    saved = lazyjson.LAZY_BYTES
    lazyjson.LAZY_BYTES = 0 if lazy else 1 << 62
    try:
        return fetch.shape_page(
            body, ref=REF, sha256=hashlib.sha256(body).hexdigest(), format="json",
            budget=budget, redact=redact, **selector,  # type: ignore[arg-type]
        ).text
    except Exception as exc:  # the same error is part of the same page
        return f"{type(exc).__name__}: {exc}"
    finally:
        lazyjson.LAZY_BYTES = saved


def _same(body: bytes, selector: dict[str, str], budget: Budget, redact: bool) -> str:
    whole = _page(body, selector, budget, redact, lazy=False)
    assert _page(body, selector, budget, redact, lazy=True) == whole, (selector, budget)
    return whole


any_step: st.SearchStrategy[Step] = st.one_of(
    st.builds(Key, st.sampled_from(ODD_KEYS)),
    st.builds(Index, st.integers(-12, 12)),
    st.builds(Slice, st.none() | st.integers(-12, 12), st.none() | st.integers(-12, 12)),
    st.builds(MemberRange, st.none() | st.sampled_from(ODD_KEYS),
              st.none() | st.sampled_from(ODD_KEYS)).filter(lambda r: r != MemberRange(None, None)),
)


@st.composite
def paths(draw: st.DrawFn, document: Any) -> str:
    """A path that mostly walks into ``document`` (by key, or index from either end) and may
    end in any step: a slice, a missing key, an index out of range, a key of a scalar."""
    steps: list[Step] = []
    node = document
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node and draw(st.integers(0, 3)):
            key = draw(st.sampled_from(list(node)))
            steps.append(Key(key))
            node = node[key]
        elif isinstance(node, list) and node and draw(st.integers(0, 3)):
            index = draw(st.integers(-len(node), len(node) - 1))
            steps.append(Index(index))
            node = node[index]
        else:
            steps.append(draw(any_step))
            break
    return normalize_path(steps)


@st.composite
def pages(draw: st.DrawFn) -> tuple[bytes, dict[str, str]]:
    body = draw(json_text()).encode()
    try:
        document = parse_json(body)
    except InputError:
        document = None
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return body, {}
    if kind == 1:
        return body, {"lines": draw(st.sampled_from(["1-", "1-2", "2"]))}
    if kind == 2:
        return body, {"byte_range": draw(st.sampled_from(["0-", "0-40", "7-"]))}
    return body, {"path": draw(paths(document))}


@given(pages(), st.sampled_from([Budget(512), Budget(2048), Budget(600, "chars")]),
       st.booleans())
# A repeat across runs of a dense object: the skeleton declines, the page withholds the shadow.
@example((('{"rows":{' + ",".join(f'"k{i}":{i}' for i in range(60)) + ',"k3":0}}').encode(),
          {"path": "$.rows"}), Budget(1024), True)
@example((('{"rows":[' + ",".join(f'{{"n":{i}}}' for i in range(60)) + ']}').encode(),
          {"path": "$.rows[7:]"}), Budget(512), True)
def test_a_page_from_the_skeleton_is_the_page_from_the_whole_parse(
    page: tuple[bytes, dict[str, str]], budget: Budget, redact: bool
) -> None:
    body, selector = page
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        _same(body, selector, budget, redact)


# --------------------------------------------------------------------------- sharp edges

_ROWS = ",".join(f'{{"n":{i},"s":"{"x" * 20}"}}' for i in range(40))
_DENSE = ",".join(f'"k{i:03d}":{i}' for i in range(80))
LEDGER = ('{"rows":[' + _ROWS + '],"a":{"b":{"c":[' + _ROWS + ']},"a:b":"colon",'
          '"\\u00e9":"e-acute","s":"' + "abcdefghij" * 12 + '"},"dense":{' + _DENSE + '},'
          '"warnings":["late"],"total":40}').encode()


@pytest.mark.parametrize("path", [
    "$",  # the whole document
    "$.rows[7:]",  # the rest of a big array, as an envelope's next asks
    "$.rows[10:20]",
    "$.rows[100:200]",  # a slice past the end: empty, said so
    "$.rows[35:1000]",  # a slice running past the end
    "$.rows[-3:]",  # counted from the end
    "$.rows[:-38]",
    "$.rows[-1]",
    "$.rows[-41]",  # one before the first: out of range
    "$.rows[40]",
    "$.rows[5].s",
    "$.rows[5].s[3:9]",  # a slice of a string in chars
    "$.a.b",
    "$.a.b.c[39:]",
    "$['a']['a:b']",  # a key with a colon, quoted
    '$.a["é"]',  # a key spelled as an escape in the body
    "$.a.s[100:]",
    "$.a.missing",  # a missing key names the keys there are
    "$.dense.k079",  # a member of a dense object, read in runs
    "$.dense.k999",  # missing there: the first eight keys, read from the first run
    "$.dense[3]",  # an index into an object
    "$.dense['k040':]",  # a member range of a dense object, read in runs
    "$.dense['k010':'k070']",
    "$.dense[:'k005']",
    "$.dense[75:]",  # members by position
    "$.dense[80:]",  # past the end: empty, said so
    "$.dense['k070':'k010']",  # ends before it starts
    "$.dense['nope':]",  # no such key
    "$.a['a:b':]",  # a quoted key with a colon starts a member range
    "$.rows['n':]",  # a member range of an array
    "$.rows.n",  # a key of an array
    "$.total[0]",  # an element of a scalar
    "$.total[1:]",  # a slice of a scalar
    "$.warnings[0][0:2]",
    "rows",  # not a path at all
])
@pytest.mark.parametrize("budget", [Budget(512), Budget(2048)])
def test_sharp_edges_page_as_the_whole_parse_does(path: str, budget: Budget) -> None:
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        for redact in (True, False):
            _same(LEDGER, {"path": path}, budget, redact)


_CORPUS_PATHS = {
    "ledger": ["$.rows[7:]", "$.rows[-2:]", "$.warnings", "$.next_cursor", "$.rows[3].tags"],
    "deep": ["$.document.body.chapters[3:]", "$.document.body.chapters[-1].sections[0]",
             "$.coverage", "$.document.title[0:4]", "$.document.nope"],
    "keys": ["$.k000000005", "$.coverage_note", "$.k999999999", "$[0]", "$.k000000001[1:]"],
}


@pytest.mark.parametrize("kind", sorted(_CORPUS_PATHS))
def test_the_bench_corpus_pages_as_the_whole_parse_does(kind: str) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import corpus
    finally:
        sys.path.remove(str(BENCH))
    body, _ = corpus.make(kind, 0.03)
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        for path in ["$", *_CORPUS_PATHS[kind]]:
            _same(body, {"path": path}, Budget(2048), True)


@pytest.mark.parametrize("body", [
    pytest.param('{"rows":[' + _ROWS + '],"rows":[1]}', id="a repeated key: shadowed, withheld"),
    pytest.param('{"dense":{' + _DENSE + ',"k010":7}}', id="a repeat across a dense object's runs"),
    pytest.param('{"rows":[' + _ROWS + ',"\\ud800"]}', id="a lone surrogate escape"),
    pytest.param('{"rows":[' + _ROWS + ',NaN]}', id="not JSON: the same error"),
    pytest.param('{"rows":[' + _ROWS + ']} [1]', id="trailing data"),
    pytest.param('{"rows":[' + ",".join(["1.10", "1E5", "-0", "1e400"] * 12) + ']}',
                 id="numbers kept as spelled"),
])
@pytest.mark.parametrize("path", ["$", "$.rows", "$.rows[3:]", "$.dense.k010"])
def test_a_body_the_skeleton_declines_pages_as_before(body: str, path: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        for redact in (True, False):
            _same(body.encode(), {"path": path}, Budget(512), redact)


def test_a_repeated_key_is_withheld_in_a_page_of_a_big_body() -> None:
    """The skeleton declines a body that repeats a key; its page still withholds the shadow."""
    body = ('{"rows":[' + _ROWS + '],"rows":[1]}').encode()
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        page = orjson.loads(_page(body, {"path": "$.rows"}, Budget(512), True, lazy=True))
    envelope = page[ENVELOPE_KEY]
    assert envelope["complete"] is False
    assert {"path": "$.rows", "reason": "duplicate-key"} in envelope["withheld"]


def test_a_page_of_a_big_body_is_read_from_its_skeleton() -> None:
    """The properties above would pass vacuously if a page never took the lazy route."""
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        patch.setattr(lazyjson, "LAZY_BYTES", 0)
        document, shadowed = fetch.parsed_document(LEDGER, "not-a-digest")
        assert lazyjson.is_lazy(document) and shadowed == ()
        rows = select(document, [Key("rows"), Slice(7, None)]).value
        assert isinstance(rows, lazyjson.LazyArray) and len(rows) == 33
        assert isinstance(document["dense"], lazyjson.ChunkedObject)


@pytest.mark.parametrize("body", [
    pytest.param(LEDGER.replace(b"\\u00e9", b"e"), id="clean: its skeleton"),
    pytest.param(LEDGER, id="a \\u escape: walked whole by the redaction"),
    pytest.param(b'{"rows":[' + _ROWS.encode() + b'],"rows":[1]}', id="parsed whole: a repeat"),
])
@pytest.mark.parametrize("redact", [True, False])
def test_paging_a_big_body_keeps_no_parse_between_pages(body: bytes, redact: bool) -> None:
    """A kept skeleton would hold the body it views while the next page reads it again, and
    pile up the rows its pages parsed; a value parsed whole, or walked whole by the redaction,
    holds 5-10x the body: the next page reads the body afresh instead."""
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        patch.setattr(lazyjson, "LAZY_BYTES", 0)
        sha = hashlib.sha256(body).hexdigest()
        fetch.shape_page(body, ref=REF, sha256=sha, format="json", budget=Budget(512),
                         path="$.rows[7:]", redact=redact)
        assert fetch._cache is None and REF not in fetch._views


def test_a_small_body_is_parsed_and_redacted_once_for_all_its_pages() -> None:
    """Below LAZY_BYTES the parse and the redacted view are kept, as before."""
    sha = hashlib.sha256(LEDGER).hexdigest()
    fetch.shape_page(LEDGER, ref=REF, sha256=sha, format="json", budget=Budget(512),
                     path="$.rows[7:]")
    assert fetch._cache is not None and fetch._cache[0] == sha and REF in fetch._views


# --------------------------------------------------------------- the view the pipeline showed

_TOKEN = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"  # made up; matches the GitHub token rule


def _shown_view(body: bytes) -> tuple[Any, tuple[dict[str, Any], ...]]:
    """The redacted value and withheld entries, as the pipeline keeps them for a shaped body."""
    done = redact_value(parse_json(body), body=body)
    assert done.withheld, "the seeded token must be withheld"
    return done.value, done.withheld


def _page_of_shown(body: bytes, shown: tuple[Any, tuple[dict[str, Any], ...]],
                   selector: dict[str, str], budget: Budget, *, big: bool) -> str:
    _forget()
    saved = lazyjson.LAZY_BYTES
    lazyjson.LAZY_BYTES = 0 if big else 1 << 62
    try:
        fetch.remember_view(REF, None, shown[0], shown[1], size=len(body))
        return fetch.shape_page(
            body, ref=REF, sha256=hashlib.sha256(body).hexdigest(), format="json",
            budget=budget, **selector,  # type: ignore[arg-type]
        ).text
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        lazyjson.LAZY_BYTES = saved


@st.composite
def shown_pages(draw: st.DrawFn) -> tuple[bytes, dict[str, str]]:
    inner = draw(json_text())
    try:
        parse_json(inner.encode())
    except InputError:
        inner = "[]"
    rows = ",".join(draw(st.lists(st.sampled_from([f'"{_TOKEN}"', '{"k":1}', '"x, y"', "7"]),
                                  min_size=1, max_size=30)))
    body = f'{{"note":"push with {_TOKEN}","rows":[{rows}],"inner":{inner}}}'.encode()
    value = redact_value(parse_json(body), body=body).value
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return body, {}
    if kind == 1:
        return body, {"lines": "1-"}
    if kind == 2:
        return body, {"byte_range": draw(st.sampled_from(["0-", "0-40", "7-"]))}
    return body, {"path": draw(paths(value))}


@given(shown_pages(), st.sampled_from([Budget(512), Budget(2048)]))
def test_a_page_of_a_big_shown_view_kept_as_its_serialization_is_the_same_page(
    page: tuple[bytes, dict[str, str]], budget: Budget
) -> None:
    body, selector = page
    shown = _shown_view(body)
    with pytest.MonkeyPatch.context() as patch:
        shrink(patch)
        kept = _page_of_shown(body, shown, selector, budget, big=False)
        assert _page_of_shown(body, shown, selector, budget, big=True) == kept, selector


def test_the_view_shown_for_a_big_body_is_kept_as_its_serialization() -> None:
    """The view the pipeline showed (its stubs' records are in the client's scope) is kept for
    the body's pages whatever its size: as a value it held 5-10x the body between calls."""
    body = f'{{"note":"push with {_TOKEN}","rows":[{_ROWS}]}}'.encode()
    value, withheld = _shown_view(body)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "LAZY_BYTES", 0)
        fetch.remember_view(REF, None, value, withheld, size=len(body))
    kept = fetch._views[REF]
    assert kept.value is None and kept.json == dumps_value(value)


@pytest.mark.parametrize("selector", [{"lines": "1-"}, {"byte_range": "0-99"}])
def test_a_text_page_of_a_big_shown_view_reads_no_document(selector: dict[str, str]) -> None:
    """lines= and bytes= are cut from the view's serialization: reading it back as a document
    first would cost a skeleton (or a whole parse) for nothing."""
    body = f'{{"note":"push with {_TOKEN}","rows":[{_ROWS}]}}'.encode()
    value, withheld = _shown_view(body)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lazyjson, "LAZY_BYTES", 0)
        fetch.remember_view(REF, None, value, withheld, size=len(body))

        def refused(body: bytes, **_: Any) -> Any:
            raise AssertionError("a text page parsed the view")

        patch.setattr(fetch, "parse_document", refused)
        page = fetch.shape_page(body, ref=REF, sha256=hashlib.sha256(body).hexdigest(),
                                format="json", budget=Budget(2048), **selector)
    assert _TOKEN not in page.text and "credential withheld" in page.text
