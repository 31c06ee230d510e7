"""``shape()`` of a text with credentials reads its redaction in place
(:class:`elision.shape.redactedbody.RedactedBody`): what it shows, says and serves as pages is
what the redacted body written whole gave (``redact_body``, as the pipeline wrote it before).

Issue 23: a YAML list of passwords redacts to 3.8x its size, held whole while the text
shaper read its head and tail (6.0x the input traced through ``shape()``). Texts are drawn from
the dense rows' lines (bench/fuzz_linear.py) with prose, CRLF and lone CR endings, blank lines
and multi-byte chars; a first line may make it CSV or NDJSON, which read the view written.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.errors import BudgetError
from elision.redact import bodyview
from elision.store import MemoryStore
from elision.store.fetch import parse_next

_LINES = [
    "  - hunter2x", "password=hunter2 xxxxxxxxxxxxxxxxxxxxxxx", "| bob | hunter2x |",
    "https://Xq7vR2mK9pL4wT8n@h/ https://Xq7vR2mK9pL4wT8n@h/",
    'cookies: [{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}]', "plain words of prose, é and €",
    "", '{"a": 1, "password": "hunter2x"}', "name,password", "x,hunter2x",
]
_HEADS = ["", "passwords:", "| name | password |\n|---|---|", '{"k": 0}', "name,password"]
_ENDS = ["\n", "\r\n", "\r"]


@st.composite
def _texts(draw: st.DrawFn) -> str:
    end = draw(st.sampled_from(_ENDS))
    lines = draw(st.lists(st.sampled_from(_LINES), min_size=1, max_size=120))
    head = draw(st.sampled_from(_HEADS))
    text = end.join([head, *lines] if head else lines)
    return text + draw(st.sampled_from(["", end]))


def _written(body: bytes, text: str | None = None) -> tuple[bytes, Any]:
    return bodyview.redact_body(body, text)


def _shown(
    text: str, budget: Budget, fmt: Any, written: bool, *, kept: bool = True,
) -> list[Any]:
    """The shaped text and envelope, and the first page its ``next`` names (``kept``)."""
    store = MemoryStore() if kept else None
    with pytest.MonkeyPatch.context() as mp:
        if written:
            mp.setattr(bodyview, "redacted_body", _written)
        shaped = shape(text, budget, format=fmt, store=store)
        out: list[Any] = [shaped.text, shaped.complete, shaped.format]
        env = dict(shaped.envelope or {})
        ref = env.pop("ref", None)
        nxt = env.pop("next", None)
        out.append(env)
        if store is not None and ref is not None and nxt is not None:
            args = parse_next(nxt)
            args.pop("ref")
            selector = {("byte_range" if k == "bytes" else k): v for k, v in args.items()}
            try:
                page = store.fetch(ref, budget=budget, **selector)
            except BudgetError as exc:  # a page with no room for a record says so, as before
                out.append(str(exc).replace(ref, "REF"))
            else:
                out.append(page.text.replace(ref, "REF"))
            out.append(nxt.replace(ref, "REF"))
        out[0] = out[0].replace(ref or "\0", "REF")
    return out


@settings(max_examples=120, deadline=None)
@given(_texts(), st.sampled_from([512, 700, 2048, 8192, 1 << 20]),
       st.sampled_from(["auto", "text", "csv", "ndjson"]))
def test_a_text_shaped_through_its_view_is_shaped_as_written(
    text: str, limit: int, fmt: str,
) -> None:
    budget = Budget(limit)
    assert _shown(text, budget, fmt, written=False) == _shown(text, budget, fmt, written=True)


@pytest.mark.parametrize("unit", ["chars", "tokens"])
def test_a_budget_in_other_units_shapes_the_view_as_written(unit: str) -> None:
    # Such a budget is fitted by a search of byte limits: the view is read at each. Not
    # kept: a ref is random, and so are its tokens' count and what fits beside it.
    text = "passwords:\n" + "  - hunter2x\n" * 3000 + "é end\n"
    budget = Budget(900, unit=unit)
    assert _shown(text, budget, "auto", False, kept=False) == _shown(
        text, budget, "auto", True, kept=False)
