"""What only the PostgreSQL store has to show: processes and replicas sharing one database,
connections that drop, schemas that migrate. The shared behaviour runs in the parametrized
suite (``backend`` fixture in conftest.py)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from elision.errors import StoreError
from elision.shape import new_ref
from elision.store import open_store
from elision.store.postgres import PostgresStore
from support.pgurl import pg_url, throwaway_schema

URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run does) to run the "
    "PostgreSQL store tests",
)
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def schema() -> Iterator[str]:
    yield from throwaway_schema(URL)


def put(store: Any, body: bytes, *, scope: str | None = None) -> str:
    ref = new_ref()
    store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text",
              scope=scope)
    return ref


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


_WRITER = """
import hashlib, sys
from elision.store.postgres import PostgresStore
url, schema, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = PostgresStore(url, schema=schema)
for i in range(n):
    body = f"{name} body {i} ".encode() * (i + 1)
    ref = f"el_{name}_{i}"
    store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text", scope=name)
    print(ref, flush=True)
store.close()
"""


def test_a_ref_put_by_one_process_is_fetched_by_another(schema: str) -> None:
    done = python(_WRITER, URL, schema, "alpha", "3")
    assert done.returncode == 0, done.stderr
    store = PostgresStore(URL, schema=schema)
    try:
        assert store.read("el_alpha_2", scope="alpha") == b"alpha body 2 " * 3
        page = store.fetch("el_alpha_1", lines="1-1", scope="alpha")
        assert "alpha body 1" in page.text
        ref = put(store, b"from the parent\n" * 50)
    finally:
        store.close()
    back = python("import sys\nfrom elision.store.postgres import PostgresStore\n"
                  "s = PostgresStore(sys.argv[1], schema=sys.argv[2])\n"
                  "sys.stdout.buffer.write(s.read(sys.argv[3]))", URL, schema, ref)
    assert back.returncode == 0, back.stderr
    assert back.stdout == "from the parent\n" * 50


def test_processes_writing_together_lose_nothing_and_hold_the_quota(schema: str) -> None:
    # Four writers start on a fresh schema at once: they also race to create and migrate it.
    # Unflushed commits (support.pgurl): 100 puts in a row on the store's lock, none lost to
    # another writer, which is what is tested; no server crashes.
    url = pg_url(URL, unflushed=True)
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, url, schema, f"w{k}", "25"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": SRC}) for k in range(4)]
    outputs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [err for _, err in outputs]
    store = PostgresStore(URL, schema=schema)
    try:
        for k in range(4):
            refs = outputs[k][0].split()
            assert len(refs) == 25
            for i, ref in enumerate(refs):
                assert store.read(ref, scope=f"w{k}") == f"w{k} body {i} ".encode() * (i + 1)
        stats = store.stats()
        assert (stats.refs, stats.bodies) == (100, 100)
        with psycopg.connect(URL) as conn:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            real = conn.execute("SELECT COALESCE(SUM(size), 0) FROM store_bodies").fetchone()
        # The running total that holds the quota agrees with the bodies really kept.
        assert real is not None and stats.bytes == real[0]
    finally:
        store.close()


def test_a_dropped_connection_is_retried_on_a_fresh_one(schema: str) -> None:
    app = f"elision-drop-{uuid.uuid4().hex[:8]}"
    store = PostgresStore(f"{URL}?application_name={app}", schema=schema)
    try:
        ref = put(store, b"survives a dropped connection")
        with psycopg.connect(URL, autocommit=True) as admin:
            killed = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                   "WHERE application_name = %s", (app,)).fetchall()
        assert killed, "the store held no connection to drop"
        assert store.read(ref) == b"survives a dropped connection"
        put(store, b"and writes go on")
    finally:
        store.close()


class Forwarder:
    """A TCP relay to the real server that a test can cut, as a network partition would."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def cut(self) -> None:
        self.open = False
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self.sockets.clear()

    def close(self) -> None:
        self.cut()
        self.listener.close()


def _via(forwarder: Forwarder, password: str | None = None) -> str:
    info = psycopg.conninfo.conninfo_to_dict(URL)
    user = info.get("user") or "postgres"
    auth = f"{user}:{password}" if password else user
    return f"postgresql://{auth}@127.0.0.1:{forwarder.port}/{info.get('dbname') or ''}"


