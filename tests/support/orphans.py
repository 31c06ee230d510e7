"""Processes found by a marker in their command line, for tests that a proxy leaves none.

Linux only (/proc); the marker is unique to one test, so no other test's process matches.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from pathlib import Path


def marked(marker: str) -> list[int]:
    """The live processes (zombies excluded) whose command line holds ``marker``."""
    found = []
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle not in (entry / "cmdline").read_bytes():
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it exited while being looked at
        if stat[stat.rfind(")") + 2:].split()[0] != "Z":
            found.append(int(entry.name))
    return found


def kill_all(marker: str) -> None:
    """SIGKILL every process ``marked(marker)``: a failing test leaves none behind."""
    for pid in marked(marker):
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
