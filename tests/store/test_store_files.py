"""Large bodies as files beside the SQLite store (issue 17): the directory stays in step with
the rows under every interleaving of puts and drops, and a lost, torn or altered file is
reported as such, never served and never a raw traceback."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import stat
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.cli import main
from elision.errors import IntegrityError, RefExpired, RefNotFound, StoreError
from elision.shape import new_ref
from elision.store import SQLiteStore, sqlite
from elision.store.bodyfiles import FILE_BYTES


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def put(store: SQLiteStore, body: bytes, ref: str | None = None) -> str:
    ref = ref or new_ref()
    store.put(body, ref=ref, sha256=digest(body), format="text")
    return ref


def on_disk(store: SQLiteStore) -> set[str]:
    assert store.files is not None
    return set(os.listdir(store.files.root)) if store.files.root.exists() else set()


def file_of(store: SQLiteStore, body: bytes) -> Path:
    assert store.files is not None
    return store.files.path_of(digest(body))


def chunk_rows(store: SQLiteStore) -> int:
    with sqlite3.connect(store.path) as conn:
        (count,) = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()
    conn.close()
    return int(count)


def test_a_large_body_is_a_private_file_and_a_small_one_stays_rows(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "store.db")
    large, small = b"L" * FILE_BYTES, b"s" * (FILE_BYTES - 1)  # the threshold, one byte under
    large_ref, small_ref = put(store, large), put(store, small)
    assert on_disk(store) == {digest(large)}
    assert chunk_rows(store) == sqlite.chunk_count(len(small))
    assert store.read(large_ref) == large and store.read(small_ref) == small
    assert store.files is not None
    assert stat.S_IMODE(store.files.root.stat().st_mode) == 0o700
    assert stat.S_IMODE(file_of(store, large).stat().st_mode) == 0o600
    assert store.files.root == Path(f"{os.path.realpath(tmp_path / 'store.db')}.bodies")
    store.close()


def test_a_body_kept_twice_is_one_file_counted_once(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b"kept under two refs"
    first, second = put(store, body), put(store, body)
    assert on_disk(store) == {digest(body)}
    assert (store.stats().bodies, store.stats().bytes) == (1, len(body))
    store.remove(first)
    assert on_disk(store) == {digest(body)}  # the other ref still needs it
    assert store.read(second) == body
    store.remove(second)
    assert on_disk(store) == set()
    store.close()


def _by_remove(store: SQLiteStore, ref: str, clock: list[float]) -> None:
    assert store.remove(ref)


def _by_eviction(store: SQLiteStore, ref: str, clock: list[float]) -> None:
    clock[0] += 1
    put(store, b"n" * 900)  # the quota is 1,000 bytes: the older body must go


def _by_expiry(store: SQLiteStore, ref: str, clock: list[float]) -> None:
    clock[0] += 200  # past the TTL
    assert store.gc().expired_refs == 1


@pytest.mark.parametrize("drop", [
    pytest.param(_by_remove, id="remove"),
    pytest.param(_by_eviction, id="quota-eviction"),
    pytest.param(_by_expiry, id="ttl-expiry-and-gc"),
])
def test_a_dropped_body_takes_its_file_with_it(
    tmp_path: Path, drop: Callable[[SQLiteStore, str, list[float]], None]
) -> None:
    clock = [1_800_000_000.0]
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10, quota_bytes=1000, ttl=100,
                        clock=lambda: clock[0])
    body = b"o" * 900
    ref = put(store, body)
    drop(store, ref, clock)
    assert digest(body) not in on_disk(store)
    with pytest.raises((RefNotFound, RefExpired)):
        store.read(ref)
    store.close()


def test_elision_store_rm_removes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SQLiteStore(path, file_bytes=10)
    ref = put(store, b"a body for the command line")
    store.close()
    result = CliRunner().invoke(main, ["store", "rm", ref, "--store", str(path)])
    assert result.exit_code == 0, result.output
    assert on_disk(SQLiteStore(path)) == set()


def test_a_ref_put_again_under_its_own_name_keeps_its_file(tmp_path: Path) -> None:
    """Putting a ref again drops its body and keeps it anew in one transaction: the file
    written for the new row must not be unlinked as the old row's at COMMIT."""
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b"the same body under the same ref"
    ref = put(store, body)
    put(store, body, ref)
    assert on_disk(store) == {digest(body)}
    assert store.read(ref) == body
    store.close()


