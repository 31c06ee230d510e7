"""What meeting a client's line cap costs, side by side: the floor, the code before, this code.

    .venv/bin/python bench/lines.py [--baseline SRC] [--runs 7]

Make the baseline with ``git archive <commit> src | tar -x -C /tmp/base`` and pass
``--baseline /tmp/base/src``. Each text below is shaped for OpenCode by each code in a process
of its own (``--child``): the code before at the budget it had to use for OpenCode's 2,000-line
cut (16,000 bytes, no line cap), this code at 48,000 bytes and at 48,000 bytes with the
2,000-line cap (the line search: a proportional step, then bisection). The floor is the SHA-256
and UTF-8 decode every shaping does. Time is the median of ``--runs``; peak is tracemalloc's
over one call; ``lines`` and ``bytes`` are what the model is handed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def texts() -> dict[str, str]:
    verdict = "VERDICT: 3 failures"
    return {
        # the in-harness suite's short log: 3,001 lines of ~15 bytes (~50 KB)
        "short log 3k": "\n".join([*(f"step {i} passed" for i in range(1, 3_001)), verdict]),
        # 4-byte lines: 100,000 of them (~400 KB)
        "tiny lines 100k": "\n".join([*(["okk"] * 99_999), verdict]),
        # ~100-byte lines (~300 KB): the bytes bind, not the lines
        "build log 3k": "\n".join(
            [*(f"{i:05} INFO worker " + "x" * 80 for i in range(3_000)), verdict]
        ),
        # pretty JSON that fits 48,000 bytes in 6,000 lines: shaped compact
        "pretty json": json.dumps({"rows": list(range(2_000)), "total": 2_000}, indent=1),
    }


def child(src: str, budgets: list[list[Any]], runs: int) -> None:
    sys.path.insert(0, src)
    import elision
    from elision import shape
    from elision.budget import Budget

    assert Path(elision.__file__).is_relative_to(src), (elision.__file__, src)

    out = []
    for name, text in texts().items():
        for limit, lines in budgets:
            budget = Budget(max(limit, 512)) if lines is None else Budget(limit, lines=lines)

            def call(text: str = text, budget: Budget = budget, floor: bool = limit == 0) -> str:
                if floor:
                    hashlib.sha256(text.encode()).hexdigest()
                    return text.encode().decode()
                return shape(text, budget, redactor=None).text

            times = []
            for _ in range(runs):
                start = time.perf_counter()
                shown = call()
                times.append(time.perf_counter() - start)
            tracemalloc.start()
            call()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            out.append(
                {
                    "text": name,
                    "limit": limit,
                    "cap": lines,
                    "median_ms": statistics.median(times) * 1000,
                    "peak_mb": peak / 2**20,
                    "lines": shown.count("\n") + 1,
                    "bytes": len(shown.encode()),
                }
            )
    print(json.dumps(out))


def run(src: Path, budgets: list[list[Any]], runs: int) -> list[dict[str, Any]]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            str(src),
            "--budgets",
            json.dumps(budgets),
            "--runs",
            str(runs),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"the child for {src} failed:\n{done.stderr}")
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="the code before's src folder")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--child")
    parser.add_argument("--budgets")
    args = parser.parse_args()
    if args.child:
        child(args.child, json.loads(args.budgets), args.runs)
        return
    rows = run(SRC, [[0, None], [48_000, None], [48_000, 2_000]], args.runs)
    if args.baseline:
        rows += [
            {**r, "code": "before"} for r in run(Path(args.baseline), [[16_000, None]], args.runs)
        ]
    print(
        f"{'text':<16} {'code':<22} {'median ms':>10} {'x floor':>8} {'peak MB':>8} "
        f"{'lines':>7} {'bytes':>7}"
    )
    for name in texts():
        mine = [r for r in rows if r["text"] == name]
        floor = next(r for r in mine if r["limit"] == 0)["median_ms"]
        for r in mine:
            label = (
                "floor"
                if r["limit"] == 0
                else f"{r.get('code', 'this')} {r['limit']:,}"
                + (f", {r['cap']:,} lines" if r["cap"] else "")
            )
            print(
                f"{name:<16} {label:<22} {r['median_ms']:>10.2f} "
                f"{r['median_ms'] / floor:>8.1f} {r['peak_mb']:>8.2f} {r['lines']:>7,} "
                f"{r['bytes']:>7,}"
            )


if __name__ == "__main__":
    main()
