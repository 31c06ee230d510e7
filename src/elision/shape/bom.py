"""Bodies that open with a byte order mark: read in the encoding the mark names.

A text saved as UTF-16 or UTF-32 (PowerShell's ``Out-File``, a Windows ``.env``, a
``reg export``) opens with a byte order mark. Read as UTF-8 it is a NUL between every letter,
and no redaction rule sees the token in it. So a body that opens with the mark of UTF-16 or
UTF-32 is decoded by it and re-encoded as UTF-8 before any stage reads it: the guard judges,
the redaction rules scan, the store keeps and the model is shown that UTF-8, with a note
that says so (:func:`from_bom`), since what the model reads is not the tool's bytes. A UTF-8
mark changes no byte: the body is kept as it came, mark and all.

A tool may have decoded such bytes as 8-bit text before elision sees them (an MCP server that
reads a file with ``errors="replace"`` or as Latin-1 returns a string): the mark then shows as
``ÿþ``, ``þÿ`` or two U+FFFD, and a NUL sits between the letters. Such a text, when its NULs
fall where UTF-16 or UTF-32 puts them, is turned back into those bytes and read by the mark
too; a text that merely opens with those chars is left alone.

Bytes the named encoding cannot decode (an odd length of UTF-16) become U+FFFD, counted in
the note. The marks are tested longest first: ``FF FE 00 00`` is UTF-32LE, not UTF-16LE.
"""

from __future__ import annotations

import codecs

#: (mark, Python codec, the name the note gives it), longest mark first.
MARKS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32BE"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16BE"),
)


def marked_encoding(body: bytes) -> tuple[str, str, int] | None:
    """The codec, its name and the mark's length for a body that opens with a UTF-16 or
    UTF-32 mark, else ``None``."""
    for mark, codec, name in MARKS:
        if body.startswith(mark):
            return codec, name, len(mark)
    return None


def decode_marked(raw: bytes) -> tuple[str, str, int] | None:
    """The text of UTF-16 or UTF-32 bytes that open with their mark (the mark dropped), the
    encoding's name and how many chars had to be replaced; ``None`` without such a mark."""
    found = marked_encoding(raw)
    if found is None:
        return None
    codec, name, skip = found
    text = raw[skip:].decode(codec, "replace")
    bad = text.count("\ufffd") - raw[skip:].decode(codec, "ignore").count("\ufffd")
    return text, name, bad


#: A mark as it reads once a tool has already decoded UTF-16 or UTF-32 bytes as 8-bit text
#: and handed elision the string: FF FE as Latin-1 (``ÿþ``), FE FF, or as two U+FFFD
#: (UTF-8 with ``errors="replace"``, which cannot tell the two byte orders apart). Each is
#: followed by its mark's bytes after the first two (00 00 for UTF-32LE).
_MISREAD = (
    ("\u00ff\u00fe".encode(), b"\xff\xfe"),
    ("\u00fe\u00ff".encode(), b"\xfe\xff"),
    ("\ufffd\ufffd".encode(), b""),
)
#: Units looked at to tell NUL-interleaved text from text that merely opens like a mark.
_PROBE_UNITS = 32


def _unmisread(body: bytes) -> bytes | None:
    """The bytes a string that shows a misread mark was decoded from, when its NULs fall
    where UTF-16 or UTF-32 puts them for text; else ``None``.

    Each char below U+0100 is the byte it was read from; a char past it (a U+FFFD that
    replaced a byte) becomes ``?``: the ASCII of the text, what a token is spelled in, is
    what comes back whole."""
    for shown, mark in _MISREAD:
        if not body.startswith(shown):
            continue
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return None
        raw = bytes(ord(c) if ord(c) < 0x100 else 0x3F for c in text[2:])
        for order in (mark,) if mark else (b"\xff\xfe", b"\xfe\xff"):
            candidate = order + raw
            found = marked_encoding(candidate)
            if found is not None and _interleaved(candidate[found[2]:], found[0]):
                return candidate
    return None


def _interleaved(raw: bytes, codec: str) -> bool:
    """Whether ``raw`` reads as text in ``codec``: in its first units, the bytes UTF-16 or
    UTF-32 gives ASCII as NUL are NUL (nine in ten of them)."""
    width = 4 if "32" in codec else 2
    units = [raw[i:i + width] for i in range(0, min(len(raw), width * _PROBE_UNITS), width)]
    units = [u for u in units if len(u) == width]
    if len(units) < 2:
        return False
    zeros = b"\0" * (width - 1)
    little = codec.endswith("le")
    nul = sum((u[1:] if little else u[:-1]) == zeros for u in units)
    return nul >= 0.9 * len(units)


def from_bom(body: bytes) -> tuple[bytes, str | None]:
    """``body`` as UTF-8, and the note the model is shown when that changed its bytes.

    A body with no UTF-16 or UTF-32 mark comes back as it is, with no note. So does one that
    only opens like a mark a tool misread (``ÿþ``, two U+FFFD) without the NULs of such text.
    """
    decoded = decode_marked(body)
    misread = False
    if decoded is None:
        recovered = _unmisread(body)
        if recovered is None:
            return body, None
        decoded, misread = decode_marked(recovered), True
        assert decoded is not None
    text, name, bad = decoded
    # A lone surrogate (a torn UTF-16 pair) cannot be UTF-8: it is replaced too.
    utf8 = text.encode("utf-8", "surrogatepass")
    try:
        utf8.decode("utf-8")
    except UnicodeDecodeError:
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        bad += fixed.count("\ufffd") - text.count("\ufffd")
        utf8 = fixed.encode("utf-8")
    how = ("a tool had read it as 8-bit text, a NUL between letters; read by the mark it shows"
           if misread else "its byte order mark")
    note = (f"decoded from {name} ({how}) and re-encoded as UTF-8: "
            f"{len(body):,} bytes as the tool sent them, {len(utf8):,} here")
    if bad:
        note += f"; {bad:,} undecodable {'unit' if bad == 1 else 'units'} replaced with U+FFFD"
    return utf8, note
