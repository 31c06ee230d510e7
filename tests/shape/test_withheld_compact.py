"""A text's withheld entries are held compact on the pipeline's path (issue 23).

Found by ``bench/floor.py``: just under the density bound (a ``password=`` value every 41
bytes, 25,000 withheld values a MB) a slice, a stub and one dict a value already cost 10.2x
the text, and the dict ``{"line": N, "reason": r}`` was the floor's largest part; shape() of
such a text peaked at 8.1x it (tracemalloc). Nothing on the path reads an entry as a dict:
the envelope lists them condensed, the audit counts them by reason, a page condenses its own.
Here the compact form is checked against the list of dicts it stands for, by what each
consumer gives, and its peak counted (tracemalloc, not a clock).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.audit.stage import LogAuditor
from elision.budget import Budget
from elision.pipeline import Decision, Pipeline, condense_withheld
from elision.redact import bodyview
from elision.redact.rules import Span
from elision.redact.scan import SpanArrays, _merge, find_spans
from elision.shape import shape
from elision.store import fetch
from elision.store.memory import MemoryStore
from elision.withheld import Chained, LineEntries, count_reasons
from support.engines import hyperscan_only
from support.spans import span_lists
from support.traced import peak

_TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"


def _under_limit(size: int) -> bytes:
    line = b"password=hunter2 " + b"x" * 23 + b"\n"  # bench/fuzz_linear.py: assign-under-limit
    return line * (size // len(line))


@hyperscan_only("with the regex passes shape() of this text peaks at 4.8x (their search's own "
                "lists of matches, not measured apart): the bound is the hyperscan path's")
def test_shaping_a_text_of_a_withheld_value_a_line_holds_no_dict_a_value() -> None:
    """Red before: 8.1x the body through shape() and redact_and_shape(): 25,000 dicts a MB
    (5.5x), a Span and its two offsets a value (3.5x) and the trigger positions as int
    objects (0.9x) among it; now 2.9x."""
    body = _under_limit(128 << 10)
    pipeline = Pipeline(budget=Budget(4096))
    capture = pipeline.capture(body)
    shaped, withheld = pipeline.redact_and_shape(capture)  # caches and databases, made
    assert isinstance(withheld, LineEntries) and len(withheld) == body.count(b"\n")
    del shaped, withheld
    assert peak(lambda: shape(body, Budget(4096))) < 3.5 * len(body)


# ------------------------------------------------------------ the same as the list of dicts

@contextmanager
def _as_dicts() -> Iterator[None]:
    """The redaction's entries as the list of dicts they stand for (the form before)."""
    made = bodyview.redact_body

    def listed(body: bytes, text: str | None = None) -> tuple[bytes, list[dict[str, Any]]]:
        value, withheld = made(body, text)
        return value, list(withheld)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bodyview, "redact_body", listed)
        yield


class _Log:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def append(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)


def _seen(body: bytes, limit: int, pages: list[dict[str, str]]) -> str:
    """What a consumer sees of ``body``: the text and envelope, the audit entry's counts,
    pages; the ref (random) written as ``REF``."""
    log = _Log()
    pipeline = Pipeline(budget=Budget(limit), store=MemoryStore(),
                        auditor=LogAuditor(log))  # type: ignore[arg-type]
    shaped = pipeline.run(body, scope="s")
    seen: list[Any] = [shaped.text, shaped.envelope, log.entries[0].get("withheld")]
    if shaped.ref is None:
        return repr(seen)  # shown whole: nothing to fetch
    sha = hashlib.sha256(body).hexdigest()
    for cached in (True, False):  # the view the pipeline kept, and one made by the page
        if not cached:
            fetch._views.pop(shaped.ref, None)
        for page in pages:
            got = fetch.shape_page(body, ref=shaped.ref, sha256=sha, format="text",
                                   budget=Budget(limit), **page)
            seen.append((got.text, got.envelope))
    return repr(seen).replace(shaped.ref, "REF")


_PIECES = st.sampled_from([
    "ok ", "café ", "\n", "\r\n", "\r", f"token={_TOKEN}", "password=hunter2 ",
    "api_key=abc\n", "https://u:p@example.com/x ", "-----BEGIN PRIVATE KEY-----\nMIIE\n",
    "-----END PRIVATE KEY-----\n", "x" * 300, "Bearer abcdefghijklmnop1234 ",
])


@st.composite
def _texts(draw: st.DrawFn) -> bytes:
    parts = draw(st.lists(_PIECES, min_size=1, max_size=30))
    repeat = draw(st.sampled_from([1, 1, 40, 200]))  # many entries, a dense stretch now and then
    return ("".join(parts) * repeat).encode()


