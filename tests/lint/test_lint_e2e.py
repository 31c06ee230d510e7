"""End to end: ``elision lint`` as a real process against the servers in lint_server.py.

One server keeps all four rules; in the other each tool breaks exactly one (a JSON tool per
rule, and a plain-text tool for rule 1). The findings are asserted exactly. The two lint runs
start together (each start costs seconds on a busy machine).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
SERVER = [sys.executable, str(HERE / "lint_server.py")]
VARIANTS = ("good", "bad")

YEAR = {"since": "2026-01-01", "until": "2026-12-31"}
SCENARIOS: dict[str, dict[str, Any]] = {
    "good": {"tools": {
        "search_trades": [
            {"name": "a year", "arguments": {**YEAR, "limit": 500}},
            {"name": "expired token", "arguments": {**YEAR, "token": "expired"},
             "induced_failure": "expired token"},
        ],
        "balance": [
            {"name": "main account", "arguments": {"account": "ACC-1"}},
            {"name": "expired token", "arguments": {"account": "ACC-1", "token": "expired"},
             "induced_failure": "expired token"},
        ],
        "ledger": [{"name": "everything", "arguments": {}}],
        "grep_trades": [{"name": "ACME", "arguments": {"symbol": "ACME", "limit": 500}}],
    }},
    "bad": {"tools": {
        "caveats_last": [{"name": "a year", "arguments": {"limit": 500}}],
        "unbounded_fills": [{"name": "a year", "arguments": {"limit": 500}}],
        "silent_cut": [{"name": "a year", "arguments": {"limit": 500}}],
        "zero_balance": [
            {"name": "main account", "arguments": {"account": "ACC-1"}},
            {"name": "expired token", "arguments": {"account": "ACC-1", "token": "expired"},
             "induced_failure": "expired token"},
        ],
        "grep_summary_last": [{"name": "ACME", "arguments": {"symbol": "ACME", "limit": 500}}],
    }},
}


def matrix(report: dict[str, Any]) -> dict[str, list[str]]:
    return {t["name"]: [r["status"] for r in t["rules"]] for t in report["tools"]}


def evidence(report: dict[str, Any], tool: str, rule: int) -> list[str]:
    entry = next(t for t in report["tools"] if t["name"] == tool)
    return list(entry["rules"][rule - 1]["evidence"])


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The bad server over streamable HTTP, started first so it boots beside the stdio runs."""
    port = _free_port()
    proc = subprocess.Popen([*SERVER, "bad", "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def reports(
    tmp_path_factory: pytest.TempPathFactory, http_server: str
) -> dict[str, tuple[int, dict[str, Any]]]:
    """Each variant linted once, all at the same time: exit status and JSON report."""
    tmp = tmp_path_factory.mktemp("lint")
    procs = {}
    for variant in VARIANTS:
        scenarios = tmp / f"{variant}.json"
        scenarios.write_text(json.dumps(SCENARIOS[variant]))
        procs[variant] = subprocess.Popen(
            [*ELISION, "lint", "--no-progress", "--format", "json", "--scenarios",
             str(scenarios), "--", *SERVER, variant],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    # Over HTTP: only caveats_last and grep_summary_last have a scenario (TOML this time);
    # SARIF written to a file.
    toml = tmp / "calls.toml"
    toml.write_text('[[tools.caveats_last]]\nname = "a year"\narguments = {limit = 500}\n'
                    '[[tools.grep_summary_last]]\nname = "ACME"\narguments = {limit = 500}\n')
    sarif = tmp / "report.sarif"
    _wait_for(http_server)
    http = subprocess.Popen(
        [*ELISION, "lint", "--url", http_server, "--scenarios", str(toml), "--format", "sarif",
         "--out", str(sarif)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"},
    )
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for variant, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=240)
        assert stdout, stderr.decode(errors="replace")
        out[variant] = (proc.returncode, json.loads(stdout))
    stdout, stderr = http.communicate(timeout=240)
    out["http"] = (http.returncode, {
        "stdout": stdout.decode(), "stderr": stderr.decode(errors="replace"),
        "path": str(sarif),
        "sarif": json.loads(sarif.read_text()) if sarif.exists() else None,
    })
    return out


def test_the_server_that_keeps_the_rules_passes_every_rule(reports: Any) -> None:
    code, report = reports["good"]
    assert code == 0
    assert report["ok"] is True
    assert report["unknown_scenarios"] == []
    assert matrix(report) == {
        "search_trades": ["pass"] * 4,
        "balance": ["pass"] * 4,
        # @shaped output: envelope and caveats first, every array bounded by limit.
        "ledger": ["pass"] * 4,
        # Plain text, its coverage line first.
        "grep_trades": ["pass"] * 4,
        # No scenario: called with arguments made from its schema (it takes none).
        "ping": ["pass"] * 4,
    }
    ping = next(t for t in report["tools"] if t["name"] == "ping")
    assert ping["exercised"] is True
    assert ping["arguments_generated"] == {}
    assert "scenario 'expired token': induced failure 'expired token' answered with an error" \
        in evidence(report, "search_trades", 4)
    assert ("scenario 'expired token': induced failure 'expired token' answered with null "
            "aggregates") in evidence(report, "balance", 4)
    assert "limit=1 bounds every bulk array" in evidence(report, "ledger", 2)
    assert evidence(report, "grep_trades", 1)[0] == (
        "scenario 'ACME': text answer of 501 lines, 500 of them data; coverage line 1 "
        "'500 of 667 ACME trades shown; next page: offset=500' comes before the data")


def test_each_broken_rule_fails_alone_and_the_exit_status_says_so(reports: Any) -> None:
    code, report = reports["bad"]
    assert code == 1
    assert report["ok"] is False
    assert matrix(report) == {
        "caveats_last": ["fail", "pass", "pass", "pass"],
        "unbounded_fills": ["pass", "fail", "pass", "pass"],
        "silent_cut": ["pass", "pass", "fail", "pass"],
        "zero_balance": ["pass", "pass", "pass", "fail"],
        "grep_summary_last": ["fail", "pass", "pass", "pass"],
    }
    assert report["summary"]["tools_failing"] == 5


def test_caveats_after_the_rows_fail_rule_1_with_offsets_and_head_slices(reports: Any) -> None:
    _, report = reports["bad"]
    found = evidence(report, "caveats_last", 1)
    # 500 trades of 96-97 bytes: the caveats start at byte 48,412.
    assert found[:3] == [
        "scenario 'a year': $.total (byte 48,412) comes after bulk array $.trades "
        "(bytes 14-48,408, 500 items)",
        "scenario 'a year': $.has_more (byte 48,429) comes after bulk array $.trades "
        "(bytes 14-48,408, 500 items)",
        "scenario 'a year': $.warnings (byte 48,449) comes after bulk array $.trades "
        "(bytes 14-48,408, 500 items)",
    ]
    assert [e for e in found if "head slice" in e] == [
        f"scenario 'a year': a head slice at {cap} KB of 48,499 bytes loses $.total, "
        "$.has_more, $.warnings"
        for cap in (4, 8, 16, 32)
    ]


def test_a_text_answer_with_its_coverage_line_last_fails_rule_1(reports: Any) -> None:
    _, report = reports["bad"]
    line = "'500 of 667 ACME trades shown; next page: offset=500'"
    # 500 grep-like rows of 37-39 bytes, then the line that says how much they are.
    assert evidence(report, "grep_summary_last", 1) == [
        f"scenario 'ACME': shown-of-total line 501 (byte 19,131) {line} comes after 500 data "
        "lines (lines 1-500, bytes 0-19,130); move it before the data (a title and header "
        "rows, up to 5 lines, may come first)",
        *[f"scenario 'ACME': a head slice at {cap} KB of 19,182 bytes loses line 501: {line}"
          for cap in (4, 8, 16)],
        "scenario 'ACME': 19,182 bytes fit a head slice at 32 KB whole",
    ]


def test_an_unbounded_second_array_fails_rule_2(reports: Any) -> None:
    _, report = reports["bad"]
    assert evidence(report, "unbounded_fills", 2) == [
        "scenario 'a year' with limit=1: $.fills has 300 items at limit=1",
        "scenario 'a year' with limit=1: response is 16,559 bytes at limit=1, 2 bulk arrays",
    ]


def test_silent_truncation_and_a_bare_note_fail_rule_3(reports: Any) -> None:
    _, report = reports["bad"]
    bare = ("$.note = 'results truncated' says it was cut without numbers; say "
            "shown-of-total, e.g. '37 of 2,000 rows'")
    silent = ("its limit, and nothing beside it says how many there are (no total, has_more "
              "or cursor)")
    assert evidence(report, "silent_cut", 3) == [
        f"scenario 'a year': $.trades has exactly 500 items, {silent}",
        f"scenario 'a year': {bare}",
        f"scenario 'a year' with limit=1: $.trades has exactly 1 item, {silent}",
        f"scenario 'a year' with limit=1: {bare}",
    ]


def test_a_zero_balance_on_an_expired_token_fails_rule_4(reports: Any) -> None:
    _, report = reports["bad"]
    assert evidence(report, "zero_balance", 4) == [
        "output schema: $.balance is number and cannot be null, so an unreadable dataset "
        "would have to report a number; allow null",
        "scenario 'expired token': induced failure 'expired token' but $.balance = 0.0; "
        "report null or an error when the data could not be read",
    ]


def _wait_for(url: str) -> None:
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"nothing listens on {url} after 60 s")
            time.sleep(0.1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_url_and_a_sarif_report_written_to_a_file(reports: Any) -> None:
    code, run = reports["http"]
    assert code == 1, run["stderr"]
    assert run["stdout"] == ""
    assert f"report written to {run['path']}: FAIL" in run["stderr"]
    sarif = run["sarif"]
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    by_tool = {}
    for r in results:
        name = r["locations"][0]["logicalLocations"][0]["name"]
        by_tool.setdefault(name, []).append((r["ruleId"], r["kind"], r["level"]))
    # Only caveats_last and grep_summary_last have a scenario; the other tools are called with
    # arguments made from their schemas, and break their rule just the same.
    for name in ("caveats_last", "grep_summary_last"):
        assert by_tool[name] == [
            ("ELISION001", "fail", "error"), ("ELISION002", "pass", "none"),
            ("ELISION003", "pass", "none"), ("ELISION004", "pass", "none"),
        ]
    assert by_tool["zero_balance"][3] == ("ELISION004", "fail", "error")
    assert by_tool["silent_cut"][:3] == [
        ("ELISION001", "pass", "none"), ("ELISION002", "pass", "none"),
        ("ELISION003", "fail", "error"),
    ]
    assert [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]] == [
        "ELISION001", "ELISION002", "ELISION003", "ELISION004"]
    fail = next(r for r in results if r["kind"] == "fail")
    assert "$.warnings (byte 48,449) comes after bulk array $.trades" in fail["message"]["text"]
    text = next(r for r in results if r["kind"] == "fail"
                and r["locations"][0]["logicalLocations"][0]["name"] == "grep_summary_last")
    assert "tool 'grep_summary_last': rule 1 (coverage and caveats come before bulk arrays): " \
        "FAIL. scenario 'ACME': shown-of-total line 501 (byte 19,131)" in text["message"]["text"]
