"""Several real processes share one SQLite store: nothing is lost, nothing is torn."""

from __future__ import annotations

import hashlib
import multiprocessing
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

from elision.errors import StoreError
from elision.shape import new_ref
from elision.store import SQLiteStore
from elision.store import sqlite as sqlite_module

WRITERS = 4
READERS = 2
PUTS = 25


def body_for(worker: int, n: int) -> bytes:
    # Different sizes so bodies span one or several chunks; some repeat across workers (dedup).
    size = 500 + (worker * 7919 + n * 104729) % 9000
    fill = b"shared" if n % 5 == 0 else f"w{worker}-".encode()
    return (fill * (size // len(fill) + 1))[:size]


def writer(path: str, worker: int, results: Any) -> None:
    store = SQLiteStore(path, busy_timeout=60)
    kept = []
    for n in range(PUTS):
        body = body_for(worker, n)
        ref = new_ref()
        store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text",
                  scope=f"w{worker}")
        kept.append((ref, worker, n))
        # Read an earlier one back while others write.
        old_ref, _, old_n = kept[n // 2]
        assert store.read(old_ref, scope=f"w{worker}") == body_for(worker, old_n)
    store.close()
    results.put(kept)


def reader(path: str, refs: list[tuple[str, bytes]], rounds: int) -> None:
    store = SQLiteStore(path, busy_timeout=60)
    for _ in range(rounds):
        for ref, body in refs:
            assert store.read(ref) == body
            assert store.fetch(ref, byte_range="0-99").sha256 == hashlib.sha256(body).hexdigest()
    store.close()


def test_processes_writing_and_reading_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small chunks so that every body is split, and a torn multi-chunk write would show.
    monkeypatch.setattr(sqlite_module, "CHUNK_BYTES", 1024)
    path = str(tmp_path / "shared.db")
    seed = SQLiteStore(path)
    seeded = []
    for n in range(10):
        body = f"seed {n} ".encode() * 300
        ref = new_ref()
        seed.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text")
        seeded.append((ref, body))
    seed.close()

    # fork: the children inherit the small chunk size; each opens its own connection.
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    procs = [ctx.Process(target=writer, args=(path, w, results)) for w in range(WRITERS)]
    procs += [ctx.Process(target=reader, args=(path, seeded, 5)) for _ in range(READERS)]
    with warnings.catch_warnings():
        # Python 3.12+ warns when forking a process that has threads (another test's leftover
        # thread, say); the children here touch only their own fresh SQLite connection.
        warnings.simplefilter("ignore", DeprecationWarning)
        for proc in procs:
            proc.start()
    kept = [results.get(timeout=240) for _ in range(WRITERS)]
    for proc in procs:
        proc.join(timeout=240)
        assert proc.exitcode == 0, f"worker {proc.pid} failed with {proc.exitcode}"

    store = SQLiteStore(path)
    for batch in kept:
        for ref, worker, n in batch:
            assert store.read(ref, scope=f"w{worker}") == body_for(worker, n)
    stats = store.stats()
    assert stats.refs == WRITERS * PUTS + len(seeded)
    distinct = {body_for(w, n) for w in range(WRITERS) for n in range(PUTS)}
    distinct |= {body for _, body in seeded}
    assert stats.bodies == len(distinct)
    assert stats.bytes == sum(len(b) for b in distinct)
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_big_body_is_split_into_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_module, "CHUNK_BYTES", 1000)
    store = SQLiteStore(tmp_path / "s.db")
    body = bytes(range(256)) * 40  # 10,240 bytes: 11 chunks, the last one short
    ref = new_ref()
    store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text")
    assert store.read(ref) == body
    store.close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        sizes = [row[0] for row in conn.execute("SELECT length(data) FROM chunks ORDER BY seq")]
    conn.close()
    assert sizes == [1000] * 10 + [240]


def test_failed_write_leaves_nothing_half_done(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    body = b"x" * 5000
    sha = hashlib.sha256(body).hexdigest()
    ref = new_ref()
    store.put(body, ref=ref, sha256=sha, format="text")
    # A second put under the same ref whose body insert fails must roll back whole.
    with (
        pytest.raises(StoreError, match="UNIQUE constraint failed"),
        store._tx(immediate=True) as conn,
    ):
        conn.execute("DELETE FROM refs WHERE ref = ?", (ref,))
        conn.execute("INSERT INTO bodies (sha256, size, chunks, created) VALUES (?, 1, 1, 0)",
                     (sha,))  # duplicate key
    assert store.read(ref) == body
    store.close()
