"""`elision guardian` as a real process: serve ACS over HTTP, then stop cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

import elision
from elision.audit.log import AuditLog
from elision.audit.verify import verify_log
from support.acs import checked, client_hello, message, post_raw, request_payload, result_payload

KEY = "hmac:guardian-cli-secret-long-enough"
SRC = str(Path(elision.__file__).resolve().parent.parent)


def post(url: str, method: str, payload: Any, session: str, signer: Any = None) -> Any:
    """One ACS request, its response checked against the standard's schemas."""
    sent = message(method, payload, session, msg_id=str(uuid.uuid4()))
    if signer is not None:
        signer.sign(sent, "params", session)
    return checked(post_raw(url, orjson.dumps(sent)), method)


def start(
    tmp_path: Path, *args: str, acs_key: str = ""
) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "ELISION_AUDIT_KEY": KEY, "XDG_DATA_HOME": str(tmp_path / "data"),
           "ELISION_ACS_KEY": acs_key}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from elision.cli import main; main()", "guardian",
         "--listen", "127.0.0.1:0", "--log", str(tmp_path / "audit.db"), *args],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if "serving ACS on " not in line:
        proc.kill()
        pytest.fail(f"guardian did not start: {line}{proc.stderr.read()}")
    return proc, line.rsplit(" ", 1)[-1].strip()


@pytest.mark.e2e
@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGINT])
def test_guardian_process_serves_and_checkpoints_on_exit(
    tmp_path: Path, stop_with: signal.Signals
) -> None:
    proc, url = start(tmp_path, "--deny-tool", "shell", "--no-store")
    try:
        session = str(uuid.uuid4())
        hello = post(url, "handshake/hello", client_hello(), session)
        assert hello["result"]["negotiated_version"] == "0.1.0"
        allowed = post(url, "steps/toolCallResult", result_payload({"rows": [1, 2]}), session)
        denied = post(url, "steps/toolCallRequest", request_payload("shell", cmd="ls"), session)
    finally:
        proc.send_signal(stop_with)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert allowed["result"]["decision"] == "allow"
    assert denied["result"]["decision"] == "deny"
    result = verify_log(tmp_path / "audit.db", key=KEY)
    assert result.ok, result.problem
    assert result.checkpoints == 1  # written at shutdown
    with AuditLog(tmp_path / "audit.db", key=KEY) as log:
        last = list(log.entries())[-1]
    assert last["acs"]["entry_hash"] == denied["result"]["chain_hash"]  # the session's head


def test_a_bad_listen_address_is_a_clear_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from elision.cli import main

    result = CliRunner().invoke(main, ["guardian", "--listen", "nowhere", "--no-store",
                                       "--log", str(tmp_path / "a.db")])
    assert result.exit_code == 2  # bad usage, as click reports it
    assert "HOST:PORT" in result.stderr


@pytest.mark.e2e
def test_a_signing_guardian_process(tmp_path: Path) -> None:
    from elision.guard.signing import EnvelopeSigner

    ikm = bytes(range(32))
    signer = EnvelopeSigner(ikm, "default")
    proc, url = start(tmp_path, "--no-store", acs_key="hex:" + ikm.hex())
    try:
        session = str(uuid.uuid4())
        unsigned = post(url, "handshake/hello", client_hello(), session)
        hello = post(url, "handshake/hello", client_hello(), session, signer)
        answer = post(url, "steps/toolCallResult", result_payload("fine"), session, signer)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert unsigned["error"]["code"] == -32004
    assert hello["result"]["profiles_accepted"] == ["acs-core", "acs-audit"]
    assert answer["result"]["decision"] == "allow"
    assert signer.verify(answer, "result", session) is None  # chain_hash is covered
    assert answer["result"]["chain_hash"]


PG_URL = os.environ.get("ELISION_TEST_POSTGRES_URL", "")


@pytest.mark.e2e
@pytest.mark.skipif(not PG_URL, reason="ELISION_TEST_POSTGRES_URL is unset: set it (as .ci/run "
                    "does) to run the Guardian on a PostgreSQL chain")
def test_guardian_appends_to_a_postgresql_chain(tmp_path: Path) -> None:
    import psycopg
    from psycopg import sql

    schema = f"elision_test_{uuid.uuid4().hex[:16]}"
    sep = "&" if "?" in PG_URL else "?"
    url = f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    env = {**os.environ, "ELISION_AUDIT_KEY": KEY, "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from elision.cli import main; main()", "guardian",
         "--listen", "127.0.0.1:0", "--log", url, "--no-store"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "serving ACS on " in line, line + proc.stderr.read()
        acs = line.rsplit(" ", 1)[-1].strip()
        session = str(uuid.uuid4())
        post(acs, "handshake/hello", client_hello(), session)
        answer = post(acs, "steps/toolCallResult", result_payload({"rows": [1, 2]}), session)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    try:
        verify = subprocess.run(
            [sys.executable, "-c", "from elision.cli import main; main()", "audit", "verify",
             "--log", url], capture_output=True, text=True, timeout=60, env=env)
        assert verify.returncode == 0, verify.stderr
        assert "ok: 1 entries" in verify.stdout
        shown = subprocess.run(
            [sys.executable, "-c", "from elision.cli import main; main()", "audit", "show",
             "--json", "--log", url], capture_output=True, text=True, timeout=60, env=env)
        assert answer["result"]["chain_hash"] in shown.stdout  # the session's head, logged
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                sql.Identifier(schema)))
