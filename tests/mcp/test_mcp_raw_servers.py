"""The test servers written as raw JSON-RPC lines write what the SDK's servers they replaced
wrote, byte for byte, on every request the tests send them and on names no one serves.

A raw server costs a start ~0.1 s of CPU where the SDK's cost ~1.4 s (its import); these
checks are what lets the suite use them: a difference (a member out of the SDK's order, a
missing ``isError``, a notification after its reply instead of before) fails here, by request.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.rawcheck import exchange, requests
from support.rawrpc import RawStdio

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

LINES_CALLS = [
    *UNKNOWN, call("short_log"), call("short_error"),
    ("resources/read", {"uri": "log://short"}),
    ("prompts/get", {"name": "short_log_prompt"}),
]

#: Every page of each list (two to a page; the cursor is the next page's first index), a read
#: of each kind of uri, and a completion.
PAGING_CALLS = [
    *UNKNOWN,
    *[(method, {"cursor": cursor} if cursor else None)
      for method in ("resources/list", "prompts/list") for cursor in ("", "2", "4")],
    ("resources/read", {"uri": "p://item/0"}), ("resources/read", {"uri": "p://note/7"}),
    ("resources/read", {"uri": "shared://both"}),
    ("prompts/get", {"name": "p_prompt_0"}),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "p://note/{id}"},
                             "argument": {"name": "id", "value": "1"}}),
]

#: The roots tool reports what the handshake offered and that the server asked (unanswered
#: here: the directories it was started with). The raw server numbers its own requests from 1.
ROOTS_CALLS = [*UNKNOWN, call("roots"), call("roots")]

PY = sys.executable
#: (the raw server, the SDK server it replaced, the requests after the handshake); a server of
#: arguments is checked with the arguments the tests start it with.
PAIRS: dict[str, tuple[list[str], list[str], list[tuple[str, dict[str, Any] | None]]]] = {
    "seeded": ([PY, str(HERE / "seeded_server.py")], [PY, str(HERE / "seeded_sdk_server.py")],
               SEEDED_CALLS),
    # The demo ledger: its SDK server ships with elision.
    "ledger": ([PY, str(HERE / "ledger_server.py")], [PY, "-m", "elision.demo.server"],
               LEDGER_CALLS),
    "lines": ([PY, str(HERE / "lines_server.py")], [PY, str(HERE / "lines_sdk_server.py")],
              LINES_CALLS),
    **{f"paging-{count}": ([PY, str(HERE / "paging_server.py"), "p", str(count)],
                           [PY, str(HERE / "paging_sdk_server.py"), "p", str(count)],
                           PAGING_CALLS) for count in (1, 5)},
    "roots": ([PY, str(HERE / "roots_server.py"), "/srv/a", "/srv/b"],
              [PY, str(HERE / "roots_sdk_server.py"), "/srv/a", "/srv/b"], ROOTS_CALLS),
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


#: What the proxy sent upstream_server.py in a run of the files that use it (recorded through
#: a tee on its stdin, 2026-12-04), each distinct request once, and the names no one serves.
#: The 17 MB ``huge`` came from test_mcp_proxy_e2e.py, which runs the SDK's server: 5 MB here.
UPSTREAM_CALLS: list[tuple[str, dict[str, Any] | None]] = [
    *UNKNOWN, call("rows", n=1), call("rows", n=400), call("rows", n=1000),
    call("rows_text", n=600), call("issues", n=600), call("quoted", lines=2000),
    call("log", lines=3000), call("one_line"), call("one_line", size=100),
    call("huge", megabytes=1), call("huge", megabytes=5), call("pieces"),
    call("picture", kilobytes=400), call("fail"), call("crash"),
    ("tools/call", {"name": "progress", "arguments": {"steps": 3},
                    "_meta": {"progressToken": 7}}),
    call("progress", steps=2), call("shout", message="disk 91% full"), call("shout"),
    call("grow"), ("tools/list", None), call("grown"),
    ("resources/read", {"uri": "test://hello"}), ("resources/read", {"uri": "test://big/3000"}),
    ("resources/read", {"uri": "test://notes/q3"}),
    ("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}),
    ("prompts/get", {"name": "greet"}), ("prompts/get", {"name": "handoff", "arguments": {}}),
    ("logging/setLevel", {"level": "debug"}), ("completion/complete", {
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "name", "value": "A"}}),
]

#: An image's data is random bytes: compared by its length.
IMAGE = re.compile(rb'"data":"([A-Za-z0-9+/=]*)"')


def same_bytes(raw: list[str], sdk: list[str], sent: list[dict[str, Any]]) -> None:
    want = [IMAGE.sub(lambda m: b'"data":%d' % len(m[1]), line) for line in exchange(sdk, sent)]
    got = [IMAGE.sub(lambda m: b'"data":%d' % len(m[1]), line) for line in exchange(raw, sent)]
    assert len(want) == len(got), (len(want), len(got))
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert a == b, f"line {i} differs: raw {a[:300]!r} vs SDK {b[:300]!r}"


UPSTREAM = [PY, str(HERE / "upstream_server.py")]
UPSTREAM_SDK = [PY, str(HERE / "upstream_sdk_server.py")]


@pytest.mark.e2e
@pytest.mark.parametrize("env", [{}, {"UPSTREAM_TOOL_PREFIX": "p_", "UPSTREAM_EXTRA_TOOL":
                                      "elision_fetch"}], ids=["plain", "prefix-extra"])
def test_the_raw_upstream_writes_the_sdk_upstreams_bytes(
        env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    prefix = env.get("UPSTREAM_TOOL_PREFIX", "")
    calls = [*UPSTREAM_CALLS]
    if env:  # the names the environment changes, each once
        calls = [*UNKNOWN, call("elision_fetch"), call("p_rows", n=1), call("p_fail"),
                 call("fail"), call("p_grow"), ("tools/list", None), call("p_grown")]
    calls.append(call(prefix + "wait_for_cancel", marker=str(tmp_path / "m"), seconds=0.1))
    same_bytes(UPSTREAM, UPSTREAM_SDK, requests(calls))
    assert (tmp_path / "m").read_text() == "started"


@pytest.mark.e2e
def test_the_raw_upstream_cancels_and_hangs_as_the_sdk_upstream_did(tmp_path: Path) -> None:
    """A cancelled wait is never answered and marks its file; a hang is never answered; the
    requests after them are (the SDK's server answered them concurrently).

    Both servers are driven step by step side by side, so the silences waited out (no answer
    in 0.5 s, no exit in 1 s) are waited once for the two, each server given the whole time."""
    servers = {Path(c[1]).name: RawStdio(c) for c in (UPSTREAM, UPSTREAM_SDK)}  # at once
    markers = {name: tmp_path / name for name in servers}

    def each(step: Callable[[str, RawStdio], None]) -> None:
        for name, proc in servers.items():
            step(name, proc)

    def silent_until(deadline: float) -> float:
        # What a server did not send by the shared deadline: it had all of it to send it,
        # and what it sent by then is in its pipe, read within the floor.
        return max(deadline - time.monotonic(), 0.05)

    try:
        each(lambda name, proc: proc.handshake())

        def wait_hang_ping(name: str, proc: RawStdio) -> None:
            proc.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "wait_for_cancel", "arguments": {"marker": str(markers[name])}}})
            proc.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "hang", "arguments": {}}})
            proc.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})

        each(wait_hang_ping)
        for name, proc in servers.items():
            assert set(proc.replies({4})) == {None, 4}, name
            assert markers[name].read_text() == "started", name
        for proc in servers.values():
            proc.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 2, "reason": "caller cancelled"}})
            proc.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        for name, proc in servers.items():
            assert set(proc.replies({5})) == {None, 5}, name
        deadline = time.monotonic() + 0.5
        for name, proc in servers.items():
            assert set(proc.replies({2, 3}, timeout=silent_until(deadline))) == {None}, name
            assert markers[name].read_text() == "cancelled", name
        # At the end of input each waits on for its hang.
        for proc in servers.values():
            assert proc.proc.stdin is not None
            proc.proc.stdin.close()
        deadline = time.monotonic() + 1.0
        for proc in servers.values():
            with pytest.raises(subprocess.TimeoutExpired):
                proc.proc.wait(silent_until(deadline))
    finally:
        for proc in servers.values():
            proc.proc.kill()
            proc.close()


#: Arguments the recorded run did not send, drawn: sizes, and texts of any script (no lone
#: surrogate: the proxy refuses those at its door, test_mcp_upstream_unsendable_e2e.py).
TEXTS = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
DRAWN_CALLS = st.one_of(
    st.builds(lambda n: call("rows", n=n), st.integers(0, 60)),
    st.builds(lambda n: call("rows_text", n=n), st.integers(0, 60)),
    st.builds(lambda n: call("issues", n=n), st.integers(0, 5)),
    st.builds(lambda n: call("quoted", lines=n), st.integers(0, 50)),
    st.builds(lambda n: call("log", lines=n), st.integers(0, 50)),
    st.builds(lambda n: call("one_line", size=n), st.integers(0, 300)),
    st.builds(lambda s: call("shout", message=s), TEXTS),
    st.builds(lambda s: ("prompts/get", {"name": "greet", "arguments": {"name": s}}), TEXTS),
    st.builds(lambda s: ("resources/read", {"uri": f"test://notes/{s}"}),
              st.text("abc-_.0123456789", min_size=1, max_size=12)),
    st.builds(lambda n: ("resources/read", {"uri": f"test://big/{n}"}), st.integers(0, 3)),
)


@pytest.mark.e2e
def test_the_raw_upstream_answers_drawn_arguments_as_the_sdk_upstream_did() -> None:
    """Each drawn request, sent to both servers (started once), is answered in the same
    lines, the notifications before the reply included."""
    servers = [RawStdio(UPSTREAM), RawStdio(UPSTREAM_SDK)]
    ids = iter(range(2, 1 << 30))
    try:
        for proc in servers:
            proc.handshake()

        @settings(max_examples=60, deadline=None, database=None)
        @given(DRAWN_CALLS)
        def same(request: tuple[str, dict[str, Any]]) -> None:
            method, params = request
            message = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
            lines = []
            for proc in servers:
                proc.send(message)
                got = []
                while not got or json.loads(got[-1]).get("id") != message["id"]:
                    line = proc._line(time.monotonic() + 30)
                    assert line is not None, (proc.proc.args, message)
                    got.append(line)
                lines.append(got)
            assert lines[0] == lines[1]

        same()
    finally:
        for proc in servers:
            proc.close()
