"""Stopping an upstream the proxy started, and everything that upstream started in turn.

Each upstream runs in a process group of its own (``start_new_session``), so one signal
reaches a wrapper (``npx``, ``uvx``, a shell script) and the server it runs alike. Stopping
it, on every way the proxy ends or restarts a server:

1. its stdin is closed (end of input), and it gets :data:`GRACE_SECONDS` to exit;
2. then the whole group gets SIGTERM, and another :data:`GRACE_SECONDS`;
3. then SIGKILL, which nothing can ignore; the proxy waits (at most :data:`GRACE_SECONDS`
   more) until the group is empty.

A step is skipped once the group is empty, not once the process the proxy started exits: a
wrapper often leaves at end of input while the server it started keeps running, orphaned.
The leader is reaped by the proxy; members it started are reaped by init once killed. A
member that moved to a session of its own (a daemon) is beyond reach of any of this.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from pathlib import Path

import anyio
from anyio.abc import Process

#: How long an upstream gets after each step (end of input, SIGTERM, SIGKILL).
GRACE_SECONDS = 2.0
#: How often the group is looked at while waiting.
_POLL_SECONDS = 0.05


async def stop_process_group(process: Process) -> None:
    """Stop ``process`` and its group as the module docstring says; returns once both are
    gone (or, for a group that will not die even of SIGKILL, after the last grace period)."""
    group = process.pid  # a session leader's group id is its pid
    if process.stdin is not None:
        with suppress(Exception):
            await process.stdin.aclose()
    for sent in (None, signal.SIGTERM, signal.SIGKILL):
        if sent is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(group, sent)
        with anyio.move_on_after(GRACE_SECONDS):
            await process.wait()
            while group_alive(group):
                await anyio.sleep(_POLL_SECONDS)
            return


def group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (a zombie, dead but not yet reaped, does not
    count: nothing it does can matter any more)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it exited while being looked at
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and int(fields[2]) == group and fields[0] != "Z":
            return True
    return False
