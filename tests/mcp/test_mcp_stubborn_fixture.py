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
#: stubborn wrapper, waits until the server answers (it has taken note of its parent, the
#: wrapper), kills the wrapper, ends the orphaned server's input, and says whether a SIGTERM
#: reached it. SIGTERM is blocked here, so one sent stays pending, where ``sigpending`` sees
#: it: the server makes a file once it has decided (after its signal, if any), and that file
#: is waited for, rather than ten seconds in which a signal did not come.
PROBE = textwrap.dedent("""
    import ctypes, json, os, signal, subprocess, sys, time
    assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    pids, decided = sys.argv[2], sys.argv[3]
    wrapper = subprocess.Popen([sys.executable, sys.argv[1]], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env={**os.environ,
                               "STUBBORN_PIDS": pids, "STUBBORN_DECIDED": decided})
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # after the start: not inherited

    def until(check, what):
        deadline = time.monotonic() + 60
        while not check():
            if time.monotonic() > deadline:
                sys.exit(f"never saw {what} in 60 s")
            time.sleep(0.05)  # another process's doing: nothing to wait on but the file

    until(lambda: os.path.exists(pids) and len(open(pids).read().split()) == 2, "both pids")
    server = int(open(pids).read().split()[1])
    wrapper.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                    "params": {"protocolVersion": "2025-06-18",
                                               "capabilities": {},
                                               "clientInfo": {"name": "probe", "version": "0"}}
                                    }).encode() + b"\\n")
    wrapper.stdin.flush()
    assert json.loads(wrapper.stdout.readline())["id"] == 1  # the server is serving
    wrapper.kill()
    wrapper.wait()
    wrapper.stdin.close()  # the orphaned server's input ends: it is this process's child now
    until(lambda: os.path.exists(decided), "the server's decision")
    signalled = signal.SIGTERM in signal.sigpending()
    os.kill(server, signal.SIGKILL)
    os.waitpid(server, 0)
    print("signalled" if signalled else "left alone")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are Linux's")
def test_the_orphaned_stubborn_server_does_not_signal_its_new_parent(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(STUBBORN), str(tmp_path / "pids"),
                           str(tmp_path / "decided")],
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "left alone", done.stderr
