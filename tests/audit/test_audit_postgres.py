"""The audit chain on PostgreSQL: one linear chain from many processes, append-only in the
database, retried without duplicates, failing closed, verified by the CLI."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql

from elision.audit.log import AuditLog
from elision.audit.opener import open_audit_log
from elision.audit.pglog import PgAuditLog
from elision.audit.pgread import default_pg_checkpoint_path, read_pg_log, verify_pg_log
from elision.audit.stage import LogAuditor
from elision.budget import Budget
from elision.errors import AuditError
from elision.pipeline import Pipeline
from elision.store.pgpool import PgConnector
from support.pgurl import pg_url, throwaway_schema

URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run does) to run the "
    "PostgreSQL audit tests",
)
KEY = "hmac:a-test-key-of-enough-length"
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def schema() -> Iterator[str]:
    yield from throwaway_schema(URL)


def url_for(schema: str) -> str:
    sep = "&" if "?" in URL else "?"
    return f"{URL}{sep}options=-csearch_path%3D{schema}"


@contextmanager
def admin(schema: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        yield conn


def test_appends_chain_and_verify_against_checkpoints(schema: str, tmp_path: Path) -> None:
    cps = tmp_path / "cp"
    with PgAuditLog(URL, schema=schema, key=KEY, checkpoint_path=cps,
                    checkpoint_every=3) as log:
        entries = [log.append({"step_type": "steps/toolCallResult", "n": n}) for n in range(7)]
        assert log.head() == (7, entries[-1]["entry_hash"])
        assert list(log.entries()) == entries
    assert [e["entry_id"] for e in entries] == [str(n) for n in range(1, 8)]
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[cps], key=KEY)
    # Checkpoints at 3 and 6 while appending, and at 7 on close.
    assert (result.ok, result.entries, result.checkpoints) == (True, 7, 3)
    assert result.head == entries[-1]["entry_hash"]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_entries SET body = '{}' WHERE seq = 2",  # rewrite one entry
        "DELETE FROM audit_entries WHERE seq = 3",  # drop the tail
        "DELETE FROM audit_entries",  # drop everything
        "TRUNCATE audit_entries",  # TRUNCATE skips row triggers; it has its own
    ],
)
def test_the_database_refuses_to_change_entries(schema: str, statement: str) -> None:
    with PgAuditLog(URL, schema=schema) as log:
        for n in range(3):
            log.append({"n": n})
    with admin(schema) as conn, pytest.raises(psycopg.Error, match="append-only"):
        conn.execute(statement)  # type: ignore[arg-type]
    assert len(read_pg_log(URL, schema=schema)[0]) == 3


@pytest.mark.parametrize(
    "previous",
    [
        1,  # a second successor of entry 1 would fork the chain
        None,  # a second first entry would start another chain
    ],
)
def test_the_database_refuses_a_fork(schema: str, previous: int | None) -> None:
    with PgAuditLog(URL, schema=schema) as log:
        first = log.append({"n": 0})
        log.append({"n": 1})
    prev_hash = first["entry_hash"] if previous else None
    with admin(schema) as conn, pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute("INSERT INTO audit_entries VALUES (3, %s, %s, '{}', %s)",
                     ("f" * 64, prev_hash, uuid.uuid4()))


_WRITER = """
import sys
from elision.audit.pglog import PgAuditLog
url, schema, name, n, cps, key = sys.argv[1:7]
log = PgAuditLog(url, schema=schema, key=key, checkpoint_path=cps, checkpoint_every=50)
for i in range(int(n)):
    entry = log.append({"step_type": "steps/toolCallResult", "writer": name, "n": i})
    print(entry["entry_id"], name, i, flush=True)
