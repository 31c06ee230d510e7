"""hyperscan, where it is installed and usable: every user of it has a regex fallback."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import platform
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def built_with_hyperscan(build: Callable[[Any], T], log: logging.Logger, fallback: str) -> T | None:
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


#: Where compiled databases are kept between processes; "off" keeps none.
CACHE_ENV = "ELISION_CACHE_DIR"
_DIGEST = 32


def cache_dir() -> Path | None:
    """``$ELISION_CACHE_DIR``, else ``$XDG_CACHE_HOME/elision``, else ``~/.cache/elision``;
    ``None`` when it is set to ``off`` or no home is known."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base) / "elision"
    home = os.environ.get("HOME", "").strip()
    return Path(home) / ".cache" / "elision" if home else None


def database(hs: Any, expressions: list[bytes], flags: list[int], *, literal: bool = False) -> Any:
    """A block-mode hyperscan database of ``expressions``, read from the cache where one was
    compiled before (by any process) and compiled (then kept) where not.

    Compiling the redaction triggers takes about 0.3 s, once per process: most of what a
    short ``elision shape`` spends, and of every proxy's first result. A kept database is
    named by the SHA-256 of hyperscan's version and everything compiled into it, and holds
    the SHA-256 of its own bytes: a torn, altered or foreign file is compiled again, never
    loaded, and so is one that another user could have written (:func:`_trusted`). A cache
    that cannot be read or written is only slower.
    """
    # hyperscan refuses to load a database built for another CPU (a home shared by two
    # machines), and then it is compiled again here.
    key = hashlib.sha256(repr((
        getattr(hs, "__version__", ""), platform.machine(), expressions, flags, literal,
    )).encode()).hexdigest()
    where = cache_dir()
    path = None if where is None else where / "hyperscan" / f"{key}.hs"
    if path is not None:
        db = _load(hs, path)
        if db is not None:
            return db
    db = hs.Database()
    db.compile(expressions=expressions, ids=list(range(len(expressions))),
               elements=len(expressions), flags=flags, literal=literal)
    if path is not None:
        _keep(hs, db, path)
    return db


def _load(hs: Any, path: Path) -> Any:
    if not _trusted(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as kept:
            data = kept.read()
    except OSError:
        return None
    blob = data[_DIGEST:]
    if len(data) <= _DIGEST or hashlib.sha256(blob).digest() != data[:_DIGEST]:
        return None
    try:
        return hs.loadb(blob, hs.HS_MODE_BLOCK)
    except Exception:
        return None


def _trusted(path: Path) -> bool:
    """Whether ``path`` is a plain file, in a plain directory, both this user's and writable
    by no one else. The digest in front of a kept database proves it whole, not whose it
    is: one planted by another user (a shared or loosened cache) could match nothing, and so
    switch redaction off."""
    try:
        folder, entry = os.lstat(path.parent), os.lstat(path)
    except OSError:
        return False
    me = os.getuid() if hasattr(os, "getuid") else None
    return (
        stat.S_ISDIR(folder.st_mode) and stat.S_ISREG(entry.st_mode)
        and all((me is None or held.st_uid == me) and not held.st_mode & 0o022
                for held in (folder, entry))
    )


def _keep(hs: Any, db: Any, path: Path) -> None:
    try:
        blob = hs.dumpb(db)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(hashlib.sha256(blob).digest() + blob)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    except Exception as exc:
        logging.getLogger(__name__).debug("hyperscan database not cached: %s", exc)
