"""``elision lint``: audit an MCP server's tools against the four rules, for people or CI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from elision.cli._common import EXIT_FAILURE, reports_errors, sdk_logs_redacted

if TYPE_CHECKING:
    from elision.lint import LintResult, Scenario, Target

REPORT_FORMATS = ("markdown", "json", "sarif")


@click.command("lint", context_settings={"ignore_unknown_options": True})
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", metavar="URL",
              help="Lint a server over streamable HTTP, e.g. http://127.0.0.1:9000/mcp.")
@click.option("--scenarios", "scenarios_path", metavar="FILE",
              type=click.Path(exists=True, dir_okay=False),
              help="Argument sets per tool (.json, .toml, or .yaml with PyYAML), the largest "
                   "realistic case first (the format is below). A tool without one is called "
                   "with arguments made from its input schema.")
@click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="markdown",
              show_default=True, help="Report format.")
@click.option("--out", "out_path", metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds one tool call may take.")
@click.option("--no-progress", is_flag=True, help="Do not show a progress bar on stderr.")
@reports_errors
def lint_command(
    command: tuple[str, ...], url: str | None, scenarios_path: str | None, fmt: str,
    out_path: str | None, timeout: float, no_progress: bool,
) -> None:
    """Audit an MCP server's tools against the four rules a response keeps.

    Start the server with a command after -- (it gets your environment), or give --url:

    \b
        elision lint -- python my_server.py
        elision lint --url http://127.0.0.1:9000/mcp --scenarios calls.yaml --format sarif

    Every tool is called: with its scenarios when the file has some, else with arguments
    made from its input schema (required properties, from each one's const, enum, default,
    examples, format, pattern and bounds); one whose annotations say destructiveHint is
    called only by a scenario. A tool with a limit-like argument is called once more with
    it at 1. Every tool and rule is reported PASS or FAIL with evidence; a tool
    that gave no answer to judge (its calls failed or answered with an error) is NOT
    EXERCISED, never PASS. The exit status is 1 when any rule fails or any tool is not
    exercised, so CI can gate on it.

    A scenarios file maps tool names to a list of calls, run in order:

    \b
        tools:
          search_trades:
            - name: a year                   # the largest realistic case first
              arguments: {since: "2025-11-30", until: "2026-11-30"}
            - name: expired token
              arguments: {token: "expired"}
              induced_failure: expired token # must answer with an error or null

    \b
    or in TOML:
        [[tools.search_trades]]
        name = "a year"
        arguments = {since = "2025-11-30", until = "2026-11-30"}

    Each call has "arguments" (an object), an optional "name" and an optional
    "induced_failure" (what the call breaks: rule 4 needs an error or null, never zero).
    The first call without an induced failure is reused for the limit=1 call.
    """
    from elision.errors import InputError
    from elision.lint import Target, lint, load_scenarios
    from elision.lint.report import render

    if timeout <= 0:
        raise InputError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    if out_path:
        _check_out(Path(out_path))
    target = Target(command=tuple(command), url=url)
    scenarios = load_scenarios(scenarios_path) if scenarios_path else {}
    with sdk_logs_redacted("elision lint: "):
        if no_progress:
            result = lint(target, scenarios, timeout=timeout)
        else:
            result = _lint_with_progress(target, scenarios, timeout)
    report = render(result, fmt)
    if out_path:
        Path(out_path).write_text(report, "utf-8")
        click.echo(f"report written to {out_path}: {result.status.upper()}", err=True)
    else:
        click.echo(report, nl=False)
    if result.failed:
        sys.exit(EXIT_FAILURE)


def _check_out(out: Path) -> None:
    """Refuse an --out the report could not be written to, before the lint starts a server."""
    from elision.errors import InputError

    if out.is_dir():
        raise InputError(f"--out {str(out)!r} is a directory; give a file to write the report to")
    if not out.parent.is_dir():
        raise InputError(f"--out {str(out)!r}: its directory {str(out.parent)!r} does not exist; "
                         "create it, or give a file in a directory that exists")


def _lint_with_progress(
    target: Target, scenarios: dict[str, list[Scenario]], timeout: float
) -> LintResult:
    """Lint with a progress bar on stderr (stdout stays the report)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from elision.lint import lint
    from elision.terminal import visible

    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]linting[/]"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.description}", markup=False), console=console, transient=True,
    ) as progress:
        task = progress.add_task("connecting", total=None)
        started: list[bool] = []

        def on_start(total: int) -> None:
            progress.update(task, total=max(total, 1), description="calling tools")

        def on_call(description: str) -> None:
            if started:
                progress.advance(task)
            started.append(True)
            progress.update(task, description=visible(description))  # names a server's tool

        result = lint(target, scenarios, timeout=timeout, on_start=on_start, on_call=on_call)
        if started:
            progress.advance(task)
    return result