log.close()
"""


def start_writer(schema: str, name: str, n: int, cps: Path, *, unflushed: bool = False
                 ) -> subprocess.Popen[str]:
    """A writer process; ``unflushed``: its commits do not wait for the WAL flush
    (support.pgurl), for tests where nothing is killed."""
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, pg_url(URL, unflushed=unflushed), schema, name, str(n),
         str(cps), KEY],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )


def test_four_processes_make_one_chain_of_500(schema: str, tmp_path: Path) -> None:
    cps = tmp_path / "cp"
    # They also race to create the schema and its tables.
    # 500 appends one after another on the chain's lock: unflushed, as no writer is killed.
    writers = [start_writer(schema, f"w{k}", 125, cps, unflushed=True) for k in range(4)]
    outputs = [w.communicate(timeout=300) for w in writers]
    assert [w.returncode for w in writers] == [0] * 4, [err for _, err in outputs]
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[cps], key=KEY)
    assert result.ok, result.problem
    assert result.entries == 500
    assert result.checkpoints >= 10  # every 50th entry, signed by whichever writer made it
    entries, _ = read_pg_log(URL, schema=schema)
    assert [e["entry_id"] for e in entries] == [str(n) for n in range(1, 501)]
    # Every append landed exactly once, and each writer saw its own entries in its order.
    seen = sorted((e["writer"], e["n"]) for e in entries)
    assert seen == sorted((f"w{k}", i) for k in range(4) for i in range(125))
    for out, _ in outputs:
        ids = [int(line.split()[0]) for line in out.splitlines()]
        assert ids == sorted(ids) and len(ids) == 125


def test_a_writer_killed_mid_load_loses_no_committed_entry(schema: str, tmp_path: Path) -> None:
    cps = tmp_path / "cp"
    victim = start_writer(schema, "victim", 10_000, cps)
    others = [start_writer(schema, f"w{k}", 100, cps) for k in range(2)]
    assert victim.stdout is not None
    acked: list[tuple[str, int]] = []
    while len(acked) < 40:  # let it commit a good share of entries, then kill it hard
        line = victim.stdout.readline()
        assert line, victim.stderr.read() if victim.stderr else "victim exited"
        _, name, n = line.split()
        acked.append((name, int(n)))
    victim.send_signal(signal.SIGKILL)
    out, _ = victim.communicate(timeout=60)
    acked += [(name, int(n)) for _, name, n in (line.split() for line in out.splitlines())]
    outputs = [w.communicate(timeout=300) for w in others]
    assert [w.returncode for w in others] == [0, 0], [err for _, err in outputs]
    assert victim.returncode == -signal.SIGKILL
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[cps], key=KEY)
    assert result.ok, result.problem
    entries, _ = read_pg_log(URL, schema=schema)
    chained = {(e["writer"], e["n"]) for e in entries}
    assert set(acked) <= chained  # nothing the victim was told is committed went missing
    assert {(f"w{k}", i) for k in range(2) for i in range(100)} <= chained
    # At most the one append in flight at the kill may have committed unacknowledged.
    victims = sorted(n for name, n in chained if name == "victim")
    assert victims == list(range(len(victims))) and len(victims) - len(acked) in (0, 1)


def test_a_retry_after_a_lost_acknowledgement_appends_once(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = PgAuditLog(URL, schema=schema)
    real = PgConnector._connections
    lost = {"left": 1}

    class LosesTheAck:
        """A pool whose connection dies right after the commit, before the client hears."""

        def __init__(self, pool: Any) -> None:
            self._pool = pool

        @contextmanager
        def connection(self) -> Iterator[Any]:
            with self._pool.connection() as conn:
                yield conn
            if lost["left"]:
                lost["left"] -= 1
                raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(PgConnector, "_connections", lambda self: LosesTheAck(real(self)))
    try:
        entry = log.append({"step_type": "steps/toolCallResult"})
    finally:
        monkeypatch.undo()
        log.close()
    assert lost["left"] == 0  # the fault did happen
    entries, _ = read_pg_log(URL, schema=schema)
    assert entries == [entry]


def test_an_unreachable_chain_denies_the_result(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = PgAuditLog(URL, schema=schema, retries=2)
    pipeline = Pipeline(budget=Budget(1024), auditor=LogAuditor(log))
    assert pipeline.run('{"ok": true}', tool="t").text == '{"ok": true}'
    tries = {"n": 0}

    def down(self: Any) -> Any:
        tries["n"] += 1
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(PgConnector, "_connections", down)
    with pytest.raises(AuditError, match=r"could not reach PostgreSQL .* in 3 tries"):
        pipeline.run('{"ok": true}', tool="t")
    assert tries["n"] == 3
    monkeypatch.undo()
    log.close()
    assert len(read_pg_log(URL, schema=schema)[0]) == 1  # the denied call left no entry


def run_cli(*args: str, key: str | None = KEY,
            **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC, **extra}
    env.pop("ELISION_AUDIT_KEY", None)
    if key:
        env["ELISION_AUDIT_KEY"] = key
    return subprocess.run([sys.executable, "-c", "from elision.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_cli_verifies_a_postgres_chain_and_finds_tampering(schema: str, tmp_path: Path) -> None:
    cps = tmp_path / "cp"
    with PgAuditLog(URL, schema=schema, key=KEY, checkpoint_path=cps, checkpoint_every=2) as log:
        for n in range(5):
            log.append({"step_type": "steps/toolCallResult", "n": n})
    ok = run_cli("audit", "verify", "--log", url_for(schema), "--checkpoints", str(cps))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: 5 entries") and "3 checkpoint(s)" in ok.stdout
    # $ELISION_AUDIT may name the chain instead of --log, as it does for a writer.
    shown = run_cli("audit", "show", "--json", ELISION_AUDIT=url_for(schema))
    assert [line.count('"n":') for line in shown.stdout.splitlines()] == [1] * 5
    with admin(schema) as conn:
        # Only an owner who switches the guard off can edit; the chain still tells.
        conn.execute("ALTER TABLE audit_entries DISABLE TRIGGER USER")
        conn.execute("UPDATE audit_entries SET body = replace(body, '\"n\":2', '\"n\":9') "
                     "WHERE seq = 3")
    bad = run_cli("audit", "verify", "--log", url_for(schema), "--checkpoints", str(cps))
    assert bad.returncode == 1
    assert "entry 3 was altered" in bad.stderr


def test_cli_finds_a_cut_tail_through_the_checkpoints(schema: str, tmp_path: Path) -> None:
    cps = tmp_path / "cp"
    with PgAuditLog(URL, schema=schema, key=KEY, checkpoint_path=cps) as log:
        for n in range(4):
            log.append({"n": n})
    with admin(schema) as conn:
        conn.execute("ALTER TABLE audit_entries DISABLE TRIGGER USER")
        conn.execute("DELETE FROM audit_entries WHERE seq = 4")
    bad = run_cli("audit", "verify", "--log", url_for(schema), "--checkpoints", str(cps))
    assert bad.returncode == 1
    assert "the tail was cut, entries 4..4 are missing" in bad.stderr


@pytest.mark.parametrize("given", [
    True,  # --checkpoints names the file that was deleted
    False,  # the default file of this host, deleted
])
def test_cli_with_a_key_fails_when_the_checkpoint_file_is_gone(
    schema: str, tmp_path: Path, given: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by cutting the tail and deleting the checkpoint file: verify passed with a
    warning, so deleting one file hid the cut."""
    cps = tmp_path / "cp"
    data_home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))  # the writer's default file, and
    with PgAuditLog(URL, schema=schema, key=KEY,
                    checkpoint_path=cps if given else None) as log:
        for n in range(4):
            log.append({"n": n})
    with admin(schema) as conn:
        conn.execute("ALTER TABLE audit_entries DISABLE TRIGGER USER")
        conn.execute("DELETE FROM audit_entries WHERE seq = 4")
    default = default_pg_checkpoint_path(URL, schema)
    (cps if given else default).unlink()
    args = ["audit", "verify", "--log", url_for(schema)]
    if given:
        args += ["--checkpoints", str(cps)]
    bad = run_cli(*args)  # the verifier's: the environment passes on
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "does not exist" in bad.stderr and "--checkpoints" in bad.stderr
    assert KEY.split(":")[1] not in bad.stdout + bad.stderr


