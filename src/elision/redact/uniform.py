"""An array of one document written n times, walked as that one document.

An array whose raw bytes are ``[`` and the compact serialization of its first element, then
``,`` and the same bytes again for each other element, and ``]``, holds n equal values: equal
bytes parse to equal values, which the walk treats alike (it reads no context but a node's
own). When the walk of the first withholds nothing and changes nothing, neither does the walk
of any copy, so the array is clean after one document's search and walk. Told with no copy
of the body: the copies are compared in place, a block of them at a time.

The search of the whole serialization made a Python call for each copy's triggers (every
window of ``json-deep-escaped-keys`` dense, each of its keys a ``\\u`` escape), and the split
by the elements' bytes (:mod:`elision.redact.repeats`) decoded the whole body and copied and
hashed each element: 6.1x and 2.7x prose for one document repeated to a MB (issue 23).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elision.redact.walk import Walker

__all__ = ["walk_uniform"]

_Path = tuple[Any, Any] | None
#: The bytes of copies compared at a time (the block is built once: a bound on the copy).
_BLOCK = 1 << 16
#: Bytes of clean elements one walk keeps to compare with (here and in
#: :mod:`elision.redact.repeats`): past it, elements are walked.
REMEMBER_BYTES = 1 << 20


def walk_uniform(
    walker: Walker, value: Any, raw: bytes, *, path: _Path, first: int, piece: bool,
) -> Any | None:
    """``value`` itself when ``raw`` is its every element written alike and the walk of the
    first finds nothing; ``None`` (and ``walker`` as it was) when the array is not so, or
    the first element withholds or changes anything: the caller walks the array."""
    from elision.redact.walk import serialized, walk_parsed

    count = len(value) if isinstance(value, list) else 0
    if count < 2 or not isinstance(value[0], dict | list):
        return None
    size, rest = divmod(len(raw) - 1, count)  # "[" and each element with its "," or "]"
    if rest or raw[size] != 0x2C or raw[:1] != b"[" or raw[-1:] != b"]":
        return None
    one = serialized(value[0])
    if one is None or len(one) != size - 1 or not _copies(raw, one, count):
        return None
    withheld, references = len(walker.withheld), len(walker.references)
    got = walk_parsed(walker, value[0], raw=one, path=(path, first), piece=piece, split=False)
    if (got is value[0] and len(walker.withheld) == withheld
            and len(walker.references) == references):
        if walker.clean_bytes + len(one) <= REMEMBER_BYTES:
            # Remembered as a split's clean element is: a lazy read's later runs of copies
            # are then known clean unparsed (lazywalk), as they were before.
            walker.clean_elements.add(one)
            walker.clean_bytes += len(one)
        return value
    # Something in it is withheld: the caller's walk makes each copy's entries at its path.
    del walker.withheld[withheld:]
    for stub in list(walker.references)[references:]:
        del walker.references[stub]
    return None


def _copies(raw: bytes, one: bytes, count: int) -> bool:
    """Whether ``raw`` is ``[``, ``count`` copies of ``one`` joined by ``,``, and ``]``."""
    unit = one + b","
    per = max(1, _BLOCK // len(unit))
    block = unit * min(per, count - 1)
    pos, left = 1, count - 1
    while left >= per:
        if not raw.startswith(block, pos):
            return False
        pos += len(block)
        left -= per
    return raw.startswith(unit * left + one + b"]", pos)
