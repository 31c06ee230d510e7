"""`elision view` on big logs: time to the first page, side by side with the floor and with
the way to read a log before the viewer (`elision audit show`), peak memory beside time.

    .venv/bin/python bench/view.py [--sizes 1000,10000,100000] [--runs 3]

Each log is made by the library's audit path, not by 100,000 real calls: the newest
``KEPT`` entries by ``Pipeline.run`` with a ``LogAuditor`` that keeps both bodies in a SQLite
store (what the proxy's audit stage does for each call), every older entry by
``AuditLog.append`` of the same kind of ``tool_result_entry`` (a tool, a server, a session,
both digests; one in three cut, one in seven denied). Logs are made once per size in a
temporary folder and reused by every row.

Rows, each in processes of their own:

* ``floor``: one SQL query for the newest 50 entries' bodies on a read-only connection, and
  the JSON parse of each: what a page cannot do with less; ``floor start→page`` is the same
  in a Python process started for it, the floor of the rows that start a process (their
  ratio is to it; the request rows' ratio is to ``floor``).
* ``view start→page``: ``elision view`` started as a process, until the first page's HTML has
  arrived through the token redirect (Python's start, the imports, opening the log and the
  store, the chain's verifier starting on its thread, the page itself). This is the
  under-a-second target of issue 25.
* ``view start→page, CPU``: the CPU time the viewer's process used to get there; on a
  shared machine the wall time above is mostly waiting for a core, and this is what the
  start costs on an idle one.
* ``view page``: the same page asked again of the running viewer (the request alone), then a
  filtered first page (``tool=``), then a page in the middle of the log (``older=N/2``).
* ``audit show``: ``elision audit show --last 50`` to completion, the terminal table that was
  the only way to read a log before (it reads the whole log).

Peak is the process's high-water mark (VmHWM), for the viewer after all its requests. Time is
the median of ``--runs``. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEPT = 200
PAGE = 50
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


def make_log(folder: Path, n: int) -> tuple[Path, Path]:
    from elision import Budget, Pipeline
    from elision.audit.chain import tool_result_entry
    from elision.audit.log import AuditLog
    from elision.audit.stage import LogAuditor
    from elision.store import SQLiteStore

    log_path, store_path = folder / "audit.db", folder / "store.db"
    store = SQLiteStore(store_path)
    tools = ["search_issues", "read_file", "list_rows", "query_logs", "fetch_page"]
    with AuditLog(log_path) as log:
        for i in range(max(0, n - KEPT)):
            digest = f"{i:064x}"
            log.append(tool_result_entry(
                step_id=f"step-{i}", session_id=f"session-{i // 500}", tool=tools[i % 5],
                server="upstream", full_sha256=digest, full_bytes=12_000 + i % 977,
                shown_sha256=digest[::-1], shown_bytes=4096, complete=i % 3 != 0,
                decision="deny" if i % 7 == 0 else "allow",
                withheld={"aws-sigv4-url": 1} if i % 11 == 0 else None,
            ))
        auditor = LogAuditor(log, session_id="session-last", store=store)
        pipeline = Pipeline(budget=Budget(4096), store=store, auditor=auditor)
        for i in range(min(n, KEPT)):
            rows = [{"id": j, "name": f"row {j} of call {i}"} for j in range(300)]
            pipeline.run(json.dumps({"total_rows": 300, "rows": rows}), tool=tools[i % 5],
                         server="upstream")
        auditor.close()
    store.close()
    return log_path, store_path


def floor(log_path: Path) -> None:
    start = time.perf_counter()
    db = sqlite3.connect(f"{log_path.resolve().as_uri()}?mode=ro", uri=True)
    rows = db.execute("SELECT seq, body FROM entries ORDER BY seq DESC LIMIT ?",
                      (PAGE,)).fetchall()
    parsed = [json.loads(body) for _, body in rows]
    assert len(parsed) == PAGE
    print(time.perf_counter() - start, _hwm_mb(os.getpid()))


def _hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_child(args: list[str]) -> tuple[float, float]:
    """Run ``args`` to completion; ``(seconds, peak MB)`` as the child reports its peak."""
    wrapper = ("import sys, runpy, pathlib\n"
               "sys.argv = sys.argv[1:]\n"
               "try:\n"
               "    from elision.cli import main; main(standalone_mode=False)\n"
               "finally:\n"
               "    s = pathlib.Path('/proc/self/status').read_text()\n"
               "    hwm = [l for l in s.splitlines() if l.startswith('VmHWM:')][0]\n"
               "    sys.stderr.write('HWM ' + hwm.split()[1] + '\\n')\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, "elision", *args],
                          capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    hwm = re.search(r"HWM (\d+)", done.stderr)
    return seconds, (int(hwm[1]) / 1024 if hwm else float("nan"))


def view_rows(log_path: Path, store_path: Path, n: int) -> dict[str, tuple[float, float]]:
    """Start the viewer, get the first page, then the other pages; times and its peak."""
    start = time.perf_counter()
    proc = subprocess.Popen([*ELISION, "view", "--log", str(log_path), "--store",
                             str(store_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        assert match, line
        url = match[1]
        base = url.partition("/?token=")[0]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        html = opener.open(url, timeout=60).read()
        first = time.perf_counter() - start
        assert b"/call/" in html
        out = {"view start→page": (first, float("nan")),
               "view start→page, CPU": (_cpu_seconds(proc.pid), float("nan"))}
        for name, path in (("view page", "/"), ("view page tool=", "/?tool=read_file"),
                           ("view page middle", f"/?older={n // 2}")):
            t0 = time.perf_counter()
            body = opener.open(base + path, timeout=60).read()
            out[name] = (time.perf_counter() - t0, float("nan"))
            assert b"/call/" in body, name
        peak = _hwm_mb(proc.pid)
        return {k: (t, peak) for k, (t, _) in out.items()}
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--floor", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(Path(args.floor))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average before: {os.getloadavg()}")
    results: dict[str, dict[int, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="elision-bench-view-") as tmp:
        for n in sizes:
            folder = Path(tmp) / str(n)
            folder.mkdir()
            t0 = time.perf_counter()
            log_path, store_path = make_log(folder, n)
            print(f"made a log of {n:,} entries in {time.perf_counter() - t0:.1f} s "
                  f"({log_path.stat().st_size / 1e6:.1f} MB)", flush=True)
            runs: dict[str, list[tuple[float, float]]] = {}
            for _ in range(args.runs):
                t0 = time.perf_counter()
                done = subprocess.run([sys.executable, __file__, "--floor", str(log_path)],
                                      capture_output=True, text=True, check=True)
                spawned = time.perf_counter() - t0
                query, peak = (float(v) for v in done.stdout.split())
                runs.setdefault("floor", []).append((query, peak))
                runs.setdefault("floor start→page", []).append((spawned, peak))
                for name, value in view_rows(log_path, store_path, n).items():
                    runs.setdefault(name, []).append(value)
                runs.setdefault("audit show --last 50", []).append(
                    timed_child(["audit", "show", "--last", "50", "--log", str(log_path)]))
            for name, values in runs.items():
                results.setdefault(name, {})[n] = (
                    statistics.median(v[0] for v in values),
                    max(v[1] for v in values))
    width = max(len(k) for k in results)
    head = " | ".join(f"{n:>9,} entries: time   peak MB" for n in sizes)
    print(f"\n{'row':<{width}} | {head}")
    for name, by_size in results.items():
        cells = []
        for n in sizes:
            t, peak = by_size[n]
            # A row that starts a process is set against the floor that starts one too.
            against = "floor start→page" if "start" in name or "show" in name else "floor"
            floor_t = results[against][n][0]
            ratio = f"{t / floor_t:5.1f}x" if not name.startswith("floor") else "      "
            cells.append(f"{t * 1000:8.1f} ms {ratio} {peak:7.1f}")
        print(f"{name:<{width}} | " + " | ".join(cells))
    print("\n(time, then time / the floor's time; peak: the process's high-water mark; the "
          "view rows share one process, so one peak, after all four requests)")
    print(f"load average after: {os.getloadavg()}")



if __name__ == "__main__":
    main()
