"""What a read of a PostgreSQL store costs: one turn fewer than a transaction of its own.

Found measuring the store state machine on PostgreSQL (the longest file of the suite): its
client waited on the server for most of its time, and each read (``info``, ``read``,
``stats``) was three round trips, a ``BEGIN`` on its own, the query, then the ``COMMIT``.
The ``BEGIN`` now travels with the read's first query, as a batched write's does.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from elision.errors import RefNotFound
from elision.store.postgres import PostgresStore
from store.test_store_pg_open_cost import TurnCounter
from support.pgurl import throwaway_schema

URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run does) to run the "
    "PostgreSQL store tests",
)
BODY = b"kept " * 40
SHA = hashlib.sha256(BODY).hexdigest()


@pytest.fixture
def store() -> Iterator[tuple[PostgresStore, TurnCounter]]:
    relay = TurnCounter(URL)
    for schema in throwaway_schema(URL):
        # Time stands still: a read's LRU touch (a write of its own) comes once, uncounted.
        opened = PostgresStore(relay.url, schema=schema, clock=lambda: 1_800_000_000.0)
        try:
            opened.put(BODY, ref="ref-1", sha256=SHA, format="text", scope="a")
            yield opened, relay
        finally:
            opened.close()
            relay.close()


#: Each read's turns: one a query, its BEGIN riding on the first, and the COMMIT. One more
#: each before, the BEGIN's own (3, 4 and 5).
READS: dict[str, tuple[Callable[[PostgresStore], Any], int]] = {
    "info": (lambda s: s.info("ref-1", scope="a").sha256, 2),
    "read": (lambda s: s.read("ref-1", scope="a"), 3),  # the ref, then its chunks
    "stats": (lambda s: s.stats().refs, 4),  # the totals, the refs, the references
}
#: Reads counted together: a reply that arrives in pieces while the client is still sending
#: may count one turn more, once in a while; over ten reads that is slack, not a turn a read.
TIMES = 10


@pytest.mark.parametrize("name", sorted(READS))
def test_a_read_sends_its_begin_with_its_first_query(
    name: str, store: tuple[PostgresStore, TurnCounter]
) -> None:
    opened, relay = store
    read, turns = READS[name]
    expected = read(opened)  # the pool's connection made, outside the count
    relay.counting = True
    got = [read(opened) for _ in range(TIMES)]
    relay.counting = False
    assert got == [expected] * TIMES
    # Fewer is no fault: a busy client's next query may reach the server before its reply.
    assert TIMES <= relay.turns <= TIMES * turns + 2, relay.turns


def test_a_read_still_answers_from_one_snapshot_and_refuses_what_is_not_there(
    store: tuple[PostgresStore, TurnCounter],
) -> None:
    opened, _ = store
    assert opened.read("ref-1", scope="a") == BODY
    with pytest.raises(RefNotFound):
        opened.info("ref-1", scope="b")
    # A failed read leaves no transaction open on the pooled connection: the next one works.
    assert opened.info("ref-1", scope="a").sha256 == SHA


def test_a_read_is_one_read_only_snapshot(store: tuple[PostgresStore, TurnCounter]) -> None:
    """What psycopg's transaction asked for a read, the batched BEGIN asks too."""
    opened, _ = store
    shown = opened._db.run(lambda c: [c.execute(f"SHOW {name}").fetchone()[0] for name in (
        "transaction_isolation", "transaction_read_only")], write=False)
    assert shown == ["repeatable read", "on"]
