"""The test servers written as raw JSON-RPC lines write what the SDK's servers they replaced
wrote, byte for byte, on every request the tests send them and on names no one serves.

A raw server costs a start ~0.1 s of CPU where the SDK's cost ~1.4 s (its import); these
checks are what lets the suite use them: a difference (a member out of the SDK's order, a
missing ``isError``, a notification after its reply instead of before) fails here, by request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from support.rawcheck import exchange, requests

HERE = Path(__file__).parent

SEEDED_CALLS: list[tuple[str, dict[str, Any] | None]] = [
    ("tools/list", None),
    ("logging/setLevel", {"level": "debug"}),
    *[("tools/call", {"name": name, "arguments": {}})
      for name in ("text", "json", "fails", "raises", "logs", "no_such_tool")],
    ("resources/list", None),
    ("resources/read", {"uri": "test://seeded/notes"}),
    ("resources/read", {"uri": "test://no/such/resource"}),
    ("resources/templates/list", None),
    ("prompts/list", None),
    ("prompts/get", {"name": "handoff", "arguments": {"who": "ops"}}),
    ("prompts/get", {"name": "no_such_prompt"}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "handoff"},
                             "argument": {"name": "who", "value": "o"}}),
]

def call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return "tools/call", {"name": name, "arguments": arguments}


#: Asked of every server besides its own requests: the lists, and names no one serves.
UNKNOWN: list[tuple[str, dict[str, Any] | None]] = [
    ("tools/list", None), ("resources/list", None), ("resources/templates/list", None),
    ("prompts/list", None), call("no_such_tool"), ("resources/read", {"uri": "no://such"}),
    ("prompts/get", {"name": "no_such_prompt"}),
]

LEDGER_CALLS = [
    *UNKNOWN, call("search_trades"), call("search_trades", symbol="ACME", side="sell"),
    call("failed_settlements"), call("account_summary", account="ACC-0007"),
    ("resources/read", {"uri": "ledger://symbols"}),
    # Not a call whose arguments do not validate: pydantic's words are not copied (no test
    # sends one; ledger_server.py says so).
]

PY = sys.executable
#: (the raw server, the SDK server it replaced, the requests after the handshake)
PAIRS: dict[str, tuple[list[str], list[str], list[tuple[str, dict[str, Any] | None]]]] = {
    "seeded": ([PY, str(HERE / "seeded_server.py")], [PY, str(HERE / "seeded_sdk_server.py")],
               SEEDED_CALLS),
    # The demo ledger: its SDK server ships with elision.
    "ledger": ([PY, str(HERE / "ledger_server.py")], [PY, "-m", "elision.demo.server"],
               LEDGER_CALLS),
}


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_a_raw_server_writes_the_sdk_servers_bytes(name: str) -> None:
    raw, sdk, calls = PAIRS[name]
    sent = requests(calls)
    want = exchange(sdk, sent)
    got = exchange(raw, sent)
    assert len(want) == len(got), (len(want), len(got))
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert a == b, f"line {i} differs: raw {a[:300]!r} vs SDK {b[:300]!r}"