def test_cli_says_when_no_chain_is_there(schema: str) -> None:
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    done = run_cli("audit", "verify", "--log", url_for(schema))
    assert done.returncode == 1
    assert f"no audit log in schema {schema!r}" in done.stderr


def test_open_audit_log_picks_the_backend_from_the_spec(schema: str, tmp_path: Path) -> None:
    pg = open_audit_log(url_for(schema))
    sqlite = open_audit_log(tmp_path / "a.db")
    try:
        assert isinstance(pg, PgAuditLog) and isinstance(sqlite, AuditLog)
        assert pg.path.endswith(f"schema {schema}")
    finally:
        pg.close()
        sqlite.close()


def test_the_postgres_reader_imports_nothing_from_the_writer() -> None:
    import elision.audit.pgread as reader

    tree = ast.parse(Path(reader.__file__).read_text())
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    writer = ("elision.audit.chain", "elision.audit.log", "elision.audit.checkpoint",
              "elision.audit.pglog", "elision.store")
    assert not [name for name in imported if name.startswith(writer)]
    assert "elision.audit.verify" in imported


def test_bad_checkpoint_every_is_refused() -> None:
    with pytest.raises(AuditError, match="checkpoint_every must be at least 1, got 0"):
        PgAuditLog(URL, checkpoint_every=0)



