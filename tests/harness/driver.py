"""Run one harness against the fake model where only loopback is reachable.

    unshare -n python driver.py SPEC.json

SPEC holds ``wanted`` (the tool the model asks for) and its ``args``, ``port``, ``argv``,
``env``, ``cwd``, ``timeout`` and ``out`` (where the record goes). Inside the fresh network
namespace this brings loopback up, starts the fake model on 127.0.0.1:port (every port is free
in a new namespace, so the harness's config can name it in advance), runs the harness, and
writes the model's record with the harness's exit code, output, wall and CPU time. Stdlib only.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fakemodel import FakeModel


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text("utf-8"))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    model = FakeModel(spec["wanted"], spec["port"], spec.get("args")).start()
    started = time.monotonic()
    try:
        done = subprocess.run(spec["argv"], env=spec["env"], cwd=spec["cwd"],
                              capture_output=True, text=True, errors="replace",
                              stdin=subprocess.DEVNULL, timeout=spec["timeout"], check=False)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code = -1
        stdout = (exc.stdout or b"").decode("utf-8", "replace") if isinstance(
            exc.stdout, bytes) else exc.stdout or ""
        stderr = "timed out\n" + ((exc.stderr or b"").decode("utf-8", "replace") if isinstance(
            exc.stderr, bytes) else exc.stderr or "")
    finally:
        model.stop()
    # the harness's CPU time with its servers' (those it waited for): what a run costs a
    # shared machine, whatever its load
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    Path(spec["out"]).write_text(json.dumps({
        "code": code, "stdout": stdout, "stderr": stderr, "records": model.records,
        "seconds": round(time.monotonic() - started, 2),
        "cpu_seconds": round(used.ru_utime + used.ru_stime, 2)}), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
