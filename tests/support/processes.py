"""Real processes for end-to-end tests: start one, wait until it says it is ready, stop it.

Its stderr is read in the background for as long as it runs, so a chatty process never stalls
on a full pipe, and every line stays at hand for assertions (``Started.stderr()``).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp import StdioServerParameters

#: What ``elision proxy --listen`` prints once it accepts connections.
LISTENING = re.compile(r"listening on (http://\S+)")


@dataclass
class Started:
    proc: subprocess.Popen[str]
    #: The match of the readiness pattern in the line that made the process ready.
    match: re.Match[str]
    lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The first group of the readiness match: the URL, for a listening proxy."""
        return self.match[1]

    def stderr(self) -> str:
        """Everything the process wrote to stderr so far."""
        return "".join(self.lines)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not: it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


@contextmanager
def started(
    command: Sequence[str],
    *,
    ready: re.Pattern[str] = LISTENING,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60.0,
) -> Iterator[Started]:
    """Run ``command`` until the ``with`` ends; enter once a stderr line matches ``ready``."""
    proc = subprocess.Popen(
        list(command), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=cwd,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    stderr = proc.stderr
    lines: list[str] = []
    found: list[re.Match[str]] = []
    became_ready = threading.Event()

    def drain() -> None:
        for line in stderr:
            lines.append(line)
            if not found and (match := ready.search(line)):
                found.append(match)
                became_ready.set()
        became_ready.set()  # it exited: stop waiting

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + timeout
        while not became_ready.wait(0.05):
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{command!r} never became ready in {timeout:g} s:\n{''.join(lines)}"
                )
        if not found:
            proc.wait(10)
            reader.join(10)
            raise AssertionError(
                f"{command!r} exited (status {proc.returncode}) before it was ready:\n"
                + "".join(lines)
            )
        yield Started(proc, found[0], lines)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        reader.join(10)
        stderr.close()


def stderr_to_file(command: Sequence[str], stderr: Path) -> StdioServerParameters:
    """Stdio parameters that run ``command`` with its stderr appended to the file ``stderr``
    (a shell redirect), so a test can search what a proxy and its upstream wrote there while
    stdout stays the MCP channel."""
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command="sh", args=["-c", 'exec "$@" 2>>"$PROXY_ERR"', "sh", *command],
        env={**os.environ, "PROXY_ERR": str(stderr)},
    )
