"""The code before and after a change, timed in lockstep: the same calls, in turn, under one load.

    .venv/bin/python bench/lockstep.py --before /work/wt/base [--after .] [--rounds 9]
        [--kinds log ndjson ledger] [--mb 100]

On a shared machine the load moves by 2x between two runs of ``bench/shape.py``, more than most
changes move the figures. Here each checkout's own venv runs one long-lived worker (this file
with ``--worker``, importing that checkout's elision) that has read every input once; the
driver hands both workers the same call in turn, swapping which goes first each round, so the
two sides see the same load. Calls: the floor (SHA-256 and a parse, as bench/shape.py's),
``shape()`` at 16 KB, and ``shape()`` with a fresh SQLite store. It prints per-side medians,
each tool's ratio to the same side's floor, and the 1-minute load average it saw.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

TOOLS = ("floor", "elision", "elision+store")
BUDGET = 16384


def worker(kinds: list[str], megabytes: float) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus
    import elision
    from elision.store import open_store

    bodies = {kind: corpus.make(kind, megabytes)[0] for kind in kinds}

    def floor(kind: str, body: bytes) -> None:
        hashlib.sha256(body).hexdigest()
        if kind == "ndjson":
            for line in body.splitlines():
                if line:
                    orjson.loads(line)
        elif kind == "log":
            body.decode("utf-8")
        else:
            orjson.loads(body)

    def alone(kind: str, body: bytes) -> None:
        elision.shape(body, elision.Budget(BUDGET), redactor=None)

    def stored(kind: str, body: bytes) -> None:
        # A fresh store each call, as bench/shape.py's: a kept one would find the body.
        with tempfile.TemporaryDirectory(prefix="elision-lockstep-") as where:
            store = open_store(str(Path(where) / "store.db"))
            try:
                elision.shape(body, elision.Budget(BUDGET), store=store, redactor=None)
            finally:
                store.close()

    calls = dict(zip(TOOLS, (floor, alone, stored), strict=True))
    print("ready", flush=True)
    for line in sys.stdin:
        kind, tool = line.split()
        gc.collect()
        start = time.perf_counter()
        calls[tool](kind, bodies[kind])
        print(f"{time.perf_counter() - start:.6f}", flush=True)


def drive(args: argparse.Namespace) -> None:
    sides = {}
    for name, checkout in (("before", args.before), ("after", args.after)):
        python = Path(checkout) / ".venv" / "bin" / "python"
        sides[name] = subprocess.Popen(
            [str(python), str(Path(__file__).resolve()), "--worker", "--mb", str(args.mb),
             "--kinds", *args.kinds],
            cwd=checkout, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for proc in sides.values():
        assert proc.stdin and proc.stdout and proc.stdout.readline().strip() == "ready"
    times: dict[tuple[str, str, str], list[float]] = {}
    loads = []
    for n in range(args.rounds):
        loads.append(os.getloadavg()[0])
        order = ("before", "after") if n % 2 == 0 else ("after", "before")
        for kind in args.kinds:
            for tool in TOOLS:
                for name in order:
                    proc = sides[name]
                    assert proc.stdin and proc.stdout
                    proc.stdin.write(f"{kind} {tool}\n")
                    proc.stdin.flush()
                    times.setdefault((name, kind, tool), []).append(float(proc.stdout.readline()))
    for proc in sides.values():
        assert proc.stdin
        proc.stdin.close()
        proc.wait()
    print(f"{args.rounds} rounds, {args.mb:g} MB, load {min(loads):.1f}-{max(loads):.1f} "
          f"(median {statistics.median(loads):.1f}) on {os.cpu_count()} cores")
    print(f"{'input':8} {'tool':14} {'before ms':>10} {'after ms':>9} | "
          f"{'before/floor':>12} {'after/floor':>11}")
    for kind in args.kinds:
        for tool in TOOLS:
            med = {name: statistics.median(times[(name, kind, tool)]) for name in sides}
            floor = {name: statistics.median(times[(name, kind, "floor")]) for name in sides}
            print(f"{kind:8} {tool:14} {med['before'] * 1000:10.1f} {med['after'] * 1000:9.1f} | "
                  f"{med['before'] / floor['before']:11.2f}x "
                  f"{med['after'] / floor['after']:10.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--before", help="the checkout (with its .venv) of the code before")
    parser.add_argument("--after", default=".", help="the checkout of the code after")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--kinds", nargs="+", default=["log", "ndjson", "ledger"])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.kinds, args.mb)
    elif not args.before:
        parser.error("--before is required: a checkout of the code before, with its .venv")
    else:
        drive(args)


if __name__ == "__main__":
    main()
