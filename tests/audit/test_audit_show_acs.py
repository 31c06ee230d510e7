"""`elision audit show --acs [SESSION]`: a session's entries in the standard's own form (issue 25).

Found as an auditor with another ACS verifier would be: the ContextEntries of a session sit
under each log entry's `acs` member inside the log-wide chain, so no ACS verifier could read
them as written. `--acs` prints each as the §8.1/§8.2 ContextEntry, the object its
`entry_hash` was computed over with `previous_hash` and `entry_hash` beside it, one JCS line
each. The checker here is written from the spec text alone (RFC 8785 through the `rfc8785`
package, SHA-256, the §8.2 chain rule) and proved on the Go reference Guardian's vectors
first; it uses none of elision's chain code.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from click.testing import CliRunner

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.cli import main
from elision.guard.acs import AcsEndpoint
from elision.guard.policy import Guardian, ToolLists
from elision.store.memory import MemoryStore
from support.acs import Driver, request_payload

VECTORS = Path(__file__).resolve().parents[1] / "data" / "acs" / "go-chain-vectors.json"


# -- an independent §8.2 checker ------------------------------------------------------------

def spec_entry_hash(entry: dict[str, Any]) -> str:
    """§8.2: SHA-256 over JCS(the entry without entry_hash and previous_hash), followed by the
    32 raw bytes of previous_hash (nothing for the first entry)."""
    content = {k: v for k, v in entry.items() if k not in ("entry_hash", "previous_hash")}
    previous = entry.get("previous_hash")
    tail = bytes.fromhex(previous) if previous is not None else b""
    return hashlib.sha256(rfc8785.dumps(content) + tail).hexdigest()


def check_chain(entries: list[dict[str, Any]]) -> str | None:
    """Every link and hash of one session's chain; its head."""
    head = None
    for n, entry in enumerate(entries):
        assert entry["previous_hash"] == head, f"entry {n + 1} does not link to the one before"
        assert spec_entry_hash(entry) == entry["entry_hash"], f"entry {n + 1}'s hash"
        head = entry["entry_hash"]
    return head


def test_the_checker_reproduces_the_go_reference_vectors() -> None:
    vectors = json.loads(VECTORS.read_text("utf-8"))["chain"]
    entries = [{**v["entry"], "previous_hash": v["previous_hash"], "entry_hash": v["entry_hash"]}
               for v in vectors]
    for v in vectors:
        assert rfc8785.dumps(v["entry"]).decode() == v["canonical_content"]
    assert check_chain(entries) == vectors[-1]["entry_hash"]
    broken = [dict(e) for e in entries]
    broken[1]["timestamp"] = "2026-09-19T10:00:09Z"
    with pytest.raises(AssertionError):
        check_chain(broken)


# -- a real log: two ACS sessions interleaved with the proxy's entries -----------------------

PG_URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")


@contextmanager
def open_log(backend: str, where: Path) -> Iterator[tuple[Any, str]]:
    """A fresh audit log of ``backend`` and the --log that names it."""
    if backend == "sqlite":
        with AuditLog(where / "audit.db", key="") as log:
            yield log, str(where / "audit.db")
        return
    if not PG_URL:
        pytest.skip("ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run does) to read "
                    "ACS sessions from a PostgreSQL log")
    import psycopg
    from psycopg import sql

    from elision.audit.pglog import PgAuditLog

    schema = f"elision_test_{uuid.uuid4().hex[:16]}"
    sep = "&" if "?" in PG_URL else "?"
    try:
        with PgAuditLog(PG_URL, schema=schema, key="",
                        checkpoint_path=where / "pg.checkpoints") as log:
            yield log, f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(schema)))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def acs_log(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[str, dict[str, str]]]:
    """Two sessions through the Guardian, interleaved, with proxy entries (no session) between;
    the chain_hash each session's last answer published. On SQLite and on PostgreSQL."""
    heads: dict[str, str] = {}
    with open_log(request.param, tmp_path_factory.mktemp("acs")) as (log, spec):
        endpoint = AcsEndpoint(Guardian([ToolLists(deny=("shell",))]), log, MemoryStore())
        one, two = Driver(endpoint.handle), Driver(endpoint.handle)
        one.hello()
        two.hello()
        for i in range(3):
            for driver in (one, two):
                driver.call("steps/toolCallRequest", request_payload("search", q=f"é {i}"))
                log.append(tool_result_entry(
                    step_id=f"proxy-{i}", tool="search", server="docs", full_sha256="a" * 64,
                    full_bytes=10, shown_sha256="b" * 64, shown_bytes=5, complete=True,
                    decision="allow", policy_ids=[]))
                answer = driver.result({"value": {"rows": [i, "\u202e"], "total": 2}})
                heads[driver.session] = answer["result"]["chain_hash"]
        denied = one.call("steps/toolCallRequest", request_payload("shell", cmd="rm"))
        assert denied["result"]["decision"] == "deny"
        heads[one.session] = denied["result"]["chain_hash"]
        yield spec, heads


def show_acs(log: Path | str, *session: str) -> tuple[int, list[bytes], str]:
    result = CliRunner().invoke(main, ["audit", "show", "--log", str(log), "--acs", *session])
    return result.exit_code, result.stdout_bytes.splitlines(), result.stderr


def test_a_session_is_printed_as_its_context_entries(acs_log: tuple[str, dict[str, str]]
                                                     ) -> None:
    path, heads = acs_log
    for session, head in heads.items():
        code, lines, err = show_acs(path, session)
        assert code == 0, err
        entries = [json.loads(line) for line in lines]
        # each line is the entry in JCS form, byte for byte
        assert [rfc8785.dumps(e) for e in entries] == lines
        assert check_chain(entries) == head  # the chain_hash the Guardian published
        assert [e["entry_id"] for e in entries] == [str(n) for n in range(1, len(entries) + 1)]
        assert {e["session_id"] for e in entries} == {session}
        assert not any("acs" in e for e in entries)  # the log's members are not in it
    assert len({len(show_acs(path, s)[1]) for s in heads}) == 2  # 7 and 6 entries


def test_without_a_session_every_session_is_printed(acs_log: tuple[str, dict[str, str]]
                                                    ) -> None:
    path, heads = acs_log
    code, lines, err = show_acs(path)
    assert code == 0, err
    entries = [json.loads(line) for line in lines]
    by_session: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_session.setdefault(e["session_id"], []).append(e)
    assert {s: check_chain(es) for s, es in by_session.items()} == heads
    # sessions one after the other, not interleaved as in the log
    order = [e["session_id"] for e in entries]
    assert order == sorted(order, key=order.index)


def test_a_session_not_in_the_log_is_an_error_naming_those_that_are(
        acs_log: tuple[str, dict[str, str]]) -> None:
    path, heads = acs_log
    code, lines, err = show_acs(path, "no-such-session")
    assert code == 1 and lines == []
    assert "no-such-session" in err and all(s in err for s in heads)


def test_a_log_with_no_acs_session_says_so(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "audit.db", key="") as log:
        log.append(tool_result_entry(
            step_id="p", tool="search", server="docs", full_sha256="a" * 64, full_bytes=10,
            shown_sha256="b" * 64, shown_bytes=5, complete=True, decision="allow",
            policy_ids=[]))
    code, lines, err = show_acs(tmp_path / "audit.db")
    assert code == 1 and lines == []
    assert "no ACS session" in err
