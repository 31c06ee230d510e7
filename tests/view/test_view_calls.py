"""Pages of calls: keyset paging walks a filtered log exactly once in order, both ways, on
SQLite and on PostgreSQL; a page never reads the log whole."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.errors import InputError
from elision.view.calls import Calls, Filter, open_calls

TOOLS = ("search", "read", "<b>x</b>")
SERVERS = ("a", "b")
DECISIONS = ("allow", "deny")
ZERO = "0" * 64


def content(i: int) -> dict[str, Any]:
    return tool_result_entry(
        step_id=f"s{i}", tool=TOOLS[i % 3], server=SERVERS[(i // 3) % 2],
        decision=DECISIONS[(i // 7) % 2], full_sha256=ZERO, full_bytes=i, shown_sha256=ZERO,
        shown_bytes=i, complete=True, timestamp=f"2026-12-03T10:{i // 60:02d}:{i % 60:02d}.000Z",
    )


N = 157


@pytest.fixture(scope="module")
def sqlite_calls(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("calls") / "audit.db"
    with AuditLog(path) as log:
        for i in range(N):
            log.append(content(i))
    with open_calls(str(path)) as calls:
        yield calls


def expected(flt: Filter) -> list[int]:
    """Newest first: the entries ``flt`` keeps, by a plain walk over what was written."""
    out = []
    for i in range(N):
        entry = content(i)
        if (flt.tool and entry["tool"] != flt.tool) or (
                flt.server and entry["server"] != flt.server):
            continue
        if flt.decision and entry["decision"] != flt.decision:
            continue
        if flt.since and entry["timestamp"] < flt.since:
            continue
        if flt.before and entry["timestamp"] >= flt.before:
            continue
        out.append(i + 1)
    return out[::-1]


def walk(calls: Calls, flt: Filter, size: int) -> tuple[list[int], list[int]]:
    """Every page older then every page newer again: the seqs in the order shown."""
    seen: list[int] = []
    page = calls.page(flt, size=size)
    pages = [page]
    while page.older is not None:
        page = calls.page(flt, before=page.older, size=size)
        pages.append(page)
    seen = [c.seq for p in pages for c in p.calls]
    back: list[int] = []
    while page.newer is not None:
        page = calls.page(flt, after=page.newer, size=size)
        back = [c.seq for c in page.calls] + back
    last = [c.seq for c in pages[-1].calls]
    return seen, back + last


filters = st.builds(
    Filter,
    tool=st.sampled_from(("", *TOOLS)),
    server=st.sampled_from(("", *SERVERS)),
    decision=st.sampled_from(("", *DECISIONS)),
    since=st.sampled_from(("", "2026-12-03T10:01:00.000Z")),
    before=st.sampled_from(("", "2026-12-03T10:02:10.000Z")),
)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flt=filters, size=st.integers(1, 60))
def test_keyset_pages_walk_the_filtered_log_once_in_order_both_ways(
    sqlite_calls: Calls, flt: Filter, size: int
) -> None:
    forward, backward = walk(sqlite_calls, flt, size)
    assert forward == expected(flt)
    assert backward == expected(flt)
    first = sqlite_calls.page(flt, size=size)
    assert first.newer is None  # the head has nothing newer


@pytest.mark.parametrize(("query", "since", "before"), [
    ({"since": "2026-12-03"}, "2026-12-03T00:00:00.000Z", ""),  # a date: its midnight, UTC
    ({"before": "2026-12-03T14:00Z"}, "", "2026-12-03T14:00:00.000Z"),  # Z
    ({"since": "2026-12-03T15:00+01:00"}, "2026-12-03T14:00:00.000Z", ""),  # an offset
    ({"since": " "}, "", ""),  # blank: no filter
])
def test_times_are_read_into_the_entries_own_form(
    query: dict[str, str], since: str, before: str
) -> None:
    flt = Filter.parse(query)
    assert (flt.since, flt.before) == (since, before)


def test_a_time_that_is_not_one_says_which_form_it_needs() -> None:
    with pytest.raises(InputError, match=r"ISO 8601 .* got 'yesterday'"):
        Filter.parse({"since": "yesterday"})


def test_a_missing_log_says_where_it_looked(tmp_path: Path) -> None:
    from elision.errors import AuditError

    with pytest.raises(AuditError, match="no audit log at"):
        open_calls(str(tmp_path / "nothing.db"))


@pytest.mark.skipif(not os.environ.get("ELISION_TEST_POSTGRES_URL"),
                    reason="set ELISION_TEST_POSTGRES_URL to a PostgreSQL database")
def test_a_postgresql_chain_pages_and_filters_alike_on_its_indexes() -> None:
    import psycopg

    from elision.audit.pglog import PgAuditLog

    url = os.environ["ELISION_TEST_POSTGRES_URL"]
    schema = "elision_view_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    scoped = f"{url}?options=-csearch_path%3D{schema}"
    try:
        with PgAuditLog(scoped, schema=schema) as log:
            for i in range(N):
                log.append(content(i))
            # A member PostgreSQL's text cannot hold: the append still goes through.
            log.append({**content(N), "tool": "nul\u0000tool"})
        with open_calls(scoped) as calls:
            assert calls.indexed
            for flt in (Filter(), Filter(tool="read"), Filter(server="b", decision="deny"),
                        Filter(since="2026-12-03T10:01:00.000Z", tool="search")):
                forward, backward = walk(calls, flt, 13)
                want = expected(flt)
                if flt == Filter():
                    want = [N + 1, *want]
                assert forward == want and backward == want
            calls._db.execute("SET enable_seqscan = off")  # type: ignore[attr-defined]
            plan = calls._db.execute(  # type: ignore[attr-defined]
                "EXPLAIN SELECT seq FROM audit_entries WHERE audit_member(body, 'tool') = %s "
                "ORDER BY seq DESC LIMIT 5", ("read",)).fetchall()
            assert "audit_entries_by_tool" in " ".join(str(r[0]) for r in plan)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
