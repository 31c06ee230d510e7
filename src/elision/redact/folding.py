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

import re

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


def lowered(text: str) -> str:
    """``text.lower()``, lower-cased a window at a time where ``text`` is not ASCII: CPython
    lowers a text past ASCII through a buffer of 12 bytes a char (three UCS-4 chars each), so
    a 32 KB YAML list of ``- hünter2x`` peaked at 13x its size under the regex passes (issue
    23). Only a capital sigma's lower case reads the chars around it (final or not), and
    none past a char that is neither cased nor case-ignorable; so without one the windows
    are cut anywhere, and with one each ends after such a char (:data:`_CUT`): the windows
    lowered apart are the text lowered whole."""
    if text.isascii() or len(text) <= LOWERED_CHUNK:
        return text.lower()
    sigma = "\u03a3" in text
    parts: list[str] = []
    at = 0
    while at < len(text):
        end = at + LOWERED_CHUNK
        if end >= len(text):
            end = len(text)
        elif sigma:
            cut = _CUT.match(text, at, end)
            end = len(text) if cut is None else cut.end()  # no cut: the rest whole
        parts.append(text[at:end].lower())
        at = end
    return "".join(parts)


#: The most chars :func:`lowered` lowers at a time (their buffer: 48 KB).
LOWERED_CHUNK = 4096
#: Up to the last char of a window that is neither cased nor case-ignorable (a sigma's
#: context ends at it): a line break, a space or a tab, a digit, ``,;/=_-``.
_CUT = re.compile(r"(?s).*[\n\t 0-9,;/=_-]")


def holds_lowered(text: str, word: str) -> bool:
    """``word in text.lower()`` for a lower-case ``word`` without a lowered copy of all of
    ``text``: a window at a time, each read ``len(word) - 1`` chars past its end."""
    reach = LOWER_WINDOW + len(word) - 1
    return any(word in text[at : at + reach].lower()
               for at in range(0, max(len(text), 1), LOWER_WINDOW))
