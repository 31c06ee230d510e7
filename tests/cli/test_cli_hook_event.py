"""`elision hook claude-code` given an event with no result (QA pass as an agent builder).

Found trying the hook by hand, `echo '{}' | elision hook claude-code`: it answered nothing,
exit 0, and wrote an audit entry for a tool result of "null" (4 bytes, no tool), which
`elision audit show` and `elision view` then listed beside real calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.audit.log import AuditLog
from elision.cli import main


def run(tmp_path: Path, event: dict[str, object]) -> tuple[int, str, int]:
    log = tmp_path / "a.db"
    got = CliRunner().invoke(main, ["hook", "claude-code", "--store", str(tmp_path / "s.db"),
                                    "--audit", str(log)], input=json.dumps(event))
    entries = 0
    if log.exists():
        with AuditLog(log) as audit:
            entries = sum(1 for _ in audit.entries())
    return got.exit_code, got.stderr, entries


@pytest.mark.parametrize("event", [
    {},  # tried by hand
    {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}},
])
def test_an_event_with_no_result_is_refused_and_not_logged(
        tmp_path: Path, event: dict[str, object]) -> None:
    code, stderr, entries = run(tmp_path, event)
    assert code == 2 and "no tool_response" in stderr
    assert entries == 0


@pytest.mark.parametrize(("event", "entries"), [
    # another hook's event: not ours to answer, nothing logged, as before
    ({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}, 0),
    # a result of null is still a result
    ({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_response": None}, 1),
])
def test_other_events_are_answered_as_before(
        tmp_path: Path, event: dict[str, object], entries: int) -> None:
    assert run(tmp_path, event)[0::2] == (0, entries)
