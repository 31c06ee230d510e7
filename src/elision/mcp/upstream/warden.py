"""The launcher each stdio upstream runs under, so it never outlives the proxy.

The proxy starts ``python -I -S warden.py WATCH_FD -- command args…`` as the leader of a new
process group (:func:`elision.mcp.upstream.stdio.stdio_transport`). The warden starts the
server in that group, sharing its stdin, stdout and stderr, lets go of its own copies of
stdin and stdout (the proxy must see the server's end of output when the server leaves), and
waits for either of two things:

- the server exits: the warden exits with its status once the rest of its group (a
  wrapper's child) is gone too, which the proxy's own stopping
  (:mod:`elision.mcp.upstream.reap`) sees to; should the watch close first, as below;
- ``WATCH_FD`` reaches end of file: its other end is held by the proxy alone, and the kernel
  closes it however the proxy ends, SIGKILL included. The warden then sends SIGTERM to the
  whole group (the server, and whatever the server started that did not leave the group),
  gives the server :data:`GRACE_SECONDS` to exit, and sends the group SIGKILL, itself with it.

A watchdog pipe rather than a parent-death signal (``prctl(PR_SET_PDEATHSIG)``): it works on
every POSIX system, not Linux alone, and it reaches the server's own children (a wrapper such
as ``npx`` or ``uvx`` and the server it runs), which a parent-death signal, cleared in every
child a process forks, does not. Out of reach: a descendant that put itself in a process group
or session of its own (a daemon).

Runs with ``-I -S``: no site packages, no environment variables read, the standard library
alone; nothing of elision is imported.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

#: How long the server gets after SIGTERM once the proxy is gone.
GRACE_SECONDS = 2.0

#: How often the warden looks at its group once the server exited and the proxy is there.
LINGER_POLL_SECONDS = 0.1

#: The exit status when the command could not be started, as a shell's.
CANNOT_START = 127


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: warden.py WATCH_FD -- COMMAND [ARG...]\n")
        return 2
    watch = int(argv[1])
    command = argv[3:]
    try:
        server = subprocess.Popen(command, close_fds=True)
    except OSError as exc:
        sys.stderr.write(
            f"elision proxy: could not start {command[0]!r}: {exc.strerror or exc}\n"
        )
        return CANNOT_START
    # The server holds the wire now; the warden's copies would keep the proxy from seeing
    # the server's end of output when it exits.
    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 0)
    os.dup2(quiet, 1)
    os.close(quiet)
    # The proxy stops the group with SIGTERM and SIGKILL; the warden waits for the server.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    done_read, done_write = os.pipe()

    def wait_for_server() -> None:
        server.wait()
        os.write(done_write, b"x")

    threading.Thread(target=wait_for_server, daemon=True).start()
    group = os.getpgrp()
    ready, _, _ = select.select([watch, done_read], [], [])
    if watch not in ready and not _watch_group(watch, group):
        return _status(server.returncode)
    # The proxy is gone: nothing will ever stop this group but the warden.
    _signal_group(group, signal.SIGTERM)
    select.select([done_read], [], [], GRACE_SECONDS)
    _signal_group(group, signal.SIGKILL)
    return _status(server.returncode if server.returncode is not None else -signal.SIGKILL)


def _watch_group(watch: int, group: int) -> bool:
    """After the server exited: whether the proxy went (the watch closed) while some other
    member of the group still runs. Until the group is empty the warden keeps watching: a
    killed proxy's kernel closes its descriptors one at a time, so the server's stdin can
    close, and a wrapper leave at the end of its input, a moment (under load, much more)
    before the watch closes; a warden gone by then leaves the wrapper's child to run on.
    While the proxy lives it stops the group itself (reap.py), and the warden leaves with it.
    """
    members = _group_reader(group)
    waited = 0.0
    while True:
        # Looked at before each wait: a server that was the group's last member (nearly every
        # server) is let go at once, not a poll later (0.1 s on every stdio upstream's stop).
        if members is not None and not members():
            return False
        ready, _, _ = select.select([watch], [], [], LINGER_POLL_SECONDS)
        if watch in ready:
            return True
        waited += LINGER_POLL_SECONDS
        # No way to list a group here: the watch gets the grace period, no more.
        if members is None and waited >= GRACE_SECONDS:
            return False


def _group_reader(group: int) -> Callable[[], bool] | None:
    """How to tell whether a process of ``group`` other than the warden still runs (a zombie
    does not count), where ``/proc`` tells; None elsewhere."""
    proc = "/proc"
    if not os.path.exists(os.path.join(proc, "self", "stat")):
        return None
    me = os.getpid()

    def others() -> bool:
        for name in os.listdir(proc):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                with open(os.path.join(proc, name, "stat"), encoding="utf-8",
                          errors="replace") as stat_file:
                    stat = stat_file.read()
            except OSError:
                continue  # it exited while being looked at
            # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 2 and fields[2] == str(group) and fields[0] != "Z":
                return True
        return False

    return others


def _signal_group(group: int, sent: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sent)


def _status(code: int) -> int:
    """An exit status for ``code``, a shell's 128 + N for a server that died of signal N."""
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
