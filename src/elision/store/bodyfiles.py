"""A SQLite store's large bodies, as content-addressed files in a directory beside it.

Writing a 100 MB body as rows costs SQLite two copies (the WAL, then the checkpoint into the
database file) and an fsync; one ``os.write`` to a file of its own costs a tenth of that
(bench/store.py). So a body of at least ``FILE_BYTES`` is kept as ``<store>.bodies/<sha256>``
(directory 0700, files 0600) and its metadata row says so; smaller bodies stay rows, so that a
store of many small results is not a directory of tiny files.

Every change to the directory is made by a writer holding the store's write lock (inside its
``BEGIN IMMEDIATE`` transaction), and a file is only ever written whole under a temporary name
and then renamed: so a reader sees a file at its final name complete or not at all, and no two
processes ever race on one name. A body's file is written before its row is inserted, and
unlinked just before the COMMIT that deletes its row; a file written for a transaction that
rolls back is unlinked before the ROLLBACK.

Durability: nothing is fsynced (the rows are not either: WAL with ``synchronous = NORMAL``).
Every read hashes the bytes against the digest, so a file that a crash left missing, empty or
short, or that was altered, is reported as such (``IntegrityError``), never served. The read
that finds a damaged file removes it, and the next put of the same body (shaping the result
again) writes it afresh, as does any put that finds a row's file gone. A crash between writing
a file and committing its row leaves an orphan, which ``gc()`` sweeps with a crashed writer's
temporary files.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from elision.errors import StoreError
from elision.private import problem
from elision.store.base import DIGEST

#: Bodies of at least this size are files, smaller ones rows. ``bench/store.py --files`` (a
#: put and a remove, file ÷ rows): 16 KB 1.20x, 64 KB 0.79x, 1 MB 0.66x, 4 MB 0.21x, 100 MB
#: 0.12x. Under 1 MiB a file saves less than a millisecond a body, not worth an inode and a
#: directory entry for each of the many small results a store keeps.
FILE_BYTES = 1024 * 1024
_TEMP_PREFIX = ".tmp-"


class BodyFiles:
    """The directory of body files beside one store file."""

    def __init__(self, db_path: Path) -> None:
        # The real path, as SQLite locks the real file: two spellings of one store (a
        # symlink) share one lock, so they must share one directory too.
        self.root = Path(os.path.realpath(db_path) + ".bodies")
        # The directory may be a link (to another disk, say): what it leads to must be as
        # private as the store, or others could plant a file under a body's digest.
        refused = problem(self.root, "the store's body directory")
        if refused:
            raise StoreError(refused)
        # Within one write transaction: the files of bodies whose rows it deleted (removed
        # just before COMMIT), and files it wrote for bodies that had no row when it began
        # (removed again on ROLLBACK). The store touches them only under its write lock.
        self._doomed: set[str] = set()
        self._placed: set[str] = set()

    # -- the files of one write transaction --

    def begin(self) -> None:
        self._doomed.clear()
        self._placed.clear()

    def place(self, sha256: str, body: bytes) -> None:
        """Write the file of a body this transaction keeps, before its row is inserted."""
        self.write(sha256, body)
        if sha256 not in self._doomed:
            # No row had this digest when the transaction began (one dropped in it is
            # doomed), so after a rollback the file would name nothing.
            self._placed.add(sha256)

    def doom(self, sha256: str) -> None:
        """Remove this body's file when the transaction that deleted its row commits.

        Not at once: a rollback would bring the row back without its file.
        """
        self._doomed.add(sha256)

    def before_commit(self, still_named: Callable[[str], bool]) -> None:
        """Unlink the doomed files, but none a row still names: a ref put again under its
        own name drops its body and keeps it anew in one transaction, and that file is the
        new row's."""
        for sha256 in self._doomed:
            if not still_named(sha256):
                self.unlink(sha256)

    def before_rollback(self) -> None:
        for sha256 in self._placed:
            with contextlib.suppress(StoreError):
                self.unlink(sha256)  # if it stays, it is an orphan: harmless, swept by gc()

    # -- one file --

    def path_of(self, sha256: str) -> Path:
        if not DIGEST.fullmatch(sha256):
            # Unreachable through the store (put refuses such a digest); a guard, not a rule.
            raise StoreError(f"{sha256!r} is not a SHA-256 in hex; no body file is named so")
        return self.root / sha256

    def write(self, sha256: str, body: bytes) -> None:
        """Write ``body`` whole under a temporary name, then rename it into place.

        Slices of a view go to ``os.write``, so the body is never copied.
        """
        final = self.path_of(sha256)
        temp = self.root / f"{_TEMP_PREFIX}{sha256[:16]}-{os.getpid()}-{os.urandom(4).hex()}"
        try:
            self.root.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0),
                         0o600)
            try:
                view = memoryview(body)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.replace(temp, final)
        except OSError as exc:
            _unlink(temp)
            raise StoreError(
                f"cannot write a body file in {str(self.root)!r}: {exc.strerror}; free some "
                "disk space or check that the directory is yours and writable"
            ) from None

    def read(self, sha256: str, size: int) -> bytes | None:
        """The file's bytes, read once into one object; ``None`` when there is no file."""
        try:
            fd = os.open(self.path_of(sha256), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(
                f"cannot read the body file {str(self.path_of(sha256))!r}: {exc.strerror}; "
                "check that the store's .bodies directory is yours and readable"
            ) from None
        try:
            # One more byte than the body: a file that grew is read as altered, not as cut.
            data = os.read(fd, size + 1)
            if len(data) < size:  # a short read of a regular file: rare, and cheap enough then
                parts = [data]
                while (part := os.read(fd, size + 1 - sum(map(len, parts)))):
                    parts.append(part)
                data = b"".join(parts)
            return data
        finally:
            os.close(fd)

    def size(self, sha256: str) -> int | None:
        try:
            return os.stat(self.path_of(sha256)).st_size
        except FileNotFoundError:
            return None

    def unlink(self, sha256: str) -> None:
        path = self.path_of(sha256)
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot remove the body file {str(path)!r}: {exc.strerror}; check that the "
                "store's .bodies directory is yours and writable"
            ) from None

    def sweep(self, keep: set[str]) -> tuple[int, int]:
        """Remove every body file not in ``keep``, and every temporary file: ``(files, bytes)``.

        Only a writer holding the store's write lock may call this: then no other writer is
        between writing a file and committing its row, so a file without a row is an orphan
        (a crash before COMMIT) and a temporary file is a crashed writer's.
        """
        files = total = 0
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
            return 0, 0
        for entry in entries:
            name = entry.name
            ours = DIGEST.fullmatch(name) or name.startswith(_TEMP_PREFIX)
            if not ours or name in keep or name in self._doomed:
                # Not the store's to remove, a live body, or one that goes at COMMIT.
                continue
            try:
                total += entry.stat(follow_symlinks=False).st_size
            except FileNotFoundError:
                continue
            _unlink(Path(entry.path))
            files += 1
        return files, total


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)  # if it stays, the next gc() sweeps it