def _fail_the_next_ref_insert(store: SQLiteStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("""CREATE TRIGGER injected BEFORE INSERT ON refs
                        BEGIN SELECT RAISE(ABORT, 'injected failure'); END""")
    conn.close()


def test_a_put_that_rolls_back_leaves_no_file(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    _fail_the_next_ref_insert(store)
    with pytest.raises(StoreError, match="injected failure"):
        put(store, b"a body whose row never commits")
    assert on_disk(store) == set()
    store.close()


@pytest.mark.parametrize("again", [
    b"kept before the failing put",  # the same body: dropped, then written anew
    b"another body for the same ref",  # the ref's old body dropped, a new one written
])
def test_a_put_again_that_rolls_back_keeps_the_body_it_had(tmp_path: Path, again: bytes) -> None:
    """The old body's row comes back with the rollback, so its file must stay; the new one's
    file goes."""
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b"kept before the failing put"
    ref = put(store, body)
    _fail_the_next_ref_insert(store)
    with pytest.raises(StoreError, match="injected failure"):
        put(store, again, ref)
    assert on_disk(store) == {digest(body)}
    assert store.read(ref) == body
    store.close()


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-1])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _alter(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[3] ^= 1
    path.write_bytes(bytes(data))


def _grow(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"!")


@pytest.mark.parametrize("damage", [
    pytest.param(lambda path: path.unlink(), id="missing"),  # a crash before it reached disk
    pytest.param(_empty, id="empty"),  # the name renamed in, the data never written back
    pytest.param(_truncate, id="torn"),
    pytest.param(_alter, id="altered-same-size"),
    pytest.param(_grow, id="grown"),
])
def test_a_damaged_file_is_refused_then_mended_by_keeping_the_body_again(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b"a body the disk lost part of"
    ref = put(store, body)
    damage(file_of(store, body))
    for attempt in (lambda: store.read(ref), lambda: store.fetch(ref, byte_range="0-9")):
        with pytest.raises(IntegrityError,
                           match=r"is missing from the store|no longer matches its digest"):
            attempt()
    with pytest.raises(IntegrityError, match="shape the tool result again"):
        store.read(ref)
    again = put(store, body)  # what the error advises: keep the body again
    assert store.read(again) == body and store.read(ref) == body
    store.close()


def test_corrupt_for_test_alters_a_file_body(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b'{"rows": [1, 2, 3]}'
    ref = put(store, body)
    store.corrupt_for_test(digest(body), b'{"rows": [1, 2, 4]}')
    assert file_of(store, body).read_bytes() == b'{"rows": [1, 2, 4]}'
    assert chunk_rows(store) == 0
    with pytest.raises(IntegrityError, match="no longer matches its digest"):
        store.read(ref)
    store.close()


def test_gc_sweeps_orphans_and_a_crashed_writers_temp_files_only(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=10)
    body = b"a live body, which stays"
    put(store, body)
    assert store.files is not None
    orphan = store.files.root / ("0" * 64)  # written, then the writer died before COMMIT
    orphan.write_bytes(b"orphan")
    temp = store.files.root / ".tmp-0000000000000000-1-abcd"
    temp.write_bytes(b"half a body")
    someone_elses = store.files.root / "notes.txt"
    someone_elses.write_bytes(b"not the store's")
    result = store.gc()
    assert result.stray_files == 2
    assert on_disk(store) == {digest(body), "notes.txt"}
    assert (store.stats().bodies, store.stats().bytes) == (1, len(body))
    store.close()


def test_gc_on_the_command_line_says_what_it_swept(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SQLiteStore(path, file_bytes=10)
    put(store, b"a live body, which stays")
    assert store.files is not None
    (store.files.root / ("f" * 64)).write_bytes(b"orphan")
    store.close()
    result = CliRunner().invoke(main, ["store", "gc", "--store", str(path)])
    assert result.exit_code == 0, result.output
    assert "swept 1 body files no row named" in result.stdout


def test_a_read_racing_a_remove_in_another_process_says_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file is outside the reader's snapshot: the reader saw the row, then another store
    removed the ref and its file before the reader opened it."""
    path = tmp_path / "store.db"
    reader, remover = SQLiteStore(path, file_bytes=10), SQLiteStore(path, file_bytes=10)
    ref = put(remover, b"removed while being read")
    assert reader.files is not None
    real_read = reader.files.read

    def read_after_a_remove(sha256: str, size: int) -> bytes | None:
        if remover.remove(ref):
            assert on_disk(remover) == set()
        return real_read(sha256, size)

    monkeypatch.setattr(reader.files, "read", read_after_a_remove)
    with pytest.raises(RefNotFound, match="no body is kept under ref"):
        reader.read(ref)
    reader.close()
    remover.close()


def test_a_read_racing_a_drop_and_put_back_serves_the_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store.db"
    reader, writer = SQLiteStore(path, file_bytes=10), SQLiteStore(path, file_bytes=10)
    body = b"dropped and kept again while being read"
    ref = put(writer, body)
    assert reader.files is not None
    real_read = reader.files.read
    raced = []

    def read_after_a_drop(sha256: str, size: int) -> bytes | None:
        if not raced:
            raced.append(True)
            writer.remove(ref)
            put(writer, body, ref)
        return real_read(sha256, size)

    monkeypatch.setattr(reader.files, "read", read_after_a_drop)
    assert reader.read(ref) == body
    reader.close()
    writer.close()


def test_two_stores_on_one_path_in_threads_never_lose_a_file(tmp_path: Path) -> None:
    """One handle keeps and drops a body while another keeps, reads and drops the same one:
    neither ever finds its row without its file."""
    path = tmp_path / "store.db"
    body = b"shared by both handles " * 10
    errors: list[BaseException] = []

    def churn(store: SQLiteStore, reads: bool) -> None:
        try:
            for _ in range(60):
                ref = put(store, body)
                if reads:
                    assert store.read(ref) == body
                store.remove(ref)
        except BaseException as exc:  # handed to the main thread to fail the test
            errors.append(exc)

    stores = [SQLiteStore(path, file_bytes=10) for _ in range(2)]
    threads = [threading.Thread(target=churn, args=(store, n == 1))
               for n, store in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert on_disk(stores[0]) == set() and stores[0].stats().bodies == 0
    for store in stores:
        store.close()


BODIES = [f"body {n} ".encode() * (3 + 7 * n) for n in range(4)]  # 24 to 198 bytes


def _churn_in_a_process(path: str, worker: int) -> None:
    store = SQLiteStore(path, file_bytes=64, busy_timeout=60)
    for n in range(40):
        body = BODIES[(worker + n) % len(BODIES)]
        ref = put(store, body)
        assert store.read(ref) == body
        if n % 3:
            store.remove(ref)
    store.close()


def test_processes_keeping_and_dropping_the_same_bodies_keep_files_in_step(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "store.db")
    SQLiteStore(path, file_bytes=64).close()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_churn_in_a_process, args=(path, w)) for w in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # forking with threads about
        for proc in procs:
            proc.start()
    for proc in procs:
        proc.join(timeout=240)
        assert proc.exitcode == 0, f"worker {proc.pid} failed with {proc.exitcode}"
    store = SQLiteStore(path, file_bytes=64)
    with sqlite3.connect(path) as conn:
        rows = dict(conn.execute("SELECT sha256, file FROM bodies").fetchall())
        refs = conn.execute("SELECT ref, sha256 FROM refs").fetchall()
    conn.close()
    assert on_disk(store) == {sha for sha, in_file in rows.items() if in_file}
    by_digest = {digest(body): body for body in BODIES}
    for ref, sha in refs:
        assert store.read(ref) == by_digest[sha]
    assert store.gc().stray_files == 0
    store.close()


def test_a_store_made_by_schema_2_opens_reads_its_rows_and_keeps_new_bodies_as_files(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    old_body = b"kept by the old code as chunk rows " * 40_000  # 1.4 MB: over the threshold
    old_ref = new_ref()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE migrations (version INTEGER PRIMARY KEY, "
                     "applied_at REAL NOT NULL)")
        for version in (1, 2):
            for statement in sqlite._MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute("INSERT INTO migrations VALUES (?, 0)", (version,))
        sha = digest(old_body)
        conn.execute("INSERT INTO bodies VALUES (?, ?, 1, 0)", (sha, len(old_body)))
        conn.execute("INSERT INTO chunks VALUES (?, 0, ?)", (sha, old_body))
        conn.execute("UPDATE usage SET bodies = 1, bytes = ?", (len(old_body),))
        conn.execute("INSERT INTO refs VALUES (?, ?, 'text', '', 0, 9e99, 0)", (old_ref, sha))
    conn.close()
    store = SQLiteStore(path)
    assert store.read(old_ref) == old_body
    new_body = b"kept by this code as a file " * 40_000
    new_ref_ = put(store, new_body)
    assert on_disk(store) == {digest(new_body)}
    assert store.read(new_ref_) == new_body
    assert store.stats().bytes == len(old_body) + len(new_body)
    put(store, old_body)  # found by digest: it stays rows, no file is written for it
    assert on_disk(store) == {digest(new_body)}
    assert store.remove(old_ref)
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT MAX(version) FROM migrations").fetchone() == (3,)
    conn.close()
    result = CliRunner().invoke(main, ["store", "migrate", "--store", str(path)])
    assert "schema version 3" in result.stdout


@pytest.mark.parametrize("sha256", [
    "../../escape",  # would name a path outside the directory
    "A" * 64,  # hex, but not as hashlib writes it
    "0" * 63,
])
def test_a_claimed_digest_that_is_not_hex_is_refused(tmp_path: Path, sha256: str) -> None:
    store = SQLiteStore(tmp_path / "store.db", file_bytes=1)
    with pytest.raises(IntegrityError, match="not a SHA-256 in lowercase hex"):
        store.put(b"body", ref=new_ref(), sha256=sha256, format="text", verified=True)
    assert on_disk(store) == set() and not list(tmp_path.glob("escape*"))
    store.close()


OPS = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 1), st.integers(0, 5), st.integers(0, 3)),
    st.tuples(st.just("read"), st.integers(0, 1), st.integers(0, 5)),
    st.tuples(st.just("remove"), st.integers(0, 1), st.integers(0, 5)),
    st.tuples(st.just("gc"), st.integers(0, 1)),
), max_size=30)
#: Both sides of the threshold (64 bytes): empty, under, exactly at, over.
SIZES = [0, 63, 64, 200]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_the_directory_holds_exactly_the_live_large_bodies(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[Any, ...]]
) -> None:
    path = tmp_path_factory.mktemp("files") / "store.db"
    handles = [SQLiteStore(path, file_bytes=64) for _ in range(2)]  # two handles, one store
    live: dict[int, bytes] = {}  # slot -> body kept under refs[slot]
    refs = [new_ref() for _ in range(6)]
    try:
        for op in ops:
            store = handles[op[1]]
            if op[0] == "put":
                slot, size = op[2], SIZES[op[3]]
                body = (bytes([slot]) * size)[:size]
                put(store, body, refs[slot])
                live[slot] = body
            elif op[0] == "read" and op[2] in live:
                assert store.read(refs[op[2]]) == live[op[2]]
            elif op[0] == "read":
                with pytest.raises(RefNotFound):
                    store.read(refs[op[2]])
            elif op[0] == "remove":
                assert store.remove(refs[op[2]]) is (live.pop(op[2], None) is not None)
            else:
                assert store.gc().stray_files == 0
            large = {digest(body) for body in live.values() if len(body) >= 64}
            assert on_disk(store) == large
            assert store.stats().bytes == sum({digest(b): len(b) for b in live.values()}.values())
    finally:
        for handle in handles:
            handle.close()


@pytest.mark.parametrize("file_bytes", [0, -1, True, 1.5, "1MiB"])
def test_a_bad_file_threshold_is_refused(tmp_path: Path, file_bytes: Any) -> None:
    with pytest.raises(StoreError, match="file_bytes must be a positive integer"):
        SQLiteStore(tmp_path / "store.db", file_bytes=file_bytes)


def _crash_while_keeping(path: str, body: bytes, where: str) -> None:
    """Keep ``body``, dying (no cleanup, no ROLLBACK) at ``where`` in the write."""
    from elision.store import bodyfiles

    store = SQLiteStore(path, file_bytes=10)
    if where == "before-rename":
        def die(*args: Any) -> None:
            os._exit(3)

        bodyfiles.os.replace = die  # type: ignore[assignment]  # a child about to die
    else:
        real_place = bodyfiles.BodyFiles.place

        def place_then_die(self: Any, sha256: str, data: bytes) -> None:
            real_place(self, sha256, data)
            os._exit(3)

        bodyfiles.BodyFiles.place = place_then_die  # type: ignore[method-assign]
    put(store, body)


@pytest.mark.parametrize("where", [
    "before-rename",  # the temporary file written, never renamed
    "before-commit",  # the file in place, its row never committed
])
def test_a_writer_killed_mid_put_leaves_only_what_gc_sweeps(tmp_path: Path, where: str) -> None:
    path = str(tmp_path / "store.db")
    body = b"a body whose writer died while keeping it"
    SQLiteStore(path, file_bytes=10).close()
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_crash_while_keeping, args=(path, body, where))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        proc.start()
    proc.join(timeout=120)
    assert proc.exitcode == 3
    store = SQLiteStore(path, file_bytes=10)
    assert len(on_disk(store)) == 1 and store.stats().bodies == 0  # left behind, no row
    assert store.gc().stray_files == 1
    assert on_disk(store) == set()
    ref = put(store, body)  # the same body kept again, after the crash
    assert store.read(ref) == body and on_disk(store) == {digest(body)}
    store.close()


def test_a_store_opened_through_a_symlink_finds_the_same_body_files(tmp_path: Path) -> None:
    """SQLite resolves a symlinked database to the real file (its WAL and lock live there), so
    the body files are named after the real file too: else one spelling's rows would name
    files that only the other spelling's directory holds."""
    real = tmp_path / "real.db"
    store = SQLiteStore(real, file_bytes=10)
    body = b"kept through the real path"
    ref = put(store, body)
    link = tmp_path / "link.db"
    link.symlink_to(real)
    through_link = SQLiteStore(link, file_bytes=10)
    assert through_link.read(ref) == body
    assert through_link.remove(ref) and on_disk(store) == set()
    through_link.close()
    store.close()
