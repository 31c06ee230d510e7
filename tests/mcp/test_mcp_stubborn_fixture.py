"""The stubborn server (the shutdown tests' upstream) never signals a process it did not mean.

Found in a fresh clone's full run (session of 2026-12-03): an xdist worker died, "node down:
Not properly terminated", while test_mcp_upstream_reaped_e2e ran, and the run then hung. The
stubborn server told its wrapper to leave by signalling ``os.getppid()``; when the wrapper had
already died (the reaper's group SIGTERM came first on a loaded machine), the server had been
re-parented to the nearest child subreaper, which the test process is (tests/conftest.py), and
the SIGTERM killed the test worker instead.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

STUBBORN = Path(__file__).with_name("stubborn_server.py")

#: Run in a process of its own that is a child subreaper, as a test worker is: it starts the
#: stubborn wrapper, kills the wrapper, ends the orphaned server's input, and says whether a
#: SIGTERM reached it.
PROBE = textwrap.dedent("""
    import ctypes, os, signal, subprocess, sys, time
    got = []
    signal.signal(signal.SIGTERM, lambda *_: got.append(1))
    assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    pids = sys.argv[2]
    wrapper = subprocess.Popen([sys.executable, sys.argv[1]], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, env={**os.environ,
                               "STUBBORN_PIDS": pids})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = open(pids).read() if os.path.exists(pids) else ""
        if len(text.split()) == 2:
            break
        time.sleep(0.05)
    server = int(open(pids).read().split()[1])
    time.sleep(1.0)  # the server is serving
    wrapper.kill()
    wrapper.wait()
    wrapper.stdin.close()  # the orphaned server's input ends: it is this process's child now
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(server, signal.SIGKILL)
    os.waitpid(server, 0)
    print("signalled" if got else "left alone")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are Linux's")
def test_the_orphaned_stubborn_server_does_not_signal_its_new_parent(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(STUBBORN), str(tmp_path / "pids")],
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "left alone", done.stderr
