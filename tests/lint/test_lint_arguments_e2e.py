"""End to end: ``elision lint -- python args_server.py`` with no scenarios file.

Found by hand (issue 14, item 9): on a server whose tools need arguments the lint called
nothing and reported PASS, exit 0; a server configured by an environment variable was judged
on empty data, since the lint started it with the SDK's bare environment; a text log showing
1 of 2,000 commits with no count passed rule 3; a 5,000-entry listing wrapped in
``{"content": text}`` passed rule 2. Both lint runs start together.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
SERVER = [sys.executable, str(HERE / "args_server.py")]


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[int, str, str]]:
    """The mixed server as JSON, the idle one as markdown: exit status, stdout, stderr."""
    env = {**os.environ, "ARGS_SERVER_ROWS": "40", "NO_COLOR": "1"}
    procs = {
        "mixed": subprocess.Popen([*ELISION, "lint", "--no-progress", "--format", "json", "--",
                                   *SERVER, "mixed"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env),
        "idle": subprocess.Popen([*ELISION, "lint", "--no-progress", "--", *SERVER, "idle"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env),
    }
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=240)
        out[name] = (proc.returncode, stdout.decode(), stderr.decode(errors="replace"))
    return out


def tool(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in report["tools"] if t["name"] == name)


def test_every_tool_is_called_with_arguments_made_from_its_schema(runs: Any) -> None:
    code, stdout, stderr = runs["mixed"]
    report = json.loads(stdout or stderr)
    search = tool(report, "search_issues")
    assert search["exercised"] is True
    assert search["arguments_generated"] == {
        "repo": "a/b", "state": "open", "window": {"since": "2026-01-01", "days": 1},
        "labels": ["example"],
    }
    assert [r["status"] for r in search["rules"]] == ["pass"] * 4
    assert search["status"] == "pass"
    assert code == 1  # the two findings below


def test_the_server_gets_the_caller_s_environment(runs: Any) -> None:
    report = json.loads(runs["mixed"][1])
    rows = tool(report, "configured_rows")
    assert rows["errors"] == []
    assert [r["status"] for r in rows["rules"]] == ["pass"] * 4
    assert rows["exercised"] is True  # without ARGS_SERVER_ROWS it answers only errors


def test_a_text_log_that_shows_1_of_2000_commits_with_no_count_fails_rule_3(runs: Any) -> None:
    report = json.loads(runs["mixed"][1])
    commits = tool(report, "commits")
    assert [r["status"] for r in commits["rules"]] == ["pass", "pass", "fail", "pass"]
    (finding,) = commits["rules"][2]["evidence"]
    assert finding.startswith(
        "scenario 'arguments from the input schema' with limit=1: text answer of 2 data lines "
        "at limit=1, where the call without it showed 60, and no line says how much there is")


def test_a_listing_wrapped_in_content_is_judged_as_text_and_fails_rule_2(runs: Any) -> None:
    report = json.loads(runs["mixed"][1])
    listing = tool(report, "list_directory")
    assert [r["status"] for r in listing["rules"]] == ["pass", "fail", "pass", "pass"]
    assert listing["rules"][1]["evidence"] == [
        "scenario 'arguments from the input schema': text answer of 5,000 data lines and the "
        "tool takes no limit-like argument to bound them"]


def test_a_tool_that_only_answers_errors_is_not_exercised_and_the_run_does_not_pass(
    runs: Any,
) -> None:
    code, stdout, stderr = runs["idle"]
    assert code == 1, stderr
    assert "**NOT EXERCISED**: 1 of 1 tools gave no answer to judge" in stdout
    assert "PASS" not in stdout.replace("NOT EXERCISED", "")
    assert "| `needs_account` | not exercised | not exercised | not exercised | " \
           "not exercised | not exercised |" in stdout
