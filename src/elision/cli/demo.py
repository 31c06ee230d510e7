"""``elision demo``: see what a head slice loses and what elision keeps, on real MCP calls."""

from __future__ import annotations

import click

from elision.budget import MINIMUM
from elision.cli._common import reports_errors


@click.command("demo")
@click.option("--budget", type=int, default=8192, show_default=True,
              help=f"Size limit of each result, in bytes (at least {MINIMUM['bytes']}).")
@click.option("--store", "store_spec", metavar="PATH",
              help="Keep cut bodies in this SQLite file (default: a temporary one).")
@reports_errors
def demo_command(budget: int, store_spec: str | None) -> None:
    """Run a demo ledger MCP server behind the proxy and compare with a plain head slice.

    Offline and self-contained: it starts the bundled server and `elision proxy` as
    subprocesses, calls two tools with the official MCP client, and follows one `next`.
    """
    from elision.budget import Budget

    # Refused before anything starts, and before the MCP SDK is imported for the run (1.4 s
    # of CPU, spent to print one line).
    Budget(budget)
    from rich.console import Console

    from elision.demo.render import render
    from elision.demo.run import run_demo

    console = Console()
    with console.status("starting the demo ledger server and the elision proxy..."):
        report = run_demo(budget, store_spec)
    render(report, console)
