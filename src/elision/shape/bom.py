"""Bodies that open with a byte order mark: read in the encoding the mark names.

A text saved as UTF-16 or UTF-32 (PowerShell's ``Out-File``, a Windows ``.env``, a
``reg export``) opens with a byte order mark. Read as UTF-8 it is a NUL between every letter,
and no redaction rule sees the token in it. So a body that opens with the mark of UTF-16 or
UTF-32 is decoded by it and re-encoded as UTF-8 before any stage reads it: the guard judges,
the redaction rules scan, the store keeps and the model is shown that UTF-8, with a note
that says so (:func:`from_bom`), since what the model reads is not the tool's bytes. A UTF-8
mark changes no byte: the body is kept as it came, mark and all.

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


def from_bom(body: bytes) -> tuple[bytes, str | None]:
    """``body`` as UTF-8, and the note the model is shown when that changed its bytes.

    A body with no UTF-16 or UTF-32 mark comes back as it is, with no note.
    """
    decoded = decode_marked(body)
    if decoded is None:
        return body, None
    text, name, bad = decoded
    # A lone surrogate (a torn UTF-16 pair) cannot be UTF-8: it is replaced too.
    utf8 = text.encode("utf-8", "surrogatepass")
    try:
        utf8.decode("utf-8")
    except UnicodeDecodeError:
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        bad += fixed.count("\ufffd") - text.count("\ufffd")
        utf8 = fixed.encode("utf-8")
    note = (f"decoded from {name} (its byte order mark) and re-encoded as UTF-8: "
            f"{len(body):,} bytes as the tool sent them, {len(utf8):,} here")
    if bad:
        note += f"; {bad:,} undecodable {'unit' if bad == 1 else 'units'} replaced with U+FFFD"
    return utf8, note
