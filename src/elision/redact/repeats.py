"""The walk of an array too deep for orjson, an element at a time, each judged by its bytes.

An array of documents nested past orjson's 255 levels has no serialization, so the walk of
a parsed document (:mod:`elision.redact.walk`) had no offsets and went node by node: a 1 MB
array of 300-deep documents with ``"sk-x"`` at the bottom of each was 166,000 Python steps,
92x the time of prose (issue 23). Its raw bytes split into the elements' own (one
``msgspec`` pass, in C), and then:

* an element whose bytes equal those of one already walked to no effect is that element
  again: equal bytes parse to equal values, which the walk treats alike (it reads no context
  but a node's own), so it is shared as it is, unwalked;
* any other element is walked alone, with its own bytes, whose search can tell that it holds
  nothing (:func:`~elision.redact.walk.walk_parsed`): one trigger in one document no longer
  walks all of them; a run of small elements (scalars, short records) is walked as one piece
  of the array, with offsets, as a lazily read array's runs are.

The walk of the whole array went through the same elements in the same order, each at its
own path, so what is withheld is the same, entry for entry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from elision.redact.uniform import REMEMBER_BYTES

if TYPE_CHECKING:
    from elision.redact.walk import Walker

__all__ = ["REMEMBER_BYTES", "walk_elements"]

_Path = tuple[Any, Any] | None
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
#: An element of fewer bytes nests at most half as deep, within orjson's 255 levels: runs of
#: them are walked as pieces of the array, each one serialization and one search.
SMALL_BYTES = 256


def walk_elements(
    walker: Walker, value: list[Any], raw: bytes, *, path: _Path, first: int, piece: bool,
) -> list[Any] | None:
    """``value`` (parsed from ``raw``) redacted by ``walker`` an element at a time, or
    ``None`` when ``raw`` does not split into ``value``'s elements (the caller then walks it
    whole)."""
    from elision.redact.walk import walk_parsed

    try:
        parts = _ELEMENTS.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None  # not an array's bytes, or nested past what msgspec reads
    if len(parts) != len(value):
        return None
    clean = walker.clean_elements
    changed: dict[int, Any] = {}
    run = 0  # the first element of the run of small ones not yet walked
    for i, part in enumerate(parts):
        if len(part) < SMALL_BYTES:
            continue
        if run < i:
            _walk_run(walker, value, run, i, path, first, changed)
        run = i + 1
        item = value[i]
        data = bytes(part)  # a msgspec.Raw is not hashable; one element's copy at a time
        if data in clean:
            continue
        withheld, references = len(walker.withheld), len(walker.references)
        got = walk_parsed(walker, item, raw=data, path=(path, first + i), piece=piece,
                          split=False)
        if got is not item:
            changed[i] = got
        elif (len(walker.withheld) == withheld and len(walker.references) == references
              and walker.clean_bytes + len(data) <= REMEMBER_BYTES):
            clean.add(data)
            walker.clean_bytes += len(data)
    _walk_run(walker, value, run, len(value), path, first, changed)
    if not changed:
        return value
    out = list(value)
    for i, got in changed.items():
        out[i] = got
    return out


def _walk_run(
    walker: Walker, value: list[Any], start: int, stop: int, path: _Path, first: int,
    changed: dict[int, Any],
) -> None:
    """Walk ``value[start:stop]``, small elements (within orjson's depth), as one piece of
    the array: one serialization and one search, not one an element."""
    from elision.redact.walk import walk_parsed

    if start == stop:
        return
    items = value[start:stop]
    new = walk_parsed(walker, items, path=path, first=first + start, piece=True)
    if new is not items:
        changed.update((start + j, got) for j, (got, item) in enumerate(zip(new, items,
                                                                            strict=True))
                       if got is not item)


def known_clean(walker: Walker, raw: bytes) -> bool:
    """Whether ``raw``, a run of a lazily read array (``[…]``), holds only elements whose
    bytes ``walker`` walked to no effect: then the walk of the run would change and withhold
    nothing, and the run need not be parsed (a 300-deep document's parse is most of its
    walk)."""
    clean = walker.clean_elements
    if not clean:
        return False
    try:
        parts = _ELEMENTS.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return False
    return all(bytes(part) in clean for part in parts)
