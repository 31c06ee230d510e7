"""``elision hook claude-code``: the PostToolUse hook, thin over :mod:`elision.adapters`."""

from __future__ import annotations

import json
import sys

import click

from elision.cli._common import reports_errors
from elision.errors import InputError


@click.group("hook")
def hook_group() -> None:
    """Hooks a harness runs on each tool result (for tools not behind elision proxy)."""


@hook_group.command("claude-code")
@click.option("--budget", type=click.IntRange(min=512), default=24_000, show_default=True,
              help="Bytes each tool result may take (below Claude Code's own cut).")
@click.option("--lines", type=click.IntRange(min=8), default=None,
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
    from elision.adapters.claude_hook import respond
    from elision.budget import Budget
    from elision.pipeline import Pipeline
    from elision.store import open_store

    try:
        event = json.loads(sys.stdin.buffer.read() or b"null")
    except ValueError as exc:
        raise InputError(f"the hook's stdin is not JSON ({exc}); Claude Code sends one "
                         "PostToolUse event as a JSON object") from None
    if not isinstance(event, dict):
        raise InputError("the hook's stdin is not a JSON object; Claude Code sends one "
                         "PostToolUse event as a JSON object")
    auditor = None
    kept = open_store(store)
    if not no_audit:
        from elision.audit.opener import open_audit_log
        from elision.audit.stage import LogAuditor

        # With the store, as the proxy's: `elision view` shows what the model saw of the call.
        auditor = LogAuditor(open_audit_log(audit), session_id=event.get("session_id"),
                             store=kept)
    pipeline = Pipeline(budget=Budget(budget, lines=lines), store=kept, auditor=auditor)
    try:
        answer = respond(event, pipeline)
    finally:
        if auditor is not None:
            auditor.close()  # the bodies it keeps are written before the hook exits
    if answer is not None:
        click.echo(json.dumps(answer, ensure_ascii=False))
