"""Claude Code itself runs a Bash command through the fake model, with ``elision hook
claude-code`` as its PostToolUse hook, and the model's view of the result is checked.

The command prints 3,001 lines: an AWS key (made at run time, so the command the model sends
does not hold it) near the top, where Claude Code's own 2 KB preview shows it, and the verdict
``SUMMARY: 3 failures`` last, where a head-only cut loses it.

Found by this suite (Claude Code 2.1.332): the hook gets ``tool_response`` as an object whose
``stdout`` Claude Code has already cut to its first 30,000 chars (the whole output is written to
``persistedOutputPath``), and Claude Code drops an ``updatedToolOutput`` that is a string for
Bash ("does not match Bash's output shape: reason=schema_invalid"), so the model gets Claude
Code's own preview of the original: unshaped, unredacted. An object of Bash's shape
(``{"stdout": …, "stderr": …, …}``) is taken. The hook now answers in the tool's own shape and
reads the whole output from ``persistedOutputPath``; these checks were strict xfails until then.

The hook is installed with ``elision install claude-code --hook`` (the settings file the
installer writes is what Claude Code runs here).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness import received
from harness.harnesses import CLAUDE, Ctx, Spec, claude_env, run
from harness.suite import CI_SUBSET, said
from harness.toolserver import AWS_KEY

pytestmark = CI_SUBSET
CI = True  # one Claude Code run: in CI as it is

VERDICT = "SUMMARY: 3 failures"
# the key is put together by the shell, so the command itself never holds it
COMMAND = ("for i in $(seq 1 3000); do echo \"2026-12-03T10:00:00Z INFO step $i passed in "
           "0.01s\"; [ $i = 10 ] && echo \"aws_access_key_id = " + AWS_KEY[:4] + "$(echo "
           + AWS_KEY[4:] + ")\"; done; echo \"" + VERDICT + "\"")
def _command(ctx: Ctx, prompt: str, tool: str) -> tuple[list[str], dict[str, str]]:
    return ([str(ctx.bin / "claude"), "-p", prompt, "--allowedTools", "Bash",
             "--output-format", "json"], claude_env(ctx))


def _configure(ctx: Ctx) -> Path:
    """The hook in the project's .claude/settings.json, put there by `elision install
    claude-code --hook` run in the project, as a user runs it."""
    (ctx.home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}), "utf-8")
    (ctx.work / ".claude").mkdir()
    settings = ctx.work / ".claude" / "settings.json"
    settings.write_text('{\n  "permissions": {"allow": ["Bash"]}\n}\n', "utf-8")
    elision = Path(sys.executable).parent / "elision"
    subprocess.run([str(elision), "install", "claude-code", "--hook", "--budget", "24000",
                    "--store", str(ctx.store), "--audit", str(ctx.audit)],
                   cwd=ctx.work, env=ctx.base_env(), check=True, capture_output=True,
                   timeout=120)
    hooks = json.loads(settings.read_text("utf-8"))["hooks"]["PostToolUse"]
    assert [h["matcher"] for h in hooks] == ["*"], hooks
    return settings


HOOKED = Spec("claude-code-hook", "Claude Code (hook)", CLAUDE.package, CLAUDE.binary,
              "anthropic", None, _configure, _command, 24_000)


@pytest.fixture(scope="module")
def bash_run(loopback_only: None, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[dict[str, Any]]:
    if not HOOKED.executable().exists():
        pytest.skip("Claude Code is not installed: npm install --prefix tests/harness")
    ctx = Ctx(tmp_path_factory.mktemp("claude-hook"))
    HOOKED.configure(ctx)
    yield run(HOOKED, ctx, "Bash", args={"command": COMMAND, "description": "run the suite"})


def bash_result(record: dict[str, Any]) -> str:
    seen = received.turns(record)
    assert seen.results and seen.results[0].name == "Bash", said(record)
    return seen.results[0].text


def test_the_model_ran_bash_and_got_its_result(bash_run: dict[str, Any]) -> None:
    """The run itself (not the hook): Claude Code ran the command the model asked for."""
    assert "INFO step 1 passed" in bash_result(bash_run)


def test_a_cut_bash_result_reaches_the_model_shaped(bash_run: dict[str, Any]) -> None:
    got = bash_result(bash_run)
    assert "[elision] partial" in got or '{"__elision__"' in got, got[:400]


def test_no_credential_in_a_bash_result_reaches_the_model(bash_run: dict[str, Any]) -> None:
    assert AWS_KEY not in received.turns(bash_run).everything


def test_a_bash_results_last_line_reaches_the_model(bash_run: dict[str, Any]) -> None:
    """The verdict on the last line survives the cut: head and tail, whole lines."""
    got = bash_result(bash_run)
    assert VERDICT in got and ("[elision] partial" in got or '{"__elision__"' in got)
