"""Two proxy replicas over HTTP sharing one PostgreSQL store, as behind a load balancer.

A client's ref scope over stateless HTTP is its credential, so the same client reaching the
other replica can fetch what the first one kept; another client cannot. Both append to one
audit chain, and a replica SIGKILLed mid-load loses no entry of a call it answered. Real
processes: one upstream MCP server, two ``elision proxy --listen`` replicas, the official
mcp.Client.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager, ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import psycopg
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    MCP_DEFAULT_TIMEOUT,
    create_mcp_http_client,
)
from psycopg import sql

from elision.audit.pgread import default_pg_checkpoint_path, read_pg_log, verify_pg_log
from mcp import Client
from support.pgurl import pg_url, throwaway_schema
from support.ports import free_port, wait_for_port
from support.processes import started

URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run "
                       "does) to run proxy replicas on PostgreSQL"),
]
HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 1024
CALLS = 500
KEY = "hmac:a-test-key-of-enough-length"


@pytest.fixture
def schema() -> Iterator[str]:
    yield from throwaway_schema(URL)


@contextmanager
def replica(*args: str, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> Iterator[str]:
    """One ``elision proxy --listen`` process; yields its URL once it listens."""
    with replica_process(*args, cwd=cwd, env=env) as (url, _):
        yield url


@contextmanager
def replica_process(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
                    ) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """One ``elision proxy --listen`` process; yields its URL, and the process to kill."""
    with started(
        [*ELISION, "proxy", "--budget", str(BUDGET), "--listen", "127.0.0.1:0", *args],
        cwd=cwd, env=env,
    ) as replica:
        try:
            yield replica.url, replica.proc
        finally:
            # What the replica said, in the report of a test that fails (captured otherwise).
            sys.stderr.write(f"replica {replica.url}:\n{replica.stderr()[-4000:]}")


@contextmanager
def at_once(*managers: AbstractContextManager[Any]) -> Iterator[list[Any]]:
    """Enter ``managers`` at the same time, each on a thread of its own; exit them all at the
    end (those that entered, if one failed to). Two replicas start side by side, not one after
    the other: a replica's start is seconds of imports on a loaded machine, and replicas
    starting together is how a fleet starts anyway (they queue on the schema's lock)."""
    entered: list[Any] = [None] * len(managers)
    done = [False] * len(managers)
    failures: list[BaseException] = []

    def enter(i: int) -> None:
        try:
            entered[i] = managers[i].__enter__()
            done[i] = True
        except BaseException as exc:  # raised below, on the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=enter, args=(i,)) for i in range(len(managers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with ExitStack() as stack:
        for manager, ok in zip(managers, done, strict=True):
            if ok:
                stack.push(manager.__exit__)
        if failures:
            raise failures[0]
        yield entered


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    """One upstream MCP server over HTTP for every test here: it keeps no state between calls,
    and the replicas, the subject, start fresh in each test."""
    port = free_port()
    proc = subprocess.Popen([*UPSTREAM, "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


def url_for(schema: str, *, unflushed: bool = False) -> str:
    """The URL of ``schema``; ``unflushed`` (support.pgurl) for the two tests of 500 calls,
    which commit ~1,000 times each, most of them one after another on the audit chain's lock.
    The kill test kills a replica, not the server, but keeps the server's own setting."""
    return pg_url(URL, schema=schema, unflushed=unflushed)


#: The SDK's timeouts, but no limit on the wait for one of the client's own connections: CALLS
#: calls start at once and httpx keeps 100 connections, so most calls queue in the client, and
#: at load > 10 the last ones waited past the SDK's 30 s (httpx PoolTimeout, the test failed with
#: every call answered or still to be sent). The test's own timeout bounds the queue instead.
CLIENT_TIMEOUT = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT, pool=None)


@asynccontextmanager
async def client(url: str, credential: str) -> AsyncIterator[Client]:
    """A client whose credential is its ref scope on every replica."""
    # The transport leaves a client it was handed open, so this one is closed here.
    async with create_mcp_http_client(
        headers={"Authorization": f"Bearer {credential}"}, timeout=CLIENT_TIMEOUT,
    ) as http, Client(streamable_http_client(url, http_client=http)) as session:
        yield session


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def call_many(on_a: Client, on_b: Client) -> dict[int, tuple[str, str, str]]:
    """CALLS cut results in flight at once, half through each replica: call -> (ref, sha256,
    replica that kept it)."""
    refs: dict[int, tuple[str, str, str]] = {}
    failures: list[str] = []

    async def one_call(c: Client, n: int, via: str) -> None:
        result = await c.call_tool("rows", {"n": 40 + n % 50})
        if result.is_error:
            failures.append(text_of(result))
            return
        envelope = json.loads(text_of(result))["__elision__"]
        refs[n] = (envelope["ref"], envelope["sha256"], via)

    async with anyio.create_task_group() as tg:
        for n in range(CALLS):
            c, via = (on_a, "a") if n % 2 == 0 else (on_b, "b")
            tg.start_soon(one_call, c, n, via)
    assert failures == []
    assert len(refs) == CALLS and len({r for r, _, _ in refs.values()}) == CALLS
    return refs


def test_two_replicas_share_refs_through_one_database(schema: str, upstream: str) -> None:
    # The audit chain is the next test's subject; here it stays off the user's home.
    store = url_for(schema, unflushed=True)
    with at_once(replica("--store", store, "--upstream-url", upstream, "--no-audit"),
                 replica("--store", store, "--upstream-url", upstream, "--no-audit")) as (a, b):

        async def main() -> None:
            async with client(a, "alice") as on_a, client(b, "alice") as on_b:
                refs = await call_many(on_a, on_b)
                # Every seventh ref, fetched through the replica that did NOT keep it.
                for n in range(0, CALLS, 7):
                    ref, digest, via = refs[n]
                    other = on_b if via == "a" else on_a
                    page = await other.call_tool("elision_fetch",
                                                 {"ref": ref, "path": "$.total_rows"})
                    assert not page.is_error, text_of(page)
                    doc = json.loads(text_of(page))
                    assert doc["value"] == 40 + n % 50
                    assert doc["__elision__"]["sha256"] == digest
            async with client(b, "mallory") as stranger:
                ref = refs[0][0]
                denied = await stranger.call_tool("elision_fetch", {"ref": ref})
                assert denied.is_error and ref in text_of(denied)

        anyio.run(main)
    with psycopg.connect(URL) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        kept = conn.execute("SELECT COUNT(*) FROM store_refs").fetchone()
    assert kept == (CALLS,)


def test_two_replicas_write_one_audit_chain(
    schema: str, upstream: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both replicas sign checkpoints into one file under this data directory.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    env = {"XDG_DATA_HOME": str(tmp_path), "ELISION_AUDIT_KEY": KEY}
    log = url_for(schema, unflushed=True)
    shared = ("--store", log, "--audit", log)
    # cwd: a proxy that took the URL for a file name must litter a temporary directory only.
    with at_once(replica(*shared, "--upstream-url", upstream, cwd=tmp_path, env=env),
                 replica(*shared, "--upstream-url", upstream, cwd=tmp_path, env=env)) as (a, b):

        async def first() -> None:
            async with client(a, "alice") as on_a:
                assert not (await on_a.call_tool("rows", {"n": 40})).is_error

        anyio.run(first)
        # Fail fast, before 500 calls, when the chain is not in PostgreSQL at all.
        assert len(read_pg_log(URL, schema=schema)[0]) == 1

        async def main() -> None:
            async with client(a, "alice") as on_a, client(b, "alice") as on_b:
                await call_many(on_a, on_b)

        anyio.run(main)
    checkpoints = default_pg_checkpoint_path(log, schema)
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[checkpoints], key=KEY)
    assert result.ok, result.problem
    entries, _ = read_pg_log(URL, schema=schema)
    results = [e for e in entries if e.get("step_type") == "steps/toolCallResult"
               and e.get("tool") == "rows"]
    # One linear chain (verify checks every link and position): no fork, no gap, no loss.
    assert len(results) == result.entries == CALLS + 1


# The kill test: small enough for two busy cores, large enough that the kill lands mid-load.
DOOMED_CALLS = 80  # sent to the replica that is killed
SURVIVOR_CALLS = 80  # sent to the other one at the same time
KILL_AFTER = 20  # the doomed replica's answers before the kill; the rest are still in flight
AFTER_KILL = 10  # calls the survivor must answer once the other one is gone
GRACE = 20.0  # seconds a call on the dead replica may take to fail before it is given up
ROWS = 40  # call n asks for ROWS + n rows: a distinct body, and over the budget, for every call
GUARD_TOML = """
[audit]
checkpoint_every = 10  # both replicas sign checkpoints mid-load, so the kill can cut past one
"""


@cache
def upstream_module() -> Any:
    spec = importlib.util.spec_from_file_location("replicas_upstream", HERE / "upstream_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def full_digest(n: int) -> str:
    """What the proxy digests for call n of rows_text: the tool's text, byte for byte."""
    text = json.dumps(upstream_module().rows_doc(ROWS + n))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Load:
    answered: dict[int, str] = field(default_factory=dict)  # call -> sha256 its envelope bound
    doomed: set[int] = field(default_factory=set)  # calls sent to the replica that was killed
    answers_before_kill: int = 0


async def load_with_a_kill(doomed_url: str, doomed: subprocess.Popen[str],
                           survivor_url: str) -> Load:
    """Calls through both replicas at once; the doomed one is SIGKILLed from the event loop
    the moment it has answered KILL_AFTER calls, so its other calls are in flight."""
    load = Load(doomed=set(range(DOOMED_CALLS)))
    killed = anyio.Event()

    def answered(n: int, result: types.CallToolResult) -> None:
        assert not result.is_error, text_of(result)
        load.answered[n] = json.loads(text_of(result))["__elision__"]["sha256"]

    async def on_doomed(c: Client, n: int) -> None:
        try:
            result = await c.call_tool("rows_text", {"n": ROWS + n})
        except Exception:
            if not killed.is_set():
                raise  # a failure before the kill is a bug, not the test's doing
            return  # the replica died under this call: it was never answered
        answered(n, result)
        load.answers_before_kill += not killed.is_set()
        if load.answers_before_kill == KILL_AFTER and not killed.is_set():
            doomed.kill()
            killed.set()

    async def drive_doomed() -> None:
        with anyio.CancelScope() as scope:
            try:
                async with client(doomed_url, "alice") as on_a, anyio.create_task_group() as tg:
                    for n in range(DOOMED_CALLS):
                        tg.start_soon(on_doomed, on_a, n)
                    await killed.wait()
                    with anyio.fail_after(30):
                        await anyio.to_thread.run_sync(doomed.wait)
                    # Dead and reaped: nothing more can be answered. A call the client has
                    # not yet failed gets GRACE seconds to fail, then is given up.
                    scope.deadline = anyio.current_time() + GRACE
            except* httpx2.TransportError:
                # The SDK's transport fails as a whole when its server dies under POSTs in
                # flight, and that cancels every call still waiting on this replica.
                if not killed.is_set():
                    raise

    async def on_survivor(c: Client, n: int) -> None:
        answered(n, await c.call_tool("rows_text", {"n": ROWS + n}))

    async with client(survivor_url, "alice") as on_b:
        async with anyio.create_task_group() as tg:
            tg.start_soon(drive_doomed)
            for n in range(DOOMED_CALLS, DOOMED_CALLS + SURVIVOR_CALLS):
                tg.start_soon(on_survivor, on_b, n)
        assert killed.is_set(), "the doomed replica never answered enough calls to be killed"
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(doomed.wait)
        assert doomed.returncode == -9, doomed.returncode
        # The survivor keeps answering once the other replica is gone.
        start = DOOMED_CALLS + SURVIVOR_CALLS
        for n in range(start, start + AFTER_KILL):
            await on_survivor(on_b, n)
    return load


def test_killing_a_replica_mid_load_loses_no_answered_entry(
    schema: str, upstream: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    env = {"XDG_DATA_HOME": str(tmp_path), "ELISION_AUDIT_KEY": KEY}
    guard = tmp_path / "guard.toml"
    guard.write_text(GUARD_TOML)
    log = url_for(schema)
    shared = ("--store", log, "--audit", log, "--guard-config", str(guard))
    with at_once(replica_process(*shared, "--upstream-url", upstream, cwd=tmp_path, env=env),
                 replica(*shared, "--upstream-url", upstream, cwd=tmp_path, env=env)) as (
                (a, doomed), b):
        load = anyio.run(load_with_a_kill, a, doomed, b)

    calls = DOOMED_CALLS + SURVIVOR_CALLS + AFTER_KILL
    call_of = {full_digest(n): n for n in range(calls)}
    assert len(call_of) == calls  # every call's body is its own, so a digest names one call
    for n, digest in load.answered.items():
        assert call_of.get(digest) == n, f"call {n} was answered with a foreign digest"
    unanswered = load.doomed - load.answered.keys()
    # The kill landed mid-load: some of the doomed replica's calls were answered, some not.
    assert load.answers_before_kill == KILL_AFTER and unanswered
    # Every call to the survivor, during and after the kill, was answered.
    assert set(range(DOOMED_CALLS, calls)) <= load.answered.keys()

    entries, _ = read_pg_log(URL, schema=schema)
    results = [e for e in entries if e.get("step_type") == "steps/toolCallResult"]
    assert all(e.get("tool") == "rows_text" for e in results), results
    entered = Counter(call_of.get(e["full"]["sha256"], -1) for e in results)
    assert -1 not in entered, "an entry names no call that was made"
    assert [n for n, k in entered.items() if k > 1] == [], "an entry was written twice"
    assert len({e["step_id"] for e in results}) == len(results)
    # An entry is committed before its answer is sent: an answered call is always in the chain.
    assert load.answered.keys() <= entered.keys()
    # An unanswered call died before, during or after its append; if the append committed,
    # its entry is there, once. Nothing else is in the chain.
    assert entered.keys() - load.answered.keys() <= unanswered

    # One line: the writer-free reader, and the CLI as a user runs it, on this host's
    # checkpoints (both replicas signed into the same file, the killed one mid-load).
    checkpoints = default_pg_checkpoint_path(log, schema)
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[checkpoints], key=KEY)
    assert result.ok, result.problem
    assert result.entries == len(entries) == len(results) and result.checkpoints > 0
    cli = subprocess.run([*ELISION, "audit", "verify", "--log", log], capture_output=True,
                         text=True, timeout=60, env={**os.environ, **env}, cwd=tmp_path)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert cli.stdout.startswith(f"ok: {len(entries)} entries"), cli.stdout
