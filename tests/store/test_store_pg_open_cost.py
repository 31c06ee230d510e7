"""What opening a PostgreSQL store or audit log costs: one connection and a few round trips.

An open used to connect twice (a probe, closed at once, then the pool's own) and spend eleven
round trips (two SETs, a transaction for CREATE SCHEMA, another for the migration check). Now
the probe's connection is the pool's first and the schema is made in the migration's
transaction, so an open is one connection and at most ``MAX_TURNS`` round trips.
The clear errors of a probe, and a pool that does not cross a fork, are held here too.
"""

from __future__ import annotations

import hashlib
import os
import select
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

from elision.audit.pglog import PgAuditLog
from elision.errors import ElisionError
from elision.shape import new_ref
from elision.store.postgres import PostgresStore
from support.pgurl import pg_url, throwaway_schema

URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run does) to run the "
    "PostgreSQL store tests",
)


@pytest.fixture
def schema() -> Iterator[str]:
    yield from throwaway_schema(URL)


def in_path(url: str, schema: str) -> str:
    return pg_url(url, schema=schema)


def made(schema: str) -> None:
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))


class TurnCounter:
    """A TCP relay to the test server that counts connections and round trips.

    A round trip is a turn of the conversation: the server speaking after the client did
    (however many packets either side sends in between). That is what a pipelined batch
    saves and what the network's latency multiplies; connecting costs its own turns (TLS
    refusal, startup, authentication), so one connection fewer shows here too.
    """

    def __init__(self, url: str) -> None:
        parts = psycopg.conninfo.conninfo_to_dict(url)
        self.target = (str(parts.get("host") or "localhost"), int(parts.get("port") or 5432))
        self.listener = socket.create_server(("127.0.0.1", 0))
        port = self.listener.getsockname()[1]
        user = parts.get("user") or ""
        password = f":{parts['password']}" if parts.get("password") else ""
        self.url = f"postgresql://{user}{password}@127.0.0.1:{port}/{parts.get('dbname') or ''}"
        self.connections = self.turns = 0
        self.counting = False
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += self.counting
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        server = socket.create_connection(self.target)
        other = {client: server, server: client}
        last = None
        with client, server:
            while True:
                ready, _, _ = select.select([client, server], [], [])
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    other[sock].sendall(data)
                    if sock is server and last is client:
                        with self._lock:
                            self.turns += self.counting
                    last = sock

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def relay() -> Iterator[TurnCounter]:
    counter = TurnCounter(URL)
    yield counter
    counter.close()


#: Round trips per open, connecting included: TLS refused (1), startup and authentication
#: (1), the search_path question when no schema is given (1), the pool's configure (1), the
#: migration's batch up to its read (1) and its COMMIT (1): 4 to 6 measured, one more of
#: slack for a reply that arrives in pieces while the client is still sending. The open
#: before this made 19 (schema=) to 41, on two or three connections.
MAX_TURNS = 7
OPENS: dict[str, Callable[[str, str], Any]] = {
    "store, schema= new": lambda url, s: PostgresStore(url, schema=s),
    "store, schema= at its version": lambda url, s: PostgresStore(url, schema=s),
    "store, schema= existing": lambda url, s: PostgresStore(url, schema=s),
    "store, search_path existing": lambda url, s: PostgresStore(in_path(url, s)),
    "store, search_path missing": lambda url, s: PostgresStore(in_path(url, s)),
    "audit log, schema= new": lambda url, s: PgAuditLog(url, schema=s),
    "audit log, search_path existing": lambda url, s: PgAuditLog(in_path(url, s)),
}


@pytest.mark.parametrize("case", sorted(OPENS))
def test_an_open_is_one_connection_and_few_round_trips(
    case: str, schema: str, relay: TurnCounter
) -> None:
    if "existing" in case:
        made(schema)
    if "at its version" in case:
        PostgresStore(URL, schema=schema).close()
    relay.counting = True
    opened = OPENS[case](relay.url, schema)
    relay.counting = False
    try:
        assert opened.schema_version >= 1
        assert opened.path.endswith(f"schema {schema}")
    finally:
        opened.close()
    assert relay.connections == 1, (relay.connections, relay.turns)
    assert 1 <= relay.turns <= MAX_TURNS, (relay.connections, relay.turns)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("postgresql://u:s3cret@127.0.0.1:1/db", "nothing listens"),
        ("{user}elision_no_such_role_x:s3cret@{host}", "no such role"),
        ("{base}/elision_no_such_database_x", "no such database"),
    ],
)
@pytest.mark.parametrize("kind", [PostgresStore, PgAuditLog])
def test_a_failed_connect_still_says_why_at_once(spec: str, reason: str, kind: type) -> None:
    parts = psycopg.conninfo.conninfo_to_dict(URL)
    host = f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}/{parts.get('dbname')}"
    spec = spec.format(user="postgresql://", host=host,
                       base=f"postgresql://{parts.get('user') or ''}@"
                            f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}")
    with pytest.raises(ElisionError, match=r"cannot connect to PostgreSQL at") as caught:
        kind(spec, schema="elision_never_made", timeout=5.0)
    assert "s3cret" not in str(caught.value), reason


def test_a_forked_child_uses_a_pool_of_its_own(schema: str) -> None:
    store = PostgresStore(URL, schema=schema)
    try:
        body = b"written by the parent"
        ref = new_ref()
        store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format="text")
        pid = os.fork()
        if pid == 0:  # the child: reads through a pool of its own, then leaves at once
            try:
                ok = store.read(ref) == body
            except BaseException:
                ok = False
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        # The parent's pool is untouched by the child's use and exit.
        assert store.read(ref) == body
    finally:
        store.close()


def test_stores_and_logs_opening_together_on_a_new_schema_queue(schema: str) -> None:
    # The schema is made in each one's migration transaction, under the schema's lock first:
    # six opens at once, stores and logs mixed, must all succeed (no duplicate-schema error,
    # no deadlock between a store's lock and a log's).
    kinds = [PostgresStore, PgAuditLog] * 3
    barrier = threading.Barrier(len(kinds))
    opened: list[Any] = []
    failed: list[BaseException] = []

    def open_one(kind: Any) -> None:
        barrier.wait()
        try:
            opened.append(kind(URL, schema=schema))
        except BaseException as exc:  # reported below
            failed.append(exc)

    threads = [threading.Thread(target=open_one, args=(kind,)) for kind in kinds]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for each in opened:
        each.close()
    assert not failed, failed
    assert len(opened) == len(kinds)
