"""The witness server: what it records of a harness, and that it answers as an older server
with nothing to offer (one real process, stdlib, no harness needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.witness import META_KEY

WITNESS = Path(__file__).resolve().parent / "witness.py"


def test_the_witness_records_each_clientinfo_and_answers_with_nothing(tmp_path: Path) -> None:
    record = tmp_path / "clients.jsonl"
    opening = {"protocolVersion": "2026-07-28", "_meta": {META_KEY: {"name": "copilot-cli"}}}
    sent = [
        # the newest era opens with server/discover: refused, so the client falls back
        ("server/discover", opening),
        ("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "copilot-cli", "version": "1.0.102"}}),
        ("notifications/initialized", None),  # a notification: no answer
        ("tools/list", {}),
        ("prompts/list", {}),  # Qwen Code 0.24 asks, whatever the capabilities say
        ("resources/list", {}),
        ("tools/call", {"name": "anything"}),
    ]
    lines = [json.dumps({"jsonrpc": "2.0", "method": method, "params": params,
                         **({} if method.startswith("notifications/") else {"id": i})})
             for i, (method, params) in enumerate(sent)]
    done = subprocess.run([sys.executable, str(WITNESS), str(record)], input="\n".join(lines),
                          capture_output=True, text=True, timeout=60, check=True)
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert answers[0]["error"]["code"] == -32601
    assert answers[1]["result"]["protocolVersion"] == "2025-11-25"
    assert answers[3]["result"] == {"tools": []}
    assert answers[4]["result"] == {"prompts": []}
    assert answers[5]["result"] == {"resources": []}
    assert answers[6]["error"]["code"] == -32601
    assert len(answers) == 6
    seen = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    assert [s["method"] for s in seen] == [m for m, _ in sent]
    assert seen[0]["clientInfo"] == {"name": "copilot-cli"}
    assert seen[1]["clientInfo"] == {"name": "copilot-cli", "version": "1.0.102"}
    assert all(s["clientInfo"] is None for s in seen[2:])


def test_a_version_it_does_not_speak_gets_its_newest() -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2099-01-01", "capabilities": {},
                                  "clientInfo": {"name": "x", "version": "1"}}})
    done = subprocess.run([sys.executable, str(WITNESS), "/dev/null"], input=line,
                          capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout)["result"]["protocolVersion"] == "2025-11-25"
