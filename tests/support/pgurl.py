"""Test URLs of the PostgreSQL server the suite runs against (``ELISION_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
from psycopg import sql


def pg_url(url: str, *, schema: str | None = None, unflushed: bool = False) -> str:
    """``url`` with session settings in its ``options``: ``schema`` first on the search path;
    ``unflushed``, commits that do not wait for the server's WAL flush.

    What a client sees of an unflushed commit is the same: it is visible to every other
    session at once and survives the client's death; only a crash of the server itself could
    lose it, which no test does. A test of many commits one after another (a state machine,
    writers on one chain's lock) waited on the disk for most of its time, a disk the other
    sessions of a CI machine share. A test of what survives a kill keeps the server's own
    setting all the same. The product never sets this: it is the test's choice of session.
    """
    settings = []
    if schema is not None:
        settings.append(f"-csearch_path%3D{schema}")
    if unflushed:
        settings.append("-csynchronous_commit%3Doff")
    if not settings:
        return url
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={'%20'.join(settings)}"


def throwaway_schema(url: str) -> Iterator[str]:
    """A new schema's name for one test, dropped with all it holds once the test is done: the
    body of a ``schema`` fixture (``yield from throwaway_schema(URL)``)."""
    name = f"elision_test_{uuid.uuid4().hex[:16]}"
    yield name
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
