"""What exactness costs: orjson.loads vs the number scan alone vs parse_json, side by side.

    .venv/bin/python bench/jsonparse.py            # 0.4, 1, 10 and 100 MB
    .venv/bin/python bench/jsonparse.py 1 10       # sizes in MB

Bodies are generated records (ints, floats like 12.5, short strings, hex ids) that orjson
reproduces exactly, so parse_json takes its fast path; each size comes compact and indented
(more bytes between the numbers), and a third row puts one ``1E5`` at the end so the scan
fires and the exact (stdlib) path runs. The scan is timed with each engine: the regex passes
and hyperscan (when installed; parse_json uses it from ``numscan.HYPERSCAN_FROM`` bytes up).
Times are medians.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from elision.shape import numscan
from elision.shape.jsonparse import parse_json


def make_body(megabytes: float, *, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "ok", "pending", "failed", "zürich", "東京"]
    record_size = len(orjson.dumps(_record(rng, words, 0)))
    rows = [_record(rng, words, i) for i in range(int(megabytes * 1_000_000) // record_size)]
    return orjson.dumps({"total": len(rows), "warnings": [], "rows": rows})


def _record(rng: random.Random, words: list[str], i: int) -> dict[str, Any]:
    return {
        "id": i,
        "sha": hashlib.sha1(str(i).encode()).hexdigest()[:16],
        "name": f"{rng.choice(words)} {rng.choice(words)}",
        "price": rng.randrange(1, 100_000) / 8,  # 12.5, 0.125: exact in binary, short
        "qty": rng.randrange(0, 1000),
        "ratio": round(rng.random(), 3),
        "active": rng.random() < 0.5,
        "tags": [rng.choice(words) for _ in range(rng.randrange(0, 3))],
        "parent": None,
    }


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(sizes: list[float]) -> None:
    hyperscan = numscan.hyperscan_engine()
    print(f"{'body':>22} {'orjson.loads':>13} {'regex scan':>11} {'hyperscan':>10} "
          f"{'parse_json':>11} {'regex/orjson':>13} {'hs/orjson':>10} {'parse/orjson':>13}")
    for megabytes in sizes:
        body = make_body(megabytes)
        indented = orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2)
        flagged = body[:-1] + b',"x":1E5}'  # one re-spelled number: the exact path runs
        repeats = 7 if megabytes < 100 else 3
        for label, data in ((f"{megabytes:g} MB", body), (f"{megabytes:g} MB indented", indented),
                            (f"{megabytes:g} MB +1E5", flagged)):
            floor = median_time(lambda d=data: orjson.loads(d), repeats)  # type: ignore[misc]
            regex = median_time(lambda d=data: numscan.regex_risky_numbers(d),  # type: ignore[misc]
                                repeats)
            fast = (median_time(lambda d=data: hyperscan(d), repeats)  # type: ignore[misc]
                    if hyperscan is not None else float("nan"))
            parse = median_time(lambda d=data: parse_json(d), repeats)  # type: ignore[misc]
            print(f"{label:>22} {floor * 1e3:>11.1f}ms {regex * 1e3:>9.1f}ms {fast * 1e3:>8.1f}ms "
                  f"{parse * 1e3:>9.1f}ms {regex / floor:>13.2f} {fast / floor:>10.2f} "
                  f"{parse / floor:>13.2f}")


if __name__ == "__main__":
    main([float(arg) for arg in sys.argv[1:]] or [0.4, 1, 10, 100])
