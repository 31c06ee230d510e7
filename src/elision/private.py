"""Files that hold evidence or secrets: created the owner's alone, refused where others write.

The store keeps tool results, the audit log says which tools ran on what, an install record
holds a config's ``env`` tokens, a checkpoint file is what exposes a cut tail. Each is created
0600 in directories made 0700, whatever the umask (SQLite gives a database's ``-wal`` and
``-shm`` the mode of the database file, so those follow).

A place others can write is refused, not warned about, as ssh refuses a key in a directory
others can write: whoever can write there can plant a body, swap the log for another chain or
remove a checkpoint, and a warning on the stderr of a proxy a host started is read by no one.
"Others" is the group or everyone (``go-w``); a directory with the sticky bit (``/tmp``) is
allowed, since others cannot rename or remove what is ours in it. Paths are checked as they
resolve, so a symlink to such a place is refused too. A file that others can only read is left
as it is (an operator may share a log with an auditors' group on purpose); new ones are 0600.
PostgreSQL stores and logs keep no files here: nothing to check.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def others_can_write(st: os.stat_result) -> bool:
    """Whether someone other than the owner can change what ``st`` describes."""
    if not st.st_mode & 0o022:
        return False
    # In a sticky directory only an entry's owner may rename or remove it.
    return not (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX)


def _foreign_owner(st: os.stat_result) -> bool:
    if not hasattr(os, "getuid"):
        return False
    return st.st_uid not in (os.getuid(), 0)


def problem(path: Path, what: str) -> str | None:
    """Why ``path`` (followed through symlinks) is no place for ``what``; ``None`` when it is
    fine or not there yet."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    shown = str(path)
    real = os.path.realpath(path)
    via = "" if real == os.path.abspath(path) else f" (a link to {real!r})"
    if others_can_write(st):
        return (f"{what} {shown!r}{via} is mode {stat.S_IMODE(st.st_mode):04o}: others can "
                f"write it, so they could plant, swap or remove what elision keeps there; run "
                f"`chmod go-w {real}`, or choose a place of your own")
    if _foreign_owner(st):
        return (f"{what} {shown!r}{via} belongs to another user (uid {st.st_uid}), who could "
                f"change what elision keeps there; choose a place of your own")
    return None


def place_problem(path: Path, what: str) -> str | None:
    """:func:`problem` for the directory ``path`` is in, then for ``path`` itself."""
    parent = Path(os.path.realpath(path)).parent
    return problem(parent, f"the {what} directory") or problem(path, f"the {what}")


def make_private_dir(path: Path) -> None:
    """Create ``path`` and every missing parent 0700 (``Path.mkdir(parents=True)`` gives the
    parents the umask's mode); an existing directory is left as it is."""
    missing: list[Path] = []
    at = path
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask too


def create_private_file(path: Path) -> None:
    """Create ``path`` empty and 0600 if it is not there (before SQLite opens it, so its
    ``-wal`` and ``-shm`` take the same mode)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0),
                     FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a 0600 temporary file renamed into place."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0),
                 FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temp, FILE_MODE)  # a temp file left by an older run kept its own mode
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
