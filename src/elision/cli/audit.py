"""``elision audit verify`` and ``elision audit show``: check and read the audit log."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import orjson

from elision.cli._common import reports_errors
from elision.terminal import is_terminal, json_visible, safe_text

#: ``--acs`` given with no SESSION: every session.
ALL_SESSIONS = "\0all"
#: Above this many entries, ``audit show`` draws a progress bar while it builds the table.
PROGRESS_THRESHOLD = 2000

log_option = click.option(
    # A str, not a click.Path: a Path would fold postgresql://host into postgresql:/host.
    "--log", "log_path", metavar="PATH|URL",
    help="The audit log: a SQLite file, or a postgresql://user@host/db URL for a chain "
    "shared by replicas. Default: $ELISION_AUDIT, else audit.db in elision's data "
    "directory ($XDG_DATA_HOME/elision or ~/.local/share/elision), beside the store.",
)


def _log_path(log_path: str | None) -> Path | str:
    import os

    from elision.audit.pgread import is_pg_url

    spec = log_path if log_path is not None else os.environ.get("ELISION_AUDIT")
    if is_pg_url(spec):
        assert spec is not None
        return spec
    from elision.audit.log import default_log_path

    path = Path(log_path) if log_path is not None else default_log_path()
    if path.is_dir():
        from elision.errors import AuditError

        raise AuditError(f"{str(path)!r} is a directory, not an audit log; pass --log (or set "
                         "ELISION_AUDIT to) the log's file, such as audit.db in that directory")
    return path


def _read_log(spec: Path | str) -> list[Any]:
    if isinstance(spec, str):
        from elision.audit.pgread import read_pg_log

        return read_pg_log(spec)[0]
    from elision.audit.verify import read_log

    return read_log(spec)


@click.group("audit")
def audit_group() -> None:
    """Check and read the tamper-evident audit log."""


@audit_group.command("verify")
@log_option
@click.option(
    "--checkpoints", "checkpoint_paths", metavar="PATH", multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Checkpoint file(s) to check the log against (repeatable). Default: "
    "<log>.checkpoints; for a postgresql:// log, this host's file in elision's data directory.",
)
@click.option(
    "--key", envvar="ELISION_AUDIT_KEY", show_envvar=True, metavar="KEY",
    help="The key the checkpoints were signed with: hmac:<secret>, ed25519:<seed> or "
    "ed25519-pub:<public key>. Prefer the environment variable: a flag shows in `ps`.",
)
@click.option(
    "--head", "heads", metavar="HASH", multiple=True,
    help="A chain_hash recorded from a Guardian answer (repeatable): it must still be in the "
    "log, which exposes a rewrite even without a checkpoint.",
)
@reports_errors
def verify_command(
    log_path: str | None, checkpoint_paths: tuple[Path, ...], key: str | None,
    heads: tuple[str, ...],
) -> None:
    """Recompute every hash and link; against the checkpoints, detect a cut tail.

    Exits 0 when the log verifies, 1 naming the first bad entry when it does not. With a
    key, a checkpoint file that is missing, unreadable or empty is a failure too.
    """
    from elision.audit.pgread import verify_pg_log
    from elision.audit.verify import verify_log

    path = _log_path(log_path)
    given = list(checkpoint_paths) or None
    result = (
        verify_pg_log(path, checkpoint_paths=given, key=key, heads=heads)
        if isinstance(path, str)
        else verify_log(path, checkpoint_paths=given, key=key, heads=heads)
    )
    result.raise_for_problem()
    click.echo(
        f"ok: {result.entries} entries, head {result.head or '(empty)'}, "
        f"{result.checkpoints} checkpoint(s) verified"
    )
    if result.checkpoints == 0 and not heads:
        click.echo(
            "warning: no signed checkpoint, so a cut tail or a rewrite of the whole log would "
            "not show; set ELISION_AUDIT_KEY where the log is written",
            err=True,
        )


@audit_group.command("show")
@log_option
@click.option("--json", "as_json", is_flag=True,
              help="Print each entry as one JSON line, exactly the object that was hashed "
              "(with entry_hash and previous_hash), for independent recomputation.")
@click.option("--last", type=click.IntRange(min=1), metavar="N",
              help="Only the last N entries.")
@click.option("--acs", "acs_session", is_flag=False, flag_value=ALL_SESSIONS, default=None,
              metavar="[SESSION]",
              help="Print an ACS session's entries as ACS §8.1/§8.2 ContextEntries, one JCS "
              "line each: the object its entry_hash was computed over, with previous_hash and "
              "entry_hash, for another ACS verifier. With no SESSION, every session in turn.")
@reports_errors
def show_command(log_path: str | None, as_json: bool, last: int | None,
                 acs_session: str | None) -> None:
    """List the entries of the audit log, oldest first."""
    entries = _read_log(_log_path(log_path))
    if acs_session is not None:
        _print_acs(entries, None if acs_session == ALL_SESSIONS else acs_session)
        return
    first = 1
    if last is not None and len(entries) > last:
        first = len(entries) - last + 1
        entries = entries[-last:]
    if as_json:
        for entry in entries:
            _echo_json(orjson.dumps(entry))
        return
    _print_table(entries, first)


def _echo_json(line: bytes) -> None:
    """One JSON line: as it is to a pipe or a file (it is what was hashed); on a terminal,
    with controls, bidi and separators in strings written as JSON escapes (the same value)."""
    if is_terminal(sys.stdout):
        line = json_visible(line.decode("utf-8")).encode("utf-8")
    click.echo(line)


def _print_acs(entries: list[Any], session: str | None) -> None:
    from elision.audit.acs_view import acs_sessions
    from elision.audit.jcs import canonical
    from elision.errors import AuditError

    sessions = acs_sessions(entries)
    if not sessions:
        raise AuditError("the log holds no ACS session: only `elision guardian` writes "
                         "session entries; `elision audit show` lists the others")
    if session is not None:
        if session not in sessions:
            known = ", ".join(repr(s) for s in list(sessions)[:20])
            raise AuditError(f"no ACS session {session!r} in the log; it has {known}")
        sessions = {session: sessions[session]}
    for context_entries in sessions.values():
        for entry in context_entries:
            _echo_json(canonical(entry))


def _print_table(entries: list[Any], first: int) -> None:
    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    table = Table(title=f"audit log: {len(entries)} entries", show_lines=False)
    for name, justify in (("#", "right"), ("time", "left"), ("step", "left"),
                          ("tool", "left"), ("decision", "left"), ("complete", "left"),
                          ("full bytes", "right"), ("shown bytes", "right"),
                          ("entry_hash", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    rows: Any = entries
    if len(entries) > PROGRESS_THRESHOLD:
        rows = track(entries, description="reading entries", console=Console(stderr=True))
    for n, entry in enumerate(rows, start=first):
        e: dict[str, Any] = entry if isinstance(entry, dict) else {}
        tool = str(e.get("tool", ""))
        if e.get("server"):
            tool = f"{e['server']}/{tool}"
        # Every cell is data a server or a client wrote (a tool is named by its server):
        # Text with its controls made visible, never markup, never a terminal command.
        cells = (
            str(n), str(e.get("timestamp", "")), str(e.get("step_type", "")).removeprefix(
                "steps/"), tool, str(e.get("decision", "")),
            "" if "complete" not in e else ("yes" if e["complete"] else "no"),
            _bytes(e.get("full")), _bytes(e.get("shown")), str(e.get("entry_hash", ""))[:16],
        )
        table.add_row(*(safe_text(cell) for cell in cells))
    console = Console()
    if not console.is_terminal:
        # Piped output has no width to fit; wrapping hashes and tool names helps nobody.
        console = Console(width=200)
    console.print(table)


def _bytes(part: Any) -> str:
    return f"{part['bytes']:,}" if isinstance(part, dict) and "bytes" in part else ""
