"""JSON texts for the lazy read's differential tests (elision.shape.lazyjson), and the
thresholds that make a few KB of them take every lazy route."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import strategies as st

from elision.shape import lazyjson

_SPELLINGS = ["0", "-0", "1.10", "1E5", "2e-7", "1e400", "12345678901234567890123", "-17",
              "3.141592653589793238", "0.5", "100"]
_KEYS = ["id", "name", "total", "warnings", "next_cursor", "a:b", "k", "é", "_elision"]


@st.composite
def json_text(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text with the spellings, spaces, escapes and repeats a real tool may write."""
    ws = draw(st.sampled_from(["", " ", "\n  "]))
    kind = draw(st.integers(0, 9 if depth < 3 else 4))
    if kind == 0:
        return draw(st.sampled_from(_SPELLINGS))
    if kind == 1:
        return draw(st.sampled_from(["true", "false", "null"]))
    if kind in (2, 3, 4):
        value = draw(st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]),
                             max_size=12))
        quoted = orjson.dumps(value).decode()
        return quoted.replace("/", "\\/") if draw(st.booleans()) else quoted
    if kind in (5, 6):
        items = draw(st.lists(json_text(depth + 1), max_size=8))
        return "[" + ws + ("," + ws).join(items) + ws + "]"
    members = draw(st.lists(
        st.tuples(st.sampled_from(_KEYS) | st.text("abcxyz", min_size=1, max_size=6),
                  json_text(depth + 1)),
        max_size=10,
    ))
    inner = ("," + ws).join(f"{orjson.dumps(k).decode()}:{ws}{v}" for k, v in members)
    return "{" + ws + inner + ws + "}"


def shrink(patch: pytest.MonkeyPatch, *, every_key_collides: bool = True) -> None:
    """Thresholds small enough that a few KB exercise every lazy node: lazy arrays and
    objects, dense objects read in runs (and, by default, the second look at colliding keys).
    ``LAZY_BYTES`` is left alone: a differential test sets it to take one route or the other."""
    patch.setattr(lazyjson, "NODE_BYTES", 48)
    patch.setattr(lazyjson, "BATCH_BYTES", 96)
    patch.setattr(lazyjson, "SAMPLE_BYTES", 24)
    if every_key_collides:
        patch.setattr(lazyjson, "BITMAP_BYTES", 1)
