"""``elision shape``: fit a file or stdin to a budget, keeping the body for ``elision fetch``."""

from __future__ import annotations

from typing import Any

import click

from elision.budget import UNITS
from elision.cli._common import reports_errors
from elision.cli.actions import SHAPE_BUDGET, shape_and_print
from elision.shape import FORMATS, Shaped
from elision.terminal import safe_text, visible

STORE_HELP = (
    "The content store: a SQLite file path, or a postgresql:// URL shared by replicas. "
    "Default: $ELISION_STORE, else "
    "$XDG_DATA_HOME/elision/store.db (~/.local/share/elision/store.db)."
)


#: --no-redact, shared by shape and fetch: redaction is on unless asked off.
no_redact_option = click.option(
    "--no-redact", is_flag=True,
    help="Show signed URLs, tokens and keys as they are (by default they are withheld as "
    "stubs); only for output no model will read.",
)


def budget_options(func: Any) -> Any:
    """--budget and --unit, shared by shape and fetch."""
    func = click.option(
        "--unit", type=click.Choice(UNITS), default="bytes", show_default=True,
        help="What the budget counts: UTF-8 bytes, Unicode chars, or tokens.",
    )(func)
    return click.option(
        "--budget", "-b", type=int, default=SHAPE_BUDGET, show_default=True,
        help="The most the output may take, in --unit.",
    )(func)


@click.command("shape")
@click.argument("file", required=False, default="-",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@budget_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="How to read the body; auto uses the file extension, else sniffs the bytes.")
@click.option("--explain", is_flag=True,
              help="Also print a table of what was elided or withheld to stderr.")
@click.option("--no-store", is_flag=True,
              help="Do not keep the body: the output then has no ref to fetch the rest with.")
@click.option("--store", "store_spec", metavar="PATH|URL", help=STORE_HELP)
@no_redact_option
@reports_errors
def shape_command(
    file: str, budget: int, unit: str, fmt: str, explain: bool, no_store: bool,
    store_spec: str | None, no_redact: bool,
) -> None:
    """Fit FILE (or stdin, '-') to a budget and print it, never torn and never silent.

    A cut result says what was cut, shown-of-total, and how to fetch the rest with
    `elision fetch`. Signed URLs, tokens and keys are withheld as stubs unless --no-redact.
    """
    shaped = shape_and_print(file, budget=budget, unit=unit, fmt=fmt, no_store=no_store,
                             store_spec=store_spec, no_redact=no_redact)
    if explain:
        print_explanation(shaped)


def print_explanation(shaped: Shaped) -> None:
    """What was elided or withheld, as a table on stderr (stdout stays the shaped result)."""
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=True, soft_wrap=True)
    env = shaped.envelope or {}
    table = Table(title="elided and withheld", show_lines=False)
    for column in ("path", "kind", "shown", "total"):
        table.add_column(column, justify="right" if column in ("shown", "total") else "left")
    for entry in env.get("elided", []):
        shown = str(entry.get("shown", ""))
        if entry.get("from"):
            shown += f" (from {entry['from']})"
        # a path spells the body's own keys: shown as text, controls visible
        table.add_row(safe_text(entry["path"]), safe_text(entry["kind"]), safe_text(shown),
                      safe_text(entry.get("total", "")))
    for entry in env.get("withheld", []):
        # Where: a JSON path, a text's line, or a condensed entry's lines; how many: a
        # condensed entry stands for ``count`` values (20,000 read as one without it).
        where = entry.get("path") or (f"line {entry['line']}" if "line" in entry
                                      else f"lines {entry.get('lines', '')}")
        table.add_row(safe_text(where), safe_text(f"withheld: {entry.get('reason', '')}"),
                      safe_text(entry.get("stub", "")), safe_text(entry.get("count", "")))
    if table.row_count:
        console.print(table)
    else:
        console.print("nothing elided or withheld: the body fits the budget")
    console.print(f"bytes shown/total: {shaped.shown_bytes:,} / {shaped.total_bytes:,}; "
                  f"format {shaped.format}; "
                  f"ref {shaped.ref or env.get('ref') or '-'}", markup=False)
    for note in env.get("notes", []):
        console.print(f"note: {visible(str(note))}", markup=False)
