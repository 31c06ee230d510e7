"""Credentials written in an encoding: JSON ``\\u`` escapes, percent-encoding, one level of base64.

A token spelled ``\\u0067hp_…`` or ``%67hp_…`` is still a token: :func:`decode_escapes` gives a
view of the text with both kinds of escape decoded, and :meth:`View.original` maps a span found
in the view back to the text, so the stub replaces exactly the escaped spelling.

A base64 value (a Kubernetes Secret's ``data``, an ``.env`` file stored whole) is decoded when it
decodes to text (:func:`base64_text`); a credential found inside withholds the whole value,
since the bytes of one part of a base64 run cannot be cut out of it. Binary runs (images, hashes,
ids) are told apart by their first bytes and are never decoded whole.
"""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from dataclasses import dataclass

_ESCAPE = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})"
    r"|%([0-7][0-9a-fA-F])"
)
#: Bytes read to tell a text from binary data before a run is decoded whole.
_PROBE = 96


@dataclass(frozen=True)
class View:
    """A decoded text and, for each decoded escape, where it is in both texts."""

    text: str
    #: (start in ``text``, start in the original, end in the original), one per escape.
    marks: tuple[tuple[int, int, int], ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of ``text[start:end]``: an escape is kept whole."""
        return self._map(start, False), self._map(end, True)

    def _map(self, pos: int, is_end: bool) -> int:
        starts = [m[0] for m in self.marks]
        i = bisect_right(starts, pos if not is_end else pos - 1) - 1
        if i < 0:
            return pos
        dec, orig_start, orig_end = self.marks[i]
        if is_end and pos == dec + 1:
            return orig_end
        if not is_end and pos == dec:
            return orig_start
        return orig_end + (pos - dec - 1)


def decode_escapes(text: str) -> View | None:
    """``text`` with ``\\uXXXX`` and ASCII ``%XX`` escapes decoded, or ``None`` if it has none."""
    out: list[str] = []
    marks: list[tuple[int, int, int]] = []
    pos = length = 0
    for match in _ESCAPE.finditer(text):
        high, low, single, pct = match.groups()
        if high is not None:
            char = (chr(int(high, 16)) + chr(int(low, 16))).encode(
                "utf-16", "surrogatepass").decode("utf-16")
        else:
            char = chr(int(single or pct, 16))
        plain = text[pos:match.start()]
        out.append(plain)
        length += len(plain)
        marks.append((length, match.start(), match.end()))
        out.append(char)
        length += 1
        pos = match.end()
    if not marks:
        return None
    out.append(text[pos:])
    return View("".join(out), tuple(marks))


def _texty(raw: bytes, *, whole: bool) -> bool:
    text = raw.decode("utf-8", "strict" if whole else "ignore")
    if not text:
        return False
    printable = sum(1 for c in text if c.isprintable() or c in "\t\r\n")
    return printable >= 0.95 * len(text) and (whole or len(text) >= 0.8 * len(raw))


def _decode(body: str) -> bytes | None:
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return None
    if len(body) % 4 == 1:
        body = body[:-1]
    try:
        if urlsafe:
            return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def looks_like_base64_text(run: str) -> bool:
    """Whether a base64 run's first bytes decode to text (cheap: a probe, not the run)."""
    body = run.rstrip("=")
    head = _decode(body[: _PROBE - _PROBE % 4] if len(body) > _PROBE else body)
    return head is not None and _texty(head, whole=False)


def base64_text(run: str) -> str | None:
    """The text a base64 run decodes to, or ``None`` for binary data or a run that is not
    base64 at all."""
    if not looks_like_base64_text(run):
        return None
    raw = _decode(run.rstrip("="))
    if raw is None:
        return None
    try:
        return raw.decode("utf-8") if _texty(raw, whole=True) else None
    except UnicodeDecodeError:
        return None
