"""Following `next` through a text whose one line is larger than the budget always ends.

A line that cannot fit is cut; pointing the next page at that line by number would serve the
same page forever, so the rest of a cut line is fetched by bytes.
"""

from __future__ import annotations

import pytest

from elision import Budget, shape
from elision.store import MemoryStore
from elision.store.fetch import parse_next


def _walk(store: MemoryStore, ref: str, first_next: str, limit: int) -> list[str]:
    pages, call = [], first_next
    for _ in range(500):
        args = parse_next(call)
        assert args.pop("ref") == ref
        selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
        page = store.fetch(ref, budget=Budget(limit), **selector)
        assert len(page.body) <= limit
        pages.append(page.text)
        if page.envelope is None or "next" not in page.envelope:
            return pages
        call = page.envelope["next"]
    raise AssertionError("the walk did not end")


@pytest.mark.parametrize(
    "body",
    [
        b"short\n" + "é".encode() * 3000 + b"\nend\nmore\n",  # a long line of 2-byte chars
        b"x" * 20_000,  # one line, no line ending at all
        b"a\n" + b"y" * 9000 + b"\r\n" + b"z" * 9000 + b"\r\nlast\r\n",  # two long CRLF lines
    ],
)
def test_walking_a_text_with_a_line_over_the_budget_ends(body: bytes) -> None:
    store = MemoryStore()
    shaped = shape(body, Budget(512), store=store, format="text")
    assert shaped.ref is not None and shaped.envelope is not None
    pages = _walk(store, shaped.ref, shaped.envelope["next"], 512)
    last_line = body.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].decode()
    assert pages[-1].rstrip("\r\n").endswith(last_line[-40:])
