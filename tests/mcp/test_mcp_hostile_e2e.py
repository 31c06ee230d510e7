"""End to end: a hostile client gets an error for each malformed request, and nothing else.

Found by sending the proxy raw lines: a request whose arguments held ``"\\ud800"`` was never
answered over stdio (the client hung until its own timeout); over HTTP it tore down the
upstream session that every client shares, so another client's call in flight failed with
"server went away". Here garbage, lone surrogates, huge and deep requests and malformed
JSON-RPC are sent raw while other clients (the official mcp.Client) call a slow tool.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client
from support.processes import started
from support.rawrpc import MODERN_META, RawStdio, open_session, post

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
TOKEN = "ghp_R4nd0mT0k3nF0rEl1s10nT3st1ngXyZ12345"


def call(request_id: Any, name: str, arguments: str, *, meta: bool = False) -> bytes:
    """A tools/call line whose arguments are given as JSON text, so it may spell anything."""
    extra = f',"_meta":{json.dumps(MODERN_META)}' if meta else ""
    return (
        f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"method":"tools/call",'
        f'"params":{{"name":"{name}","arguments":{arguments}{extra}}}}}'
    ).encode()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


#: (line, the id its error answers, the error's code): every one is answered, alone.
STDIO_CASES = [
    # a lone high surrogate in an argument: this request was never answered
    (call(2, "rows", '{"n":"\\ud800"}'), 2, types.INVALID_PARAMS),
    # a lone low surrogate in elision_fetch's ref (the SQLite store raised on it)
    (call(3, "elision_fetch", '{"ref":"\\udfff"}'), 3, types.INVALID_PARAMS),
    # a lone surrogate in a key
    (call(4, "rows", '{"\\udbff":1}'), 4, types.INVALID_PARAMS),
    # NaN: Python reads it, and the SDK would pass it on as null
    (call(5, "rows", '{"n":NaN}'), 5, types.INVALID_PARAMS),
    # 500 levels: Python reads it, no upstream could be sent it
    (call(6, "rows", f'{{"n":{nested(500)}}}'), 6, types.INVALID_PARAMS),
    # 10,000 levels: no parser here reads it, so not even its id is known
    (call(7, "rows", f'{{"n":{nested(10_000)}}}'), None, types.PARSE_ERROR),
    # not JSON at all, and quoting a credential the answer must not repeat
    (f"garbage {TOKEN}".encode(), None, types.PARSE_ERROR),
    # a batch, which MCP does not have
    (b'[{"jsonrpc":"2.0","id":8,"method":"ping"}]', None, types.INVALID_REQUEST),
    # a method that is not a string: its id is still usable
    (b'{"jsonrpc":"2.0","id":9,"method":5}', 9, types.INVALID_REQUEST),
    # no "jsonrpc" member
    (b'{"id":10,"method":"ping"}', 10, types.INVALID_REQUEST),
]


def test_stdio_answers_each_malformed_request_alone(tmp_path: Path) -> None:
    proxy = RawStdio([*ELISION, "proxy", "--store", str(tmp_path / "store.db"), "--no-audit",
                      "--", *UPSTREAM])
    try:
        proxy.handshake()
        for line, _, _ in STDIO_CASES:
            proxy.send(line)
        proxy.send(call(100, "rows", '{"n":2}'))
        ids = {i for _, i, _ in STDIO_CASES if i is not None} | {100}
        nulls = sum(1 for _, i, _ in STDIO_CASES if i is None)
        got = proxy.replies(ids, nulls=nulls)
    finally:
        stderr = proxy.close()
    assert not (ids - got.keys()), f"never answered: {sorted(ids - got.keys())}"
    for _, request_id, code in STDIO_CASES:
        if request_id is not None:
            assert got[request_id]["error"]["code"] == code, got[request_id]
    assert sorted(m["error"]["code"] for m in got[None]) == sorted(
        code for _, i, code in STDIO_CASES if i is None
    )
    surrogate = got[2]["error"]["message"]
    assert "lone surrogate" in surrogate and "params.arguments.n" in surrogate
    assert "result" in got[100]  # the session and its upstream are still there
    everything = json.dumps(got) + stderr
    assert TOKEN[4:16] not in everything
    assert "Traceback" not in stderr


#: Hostile POSTs: (body, whether to send it in the newest era's form, the id of the request
#: it is, or None). Each one's answer must be an error of its own.
def hostile_bodies() -> list[tuple[bytes, bool, Any]]:
    return [
        # not JSON, and not UTF-8 either
        (b"\xff\xfe garbage " + TOKEN.encode(), True, None),
        # lone surrogates: in an argument, in a key, in elision_fetch's ref
        (call(21, "rows", '{"n":"\\ud800"}', meta=True), True, 21),
        (call(22, "rows", '{"\\udfff":1}', meta=True), True, 22),
        (call(23, "elision_fetch", '{"ref":"\\udfff"}', meta=True), True, 23),
        # 500 levels deep (Python reads it; it would have broken the upstream session)
        (call(24, "rows", f'{{"n":{nested(500)}}}', meta=True), True, 24),
        # 10,000 levels deep, as arguments and as an elision_fetch path
        (call(25, "rows", f'{{"n":{nested(10_000)}}}', meta=True), True, None),
        (call(26, "elision_fetch", json.dumps({"ref": "el_x", "path": "$" + "[0]" * 10_000}),
              meta=True), True, 26),
        # a 20 MB argument line: refused before it is read
        (call(27, "rows", json.dumps({"n": 1, "pad": "x" * 20_000_000}), meta=True), True, None),
        # malformed JSON-RPC: a batch, no "jsonrpc", an id that is an object
        (b'[{"jsonrpc":"2.0","id":28,"method":"ping"}]', True, None),
        (b'{"id":29,"method":"tools/list","params":{"_meta":' + json.dumps(MODERN_META).encode()
         + b"}}", True, None),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', True, None),
        # the handshake era, on a session: a lone surrogate, and garbage
        (call(31, "rows", '{"n":"\\ud800"}'), False, None),
        (b"{" * 100_000, False, None),
    ]


def _is_own_error(status: int, reply: Any, request_id: Any) -> bool:
    if status == 413:
        return True  # too large to read at all: refused at the HTTP layer
    if status >= 500 or not isinstance(reply, dict) or reply.get("jsonrpc") != "2.0":
        return False
    if request_id is not None and reply.get("id") != request_id:
        return False
    result = reply.get("result")
    return "error" in reply or (isinstance(result, dict) and result.get("isError") is True)


def test_a_hostile_client_never_breaks_another_clients_calls(tmp_path: Path) -> None:
    with started([*ELISION, "proxy", "--store", ":memory:", "--no-audit", "--timeout", "60",
                  "--listen", "127.0.0.1:0", "--", *UPSTREAM]) as proxy:
        url = proxy.url
        hostile_done = threading.Event()
        answers: list[tuple[bytes, int, Any, Any]] = []

        def hostile() -> None:
            try:
                session = open_session(url)
                for body, modern, request_id in hostile_bodies():
                    status, reply = post(url, body, modern=modern,
                                         session=None if modern else session)
                    answers.append((body, status, reply, request_id))
            finally:
                hostile_done.set()

        completed: list[str] = []

        async def well_behaved(n: int, mode: str) -> None:
            async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
                while True:
                    result = await client.call_tool(
                        "wait_for_cancel", {"marker": str(tmp_path / f"m{n}"), "seconds": 1.5})
                    block = result.content[0]
                    assert isinstance(block, types.TextContent)
                    assert not result.is_error, block.text
                    assert block.text == "waited"
                    completed.append(mode)
                    if hostile_done.is_set():
                        return

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(well_behaved, 1, "auto")
                tg.start_soon(well_behaved, 2, "auto")
                tg.start_soon(well_behaved, 3, "legacy")
                await anyio.sleep(0.5)  # the slow calls are in flight
                await anyio.to_thread.run_sync(hostile)

        anyio.run(main)
        stderr = proxy.stderr()
    assert len(answers) == len(hostile_bodies())
    for body, status, reply, request_id in answers:
        assert _is_own_error(status, reply, request_id), (body[:120], status, str(reply)[:300])
        assert "Traceback" not in str(reply)
    assert len(completed) >= 3 and "legacy" in completed
    assert "Traceback" not in stderr
    assert TOKEN[4:16] not in stderr + json.dumps([str(a[2]) for a in answers])
