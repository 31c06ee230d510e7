"""Folding the audit log's write-ahead log into the database file, off the appending thread.

SQLite folds the WAL back into the database every ~1,000 pages, on whichever append crosses
the mark, and that append waits for two fsyncs: 5-50 ms on a busy disk, so one tool call in a
few hundred was that much slower. :class:`WalFolder` runs the same PASSIVE fold on its own
thread and connection (SQLite releases the GIL while it works), and the appending connection
turns its own automatic fold off. A fold never blocks an append or a reader, and the WAL
holds every committed entry whether or not it has been folded yet: durability is unchanged.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

#: Appends between two folds: about 3 pages each, near SQLite's own 1,000-page mark.
FOLD_EVERY = 256


class WalFolder:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on a thread of its own each time it is asked.

    The thread starts on the first request, so a short-lived log never starts one.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: Folds done (tests read it).
        self.folds = 0

    def request(self) -> None:
        if self._stopping:
            return
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="elision-audit-wal-fold", daemon=True
            )
            self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread after the fold it may be doing (the log's own close folds the rest)."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        try:
            db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            return  # the WAL then grows until the log closes, which folds it
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.folds += 1
                except sqlite3.Error:
                    pass  # busy or failing: the next request tries again
        finally:
            db.close()
