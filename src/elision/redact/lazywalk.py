"""The redaction walk over a lazily read document (:mod:`elision.shape.lazyjson`), a piece at
a time: the whole body is never parsed into Python objects.

A lazy node's small children are read in pieces of about
:data:`~elision.shape.lazyjson.PIECE_BYTES` (a run of elements, or of members), each parsed
exactly and walked by the same walk a parsed document gets
(:func:`elision.redact.walk.walk_parsed`, at the piece's own path), then dropped; a large child
is a lazy node, walked the same way. What the walk changed is all that is kept: the result is
a lazy copy (:meth:`~elision.shape.lazyjson.LazyArray.with_children`) that shows the redacted
children and views the body for the rest, or the node itself when nothing changed.
A 1 MB array of 300-deep documents with a trigger in it was parsed whole first, at 37-48x its
bytes (issue 23).

An object is judged by all of its keys at once in the walk of a parsed document (a key that
holds a secret is rekeyed among its siblings; a reference lane or a disposition needs the
whole record): an object whose keys could ask for any of that is read whole, as a parsed
value, and walked as one - only that object, which the body's other pieces never cost.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from elision.redact.repeats import REMEMBER_BYTES, known_clean
from elision.redact.walk import Walker, names_inert, walk_parsed
from elision.shape import lazyjson
from elision.shape.lazyjson import (
    ChunkedObject,
    IndexChanges,
    LazyArray,
    is_lazy,
    materialize,
)

__all__ = ["redact_lazy"]

# A path is a linked list (parent, part), as the walk's.
_Path = tuple[Any, Any] | None
#: Keys whose object the walk reads as a record (references.lane_kind, govern_lane): the
#: object is walked whole.
_RECORD_KEYS = ("type", "uri", "disposition", "resource")


def redact_lazy(node: Any, walker: Walker, path: _Path = None) -> Any:
    """Lazy ``node`` redacted by ``walker`` (which collects what was withheld), at ``path``:
    a lazy copy with the changed children, or ``node`` itself when nothing changed."""
    if isinstance(node, LazyArray):
        return _array(node, walker, path)
    return _object(node, walker, path)


def _array(node: LazyArray, walker: Walker, path: _Path) -> Any:
    changed = IndexChanges()  # two columns, not a dict an element (issue 23)
    clean = partial(known_clean, walker)
    for first, raw, piece in node.pieces(lazyjson.PIECE_BYTES, skip=clean):
        if is_lazy(piece):
            # A large element whose bytes equal one walked to no effect is that element
            # again (repeats): an array of one 12 KB document walked every copy.
            whole = node.item_bytes(first)
            if whole in walker.clean_elements:
                continue
            marks = (len(walker.withheld), len(walker.references))
            got = redact_lazy(piece, walker, (path, first))
            if got is not piece:
                changed.add(first, got)
            elif (marks == (len(walker.withheld), len(walker.references))
                  and walker.clean_bytes + len(whole) <= REMEMBER_BYTES):
                walker.clean_elements.add(whole)
                walker.clean_bytes += len(whole)
            continue
        new = walk_parsed(walker, piece, raw=raw, path=path, first=first, piece=True,
                          patches=True)
        if new is not piece:
            changed.add_piece(first, new, piece)
    return node.with_children(changed) if changed else node


def _object(node: Any, walker: Walker, path: _Path) -> Any:
    chunked = isinstance(node, ChunkedObject)
    if not chunked and not _plain(dict.fromkeys(node)):
        return _whole(node, walker, path)
    # A dense object's keys are judged a run at a time, as its runs are walked (never all
    # at once): what the runs before a key that asks for the whole withheld is taken back.
    withheld, references = len(walker.withheld), len(walker.references)
    changed: dict[str, Any] = {}
    for key, raw, piece in node.pieces(lazyjson.PIECE_BYTES):
        if is_lazy(piece):
            got = redact_lazy(piece, walker, (path, key))
            if got is not piece:
                changed[key] = got
            continue
        if chunked and not _plain(piece):
            del walker.withheld[withheld:]
            for stub in list(walker.references)[references:]:
                del walker.references[stub]
            return _whole(node, walker, path)
        new = walk_parsed(walker, piece, raw=raw, path=path, piece=True, inert=True)
        if new is not piece:
            changed.update((k, item) for k, item in new.items() if item is not piece[k])
    return node.with_children(changed) if changed else node


def _whole(node: Any, walker: Walker, path: _Path) -> Any:
    """Lazy object ``node`` parsed and walked as one value: its keys may rekey, withhold or
    govern its members as a whole."""
    value = materialize(node)
    new = walk_parsed(walker, value, path=path)
    return node if new is value else new


def _plain(members: dict[str, Any]) -> bool:
    """Whether no key of ``members`` names a credential, holds a secret or makes the object a
    record the walk governs: then its members can be walked a piece at a time."""
    return not any(key in members for key in _RECORD_KEYS) and names_inert(members)
