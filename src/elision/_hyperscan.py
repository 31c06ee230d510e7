"""hyperscan, where it is installed and usable: every user of it has a regex fallback."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from elision._cache import CACHE_ENV, cache_dir, cache_path, keep, read_kept
from elision._lazylog import LazyLogger, get_logger

if TYPE_CHECKING:
    import logging

__all__ = ["CACHE_ENV", "built_with_hyperscan", "cache_dir", "database", "held_scratch"]

T = TypeVar("T")


def built_with_hyperscan(build: Callable[[Any], T], log: LazyLogger | logging.Logger,
                         fallback: str) -> T | None:
    """``build(hyperscan)``, or ``None`` when hyperscan is missing or cannot be used here
    (a CPU it does not support, say); then ``fallback`` says, once in ``log``, what runs
    instead."""
    try:
        import hyperscan
    except ImportError:
        return None
    try:
        return build(hyperscan)
    except Exception as exc:
        log.warning("hyperscan is installed but unusable here (%s); %s", type(exc).__name__,
                    fallback)
        return None


def database(
    hs: Any, expressions: list[bytes], flags: list[int], *, literal: bool = False,
    ids: list[int] | None = None,
) -> Any:
    """A block-mode hyperscan database of ``expressions``, read from the cache where one was
    compiled before (by any process) and compiled (then kept) where not.

    Compiling the redaction triggers takes about 0.3 s, once per process: most of what a
    short ``elision shape`` spends, and of every proxy's first result. A kept database is
    named by the SHA-256 of hyperscan's version and everything compiled into it, and holds
    the SHA-256 of its own bytes: a torn, altered or foreign file is compiled again, never
    loaded, and so is one that another user could have written (:mod:`elision._cache`).
    A match reports its expression's place in ``expressions``, or its entry in ``ids``.
    """
    import platform  # a few ms of every short command's start when imported at the top

    # hyperscan refuses to load a database built for another CPU (a home shared by two
    # machines), and then it is compiled again here.
    key = hashlib.sha256(repr((
        getattr(hs, "__version__", ""), platform.machine(), expressions, flags, literal,
        *(() if ids is None else (ids,)),
    )).encode()).hexdigest()
    path = cache_path("hyperscan", key, ".hs")
    if path is not None:
        db = _load(hs, path)
        if db is not None:
            return db
    db = hs.Database()
    db.compile(expressions=expressions, ids=list(range(len(expressions))) if ids is None else ids,
               elements=len(expressions), flags=flags, literal=literal)
    if path is not None:
        _keep(hs, db, path)
    return db


def held_scratch(hs: Any, local: Any, name: str, key: Any, db: Any, most: int) -> Any:
    """A scratch for ``db`` kept per thread (``local``, a ``threading.local``) under ``key``
    in its table ``name``: a scan releases the GIL, so each thread needs its own, and this
    binding cannot grow one scratch to fit another database. At most ``most`` are kept, the
    oldest dropped, as the databases they serve are."""
    held: dict[Any, Any] | None = getattr(local, name, None)
    if held is None:
        held = {}
        setattr(local, name, held)
    scratch = held.get(key)
    if scratch is None:
        if len(held) >= most:
            held.pop(next(iter(held)))
        scratch = held[key] = hs.Scratch(db)
    return scratch


def _load(hs: Any, path: Path) -> Any:
    blob = read_kept(path)
    if blob is None:
        return None
    try:
        return hs.loadb(blob, hs.HS_MODE_BLOCK)
    except Exception:
        return None


def _keep(hs: Any, db: Any, path: Path) -> None:
    try:
        blob = hs.dumpb(db)
    except Exception as exc:
        get_logger(__name__).debug("hyperscan database not cached: %s", exc)
        return
    keep(path, blob)