@settings(max_examples=40, deadline=None)
@given(_texts(), st.sampled_from([512, 2048, 65536]),
       st.sampled_from([{}, {"lines": "1-3"}, {"byte_range": "0-200"}]))
@example(_under_limit(4096), 512, {})
@example(("api_key=abc\n" * 300 + f"token={_TOKEN}\n" * 5).encode(), 2048, {})
def test_compact_entries_show_what_the_list_of_dicts_showed(
    body: bytes, limit: int, page: dict[str, str],
) -> None:
    """The envelope, the audit's counts and the fetched pages (from the view the pipeline
    kept and from one made afresh) are the same whichever form the entries are held in."""
    compact = _seen(body, limit, [page])
    with _as_dicts():
        listed = _seen(body, limit, [page])
    assert compact == listed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 1 << 33), st.sampled_from(["a", "b", "dense"]),
                          st.booleans()), max_size=40),
       st.integers(512, 16384))
def test_line_entries_read_as_their_dicts(
    made: list[tuple[int, str, bool]], limit: int,
) -> None:
    """Lines past 2**32 (the array widens) and any order of reasons: each item, the counts
    and the condensed envelope list are what the dicts give."""
    entries = LineEntries()
    dicts: list[dict[str, Any]] = []
    for line, reason, sized in made:
        entries.append(line, reason, line % 97 if sized else None)
        dicts.append({"line": line, "reason": reason} | ({"bytes": line % 97} if sized else {}))
    assert list(entries) == dicts and entries == dicts and entries[-3:] == dicts[-3:]
    assert [entries[i] for i in range(-len(dicts), len(dicts))] == dicts + dicts
    assert count_reasons(entries) == dict(Counter(d["reason"] for d in dicts))
    assert condense_withheld(entries, Budget(limit)) == condense_withheld(dicts, Budget(limit))
    key, other = {"path": "$", "reason": "key"}, {"path": "$.x", "reason": "key"}
    joined = Chained([key])
    joined.extend(entries)
    joined.append(other)
    assert list(joined) == [key, *dicts, other] and joined[len(dicts)] == (dicts or [key])[-1]
    assert count_reasons(joined) == count_reasons(list(joined))


# ------------------------------------------------------------------ spans held as numbers

@given(span_lists(14), st.booleans())
def test_span_arrays_merge_as_the_list_does(spans: list[Span], by_start: bool) -> None:
    """In the order of their starts (as a long text's pieces find them, a span found twice
    where a line is judged twice) the arrays are merged in place; in another order they say
    so and the list is merged."""
    if by_start:
        spans.sort(key=lambda s: s.start)  # stable: equal starts in the order found
    found = SpanArrays()
    found.extend(spans)
    merged = found.merge()
    # An empty span (the search finds none) is left to the list's merge, which keeps it.
    assert merged or not by_start or any(s.start == s.end for s in spans)
    if merged:
        assert list(found) == _merge(list(spans))
    else:
        assert list(found) == spans


@settings(max_examples=40, deadline=None)
@given(_texts())
@example(_under_limit(64 << 10))
def test_compact_spans_are_the_spans(body: bytes) -> None:
    text = body.decode()
    assert list(find_spans(text, body, compact=True)) == find_spans(text, body)


class _DumpingAuditor:
    """An auditor of the user's own, which writes the record's envelope with orjson (a real
    list only: it serializes no other sequence)."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def record(self, record: Any) -> None:
        self.lines.append(orjson.dumps(record.shaped.envelope))


def test_an_auditor_of_ones_own_gets_the_entries_as_a_list() -> None:
    """Red on the first merge of the compact form: ``Pipeline.audit`` put the compact entries
    into every auditor's record, and a user's auditor that wrote the envelope with orjson
    raised TypeError (the front ends audit a call this way). Only the log's own auditor,
    which counts them by reason, takes them compact."""
    body = _under_limit(8192)
    mine = _DumpingAuditor()
    pipeline = Pipeline(budget=Budget(1024), auditor=mine)
    capture = pipeline.capture(body)
    shaped, withheld = pipeline.redact_and_shape(capture)
    assert isinstance(withheld, LineEntries)
    pipeline.audit(capture, shaped, Decision(), withheld)
    listed = orjson.loads(mine.lines[0])["withheld"]
    assert listed == [dict(entry) for entry in withheld]
    log = _Log()
    ours = Pipeline(budget=Budget(1024), auditor=LogAuditor(log))  # type: ignore[arg-type]
    ours.audit(capture, shaped, Decision(), withheld)
    assert log.entries[0]["withheld"] == dict(count_reasons(withheld))
