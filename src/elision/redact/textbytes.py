"""An ASCII text's own bytes, searched without a UTF-8 copy.

The trigger search reads bytes (hyperscan, and the ``re`` patterns it runs after it), and a
``str`` is not a buffer: ``text.encode()`` copied every text it searched, so redacting 1 MB of
prose held 2 MB (issue 23: text's target is 1.5x the input). An ASCII ``str`` in CPython keeps
its chars as one byte each, which are its UTF-8; ``PyUnicode_AsUTF8AndSize`` hands out that
buffer itself for such a string (it copies only for one that is not ASCII, and keeps the copy
for the string's life, so it is never asked for one). :class:`AsciiBytes` is that buffer, read
only, with the few ``bytes`` methods the search calls answered by the ``str``'s own (each
offset is the same in both). Where the buffer cannot be had (another Python, a string that is
not ASCII) the text is encoded as before.
"""

from __future__ import annotations

import io
import sys
from typing import Any, overload

_AS_UTF8: list[Any] = []  # PyUnicode_AsUTF8AndSize, or None: looked up on first use


def _as_utf8() -> Any:
    # ctypes is imported on the first long text, not with elision.redact: a short-lived
    # process (the hook, issue 24) never pays for it.
    if not _AS_UTF8:
        found: Any = None
        if sys.implementation.name == "cpython":  # elsewhere the call may hand out a copy
            import ctypes

            try:
                found = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
                found.restype = ctypes.c_void_p
                found.argtypes = [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
            except (AttributeError, OSError):
                found = None
        _AS_UTF8.append(found)
    return _AS_UTF8[0]


#: A text shorter than this is encoded: a copy of a few KB costs less than the ctypes calls.
_LEAST = 1 << 14


class AsciiBytes:
    """An ASCII ``str`` read as bytes: :attr:`view` is its buffer (for hyperscan and ``re``),
    and ``find``, ``count``, ``len`` and indexing answer as on ``text.encode()``."""

    __slots__ = ("text", "view")

    def __init__(self, text: str, view: memoryview) -> None:
        self.text = text
        self.view = view

    def __len__(self) -> int:
        return len(self.text)

    def find(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        return self.text.find(sub.decode("ascii"), start,
                              len(self.text) if end is None else end)

    def count(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        return self.text.count(sub.decode("ascii"), start,
                               len(self.text) if end is None else end)

    @overload
    def __getitem__(self, at: int) -> int: ...
    @overload
    def __getitem__(self, at: slice) -> bytes: ...
    def __getitem__(self, at: int | slice) -> int | bytes:
        if isinstance(at, slice):
            return self.text[at].encode("ascii")
        return ord(self.text[at])


def text_bytes(text: str) -> bytes | AsciiBytes:
    """``text`` in UTF-8: its own buffer where it is ASCII (no copy), else encoded."""
    if len(text) < _LEAST:
        return text.encode("utf-8", "surrogatepass")
    if not text.isascii():
        return _encoded(text)
    if _as_utf8() is None:
        return text.encode("utf-8", "surrogatepass")
    import ctypes

    size = ctypes.c_ssize_t()
    address = _as_utf8()(text, ctypes.byref(size))
    if not address or size.value != len(text):
        return text.encode("utf-8", "surrogatepass")
    chars = (ctypes.c_char * size.value).from_address(address)
    # The array does not own the memory: it keeps the string alive for as long as any view
    # of it is held, so the buffer is never read after the string is freed.
    chars.text = text  # type: ignore[attr-defined]
    view = memoryview(chars).cast("B").toreadonly()
    return AsciiBytes(text, view)


def buffer(data: bytes | AsciiBytes) -> bytes | memoryview:
    """What hyperscan and ``re`` read: the bytes, or the ASCII text's own buffer."""
    return data.view if isinstance(data, AsciiBytes) else data


#: The chars of a long text past ASCII encoded at once (:func:`_encoded`).
_CHUNK = 1 << 16


def _encoded(text: str) -> bytes:
    """``text.encode("utf-8", "surrogatepass")``, a chunk at a time into one buffer: the
    encoder allocates the most a char can take (3 bytes a char of a text with a char past
    U+00FF, 4 past U+FFFF) before it shrinks to what it wrote, which for a whole 1 MB text of
    NFD French folded was 2.5x the text beside it (issue 23)."""
    out = io.BytesIO()
    for at in range(0, len(text), _CHUNK):
        out.write(text[at:at + _CHUNK].encode("utf-8", "surrogatepass"))
    return out.getvalue()  # the buffer itself, read once whole: no copy
