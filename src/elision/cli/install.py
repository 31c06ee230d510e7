"""``elision install`` and ``elision uninstall``: thin commands over :mod:`elision.install`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from elision.cli._common import EXIT_FAILURE, reports_errors, sdk_logs_redacted
from elision.install import (
    HARNESSES,
    HOOKED,
    Plan,
    install,
    install_hook,
    uninstall,
    uninstall_hook,
)
from elision.install.harnesses import Harness, readers
from elision.terminal import is_terminal, visible, visible_lines

_NAMES = click.Choice(sorted(HARNESSES))


def redact_message(text: str) -> str:
    """:func:`elision.redact.messages.redact_message`, imported on first use: this module is
    imported by every ``elision --help``, which needs no redactor."""
    from elision.redact.messages import redact_message as redact

    return redact(text)


def _no_entries(harness: Harness) -> str:
    """Where ``harness`` reads its servers: said when a file holds none it can read, or a file
    with them under another key (or as a list) would look as if there were nothing to do."""
    under = " or ".join(f'"{".".join(c)}"' for c in harness.containers)
    return f"no MCP server entries found ({harness.title} reads them as an object under {under})"


def _report(plan: Plan, *, dry_run: bool) -> None:
    if dry_run:
        # stdout holds the diff only; the summary is stderr's. A token in the file's env or
        # headers is withheld from it: a dry run's output ends up in terminals and CI logs.
        diff = redact_message(plan.diff())
        click.echo(visible_lines(diff) if is_terminal(sys.stdout) else diff, nl=False)
    for change in plan.changes:
        # A server's name is whatever the config says: its controls are shown, not obeyed.
        where = visible(".".join((*change.container, change.name)))
        if change.outcome == "left":
            click.echo(f"  {where}: left as it is: {visible(change.why)}", err=True)
        else:
            click.echo(f"  {where}: {change.outcome}", err=True)
    verb = "would change" if dry_run else "changed"
    done = sum(c.outcome != "left" for c in plan.changes)
    where_file = visible(str(plan.path))
    if not plan.changes:
        click.echo(f"{where_file}: {_no_entries(plan.harness)}; nothing to change", err=True)
    elif not plan.changed:
        click.echo(f"{where_file}: nothing to change ({plan.harness.title})", err=True)
    else:
        click.echo(f"{where_file}: {verb} {done} of {len(plan.changes)} server entries "
                   f"({plan.harness.title})", err=True)


@click.command("install")
@click.argument("harness", type=_NAMES)
@click.option("--config", type=click.Path(path_type=Path, dir_okay=False),
              help="The harness's config file (default: its project file if there is one, "
                   "else its user file).")
@click.option("--budget", type=click.IntRange(min=512),
              help="Bytes each tool result may take (default: below the harness's own cut; "
                   "see docs/harnesses.md).")
@click.option("--servers", default="", metavar="a,b",
              help="Only these servers (comma-separated names); default: all.")
@click.option("--store", metavar="PATH|URL", help="Where the proxy keeps cut bodies "
              "(default: elision's store.db). Written into each entry as an argument.")
@click.option("--audit", metavar="PATH|URL", help="The audit log the proxy appends to "
              "(default: audit.db beside the store). Written into each entry as an argument.")
@click.option("--dry-run", is_flag=True, help="Print the diff and write nothing.")
@click.option("--hook", is_flag=True, help="Claude Code: add `elision hook claude-code` as its "
              "PostToolUse hook on every tool (Bash, Read, WebFetch, Grep…) in "
              ".claude/settings.json here if there is one, else ~/.claude/settings.json. "
              "OpenCode: write the plugin .opencode/plugins/elision.js (or the user's).")
@reports_errors
def install_command(harness: str, config: Path | None, budget: int | None, servers: str,
                    store: str | None, audit: str | None, dry_run: bool, hook: bool) -> None:
    """Run every MCP server of HARNESS through elision proxy.

    \b
      elision install claude-code
      elision install codex --budget 8192 --servers github,fs --dry-run
      elision install vscode --config .vscode/mcp.json
      elision install claude-code --hook      # the built-in tools' results too

    Each stdio entry's command, args, env and cwd are kept; an HTTP entry goes through
    the proxy's --upstream-url when it needs no headers. Everything else in the file
    stays byte for byte; a second install changes nothing; `elision uninstall HARNESS`
    puts the entries back exactly (`--hook`: removes the hook).
    """
    if hook:
        _hook_only(harness, servers)
        plan = install_hook(harness, config=config, budget=budget, store=store, audit=audit,
                            dry_run=dry_run)
        _report_hook(plan, dry_run=dry_run)
        return
    names = tuple(s.strip() for s in servers.split(",") if s.strip())
    plan = install(harness, config=config, budget=budget, servers=names, store=store,
                   audit=audit, dry_run=dry_run)
    _report(plan, dry_run=dry_run)
    _shared(plan, budget)
    if config is None:
        _other_files(plan, dry_run=dry_run)


def _other_files(plan: Plan, *, dry_run: bool) -> None:
    """Name the harness's other config files found here: an install edits one file, and a
    user who did not pick it may not know the rest (Continue's block files, a project's and
    the user's file) still run their servers directly."""
    where = plan.path.absolute()
    others = [p for p in plan.harness.paths() if p.is_file() and p.absolute() != where]
    if others:
        listed = ", ".join(visible(str(p)) for p in others)
        # Said as it was: a dry run, or a file with nothing to change, changed nothing.
        did = ("read only" if not plan.changed else "would change only" if dry_run
               else "changed only")
        click.echo(f"note: {plan.harness.title} has other config files here: {listed}; this "
                   f"install {did} {visible(str(plan.path))} (`elision install "
                   f"{plan.harness.name} --config PATH` for each of the others)", err=True)


def _shared(plan: Plan, budget: int | None) -> None:
    """Say which other harnesses read the file, and what the budget does about it."""
    others = readers(plan.harness, plan.path)
    if not others:
        return
    names = " and ".join(h.title for h in others)
    where = visible(str(plan.path))
    if budget is None:
        each = ", ".join(f"{h.title} {h.budget:,} B" for h in (plan.harness, *others))
        click.echo(f"note: {where} is read by {names} too; no --budget was written, so the "
                   f"proxy sizes each result for the harness that connects ({each})", err=True)
        return
    over = [h for h in others if h.budget < budget]
    said = (f"; over {', '.join(f'{h.title} ({h.budget:,} B)' for h in over)}, whose own cut "
            "would cut the result again: drop --budget to let the proxy size each result "
            "for the harness that connects") if over else ""
    click.echo(f"warning: {where} is read by {names} too; --budget {budget} applies to "
               f"{names} too{said}", err=True)


@click.command("uninstall")
@click.argument("harness", type=_NAMES)
@click.option("--config", type=click.Path(path_type=Path, dir_okay=False),
              help="The harness's config file (default: as for install).")
@click.option("--dry-run", is_flag=True, help="Print the diff and write nothing.")
@click.option("--hook", is_flag=True, help="Remove the hook `elision install claude-code "
              "--hook` added (--config: the settings file it went into).")
@reports_errors
def uninstall_command(harness: str, config: Path | None, dry_run: bool, hook: bool) -> None:
    """Put back every server entry that `elision install HARNESS` rewrote, byte for byte.

    An entry edited since the install is refused rather than overwritten.
    """
    if hook:
        _hook_only(harness, "")
        plan = uninstall_hook(harness, config=config, dry_run=dry_run)
        _report_hook(plan, dry_run=dry_run)
        return
    plan = uninstall(harness, config=config, dry_run=dry_run)
    _report(plan, dry_run=dry_run)


def _hook_only(harness: str, servers: str) -> None:
    if harness not in HOOKED:
        raise click.UsageError(f"--hook is for {' and '.join(HOOKED)}: {harness} has no hook "
                               "elision can replace a tool's output with (docs/harnesses.md, "
                               "\"Hooks\")")
    if servers:
        raise click.UsageError("--servers picks MCP servers; the hook covers every tool")


def _report_hook(plan: Plan, *, dry_run: bool) -> None:
    if dry_run:
        diff = redact_message(plan.diff())
        click.echo(visible_lines(diff) if is_terminal(sys.stdout) else diff, nl=False)
    change = plan.changes[0]
    where = visible(str(plan.path))
    if change.outcome == "left":
        click.echo(f"{where}: nothing to change: {visible(change.why)}", err=True)
        return
    done = {"added": ("would add", "added"), "removed": ("would remove", "removed")}
    verb = done[change.outcome][0 if dry_run else 1]
    what = ("plugin (OpenCode's own tools)" if plan.harness.name == "opencode" else
            "PostToolUse hook (every tool)")
    click.echo(f"{where}: {verb} elision's {what} for {plan.harness.title}", err=True)
    from elision.install.hook import other_readers

    for other in other_readers(plan.path) if change.outcome == "added" else []:
        click.echo(f"note: {where} is read by {other} too: it runs the hook on its own tools "
                   "but cannot replace their output, so there the hook only costs a run per "
                   "tool call (VS Code's chat.hookFilesLocations can leave this file out)",
                   err=True)


@click.command("doctor")
@click.argument("harnesses", nargs=-1, type=_NAMES)
@click.option("--config", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Check this config file (give one HARNESS with it).")
@click.option("--no-start", is_flag=True, help="Read the configs only; start no server.")
@click.option("--timeout", type=click.FloatRange(min=1), default=30.0, show_default=True,
              help="Seconds each server has to start and list its tools.")
@reports_errors
def doctor_command(harnesses: tuple[str, ...], config: Path | None, no_start: bool,
                   timeout: float) -> None:
    """Show, for each harness config found, which servers go through elision and whether
    each one starts as the harness would start it (exit 1 if one does not).

    \b
      elision doctor                  # every harness with a config file here
      elision doctor claude-code --config ~/.claude.json
    """
    from elision.install.doctor import check
    from elision.install.harnesses import harness as find

    if config is not None and len(harnesses) != 1:
        raise click.UsageError("--config needs exactly one HARNESS, the one that reads it")
    targets = [(find(harnesses[0]), config)] if config is not None else [
        (h, path) for h in (find(n) for n in (harnesses or sorted(HARNESSES)))
        for path in h.paths() if path.is_file()]
    if not targets:
        click.echo("no harness config found here; pass HARNESS --config PATH", err=True)
        return
    failed = False
    for h, path in targets:
        assert path is not None
        click.echo(f"{h.title}: {visible(str(path))}")
        with sdk_logs_redacted("elision doctor: "):
            reports = check(h, path, start=not no_start, timeout=timeout)
        if not reports:
            click.echo(f"  {_no_entries(h)}")
        for report in reports:
            if report.proxied:
                o = report.options
                budget = o.get("--budget", f"the client's, {h.title}: {h.budget:,} bytes")
                how = (f"through elision (budget {budget}, "
                       f"store {o.get('--store', 'default')}, audit {o.get('--audit', 'default')})")
            else:
                how = "NOT through elision"
            started = {True: "starts", False: "DOES NOT START", None: "not started"}
            line = f"  {report.name}: {how}; {started[report.starts]}"
            if report.detail:
                line += f": {report.detail}"
            # A server's name, error or command may hold a token, and its name and stderr
            # terminal commands (an OSC 52 writes the reader's clipboard): both shown as text.
            click.echo(visible(redact_message(line)))
            click.echo(visible(redact_message(f"    runs {report.upstream}")))
            failed = failed or report.starts is False
    if failed:
        raise SystemExit(EXIT_FAILURE)
