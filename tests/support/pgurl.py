"""Test URLs of the PostgreSQL server the suite runs against (``ELISION_TEST_POSTGRES_URL``)."""

from __future__ import annotations


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
