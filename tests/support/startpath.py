"""What a process has loaded, and how often its collector ran, at a moment a test picks.

A command is run in a fresh interpreter under a probe that counts the cycle collector's
collections from the first line on and, when the test sends it ``SIGUSR1``, writes on stderr
one line, :data:`MARK` and a JSON report: the modules loaded (top-level names and all), the
collections so far of each generation, and the collector's state. A long-running command
(``elision proxy``) is probed at the moment its first answer came; the test then ends it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

#: How a probed process's report line begins on its stderr.
MARK = "elision-start-path: "
#: How the command is started: as the click group (tests, the bench), or as the ``elision``
#: executable and ``python -m elision`` start it (what ``elision install`` writes).
ENTRIES = {
    "click group": "from elision.cli import main; main()",
    "executable": "import runpy; runpy.run_module('elision', run_name='__main__')",
}
#: Counts collections from the first line; reports on SIGUSR1, written with os.write so that
#: it interleaves with nothing the command writes through sys.stderr.
PROBE = """
import gc, json, os, signal, sys
_collections = [0, 0, 0]
def _count(phase, info):
    if phase == "start":
        _collections[info["generation"]] += 1
gc.callbacks.append(_count)
def _report(signum, frame):
    line = json.dumps({
        "loaded": sorted({m.split(".")[0] for m in sys.modules}),
        "modules": sorted(sys.modules),
        "collections": _collections,
        "collector": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()},
    })
    os.write(2, ({mark!r} + line + "\\n").encode())
signal.signal(signal.SIGUSR1, _report)
sys.argv = ["elision", *sys.argv[1:]]
{entry}
"""


def probed(args: Sequence[str], entry: str = "click group") -> list[str]:
    """The command line that runs ``elision ARGS`` under the probe, started by ``entry``."""
    probe = PROBE.replace("{mark!r}", repr(MARK)).replace("{entry}", ENTRIES[entry])
    return [sys.executable, "-c", probe, *args]


def ask_report(pid: int) -> None:
    """Ask the probed process ``pid`` for its report (it comes on its stderr)."""
    os.kill(pid, signal.SIGUSR1)


def report_in(stderr: str) -> dict[str, Any]:
    """The probe's report in what the process wrote on stderr."""
    for line in stderr.splitlines():
        if line.startswith(MARK):
            report: dict[str, Any] = json.loads(line[len(MARK):])
            return report
    raise AssertionError(f"no report on stderr: {stderr[-2000:]!r}")
