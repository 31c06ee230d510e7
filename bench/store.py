"""Store throughput against the floor: raw sqlite3 insert/select of the same bytes.

    .venv/bin/python bench/store.py [--sizes 1KB,1MB,10MB,100MB] [--dir DIR]

For each body size, times ``SQLiteStore.put`` and ``SQLiteStore.read`` against a plain
``INSERT``/``SELECT`` of one BLOB in a table of its own, in a file with the same pragmas (WAL,
synchronous=NORMAL). Every repetition writes a different body, so deduplication never skips a
write. Medians, MB/s and the store/raw ratio are printed side by side. The store does more
than the floor on purpose: put checks the SHA-256 it is given and splits the body into 4 MiB
chunks (or, from ``FILE_BYTES`` on, writes it as a file beside the database); read joins the
chunks or reads the file and checks the digest again before serving.

With ``--files`` each size is also kept both ways by the store itself, all rows
(``file_bytes`` above the size) against all files (``file_bytes=1``), put then removed, as a
body lives and goes: the figures behind ``elision.store.bodyfiles.FILE_BYTES``.

With ``--postgres URL`` (default: ``$ELISION_TEST_POSTGRES_URL``) the same bodies also go
through ``PostgresStore``, against a plain ``INSERT``/``SELECT`` of one ``bytea`` over the
same psycopg connection kind, in a throwaway schema.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from elision.shape import new_ref
from elision.store import SQLiteStore

T = TypeVar("T")
UNITS = {"KB": 1024, "MB": 1024 * 1024}
#: Repetitions per size: enough for a stable median on a shared 2-core machine.
REPEATS = {1024: 300, 1024 * 1024: 20, 10 * 1024 * 1024: 7, 100 * 1024 * 1024: 3}


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, factor in UNITS.items():
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def bodies(size: int, count: int) -> list[bytes]:
    base = os.urandom(min(size, 1 << 20))
    whole = (base * (size // len(base) + 1))[:size]
    # A distinct prefix per repetition: a new digest, so the store writes every time.
    return [i.to_bytes(8, "big") + whole[8:] if size >= 8 else whole for i in range(count)]


def timed(func: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def bench_store(path: Path, payloads: list[bytes], store: Any = None) -> tuple[list[float],
                                                                              list[float]]:
    store = store or SQLiteStore(path, quota_bytes=1 << 40, max_body_bytes=1 << 30)
    writes, reads, refs = [], [], []
    for body in payloads:
        ref = new_ref()
        digest = hashlib.sha256(body).hexdigest()  # the caller's digest, as shape() passes it
        elapsed, _ = timed(lambda b=body, r=ref, d=digest: store.put(
            b, ref=r, sha256=d, format="text"))
        writes.append(elapsed)
        refs.append(ref)
    for ref, body in zip(refs, payloads, strict=True):
        elapsed, out = timed(lambda r=ref: store.read(r))
        reads.append(elapsed)
        assert out == body
    store.close()
    return writes, reads


def bench_kept(path: Path, payloads: list[bytes], file_bytes: int) -> list[float]:
    """Each body put, then removed (its rows deleted or its file unlinked), by the store."""
    store = SQLiteStore(path, quota_bytes=1 << 40, max_body_bytes=1 << 30,
                        file_bytes=file_bytes)
    times = []
    for body in payloads:
        ref = new_ref()
        digest = hashlib.sha256(body).hexdigest()

        def keep_and_drop(b: bytes = body, r: str = ref, d: str = digest) -> None:
            store.put(b, ref=r, sha256=d, format="text", verified=True)
            store.remove(r)

        times.append(timed(keep_and_drop)[0])
    store.close()
    return times


def bench_raw(path: Path, payloads: list[bytes]) -> tuple[list[float], list[float]]:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    writes, reads = [], []

    def insert(i: int, body: bytes) -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO raw VALUES (?, ?)", (i, body))
        conn.execute("COMMIT")

    for i, body in enumerate(payloads):
        writes.append(timed(lambda i=i, b=body: insert(i, b))[0])
    for i, body in enumerate(payloads):
        elapsed, out = timed(lambda i=i: bytes(
            conn.execute("SELECT data FROM raw WHERE id = ?", (i,)).fetchone()[0]))
        reads.append(elapsed)
        assert out == body
    conn.close()
    return writes, reads


def bench_postgres(url: str, payloads: list[bytes]) -> tuple[list[float], ...]:
    import psycopg
    from psycopg import sql

    from elision.store.postgres import PostgresStore

    schema = f"elision_bench_{os.getpid()}"
    try:
        store = PostgresStore(url, schema=schema, quota_bytes=1 << 40, max_body_bytes=1 << 30)
        store_w, store_r = bench_store(Path(), payloads, store)
        raw_w, raw_r = [], []
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            conn.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, data BYTEA NOT NULL)")
            conn.execute("ALTER TABLE raw ALTER COLUMN data SET STORAGE EXTERNAL")
            for i, body in enumerate(payloads):
                raw_w.append(timed(lambda i=i, b=body: conn.execute(
                    "INSERT INTO raw VALUES (%s, %s)", (i, b)))[0])
            for i, body in enumerate(payloads):
                elapsed, out = timed(lambda i=i: bytes(conn.execute(
                    "SELECT data FROM raw WHERE id = %s", (i,)).fetchone()[0]))
                raw_r.append(elapsed)
                assert out == body
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(schema)))
    return store_w, store_r, raw_w, raw_r


def human(size: int) -> str:
    return f"{size // (1 << 20)} MB" if size >= 1 << 20 else f"{size // 1024} KB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1KB,1MB,10MB,100MB",
                        help="comma-separated body sizes (KB, MB)")
    parser.add_argument("--dir", default=None, help="where the temporary databases go")
    parser.add_argument("--postgres", metavar="URL",
                        default=os.environ.get("ELISION_TEST_POSTGRES_URL"),
                        help="also bench PostgresStore against raw psycopg on this database")
    parser.add_argument("--files", action="store_true",
                        help="also put and remove each size as rows and as a file (store only)")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, "
          f"{os.cpu_count()} cores")
    header = (f"{'size':>7} {'op':>5} {'n':>4} | {'store median':>13} {'store MB/s':>10} | "
              f"{'raw median':>11} {'raw MB/s':>9} | {'store/raw':>9}")
    print(header)
    print("-" * len(header))
    for size in sizes:
        count = REPEATS.get(size, 5)
        payloads = bodies(size, count)
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            store_w, store_r = bench_store(Path(tmp) / "store.db", payloads)
            raw_w, raw_r = bench_raw(Path(tmp) / "raw.db", payloads)
        rows = [("write", store_w, raw_w), ("read", store_r, raw_r)]
        if args.files:
            with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
                as_rows = bench_kept(Path(tmp) / "rows.db", payloads, size + 1)
                as_file = bench_kept(Path(tmp) / "file.db", payloads, 1)
            rows.append(("file/rows", as_file, as_rows))  # "raw" is the rows, here
        if args.postgres:
            pg_w, pg_r, pg_raw_w, pg_raw_r = bench_postgres(args.postgres, payloads)
            rows += [("pg-w", pg_w, pg_raw_w), ("pg-r", pg_r, pg_raw_r)]
        for op, mine, floor in rows:
            m, f = statistics.median(mine), statistics.median(floor)
            print(f"{human(size):>7} {op:>5} {count:>4} | {m * 1000:>10.3f} ms "
                  f"{size / m / 1e6:>10.1f} | {f * 1000:>8.3f} ms {size / f / 1e6:>9.1f} | "
                  f"{m / f:>8.2f}x")
        del payloads
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
