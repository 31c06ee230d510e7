"""``elision hook claude-code``: the PostToolUse hook, thin over :mod:`elision.adapters`."""

from __future__ import annotations

import sys

import click

from elision.cli._common import reports_errors
from elision.cli.actions import HOOK_BUDGET, HOOK_BUDGET_MIN, HOOK_LINES_MIN, claude_code_answer


@click.group("hook")
def hook_group() -> None:
    """Hooks a harness runs on each tool result (for tools not behind elision proxy)."""


@hook_group.command("claude-code")
@click.option("--budget", type=click.IntRange(min=HOOK_BUDGET_MIN), default=HOOK_BUDGET,
              show_default=True,
              help="Bytes each tool result may take (below Claude Code's own cut).")
@click.option("--lines", type=click.IntRange(min=HOOK_LINES_MIN), default=None,
              help="The most lines each tool result may have, for a harness that cuts by lines "
                   "too (OpenCode keeps 2,000); default: no cap.")
@click.option("--store", metavar="PATH|URL", help="Where cut bodies are kept (default: "
              "elision's store.db).")
@click.option("--audit", metavar="PATH|URL", help="The audit log to append to (default: "
              "audit.db beside the store).")
@click.option("--no-audit", is_flag=True, help="Write no audit log.")
@reports_errors
def claude_code_hook(budget: int, lines: int | None, store: str | None, audit: str | None,
                     no_audit: bool) -> None:
    """Read one PostToolUse event on stdin; answer with the shaped result when it had to be cut
    or something withheld, and with nothing when it fits as it is.

    \b
    In .claude/settings.json:
      {"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "elision hook claude-code"}]}]}}
    """
    answer = claude_code_answer(sys.stdin.buffer.read(), budget=budget, lines=lines, store=store,
                                audit=audit, no_audit=no_audit)
    if answer is not None:
        click.echo(answer)
