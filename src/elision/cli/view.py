"""``elision view``: the audit log and the store as a local web page."""

from __future__ import annotations

import click

from elision.cli._common import reports_errors


@click.command("view")
@click.option(
    "--log", "log_path", metavar="PATH|URL",
    help="The audit log: a SQLite file or a postgresql:// URL. Default: $ELISION_AUDIT, "
    "else audit.db in elision's data directory.",
)
@click.option(
    "--store", "store_spec", metavar="PATH|URL",
    help="The store the bodies are kept in (the proxy's --store). Default: $ELISION_STORE, "
    "else store.db in elision's data directory.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port to listen on; 0 picks a free one.")
@click.option(
    "--host", default="127.0.0.1", show_default=True,
    help="The address to listen on. Anything but a loopback address lets other machines "
    "reach the page (the token still guards it); only when asked.",
)
@click.option(
    "--show-raw", is_flag=True,
    help="Show full bodies as the tool returned them, credentials and signed URLs included. "
    "Default: the redacted view, as the model would get it.",
)
@click.option(
    "--key", envvar="ELISION_AUDIT_KEY", show_envvar=True, metavar="KEY",
    help="The checkpoint key, to verify the chain against its signed checkpoints.",
)
@reports_errors
def view_command(log_path: str | None, store_spec: str | None, port: int, host: str,
                 show_raw: bool, key: str | None) -> None:
    """Open the audit log as a local web page: each call, what the model saw beside the
    full body (elided parts and withheld values marked), and the chain's verdict.

    Listens on 127.0.0.1 at a free port and prints a URL with a token made for this start;
    every request needs it. Stop with Ctrl-C.
    """
    from elision.view import Started, is_loopback, serve

    if not is_loopback(host):
        click.echo(f"warning: listening on {host}, not a loopback address: other machines "
                   "can reach this page; the token in the URL is all that guards it",
                   err=True)
    if show_raw:
        click.echo("warning: --show-raw: bodies are shown as the tools returned them, "
                   "credentials included", err=True)

    def announce(started: Started) -> None:
        click.echo(f"elision view: {started.url}")
        click.echo("(the token in this URL is needed for every page; Ctrl-C stops)", err=True)

    serve(log_path, store=store_spec, host=host, port=port, show_raw=show_raw, key=key,
          announce=announce)
