"""What ``elision proxy -- COMMAND`` has loaded, and collected, when it answers ``initialize``.

A harness waits on the proxy's ``initialize`` before its server's tools exist (issue 24: the
proxy added 1.3-1.9 s to a server's start). What the first answer does not need must not be
imported before it: the config checker (jsonschema and difflib) without ``--config``, nor the
installer's planner and file editors, loaded with the harness budget table. And the set-up's
imports, which make ~90,000 objects that live as long as the process, must not set off the
collector over and over. Each case probes a real proxy (store, audit and redaction on, as a
harness starts it) at the moment its ``initialize`` answer came (support.startpath).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.rawrpc import RawStdio
from support.startpath import ENTRIES, MARK, ask_report, probed, report_in

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
#: A raw JSON-RPC server: no SDK of its own to import, so the proxy's start is what is seen.
UPSTREAM = [sys.executable, str(HERE / "lines_server.py")]
#: What the first answer does not need: the config checker, and the installer under the budget
#: table (elision.install.harnesses). Each was loaded before (red on the old code).
UNNEEDED = ("jsonschema", "difflib", "elision.mcp.upstream.config_schema", "elision.install.plan",
            "elision.install.entries", "elision.install.jsonc", "elision.install.yamledit")


def at_initialize(tmp_path: Path, entry: str, *options: str) -> dict[str, Any]:
    """The probe's report from a proxy of ``UPSTREAM``, taken once it answered initialize."""
    proxy = RawStdio(probed(["proxy", "--store", str(tmp_path / "store.db"), "--audit",
                             str(tmp_path / "audit.db"), *options, "--", *UPSTREAM], entry))
    try:
        proxy.handshake(timeout=60)
        ask_report(proxy.proc.pid)
        deadline = time.monotonic() + 30
        while MARK.encode() not in b"".join(proxy._stderr) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stderr = proxy.close()
    return report_in(stderr)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """``report(entry)``: the probe's report for ``entry``, one proxy an entry for the module.
    Each test here reads another part of the same report, from a proxy started the same way;
    one proxy a test started the same process three times."""
    taken: dict[str, dict[str, Any]] = {}

    def report(entry: str) -> dict[str, Any]:
        if entry not in taken:
            taken[entry] = at_initialize(tmp_path_factory.mktemp("start-path"), entry)
        return taken[entry]

    return report


@pytest.mark.parametrize("entry", ENTRIES)
def test_initialize_is_answered_without_the_config_checker_or_the_installer(
    reports: Callable[[str], dict[str, Any]], entry: str
) -> None:
    """Red before: elision.mcp.upstream.config imported its checker (and difflib) for every
    proxy, and elision.install loaded its planner and every file editor (difflib again) with
    the budget table the proxy reads."""
    modules = reports(entry)["modules"]
    assert [m for m in UNNEEDED if m in modules] == []
    assert "elision.install.harnesses" in modules  # the table itself is read, as before


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_set_up_runs_with_the_collector_paused(
    reports: Callable[[str], dict[str, Any]], entry: str
) -> None:
    """Red before: the imports set off ~200 young collections, 18 of the middle generation and
    a full one, each older one walking every object imported so far. Now the set-up runs with
    the collector off and what it made is frozen out of its sight; the collector is on again
    for the work."""
    report = reports(entry)
    young, middle, full = report["collections"]
    assert (middle, full) <= (2, 0)
    assert young <= 60
    assert report["collector"]["enabled"] is True
    assert report["collector"]["frozen"] > 50_000



@pytest.mark.parametrize("entry", ENTRIES)
def test_a_stdio_proxy_answers_initialize_without_the_http_upstream_reader(
    reports: Callable[[str], dict[str, Any]], entry: str
) -> None:
    """Red before: the upstream module imported elision's HTTP reader (httpbound) for any
    upstream; it is read for an HTTP upstream, or an error only it can name, alone. (httpx2
    itself is still loaded: the SDK's ``Client`` imports its HTTP transport and ``MCPServer``.)"""
    modules = reports(entry)["modules"]
    assert "elision.mcp.upstream.httpbound" not in modules
    assert "elision.mcp.upstream.upstream" in modules
