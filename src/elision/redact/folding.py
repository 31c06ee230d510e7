"""Chars that Unicode case folding reads as an ASCII letter: a name spelled with one is that name.

The precise rules read credential names case-insensitively, and so do programs that compare
names with Unicode case folding: to them ``api_\\u212aey`` (a KELVIN SIGN for the ``k``) is
``api_key``, ``pa\\u017f\\u017fword`` (LONG S) is ``password``, and ``(?i)i`` matches both the
DOTLESS I (U+0131) and the DOTTED CAPITAL I (U+0130): ``M\\u0130STRAL_API_KEY`` was withheld by
no rule while only the dotless one was folded. Each of these chars folds to
one ASCII letter, so a folded copy of a text has the same length and offsets as the text: the
triggers are searched and the rules run on the copy, and the spans found there are the text's.
The chars that fold to two letters (``ß``, the ``ﬁ`` ligatures) would move offsets, and no
regex engine here reads them as ASCII; they are not folded here: :mod:`elision.redact.compat`
reads them (and full-width forms and invisible chars) with a map back to the text's offsets,
and its byte search tells a body that holds one of these.
"""

from __future__ import annotations

#: Each char whose case folding (or whose case-insensitive match in ``re``) is one ASCII letter.
FOLDS = {"\u212a": "k", "\u017f": "s", "\u0131": "i", "\u0130": "i"}
_TABLE = str.maketrans(FOLDS)


def fold(text: str) -> str:
    """``text`` with each of :data:`FOLDS` replaced by its ASCII letter (the same length)."""
    if text.isascii() or not any(char in text for char in FOLDS):
        return text
    return text.translate(_TABLE)


#: :func:`holds_lowered` lower-cases this many chars at a time.
LOWER_WINDOW = 64 << 10


#: The most chars :func:`lowered` lowers at a time (their buffer: 48 KB).
LOWERED_CHUNK = 4096


def lowered(text: str) -> str:
    """``text.lower()``, lower-cased a window at a time where ``text`` is not ASCII: CPython
    lowers a text past ASCII through a buffer of 12 bytes a char (three UCS-4 chars each), so
    a 32 KB YAML list of ``- hünter2x`` peaked at 13x its size under the regex passes (issue
    23). Each window ends after a line break or a space (:func:`_window_end`): no char's
    lower case reads context past one (a final sigma's reads cased and case-ignorable chars
    only), so the windows lowered apart are the text lowered whole."""
    if text.isascii() or len(text) <= LOWERED_CHUNK:
        return text.lower()
    parts: list[str] = []
    at = 0
    while at < len(text):
        end = _window_end(text, at)
        parts.append(text[at:end].lower())
        at = end
    return "".join(parts)


def _window_end(text: str, at: int) -> int:
    """Where :func:`lowered`'s window from ``at`` ends: after the last line break, else the
    last space, of the :data:`LOWERED_CHUNK` chars from ``at``; the text's end where it comes
    first or neither is there (the rest is lowered whole)."""
    end = at + LOWERED_CHUNK
    if end >= len(text):
        return len(text)
    cut = text.rfind("\n", at, end)
    if cut < 0:
        cut = text.rfind(" ", at, end)
    return len(text) if cut < 0 else cut + 1


def holds_lowered(text: str, word: str) -> bool:
    """``word in text.lower()`` for a lower-case ``word`` without a lowered copy of all of
    ``text``: a window at a time, each read ``len(word) - 1`` chars past its end."""
    reach = LOWER_WINDOW + len(word) - 1
    return any(word in text[at : at + reach].lower()
               for at in range(0, max(len(text), 1), LOWER_WINDOW))
