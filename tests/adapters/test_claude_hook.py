"""`elision hook claude-code`, run as Claude Code runs a PostToolUse hook: a command with the
event on stdin, its answer read from stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.ledger import TOKEN

ELISION = [sys.executable, "-m", "elision"]
HOST_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def hook(event: Any, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: os.environ[k] for k in HOST_ENV if k in os.environ}
    stdin = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run(
        [*ELISION, "hook", "claude-code", "--store", str(tmp_path / "s.db"),
         "--audit", str(tmp_path / "a.db"), *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=60, check=False)


def event(tool: str, response: Any) -> dict[str, Any]:
    return {"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": {}, "tool_response": response}


def test_a_credential_in_a_shell_result_is_withheld(tmp_path: Path) -> None:
    done = hook(event("Bash", {"stdout": f"GITHUB_TOKEN={TOKEN}\nHOME=/root\n",
                               "stderr": "", "interrupted": False}), tmp_path)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "PostToolUse"
    assert TOKEN not in done.stdout and TOKEN[:12] not in done.stdout
    # Bash's stdout is text, and shown as text: the stub where the token stood, in an object
    # of Bash's own shape (Claude Code drops a string for Bash as schema_invalid).
    assert output["updatedToolOutput"] == {
        "stdout": "GITHUB_TOKEN=[credential withheld: github-token]\nHOME=/root\n",
        "stderr": "", "interrupted": False}
    assert "updatedMCPToolOutput" not in output  # Bash is not an MCP tool


def test_a_large_mcp_result_is_cut_within_the_budget(tmp_path: Path) -> None:
    text = "\n".join(f"line {i}: " + "x" * 60 for i in range(3000)) + "\nFATAL: 3 errors"
    done = hook(event("mcp__build__log", [{"type": "text", "text": text}]), tmp_path,
                "--budget", "4096")
    output = json.loads(done.stdout)["hookSpecificOutput"]
    shown = output["updatedToolOutput"]
    assert len(shown.encode()) <= 4096
    assert shown.startswith("[elision] partial:") and shown.endswith("FATAL: 3 errors")
    assert output["updatedMCPToolOutput"] == [{"type": "text", "text": shown}]
    assert (tmp_path / "a.db").is_file()


def test_a_result_that_fits_and_holds_nothing_is_left_alone(tmp_path: Path) -> None:
    done = hook(event("Read", {"type": "text", "file": {"content": "hello"}}), tmp_path)
    assert done.returncode == 0 and done.stdout == ""


@pytest.mark.parametrize("stdin", ["not json", "[1, 2]"])
def test_bad_input_is_an_error_that_says_what_claude_code_sends(tmp_path: Path,
                                                                stdin: str) -> None:
    done = hook(stdin, tmp_path)
    assert done.returncode == 2 and "PostToolUse event as a JSON object" in done.stderr
    assert done.stdout == ""


def test_a_bash_result_keeps_its_last_line_when_cut(tmp_path: Path) -> None:
    """Found by driving the hook as issue 24 did: a Bash result's ``stdout`` was shaped as a
    JSON string, cut from the head, so ``SUMMARY: 3 failures`` on its last line was lost, the
    very failure elision exists to prevent. A tool's text fields are text: head and tail,
    whole lines, the header first."""
    stdout = "".join(f"test_{i:04d} ... ok\n" for i in range(3000)) + "SUMMARY: 3 failures\n"
    done = hook(event("Bash", {"stdout": stdout, "stderr": "", "interrupted": False}),
                tmp_path, "--budget", "4096")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert len(shown.encode()) <= 4096
    assert shown.startswith("[elision] partial:")
    assert shown.rstrip("\n").endswith("SUMMARY: 3 failures")
    assert "test_0000 ... ok" in shown  # the head too


@pytest.mark.parametrize("lines", [64, 2_000])
def test_a_line_cap_holds_a_bash_result_of_short_lines(tmp_path: Path, lines: int) -> None:
    """OpenCode keeps a text's first 2,000 lines (issue 24), and its plugin runs this hook with
    ``--lines 2000``: 12,000 lines of 4 bytes fit the bytes, never the lines; the verdict last."""
    stdout = "ok.\n" * 12_000 + "SUMMARY: 3 failures\n"
    done = hook(event("Bash", {"stdout": stdout, "stderr": "", "interrupted": False}),
                tmp_path, "--budget", "48000", "--lines", str(lines))
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert shown.count("\n") + 1 <= lines
    assert shown.startswith("[elision] partial:")
    assert shown.rstrip("\n").endswith("SUMMARY: 3 failures")


def test_a_long_bash_output_is_read_whole_from_the_file_claude_code_kept(tmp_path: Path) -> None:
    """Found by the in-harness suite (Claude Code 2.1.332): a long Bash output reaches the hook
    cut to its first 30,000 chars, the whole in ``persistedOutputPath``; shaping the cut text
    lost the verdict on the last line whatever the hook did."""
    whole = "".join(f"step {i} passed\n" for i in range(5000)) + "SUMMARY: 3 failures\n"
    kept = tmp_path / "output.txt"
    kept.write_text(whole)
    done = hook(event("Bash", {"stdout": whole[:30_000], "stderr": "", "interrupted": False,
                               "persistedOutputPath": str(kept)}), tmp_path)
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert "persistedOutputPath" not in output  # what the model gets is the shaped whole
    assert output["stdout"].startswith("[elision] partial:")
    assert output["stdout"].rstrip("\n").endswith("SUMMARY: 3 failures")
