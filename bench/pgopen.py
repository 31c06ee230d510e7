"""What opening a PostgreSQL store costs, side by side with the code before.

    .venv/bin/python bench/pgopen.py [--url URL] [--opens 200] [--rounds 5] [--before SRC]

Each round runs, in a child process per code (``PYTHONPATH=src``, or ``--before``'s ``src``),
``--opens`` opens and closes of a ``PostgresStore`` on one schema that already holds the
store's tables (as a test run or a restarted replica opens it), and prints the median wall
time per open of the rounds, each code's, and their ratio. The codes alternate within a round,
so a load from elsewhere weighs on both alike. ``--url`` defaults to
``$ELISION_TEST_POSTGRES_URL``; the schema is made and dropped by the bench.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
from psycopg import sql

CHILD = """
import sys, time
from elision.store.postgres import PostgresStore
url, schema, opens = sys.argv[1], sys.argv[2], int(sys.argv[3])
PostgresStore(url, schema=schema).close()  # imports and the first open: not timed
start = time.perf_counter()
for _ in range(opens):
    PostgresStore(url, schema=schema).close()
print((time.perf_counter() - start) / opens)
"""


def per_open(src: str, url: str, schema: str, opens: int) -> float:
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, "-c", CHILD, url, schema, str(opens)], env=env,
                          capture_output=True, text=True, check=True, timeout=600)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("ELISION_TEST_POSTGRES_URL", ""))
    parser.add_argument("--opens", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", metavar="SRC", help="a checkout's src, run beside this one")
    args = parser.parse_args()
    if not args.url:
        parser.error("no --url and no $ELISION_TEST_POSTGRES_URL")
    here = str(Path(__file__).resolve().parents[1] / "src")
    codes = [("now", here)] + ([("before", args.before)] if args.before else [])
    schema = f"elision_bench_{uuid.uuid4().hex[:12]}"
    times: dict[str, list[float]] = {name: [] for name, _ in codes}
    try:
        for _ in range(args.rounds):
            for name, src in codes:
                times[name].append(per_open(src, args.url, schema, args.opens))
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(schema)))
    medians = {name: statistics.median(got) for name, got in times.items()}
    print(f"{args.opens} opens x {args.rounds} rounds, median per open:")
    for name, median in medians.items():
        print(f"  {name:7} {median * 1000:7.2f} ms  (rounds: "
              f"{', '.join(f'{t * 1000:.2f}' for t in times[name])})")
    if "before" in medians:
        print(f"  now / before: {medians['now'] / medians['before']:.2f}x")


if __name__ == "__main__":
    main()
