"""A stdio proxy answers a session as the code before did (``ELISION_BEFORE_SRC``).

The proxy's start loads less than it did (issue 24: elision's HTTP upstream reader is read for
an HTTP upstream only); the same session through this code and through the code before gets
the same answers: the handshake, the lists, an error, a ping. The always-run half: the HTTP
upstream and the refusals only the HTTP reader names are still read where they are used
(test_mcp_http_ceiling.py, test_mcp_message_ceiling_e2e.py, test_mcp_proxy_e2e.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from support.rawrpc import INITIALIZED, RawStdio, initialize

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "lines_server.py")]
SESSION: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 3, "method": "resources/list", "params": {}},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
     "params": {"name": "no_such_tool", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]


def answers(folder: Path, env: dict[str, str] | None = None) -> dict[Any, Any]:
    folder.mkdir()
    proxy = RawStdio([sys.executable, "-m", "elision", "proxy", "--store",
                      str(folder / "store.db"), "--audit", str(folder / "audit.db"), "--",
                      *UPSTREAM], env=env)
    try:
        proxy.send(initialize())
        got = proxy.replies({1}, timeout=60)
        proxy.send(INITIALIZED)
        for message in SESSION:
            proxy.send(message)
        got.update(proxy.replies({m["id"] for m in SESSION}, timeout=60))
    finally:
        proxy.close()
    assert set(got) == {None, 1, *(m["id"] for m in SESSION)}, got
    return got


def test_a_stdio_session_is_answered_as_before(tmp_path: Path) -> None:
    before = os.environ.get("ELISION_BEFORE_SRC")
    if not before:
        pytest.skip("ELISION_BEFORE_SRC is not set")
    env = {"PYTHONPATH": before + os.pathsep + os.environ.get("PYTHONPATH", "")}
    now, then = answers(tmp_path / "now"), answers(tmp_path / "before", env=env)
    assert now == then
    assert "tools" in now[2]["result"]
    assert "error" in now[5] or now[5]["result"].get("isError")