def test_a_sqlite_user_never_imports_psycopg(tmp_path: Path) -> None:
    # psycopg is the optional 'postgres' extra: opening a SQLite log or store must not need it.
    code = ("import sys\n"
            "from elision.audit.opener import open_audit_log\n"
            "from elision.store import open_store\n"
            "open_audit_log(sys.argv[1]).close()\n"
            "open_store(sys.argv[2]).close()\n"
            "assert 'psycopg' not in sys.modules, 'psycopg was imported'\n")
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "a.db"), str(tmp_path / "s.db")],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=60,
        check=False)
    assert done.returncode == 0, done.stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


# A PostgreSQL pool opens connections on a worker thread that draws jitter from the ``random``
# module; Hypothesis sees the module's state move while it draws the next example.
@pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies"
    ":hypothesis.errors.HypothesisDeprecationWarning"
)
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(contents=st.lists(st.dictionaries(st.text(min_size=1), _JSON, max_size=5), min_size=1,
                         max_size=4))
def test_any_json_content_comes_back_exact_and_verifies(
    schema: str, contents: list[dict[str, Any]]
) -> None:
    # NUL and any other code point, nesting, 53-bit integers: TEXT storage bends nothing.
    # Unflushed commits (support.pgurl): the content is the subject, not a crash.
    with PgAuditLog(pg_url(URL, unflushed=True), schema=schema) as log:
        before = log.head()[0]
        written = [log.append(c) for c in contents]
        stored = list(log.entries())[before:]
    assert stored == written
    linked = ("entry_id", "entry_hash", "previous_hash")  # the log's own, always overwritten
    for entry, content in zip(written, contents, strict=True):
        assert {k: v for k, v in entry.items() if k in content and k not in linked} == {
            k: v for k, v in content.items() if k not in linked}
    result = verify_pg_log(URL, schema=schema, checkpoint_paths=[])
    assert result.ok, result.problem
    assert result.entries == before + len(contents)


def test_a_stalled_writer_cannot_hold_the_chain(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import elision.audit.pglog as pglog

    stalled, other = (PgAuditLog(URL, schema=schema, stall_timeout=1.0) for _ in range(2))
    real_link = pglog.link
    state = {"stalls": 1}
    stalling, stall_over, other_landed = threading.Event(), threading.Event(), threading.Event()

    def slow_link(body: dict[str, Any], head: str | None) -> dict[str, Any]:
        # The first append freezes mid-transaction, holding the chain's lock, as a replica
        # cut off by the network would. It wakes once the other append has landed (which it
        # can only do if the server ended this session), or after 30 s, when the other one,
        # still waiting on the lock, fails the test.
        if threading.current_thread().name == "stalled" and state["stalls"]:
            state["stalls"] -= 1
            stalling.set()
            other_landed.wait(30)
            stall_over.set()
        return real_link(body, head)

    monkeypatch.setattr(pglog, "link", slow_link)
    stalled_thread = threading.Thread(target=stalled.append, args=({"who": "stalled"},),
                                      name="stalled")
    stalled_thread.start()
    assert stalling.wait(30)  # it holds the lock now
    other.append({"who": "other"})
    # The server ended the stalled session after 1 s of idling, while it still slept.
    assert not stall_over.is_set()
    other_landed.set()
    stalled_thread.join(30)
    assert stall_over.is_set()
    stalled.close()
    other.close()
    entries, _ = read_pg_log(URL, schema=schema)
    # The stalled append was retried on a fresh connection and landed after the other one.
    assert [e["who"] for e in entries] == ["other", "stalled"]
    assert verify_pg_log(URL, schema=schema, checkpoint_paths=[]).ok
