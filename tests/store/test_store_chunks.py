"""Bodies are written a chunk at a time and hashed once (issue 17): what is read back is still
exactly what was put, at every chunk boundary, and a digest is trusted only when it was taken
from the bytes themselves."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elision
from elision.errors import IntegrityError
from elision.shape import new_ref
from elision.store import MemoryStore, SQLiteStore, sqlite
from elision.store.base import Store
from support.pgurl import pg_url

PG_URL = os.environ.get("ELISION_TEST_POSTGRES_URL")

#: Chunk sizes small enough that a drawn body spans many: 1 (every byte its own row), a prime,
#: a power of two.
CHUNKS = st.sampled_from([1, 7, 64])


def _sqlite(where: Path) -> Store:
    return SQLiteStore(where / f"{uuid.uuid4().hex}.db")


@pytest.fixture(scope="module")
def stores() -> Iterator[dict[str, Store]]:
    with tempfile.TemporaryDirectory(prefix="elision-chunks-") as where:
        made: dict[str, Store] = {
            "sqlite": _sqlite(Path(where)),
            # Bodies on both sides of the file threshold: rows below 64 bytes, files above.
            "sqlite-files": SQLiteStore(Path(where) / "files.db", file_bytes=64),
        }
        if PG_URL:
            import psycopg
            from psycopg import sql

            from elision.store.postgres import PostgresStore

            schema = f"elision_test_{uuid.uuid4().hex}"
            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
            # Unflushed commits (support.pgurl): what is tested is the bytes read back.
            made["postgres"] = PostgresStore(pg_url(PG_URL, unflushed=True), schema=schema)
        try:
            yield made
        finally:
            for store in made.values():
                store.close()
            if PG_URL:
                with psycopg.connect(PG_URL, autocommit=True) as conn:
                    conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(
                        sql.Identifier(schema)))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=300), chunk=CHUNKS, verified=st.booleans())
def test_a_body_reads_back_exactly_across_chunk_boundaries(
    stores: dict[str, Store], monkeypatch: pytest.MonkeyPatch, body: bytes, chunk: int,
    verified: bool,
) -> None:
    from elision.store import postgres

    # Small chunks put every boundary case (empty, one short chunk, an exact multiple, one
    # byte over) within reach of a few hundred bytes.
    monkeypatch.setattr(sqlite, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(postgres, "CHUNK_BYTES", chunk)
    digest = hashlib.sha256(body).hexdigest()
    for name, store in stores.items():
        ref = new_ref()
        store.put(body, ref=ref, sha256=digest, format="text", verified=verified)
        assert store.read(ref) == body, name
        assert store.info(ref).size == len(body), name
        store.remove(ref)


def test_a_body_is_split_into_the_chunks_it_was_counted_in(tmp_path: Path) -> None:
    body = bytes(range(256)) * 40_000  # 10,240,000 bytes: two whole 4 MiB chunks and a part
    store = SQLiteStore(tmp_path / "store.db", file_bytes=len(body) + 1)  # rows, not a file
    try:
        ref = new_ref()
        digest = hashlib.sha256(body).hexdigest()
        store.put(body, ref=ref, sha256=digest, format="text")
        assert store.read(ref) == body
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "store.db") as conn:
        (chunks,) = conn.execute("SELECT chunks FROM bodies").fetchone()
        sizes = [n for (n,) in conn.execute("SELECT length(data) FROM chunks ORDER BY seq")]
    assert chunks == len(sizes) == 3
    assert sizes == [sqlite.CHUNK_BYTES, sqlite.CHUNK_BYTES, len(body) - 2 * sqlite.CHUNK_BYTES]


class _Recording(MemoryStore):
    """A store that remembers how each put was called."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[dict[str, Any]] = []

    def put(self, body: bytes, **kwargs: Any) -> None:
        self.calls.append(kwargs)
        super().put(body, **kwargs)


@pytest.mark.parametrize("redactor", [None, "default"], ids=["bare", "redacting"])
def test_shaping_with_a_store_hashes_the_body_once(redactor: str | None) -> None:
    """The shaper had hashed a body, then the store hashed it again to check the digest: with
    the store on, a 100 MB log took 3x the floor (bench/shape.py, issue 17)."""
    store = _Recording()
    body = "\n".join(f"line {i}: all well" for i in range(5000))
    kwargs: dict[str, Any] = {} if redactor else {"redactor": None}
    shaped = elision.shape(body, 1024, store=store, **kwargs)
    assert shaped.ref is not None
    assert [call["verified"] for call in store.calls] == [True]
    assert store.read(shaped.ref) == body.encode()


@pytest.mark.parametrize("make", [
    pytest.param(lambda where: MemoryStore(), id="memory"),
    pytest.param(_sqlite, id="sqlite"),
])
def test_a_verified_digest_that_lies_is_caught_when_read(make: Any, tmp_path: Path) -> None:
    """Why trusting a verified digest is safe: reads hash every byte, so a body put under
    the wrong digest is refused, never served as the body that digest names."""
    store = make(tmp_path)
    try:
        ref = new_ref()
        store.put(b"what was kept", ref=ref, sha256="0" * 64, format="text", verified=True)
        with pytest.raises(IntegrityError, match="no longer matches its digest"):
            store.read(ref)
        with pytest.raises(IntegrityError, match="not the sha256="):
            store.put(b"what was kept", ref=new_ref(), sha256="0" * 64, format="text")
    finally:
        store.close()


def test_a_new_store_file_has_large_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    """Large pages make a big body a few overflow pages, not thousands; a store made with
    4 KiB pages (before issue 17) opens, keeps and serves bodies as it did."""
    new = SQLiteStore(tmp_path / "new.db")
    new.close()
    old_path = tmp_path / "old.db"
    with sqlite3.connect(old_path) as conn:
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE placeholder (x)")  # the file now holds pages of 4 KiB
    old = SQLiteStore(old_path)
    try:
        body = os.urandom(300_000)
        ref = new_ref()
        old.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text")
        assert old.read(ref) == body
    finally:
        old.close()
    for path, size in ((tmp_path / "new.db", sqlite.PAGE_BYTES), (old_path, 4096)):
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA page_size").fetchone() == (size,), path.name