def test_an_unreachable_server_gives_a_clear_error_and_recovery_needs_no_restart(
    schema: str,
) -> None:
    info = psycopg.conninfo.conninfo_to_dict(URL)
    relay = Forwarder((str(info.get("host") or "127.0.0.1"), int(info.get("port") or 5432)))
    store = PostgresStore(_via(relay), schema=schema, retries=2, timeout=1.0)
    try:
        ref = put(store, b"kept before the cut")
        relay.cut()
        with pytest.raises(StoreError, match=r"could not reach PostgreSQL .* in 3 tries"):
            put(store, b"written during the cut")
        with pytest.raises(StoreError, match="server is up"):
            store.read(ref)
        relay.open = True
        assert store.read(ref) == b"kept before the cut"
    finally:
        store.close()
        relay.close()


@pytest.mark.parametrize(
    ("url", "match"),
    [
        # Nothing listens on port 1: refused at once, with the address, not the password.
        ("postgresql://postgres:hunter2-secret@127.0.0.1:1/test", r"127\.0\.0\.1:1/test"),
        # Not a PostgreSQL URL at all.
        ("mysql://127.0.0.1/test", "must start with postgresql://"),
    ],
)
def test_bad_urls_are_refused_without_showing_the_password(url: str, match: str) -> None:
    with pytest.raises(StoreError, match=match) as caught:
        PostgresStore(url, timeout=1.0)
    assert "hunter2" not in str(caught.value)


def test_open_store_selects_postgres_and_the_url_can_name_the_schema(schema: str) -> None:
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    sep = "&" if "?" in URL else "?"
    store = open_store(f"{URL}{sep}options=-csearch_path%3D{schema}", ttl=60)
    try:
        assert isinstance(store, PostgresStore)
        assert store.retention.ttl == 60
        assert store.stats().path.endswith(f"schema {schema}")
        ref = put(store, b"in the named schema")
    finally:
        store.close()
    again = PostgresStore(URL, schema=schema)
    try:
        assert again.read(ref) == b"in the named schema"
    finally:
        again.close()


def test_a_newer_schema_is_refused(schema: str) -> None:
    PostgresStore(URL, schema=schema).close()
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("INSERT INTO {}.store_migrations VALUES (99, 0)").format(
            sql.Identifier(schema)))
    with pytest.raises(StoreError, match="schema version 99, newer than this elision"):
        PostgresStore(URL, schema=schema)


def test_big_bodies_are_chunked(schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("elision.store.postgres.CHUNK_BYTES", 1000)
    store = PostgresStore(URL, schema=schema)
    try:
        body = os.urandom(4500)
        ref = put(store, body)
        assert store.read(ref) == body
        with psycopg.connect(URL) as conn:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            rows = conn.execute("SELECT COUNT(*) FROM store_chunks").fetchone()
        assert rows == (5,)  # 4 full chunks and one of 500 bytes
    finally:
        store.close()


def test_a_failed_put_leaves_nothing_half_done(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = PostgresStore(URL, schema=schema)
    try:
        kept = put(store, b"already kept")

        execute = psycopg.Connection.execute

        def fail(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            if str(query).startswith("INSERT INTO store_chunks"):
                raise RuntimeError("disk full, say")
            return execute(self, query, *args, **kwargs)

        # The body row is written, then the chunks fail: the whole put must roll back.
        monkeypatch.setattr(psycopg.Connection, "execute", fail)
        with pytest.raises(RuntimeError):
            put(store, b"never half kept")
        monkeypatch.undo()
        stats = store.stats()
        assert (stats.refs, stats.bodies, stats.bytes) == (1, 1, len(b"already kept"))
        assert store.read(kept) == b"already kept"
    finally:
        store.close()


def test_store_migrate_command(schema: str) -> None:
    sep = "&" if "?" in URL else "?"
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    spec = f"{URL}{sep}options=-csearch_path%3D{schema}"
    done = python("from elision.cli import main; main()", "store", "migrate", "--store", spec)
    assert done.returncode == 0, done.stderr
    assert f"schema {schema} is at schema version 1" in done.stdout
    with psycopg.connect(URL) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        versions = conn.execute("SELECT version FROM store_migrations").fetchall()
    assert versions == [(1,)]


def test_a_damaged_schema_is_refused_with_the_reason_not_retried(schema: str) -> None:
    store = PostgresStore(URL, schema=schema, retries=3)
    try:
        ref = put(store, b"kept")
        with psycopg.connect(URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP TABLE {}.store_usage").format(sql.Identifier(schema)))
        # A missing table is no network blip: one clear error, at once, naming the table.
        with pytest.raises(StoreError, match=r'refused the operation: relation "store_usage"'):
            put(store, b"more")
        assert store.read(ref) == b"kept"  # reads do not need the running total
    finally:
        store.close()
