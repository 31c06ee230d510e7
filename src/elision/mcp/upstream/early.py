"""A stdio server started before the proxy has imported anything heavy.

A harness waits for ``initialize`` before the server's tools exist, and gives up after a few
seconds (issue 24). The server's start (often an MCP SDK of its own to import) and the
proxy's (the SDK, the store, the audit log) used to run one after the other. ``elision proxy
-- COMMAND`` now starts COMMAND first, from the CLI, with nothing but the standard library
imported, and the first session with that server (:func:`elision.mcp.upstream.stdio.
stdio_transport`) adopts the running process instead of starting another: both starts
overlap.

The process is started exactly as :func:`~elision.mcp.upstream.stdio.stdio_transport` starts
one: under the warden, in a session of its own, with the same environment, its stderr the
proxy's. One that no session adopted (the proxy refused its flags, say) is stopped by
:func:`discard_early`, and in any case by the warden once the proxy is gone.

This module imports only the standard library: it runs before anything else.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The warden script, run by path with ``-I -S``: nothing of elision is imported there.
WARDEN = str(Path(__file__).with_name("warden.py"))


def warden_command(watch: int) -> list[str]:
    """The command line that runs a server under the warden watching fd ``watch``."""
    return [sys.executable, "-I", "-S", WARDEN, str(watch), "--"]


@contextlib.contextmanager
def watch_pipe() -> Iterator[tuple[int, int]]:
    """The warden's watch pipe, for one start: ``(watch, watched)``.

    ``watch`` goes to the child (``pass_fds``) and is closed here once the start is over;
    ``watched``, the write end, is the proxy's alone to hold, closed here only if the start
    fails, so a server that started is stopped by closing it (and by nothing else)."""
    watch, watched = os.pipe()
    try:
        yield watch, watched
    except BaseException:
        os.close(watched)
        raise
    finally:
        os.close(watch)


def check_runnable(command: str, path: str | None, cwd: str | None) -> None:
    """Raise what starting ``command`` would, before the warden is started: the warden can
    only report it on stderr, and the proxy names the server and the reason."""
    if os.sep in command:
        named = os.path.join(cwd or ".", command)
        runnable = os.path.isfile(named) and os.access(named, os.X_OK)
    else:
        runnable = shutil.which(command, path=path if path is not None else os.defpath) is not None
    if not runnable:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command)


@dataclass
class Early:
    """A server process started ahead of its session, and what it was started with."""

    argv: tuple[str, ...]
    cwd: str | None
    process: subprocess.Popen[bytes]
    #: The write end of the warden's watch pipe: held by the proxy alone, closed to stop it.
    watched: int


_started: list[Early] = []


def start_early(
    command: str, args: Sequence[str], *, env: Mapping[str, str], cwd: str | None = None
) -> None:
    """Start ``command`` now, for the first session to adopt. Anything that would fail is
    left to the session's own start, which reports it as ever."""
    merged = dict(env)
    try:
        check_runnable(command, merged.get("PATH"), cwd)
    except OSError:
        return
    try:
        with watch_pipe() as (watch, watched):
            process = subprocess.Popen(
                [*warden_command(watch), command, *args], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=None, env=merged, cwd=cwd,
                start_new_session=True, pass_fds=(watch,),
            )
    except OSError:
        return
    _started.append(Early((command, *args), cwd, process, watched))


def take_early(command: str, args: Sequence[str], *, cwd: str | None) -> Early | None:
    """The process started early for exactly this command line and folder; it is then the
    caller's to stop. One that has exited already is taken too: its session fails as a
    session with a server that failed at its start would. Each is taken once: a restart
    starts a new process.

    The environment is not compared: the process has the one the command was given, and a
    variable that something imported since set in this process's (a library's default) must
    not start a second copy of a server that may hold a lock or a port."""
    argv = (command, *args)
    for early in _started:
        if early.argv == argv and early.cwd == cwd:
            _started.remove(early)
            return early
    return None


def discard_early() -> None:
    """Stop every process started early that no session adopted."""
    while _started:
        _stop(_started.pop())


def _stop(early: Early) -> None:
    process = early.process
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    with contextlib.suppress(OSError):
        os.close(early.watched)  # the warden stops the group once this end is closed
    # The warden ignores SIGTERM and stops the group (its own grace, then SIGKILL) once the
    # watch is closed; a server that ignores SIGTERM too is killed here past that grace.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


_GRACE_SECONDS = 3.0
