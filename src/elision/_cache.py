"""Files kept between processes so that a short command does not redo a process's setup.

What is kept is derived from elision's own data (a compiled hyperscan database, the parsed
families table, the keyword sets derived from it) and named by a digest of everything it was
derived from, so a changed input never meets a stale file. Each file holds the SHA-256 of its
own bytes in front of them: a torn, altered or foreign file is derived again, never used, and
so is one that another user could have written (:func:`trusted`). A cache that cannot be
read or written is only slower.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import orjson

from elision._lazylog import get_logger

#: Where kept files go; "off" keeps none.
CACHE_ENV = "ELISION_CACHE_DIR"
_DIGEST = 32
T = TypeVar("T")


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


def cache_path(kind: str, key: str, suffix: str) -> Path | None:
    """Where the ``kind`` file named ``key`` is kept, or ``None`` when nothing is kept."""
    where = cache_dir()
    return None if where is None else where / kind / f"{key}{suffix}"


def read_kept(path: Path | None) -> bytes | None:
    """The bytes kept at ``path``, or ``None`` when there are none this process may trust:
    missing, unreadable, not this user's alone, or not matching the digest in front."""
    if path is None or not trusted(path):
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
    return blob


def trusted(path: Path) -> bool:
    """Whether ``path`` is a plain file, in a plain directory, both this user's and writable
    by no one else. The digest in front of a kept file proves it whole, not whose it is: one
    planted by another user (a shared or loosened cache) could, say, match nothing, and so
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


def keep(path: Path | None, blob: bytes) -> None:
    """Write ``blob`` to ``path`` behind its digest, whole or not at all (a rename)."""
    if path is None:
        return
    import tempfile  # with shutil, bz2 and lzma: ~5 ms of every start that only reads

    try:
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
        get_logger(__name__).debug("%s not cached: %s", path.parent.name, exc)


def kept_json(kind: str, inputs: bytes | None, derive: Callable[[], T],
              encode: Callable[[T], Any], decode: Callable[[Any], T]) -> T:
    """What ``derive()`` gives, read from the file kept under the SHA-256 of ``inputs`` where
    one was kept before, else derived and kept as the JSON of ``encode(value)``.

    ``inputs`` must hold everything the value is derived from (the code that derives it too),
    or be ``None`` where that cannot be told: then nothing is read or kept. ``decode`` turns
    the kept JSON back into the value and raises ``ValueError``, ``TypeError`` or ``KeyError``
    at anything it does not hold: such a file is derived again, never used.
    """
    path = None if inputs is None else cache_path(kind, hashlib.sha256(inputs).hexdigest(),
                                                  ".json")
    kept = read_kept(path)
    if kept is not None:
        try:
            return decode(orjson.loads(kept))
        except (ValueError, TypeError, KeyError) as exc:  # orjson's errors are ValueErrors
            get_logger(__name__).debug("%s kept in an unknown form: %s", kind, exc)
    value = derive()
    keep(path, orjson.dumps(encode(value)))
    return value
