"""The redaction walk over a lazily read document (elision.redact.lazywalk, issue 23).

A lazy document was parsed whole for the walk once anything in it was flagged: 37-48x the
body through ``shape()`` for 300-deep documents, 17x for ``["sk-", …]``. It is walked a piece
at a time now, and must withhold exactly what the walk of the parsed document withholds.
"""

from __future__ import annotations

import re
import tracemalloc
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_value
from elision.redact.families import FAMILIES, sample
from elision.shape import lazyjson
from elision.shape.jsondump import dumps_value
from elision.shape.jsonparse import parse_json
from support.built import strategies_built
from support.lazy_json import shrink

_TOKEN = sample(next(f for f in FAMILIES if f.id == "github-token"))[0]
_DEEP = b'{"k":' * 300 + b'"x"' + b"}" * 300
_DEEP_SECRET = b'{"k":' * 300 + orjson.dumps("key " + _TOKEN) + b"}" * 300
_LISTS = b"[" * 300 + b'"sk-x"' + b"]" * 300


def _bodies(n: int = 512 << 10) -> dict[str, bytes]:
    """About ``n`` bytes each (past the structure bound, so each is read lazily), a secret
    last but in the arrays of arrays (each holds a trigger: the slowest walk, 5-7 s a MB)."""
    return {
        "deep-documents": b"[" + b",".join([_DEEP] * (n // len(_DEEP)) + [_DEEP_SECRET]) + b"]",
        "deep-arrays": b"[" + b",".join([_LISTS] * (n // 2 // len(_LISTS))) + b"]",
        "sk-strings": orjson.dumps(["sk-"] * (n // 6) + [_TOKEN]),
        "numbered": orjson.dumps([f"sk-{i}" for i in range(n // 10)] + [_TOKEN]),
    }


@pytest.mark.parametrize("name", list(_bodies()))
def test_the_walk_of_a_lazy_document_holds_a_bounded_share_of_it(name: str) -> None:
    """Red before: the body was parsed whole for the walk (tracemalloc peak 37-43x the body
    at 1 MB, 35-42x here). A ratio of the input, never a time."""
    body = _bodies()[name]
    # What any first call makes once for the process (the engine's scratch, the rules'
    # caches, the imports) is no share of a body: made first, on a small one of the kind.
    small = _bodies(32 << 10)[name]
    redact_value(lazyjson.parse_document(small), body=small)
    document = lazyjson.parse_document(body)
    assert lazyjson.is_lazy(document)
    tracemalloc.start()
    try:
        done = redact_value(document, body=body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 3 * len(body), f"{peak / len(body):.1f}x the body"
    if name != "deep-arrays":
        assert len(done.withheld) == 1


def test_the_walk_never_parses_the_whole_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: ``materialize_from`` parsed the whole body once a trigger was flagged."""
    body = _bodies()["deep-documents"]
    document = lazyjson.parse_document(body)
    sizes: list[int] = []
    real = lazyjson.parse_json

    def counting(data: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(lazyjson, "parse_json", counting)
    done = redact_value(document, body=body)
    assert sizes, "the pieces are parsed by the exact parser"
    assert max(sizes) < len(body) // 8
    assert [w["reason"] for w in done.withheld] == ["github-token"]


def test_a_redacted_lazy_copy_shows_the_stub_in_every_reading() -> None:
    body = _bodies()["sk-strings"]
    document = lazyjson.parse_document(body)
    done = redact_value(document, body=body)
    last = len(document) - 1
    assert done.withheld[0]["path"] == f"$[{last}]"
    assert lazyjson.is_lazy(done.value)
    assert document[last] == _TOKEN, "the input is untouched"
    assert _TOKEN not in done.value[last]
    assert _TOKEN not in done.value.window(last - 3, None)[3]
    assert _TOKEN.encode() not in lazyjson.serialize(done.value)
    assert lazyjson.serialize(done.value) == dumps_value(lazyjson.materialize(done.value))


# --- the lazy walk withholds what the walk of the parsed document does ---------------------

_SECRETS = [_TOKEN, "AKIAIOSFODNN7EXAMPLE", "sk-", "sk-12", "key " + _TOKEN]
_KEYS = ["id", "name", "password", "api_key", "note", "k", "é", "a\"b", _TOKEN]


# Each strategy is made once, at import: a composite draws its parts through the strategies it
# names, and one made inside it is built and validated again on every draw (a list of 30
# deep documents is a thousand draws). Made once, the same draws give the same documents, at
# about a third of the CPU (the two Hypothesis tests below spent most of theirs building them).
_KIND = {True: st.integers(0, 7), False: st.integers(0, 3)}
_SCALARS = st.sampled_from([0, 1.5, -7, True, None, 12345678901234567890])
_SECRET = st.sampled_from(_SECRETS)
_NUMBER = st.integers(0, 99)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=10)
_TEXT_END = st.sampled_from(["", "\n", "\\", '"'])
_WRAPS = st.integers(1, 40)
_KEY = st.sampled_from(_KEYS) | st.text("abxyz", min_size=1, max_size=4)
_AT_DEPTH: dict[int, st.SearchStrategy[Any]] = {}


def _documents(depth: int = 0) -> st.SearchStrategy[Any]:
    """The strategy of :func:`_document` at ``depth``, made once per depth."""
    if depth not in _AT_DEPTH:
        _AT_DEPTH[depth] = _document(depth)
    return _AT_DEPTH[depth]


@st.composite
def _document(draw: st.DrawFn, depth: int) -> Any:
    """Deep, wide, trigger keys and credential names, numbered strings, escapes."""
    kind = draw(_KIND[depth < 6])
    if kind == 0:
        return draw(_SCALARS)
    if kind == 1:
        return draw(_SECRET)
    if kind == 2:
        return f"sk-{draw(_NUMBER)}"
    if kind == 3:
        return draw(_TEXT) + draw(_TEXT_END)
    if kind == 4:  # deep
        inner = draw(_documents(depth + 3))
        for _ in range(draw(_WRAPS)):
            inner = {"k": inner} if draw(st.booleans()) else [inner]
        return inner
    if kind == 5:
        return draw(_lists(depth + 1, 12))
    return dict(draw(_members(depth + 1)))


def _lists(depth: int, most: int) -> st.SearchStrategy[list[Any]]:
    key = (depth, most)
    if key not in _LISTS_AT:
        _LISTS_AT[key] = st.lists(_documents(depth), max_size=most)
    return _LISTS_AT[key]


def _members(depth: int) -> st.SearchStrategy[list[tuple[str, Any]]]:
    if depth not in _MEMBERS_AT:
        _MEMBERS_AT[depth] = st.lists(st.tuples(_KEY, _documents(depth)), max_size=10)
    return _MEMBERS_AT[depth]


_LISTS_AT: dict[tuple[int, int], st.SearchStrategy[list[Any]]] = {}
_MEMBERS_AT: dict[int, st.SearchStrategy[list[tuple[str, Any]]]] = {}


def test_drawing_a_document_builds_no_strategy() -> None:
    """Red before: every draw of a document built its strategies again (11,242 for 20 of these
    lists, 11,230 for the 5 drawn here; the two tests below spent most of their CPU doing it,
    not testing)."""
    built = strategies_built(st.lists(_documents(), min_size=1, max_size=30), examples=5)
    assert built < 20, f"{built} strategies built for 5 examples"


def _normalized(value: Any, withheld: tuple[dict[str, Any], ...]) -> tuple[bytes, list[Any]]:
    text = re.sub(rb"ref_[a-z0-9]+", b"ref_", lazyjson.serialize(value))
    return text, sorted(orjson.dumps(w, option=orjson.OPT_SORT_KEYS) for w in withheld)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_documents(), min_size=1, max_size=30), st.integers(8, 400), st.booleans())
def test_the_lazy_walk_withholds_what_the_eager_walk_does(
    rows: list[Any], piece: int, wrapped: bool
) -> None:
    value: Any = {"rows": rows, "next": "x"} if wrapped else rows
    body = orjson.dumps(value)
    with pytest.MonkeyPatch.context() as mp:
        shrink(mp)
        mp.setattr(lazyjson, "PIECE_BYTES", piece)
        mp.setattr(lazyjson, "LAZY_BYTES", 0)
        try:
            document = lazyjson.lazy_document(body)
        except lazyjson.Declined:
            return  # a repeated key or the like: the whole parse decides, as before
        lazy = redact_value(document, body=body)
        eager = redact_value(parse_json(body), body=body)
        assert _normalized(lazy.value, lazy.withheld) == _normalized(eager.value, eager.withheld)
        assert lazyjson.serialize(lazy.value) == lazyjson.serialize(
            lazyjson.materialize(lazy.value))


@pytest.mark.parametrize("last", ["api_key", "type", _TOKEN, "plain"])
def test_a_dense_object_whose_late_key_asks_for_the_whole_withholds_each_once(
    last: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dense object is judged a run at a time; a key in a late run that asks for the
    object whole (a credential name, a record's type, a secret in a key) takes back what
    the earlier runs withheld, so nothing is withheld twice."""
    shrink(monkeypatch)
    members: dict[str, Any] = {f"k{i:03d}": (_TOKEN if i % 7 == 0 else i) for i in range(80)}
    members[last] = "hunter2 " + _TOKEN
    body = orjson.dumps(members)
    document = lazyjson.lazy_document(body)
    assert isinstance(document, lazyjson.ChunkedObject)
    lazy = redact_value(document, body=body)
    eager = redact_value(parse_json(body), body=body)
    assert _normalized(lazy.value, lazy.withheld) == _normalized(eager.value, eager.withheld)
    assert len(lazy.withheld) == len(eager.withheld) >= 12


@pytest.mark.parametrize("selector", [
    {"lines": "1-"}, {"byte_range": "0-"}, {"byte_range": "30-"}, {"path": "$.rows[40:]"},
    {"path": "$.rows[41]"}, {"path": "$.rows"}, {"path": "$.meta"},
])
def test_a_page_of_a_lazy_redacted_view_is_the_page_of_the_whole_parse(
    selector: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``elision_fetch`` pages of a body read lazily and redacted a piece at a time (its view
    a lazy copy: lines= and bytes= read its piecewise serialization, a path its windows)
    are the pages of the body parsed whole and redacted whole."""
    import hashlib

    from elision.budget import Budget
    from elision.store import fetch

    rows = [f"sk-{i}" if i % 41 else "tok " + _TOKEN for i in range(60)]
    meta = {f"k{i:03d}": i for i in range(70)} | {"z": _TOKEN}
    body = orjson.dumps({"rows": rows, "meta": meta})
    shrink(monkeypatch)
    monkeypatch.setattr(lazyjson, "PIECE_BYTES", 64)

    def page(lazy: bool) -> str:
        fetch._cache = None
        fetch._views.clear()
        monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0 if lazy else 1 << 62)
        return fetch.shape_page(
            body, ref="elision://r/lazywalk", sha256=hashlib.sha256(body).hexdigest(),
            format="json", budget=Budget(4096), **selector,  # type: ignore[arg-type]
        ).text

    monkeypatch.setattr(lazyjson, "LAZY_BYTES", 0)
    view = redact_value(lazyjson.parse_document(body), body=body).value
    assert lazyjson.is_lazy(view) and lazyjson.is_lazy(view["rows"]), "a lazy copy is paged"
    try:
        whole = page(lazy=False)
        assert page(lazy=True) == whole
        assert _TOKEN not in whole
    finally:
        fetch._cache = None
        fetch._views.clear()


def test_a_kept_lazy_view_keeps_nothing_its_pages_read() -> None:
    """A page of a kept lazy view reads a copy of it: the kept view held every child a page
    read (0.34x the body after 280 pages of a 650 KB record array; red before: its parsed
    children grew a page)."""
    import hashlib

    from elision.budget import Budget
    from elision.store import fetch

    rows = [{"id": i, "note": f"sk-{i}"} for i in range(4000)] + [{"k": _TOKEN}]
    body = orjson.dumps(rows)
    ref, sha = "elision://r/kept", hashlib.sha256(body).hexdigest()
    fetch._cache = None
    fetch._views.clear()
    try:
        for index in range(0, 4000, 400):
            page = fetch.shape_page(body, ref=ref, sha256=sha, format="json",
                                    budget=Budget(4096), path=f"$[{index}]")
            assert f"sk-{index}" in page.text
        kept = fetch._views[ref].value
        assert lazyjson.is_lazy(kept)
        assert len(kept._parsed) <= 1  # what the first page's shaping read, at most
    finally:
        fetch._cache = None
        fetch._views.clear()


def _page_of(body: bytes, ref: str, **selector: str) -> str:
    import hashlib

    from elision.budget import Budget
    from elision.store import fetch

    return fetch.shape_page(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(),
                            format="json", budget=Budget(4096), **selector).text  # type: ignore[arg-type]


def test_a_later_page_of_a_kept_lazy_view_copies_what_nothing_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A later ``bytes=`` page of a kept lazy view copies the pieces the walk left alone
    from the body (their bytes are their serialization, as the first page found): it parses
    and writes only the piece that holds the stub. Red before: every page parsed and wrote
    every piece again (23-27 ms a page of 1 MB, where the view kept parsed took 3-5 ms)."""
    from elision.shape import jsondump
    from elision.store import fetch

    body = _bodies(256 << 10)["sk-strings"]
    ref = "elision://r/verbatim"
    fetch._cache = None
    fetch._views.clear()
    try:
        first = _page_of(body, ref, byte_range="0-")
        assert lazyjson.is_lazy(fetch._views[ref].value), "the lazy view is kept"
        written: list[int] = []
        real_parse, real_dumps = lazyjson.parse_json, jsondump.dumps_value

        def parse(data: Any, *args: Any, **kwargs: Any) -> Any:
            written.append(len(data))
            return real_parse(data, *args, **kwargs)

        def dumps(value: Any) -> bytes:
            out = real_dumps(value)
            written.append(len(out))
            return out

        monkeypatch.setattr(lazyjson, "parse_json", parse)
        monkeypatch.setattr(jsondump, "dumps_value", dumps)
        later = [_page_of(body, ref, byte_range=f"{k}-") for k in (0, 1000, len(body) - 300)]
        assert later[0] == first
        assert _TOKEN not in "".join(later)
        # The piece with the stub, each page: never the body again.
        assert sum(written) <= 3 * 3 * lazyjson.PIECE_BYTES, f"{sum(written):,} bytes"
    finally:
        fetch._cache = None
        fetch._views.clear()


def _page_or_error(body: bytes, selector: dict[str, str]) -> str:
    from elision.errors import SelectorError

    try:
        return _page_of(body, "elision://r/pages", **selector)
    except SelectorError as exc:  # past the end of the view: the same error either way
        return str(exc)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_documents(), min_size=1, max_size=30), st.integers(8, 400),
       st.sampled_from(["compact", "indented", "escaped"]),
       st.lists(st.tuples(st.integers(0, 1 << 12), st.integers(0, 600) | st.none()),
                min_size=1, max_size=4))
def test_every_page_of_a_kept_lazy_view_is_the_page_of_the_whole_parse(
    rows: list[Any], piece: int, spelling: str, ranges: list[tuple[int, int | None]]
) -> None:
    """Pages of a kept lazy view (the first learns which pieces are their own bytes, the next
    ones copy those) are the pages of the body parsed whole and redacted whole, whether its
    pieces are compact, indented or spell a ``/`` as an escape (never copied)."""
    from elision.store import fetch

    value = {"rows": rows, "next": "a/b"}
    body = orjson.dumps(value, option=orjson.OPT_INDENT_2 if spelling == "indented" else 0)
    if spelling == "escaped":
        body = body.replace(b"/", b"\\/")  # outside a string JSON has no "/"
    size = len(orjson.dumps(value))
    selectors = [{"lines": "1-"}] + [
        {"byte_range": f"{k % size}-" + ("" if n is None else str(k % size + n))}
        for k, n in ranges
    ]
    with pytest.MonkeyPatch.context() as mp:
        shrink(mp)
        mp.setattr(lazyjson, "PIECE_BYTES", piece)

        # Under LAZY_BYTES a view is kept between pages: the lazy route is taken by structure.
        mp.setattr(lazyjson, "LAZY_BYTES", 1 << 62)
        mp.setattr(lazyjson, "LAZY_COST", -1.0)

        def pages(lazy: bool) -> list[str]:
            fetch._cache = None
            fetch._views.clear()
            mp.setattr(lazyjson, "STRUCTURE_BYTES", 0 if lazy else 1 << 62)
            try:
                texts = [_page_or_error(body, s) for s in selectors * 2]
                kept = fetch._views.get("elision://r/pages")
                if lazy and kept is not None and kept.withheld and lazyjson.is_lazy(kept.value):
                    assert lazyjson.written_size(kept.value) is not None, "written whole once"
                return texts
            finally:
                fetch._cache = None
                fetch._views.clear()

        assert pages(lazy=True) == pages(lazy=False)


def test_a_page_of_the_first_bytes_of_a_kept_lazy_view_writes_about_its_page() -> None:
    """A ``bytes=`` page near the start of a kept lazy view, once the view was written whole
    (its length is known, and it is one line), writes only as far as the page reaches: its
    tracemalloc peak is about the page, not the body. Red before: every page wrote all of it
    (the serialization and the selection beside it, about 1x the body)."""
    from elision.store import fetch

    body = _bodies(256 << 10)["sk-strings"]
    ref = "elision://r/first-bytes"
    fetch._cache = None
    fetch._views.clear()
    try:
        _page_of(body, ref, lines="1-")  # redacts, keeps the view, writes it whole once
        for spec in ("0-999", "20000-20999"):
            _page_of(body, ref, byte_range=spec)  # what a first call makes once (imports)
            tracemalloc.start()
            try:
                page = _page_of(body, ref, byte_range=spec)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert '"sk-"' in page
            assert peak < len(body) // 4, f"{peak / len(body):.2f}x the body"
        ends = _page_of(body, ref, byte_range=f"{len(body) - 400}-")
        assert "[credential withheld: github-token]" in ends and _TOKEN not in ends
    finally:
        fetch._cache = None
        fetch._views.clear()
