"""What redacting a dense text through ``shape()`` holds at its peak (issue 23: text's
target is 1.5x the input).

Found by the memtext task: the dense text rows of ``bench/fuzz_linear.py`` through
``shape()`` (bench/README.md's last table: 6-10x a MB in RSS), each row's call traced with
tracemalloc and a snapshot taken wherever the traced peak rose, grouped by traceback. Each
test here is a row of that table at a small size, bounded where the code before was over."""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given, settings

from elision import Budget, shape
from elision.redact import triggers
from elision.redact.rules import Span
from elision.redact.scan import SpanArrays, _merge
from elision.redact.textbytes import text_bytes
from support.spans import span_lists
from support.traced import peak

KB = 1 << 10

_WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "result", "row",
          "value", "status", "error", "request", "replica", "latency", "partition", "cache")


def _french_typeset(size: int) -> str:
    """NFD prose as French is typeset (bench/fuzz_linear.py: nfd-french-typeset): an accent
    a word or so, a curly apostrophe, guillemets with no-break spaces inside them."""
    rng = random.Random(5)
    lines = [" ".join(rng.choice(_WORDS) for _ in range(12)) for _ in range(size // 60)]
    text = "\n".join(lines).replace(" the ", " l\u2019the ")
    text = text.replace(" fox ", " \u00ab\u00a0fox\u00a0\u00bb ")
    return text.replace("e", "e\u0301").replace("a", "a\u0300")[:size]


def _traced(text: str) -> float:
    """``shape()`` of ``text``'s traced peak, over its UTF-8 size, in a process warmed by
    the same call: databases, caches and the verdicts a text may keep are made, not counted
    (they are bounded, and at a small size would be the most of what is counted)."""
    shape(text, Budget(4096))
    return peak(lambda: shape(text, Budget(4096))) / len(text.encode())


def test_french_as_typeset_is_folded_without_a_copy_a_stretch() -> None:
    """The fold of NFD French as typeset (compat._marks_among) held a decoded copy of the
    body with its marks dropped, a str a stretch between two runs (an object each), the runs'
    offsets as int objects and its map, a byte a char, at once; the trigger search then
    encoded the fold whole (3 bytes a char at the encoder's peak). 5.9x the text before,
    4.7x after (128 KB; 4.0x at 1 MB); with the regex passes, 6.4x and 5.5x: their trigger
    search holds a lowered copy of the fold, made a window at a time and joined
    (folding.lowered)."""
    text = _french_typeset(128 * KB)
    assert _traced(text) < (5.2 if triggers.engine_name() == "hyperscan" else 6.0)


def _fcm_glued(size: int) -> str:
    """FCM keys glued end to end, one line (bench/fuzz_linear.py: fcm-glued): each key's
    boundary refused, each found by the chain back from the next."""
    line = base64.b64encode(bytes(range(48))).decode()
    unit = "AAAA" + "b" * 7 + ":APA91b" + line * 3
    return unit * (size // len(unit))


def test_fcm_keys_glued_end_to_end_are_merged_as_numbers() -> None:
    """A chain of glued keys is found back from its last link, out of order: the spans were
    all made a Span each to be sorted and merged (1.6x a MB); and while the chain was
    followed, each match's span a tuple, each value a copy of its chars and the links read
    a set were held at once. 4.9-5.2x the text before, 4.0x after (128 KB, either engine)."""
    text = _fcm_glued(128 * KB)
    assert _traced(text) < 4.6


@settings(max_examples=60)
@given(span_lists(max_size=20))
def test_spans_in_any_order_merge_as_numbers_as_a_list_does(spans: list[Span]) -> None:
    """``SpanArrays.merged`` (the out-of-order spans' merge, one int key a span) gives what
    ``_merge`` gives of the same list: overlapping, touching, empty and repeated spans, the
    first to start names them, the longer on a tie, the first found of equals."""
    arrays = SpanArrays()
    arrays.extend(spans)
    assert list(arrays.merged()) == _merge(list(spans))


@pytest.mark.parametrize("text", [
    pytest.param("caf\u00e9 " * 40_000, id="latin-1"),
    pytest.param("l\u2019the \u00ab\u00a0fox\u00a0\u00bb " * 9_000, id="two-bytes-a-char"),
    # Astral chars and lone surrogates across the chunks' edges (each is one char here).
    pytest.param(("a\U0001f389" * 3 + "\ud800") * 30_000, id="astral-and-surrogates"),
    pytest.param("x" * ((1 << 16) - 1) + "\u00e9" + "y" * 70_000, id="a-char-at-a-chunk-edge"),
])
def test_a_long_text_past_ascii_is_encoded_a_chunk_at_a_time_as_whole(text: str) -> None:
    assert text_bytes(text) == text.encode("utf-8", "surrogatepass")
