"""The warden on its own: what it does with its group when the server it started exits.

Found by CI (stop 26): a SIGKILLed ``--listen`` proxy left a wrapper's child running. The
killed proxy's kernel closes its descriptors one by one; the server's stdin closed first, the
wrapper left at the end of its input, and the warden, seeing its server gone and the watch
pipe still open (its end was closed a moment later), exited, leaving nothing to stop the
child. Here the gap is made as long as one likes: the watch is closed by hand, after the
wrapper has left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from elision.mcp.upstream.stdio import warden_command
from support.processes import running

#: A wrapper that starts a child ignoring SIGTERM, prints the child's pid and leaves at once.
WRAPPER = [sys.executable, "-c", (
    "import subprocess, sys\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(300)'],"
    " stdout=subprocess.PIPE)\n"
    "child.stdout.readline()\n"  # the child is past its signal setup
    "print(child.pid, flush=True)\n"
)]


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # another process's exit: nothing to wait on but /proc
    return not running(pid)


@contextmanager
def warden(command: list[str]) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """The warden running ``command`` in a group of its own, and the watch's write end (the
    proxy's, here the test's); the group is killed at the end whatever happened."""
    watch, watched = os.pipe()
    try:
        proc = subprocess.Popen(
            [*warden_command(watch), *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            start_new_session=True, pass_fds=(watch,))
    finally:
        os.close(watch)
    try:
        yield proc, watched
    finally:
        with suppress(OSError):  # the test may have closed it
            os.close(watched)
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_wrappers_child_is_stopped_when_the_watch_closes_after_the_wrapper_left() -> None:
    with warden(WRAPPER) as (proc, watched):
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        time.sleep(0.5)  # the wrapper has left; the proxy, here, is still there
        assert running(child), "the warden stopped a group while the proxy was alive"
        os.close(watched)  # the proxy is gone
        assert gone_within(child, 30), "the wrapper's child outlived the proxy"
        proc.wait(30)  # the warden went with its group (its SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_warden_leaves_with_its_group_while_the_proxy_is_alive() -> None:
    # The proxy stops the group itself when the server's output ends (reap.py): once the
    # wrapper's child is gone too, the warden has nothing left to watch and exits.
    with warden(WRAPPER) as (proc, _watched):
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        os.kill(child, signal.SIGKILL)
        assert proc.wait(30) == 0


def test_a_server_that_exits_alone_gives_its_status_at_once() -> None:
    with warden([sys.executable, "-c", "raise SystemExit(3)"]) as (proc, _watched):
        assert proc.wait(30) == 3


def test_a_server_killed_by_a_signal_gives_a_shells_status() -> None:
    with warden([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"]) as (proc, _):
        assert proc.wait(30) == 128 + 9


def test_a_server_that_exits_alone_is_not_outwaited_by_a_linger_poll(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by timing a proxy's stop (strace, a stdio upstream at end of input): the warden
    slept one LINGER_POLL_SECONDS (0.1 s) before its first look at a group that was already
    empty, so every stdio upstream's stop took 0.1 s more than it needed, in every proxy's
    shutdown and every test that stops one. An empty group is seen before any wait now."""
    from elision.mcp.upstream import warden as module

    waits: list[float | None] = []
    looks: list[str] = []

    def select(read: list[int], write: list[int], error: list[int],
               timeout: float | None = None) -> tuple[list[int], list[int], list[int]]:
        waits.append(timeout)
        return [], [], []

    def reader(group: int) -> Any:
        def others() -> bool:
            looks.append("looked")
            return len(looks) < 3  # the group's last member leaves on the third look
        return others

    monkeypatch.setattr(module.select, "select", select)
    monkeypatch.setattr(module, "_group_reader", reader)
    assert module._watch_group(watch=-1, group=os.getpgrp()) is False
    # It looked, waited, looked, waited, looked: never a wait before the first look.
    assert looks == ["looked"] * 3 and waits == [module.LINGER_POLL_SECONDS] * 2


def test_an_empty_group_with_the_watch_closed_is_still_told_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch closing while some member still runs is what makes the warden stop the group:
    looking first must not lose that answer."""
    from elision.mcp.upstream import warden as module

    monkeypatch.setattr(module.select, "select",
                        lambda r, w, e, timeout=None: (list(r), [], []))
    monkeypatch.setattr(module, "_group_reader", lambda group: (lambda: True))
    assert module._watch_group(watch=7, group=os.getpgrp()) is True
    # With no way to list a group, the watch still gets its grace period.
    calls: list[float | None] = []

    def never(read: list[int], write: list[int], error: list[int],
              timeout: float | None = None) -> tuple[list[int], list[int], list[int]]:
        calls.append(timeout)
        return [], [], []

    monkeypatch.setattr(module.select, "select", never)
    monkeypatch.setattr(module, "_group_reader", lambda group: None)
    assert module._watch_group(watch=7, group=os.getpgrp()) is False
    assert sum(c or 0 for c in calls) >= module.GRACE_SECONDS
