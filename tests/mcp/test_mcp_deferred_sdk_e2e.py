"""A stdio proxy answers the same whether the SDK's package ``__init__`` is deferred or not.

The proxy holds ``mcp/__init__`` until a name is read from the package
(:func:`elision._startup.defer_package_init`; issue 24: it imported client pieces a stdio proxy
never uses). The same session through the proxy as it starts and through one whose deferral is
turned off (always), and through the code before (``ELISION_BEFORE_SRC``), gets the same answers:
the handshake, the lists, an error, a ping.
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
#: The proxy as ``python -m elision`` starts it; "plain" turns the deferral off first.
ENTRY = """
import runpy, sys
if sys.argv.pop(1) == "plain":
    import elision._startup
    elision._startup.defer_package_init = lambda name: None
sys.argv = ["elision", *sys.argv[1:]]
runpy.run_module("elision", run_name="__main__")
"""
SESSION: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {"jsonrpc": "2.0", "id": 3, "method": "resources/list", "params": {}},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
     "params": {"name": "no_such_tool", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]


def answers(tmp_path: Path, how: str, env: dict[str, str] | None = None) -> dict[Any, Any]:
    folder = tmp_path / how
    folder.mkdir()
    proxy = RawStdio([sys.executable, "-c", ENTRY, how, "proxy", "--store",
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


def test_the_deferral_changes_no_answer(tmp_path: Path) -> None:
    deferred, plain = answers(tmp_path, "deferred"), answers(tmp_path, "plain")
    assert deferred == plain
    assert "tools" in deferred[2]["result"]
    assert "error" in deferred[5] or deferred[5]["result"].get("isError")


def test_the_answers_are_the_code_befores(tmp_path: Path) -> None:
    before = os.environ.get("ELISION_BEFORE_SRC")
    if not before:
        pytest.skip("ELISION_BEFORE_SRC is not set")
    # The entry's "plain" switch does nothing to the code before, which has no deferral.
    env = {"PYTHONPATH": before + os.pathsep + os.environ.get("PYTHONPATH", "")}
    assert answers(tmp_path, "deferred") == answers(tmp_path, "plain", env=env)
