"""End to end: the proxy's audit chain binds what the tool sent and what the client got.

A real proxy (with a guard config, a deny list, a size ceiling and a signing key) in front of
a real upstream; the official ``mcp.Client`` calls through it; then ``elision audit verify``
and ``elision audit show --json`` run as subprocesses on the log it wrote. Tampering goes
around the append-only triggers the way an attacker with the file would: recreate the table
without them, then edit or delete.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "test_mcp_pipeline_upstream.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 4096
KEY = "hmac:" + "k" * 40  # a test key: checkpoints are signed with it
GUARD_TOML = """
[guardian]
deny_tools = ["shell"]   # the test's deny list

[audit]
checkpoint_every = 2
"""


def rows_text(n: int) -> bytes:
    # The upstream's rows_text, byte for byte: json.dumps of the same document.
    return json.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(n)],
                       "total_rows": n}).encode()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def elision(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ELISION, *args], capture_output=True, text=True, timeout=60,
        env={**os.environ, "ELISION_AUDIT_KEY": KEY},
    )


def entries(log: Path) -> list[dict[str, Any]]:
    shown = elision("audit", "show", "--json", "--log", str(log))
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def tampered(log: Path, dest: Path, statement: str) -> Path:
    """A copy of ``log`` with ``statement`` run after the triggers were taken away."""
    with sqlite3.connect(log) as src, sqlite3.connect(dest) as out:
        src.backup(out)
    db = sqlite3.connect(dest)
    # Dropping the table drops its triggers; the copy has the same rows and none of them.
    db.executescript(
        "CREATE TABLE bare AS SELECT * FROM entries; DROP TABLE entries;"
        "ALTER TABLE bare RENAME TO entries;" + statement
    )
    db.commit()
    db.close()
    return dest


def test_the_proxy_writes_a_chain_that_verifies_binds_both_digests_and_shows_tampering(
    tmp_path: Path,
) -> None:
    log = tmp_path / "audit.db"
    guard = tmp_path / "guard.toml"
    guard.write_text(GUARD_TOML)
    got: dict[str, bytes] = {}

    async def main() -> None:
        params = StdioServerParameters(
            command=ELISION[0],
            args=[*ELISION[1:], "proxy", "--budget", str(BUDGET), "--store",
                  str(tmp_path / "store.db"), "--audit", str(log), "--guard-config", str(guard),
                  "--max-bytes", "100000", "--", *UPSTREAM],
            env={**os.environ, "ELISION_AUDIT_KEY": KEY},
        )
        async with Client(params, mode="legacy") as client:
            cut = await client.call_tool("rows_text", {"n": 500})
            got["rows_text"] = text_of(cut).encode()
            got["small"] = text_of(await client.call_tool("small", {})).encode()
            secret = await client.call_tool("secret_json", {})
            env = json.loads(text_of(secret))["__elision__"]
            # A page is not a tool result: it is not a new entry.
            page = await client.call_tool("elision_fetch", {"ref": env["ref"], "path": "$.rows"})
            assert not page.is_error
            denied = await client.call_tool("shell", {})
            assert denied.is_error and "deny list" in text_of(denied)
            huge = await client.call_tool("rows_text", {"n": 8000})
            assert huge.is_error and "100,000-byte ceiling" in text_of(huge)
            stub = json.loads(text_of(secret))["attachments"][1]["resource"]["text"]
            back = await client.call_tool("elision_fetch_reference", {"stub": stub})
            assert not back.is_error

    anyio.run(main)

    ok = elision("audit", "verify", "--log", str(log))
    assert ok.returncode == 0, ok.stderr
    assert "ok: 6 entries" in ok.stdout and "0 checkpoint" not in ok.stdout

    chain = entries(log)
    assert [e["tool"] for e in chain] == [
        "rows_text", "small", "secret_json", "shell", "rows_text", "elision_fetch_reference"]
    assert all(e["step_type"] == "steps/toolCallResult" for e in chain)
    cut_entry, small_entry, secret_entry, shell_entry, huge_entry, _ = chain
    # Full: the bytes the upstream sent; shown: the bytes the client got.
    assert cut_entry["full"] == {"sha256": sha(rows_text(500)), "bytes": len(rows_text(500))}
    assert cut_entry["shown"] == {"sha256": sha(got["rows_text"]),
                                  "bytes": len(got["rows_text"])}
    assert cut_entry["complete"] is False and cut_entry["decision"] == "allow"
    assert small_entry["full"] == small_entry["shown"] == {"sha256": sha(b"all good"),
                                                           "bytes": 8}
    assert small_entry["complete"] is True
    assert secret_entry["withheld"]["aws-sigv4-url"] == 6
    assert secret_entry["withheld"]["inline-with-uri"] == 1
    assert shell_entry["decision"] == "deny" and "tool_denied" in shell_entry["reason_codes"]
    assert huge_entry["decision"] == "deny" and "size_ceiling" in huge_entry["reason_codes"]
    assert huge_entry["full"]["sha256"] == sha(rows_text(8000))

    # An edit to one entry's content, with the triggers gone, names that entry.
    edited = tampered(log, tmp_path / "edited.db",
                      "UPDATE entries SET body = replace(body, '\"deny\"', '\"allow\"') "
                      "WHERE seq = 4;")
    bad = elision("audit", "verify", "--log", str(edited))
    assert bad.returncode != 0 and "entry 4 was altered" in bad.stderr + bad.stdout
    # A deleted row names the first entry that no longer fits.
    cut_row = tampered(log, tmp_path / "deleted.db", "DELETE FROM entries WHERE seq = 2;")
    bad = elision("audit", "verify", "--log", str(cut_row))
    assert bad.returncode != 0 and "entry 2" in bad.stderr + bad.stdout
    # A cut tail passes the chain alone; the signed checkpoint written at shutdown catches it.
    tail = tampered(log, tmp_path / "tail.db", "DELETE FROM entries WHERE seq = 6;")
    bad = elision("audit", "verify", "--log", str(tail), "--checkpoints",
                  str(log) + ".checkpoints")
    assert bad.returncode != 0 and "tail was cut" in bad.stderr + bad.stdout
