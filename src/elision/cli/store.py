"""``elision fetch`` and ``elision store``: page through kept bodies, and look after the store."""

from __future__ import annotations

import datetime as dt
import json
import os

import click

from elision.budget import Budget
from elision.cli._common import reports_errors
from elision.cli.actions import print_within
from elision.cli.shape import STORE_HELP, budget_options, no_redact_option
from elision.errors import ElisionError, RefNotFound, StoreError
from elision.store import default_store_path, open_store
from elision.store.base import OWNER_SCOPE, Store, not_found
from elision.store.fetch import parse_next
from elision.terminal import safe_text, visible

store_option = click.option("--store", "store_spec", metavar="PATH|URL", help=STORE_HELP)


def open_existing_store(spec: str | None) -> Store:
    """The store named by ``spec`` (as ``open_store``), refusing a SQLite file that is not there.

    Opening a SQLite store creates it; a command that only reads (or removes) must not leave an
    empty store, and its directories, at a misspelt path and then answer as if it were empty.
    """
    text = spec or os.environ.get("ELISION_STORE") or os.fspath(default_store_path())
    path = text.removeprefix("sqlite://") if text.startswith("sqlite:///") else text
    remote = text.startswith(("postgresql://", "postgres://")) or text == ":memory:"
    if not remote and not os.path.exists(path):
        raise StoreError(
            f"no store at {path!r}: nothing has been kept there; pass the --store (or set "
            "ELISION_STORE to the store) that `elision shape` or the proxy kept bodies in"
        )
    return open_store(text)


@click.command("fetch")
@click.argument("ref")
@click.option("--path", "-p", metavar="P",
              help="JSONPath into a JSON body: $.rows[37:], $.stores[3].stock, $['a key'].")
@click.option("--lines", "-l", metavar="A-B",
              help="Lines of a text body, 1-based, inclusive: 62-5940 or 62-.")
@click.option("--bytes", "byte_range", metavar="A-B",
              help="Bytes of a body, 0-based, inclusive, snapped to whole characters: 0-4095.")
@budget_options
@store_option
@click.option("--scope", metavar="SCOPE",
              help="Read only what is kept in this scope, as a client of the proxy would "
                   "(default: the store's owner, who reads every scope's refs).")
@no_redact_option
@reports_errors
def fetch_command(
    ref: str, path: str | None, lines: str | None, byte_range: str | None, budget: int, unit: str,
    store_spec: str | None, scope: str | None, no_redact: bool,
) -> None:
    """Fetch part of the body kept under REF, shaped to the budget.

    REF is the ref of a shaped result, or its whole `next` call pasted as it was printed:
    'elision_fetch(ref="el_…", path="$.rows[37:]")' (or as the JSON around it spells it,
    with a backslash before each quote). With no selector the whole body is shaped
    again. Refs kept by `elision proxy --store S` belong to the proxy's clients; you read
    them here as the store's owner.
    """
    if ref.strip().lstrip('"').startswith("elision_fetch("):
        args = parse_next(_unescaped(ref))
        ref = args["ref"]
        path, lines = path or args.get("path"), lines or args.get("lines")
        byte_range = byte_range or args.get("bytes")
    limit = Budget(budget, unit)  # type: ignore[arg-type]  # click.Choice checked it
    store = open_existing_store(store_spec)
    try:
        try:
            page = store.fetch(ref, path=path, lines=lines, byte_range=byte_range, budget=limit,
                               redact=not no_redact, scope=scope or OWNER_SCOPE)
        except RefNotFound:
            if scope is not None and _kept_elsewhere(store, ref):
                raise RefNotFound(
                    f"ref {ref!r} is kept in this store, but in another scope than {scope!r}: "
                    "a ref is fetchable only by the client it was shown to; leave out --scope "
                    "to read it as the store's owner"
                ) from None
            raise
    finally:
        store.close()
    print_within(page.text, limit)


def _unescaped(call: str) -> str:
    """A next call as it reads, also when copied out of the JSON it was printed in: with a
    backslash before each quote (``ref=\\"el_…\\"``), perhaps inside the string's own quotes."""
    text = call.strip()
    if '\\"' not in text:
        return call
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1]
    try:
        return str(json.loads(f'"{text}"'))
    except ValueError:
        return call  # then parse_next says what it cannot read


def _kept_elsewhere(store: Store, ref: str) -> bool:
    try:
        store.info(ref, scope=OWNER_SCOPE)
    except ElisionError:
        return False
    return True


@click.group("store")
def store_group() -> None:
    """Look after the content store: stats, gc, rm, migrate."""


@store_group.command("stats")
@store_option
@reports_errors
def stats_command(store_spec: str | None) -> None:
    """Show how many bodies and refs the store keeps, and how much room they take."""
    from rich.console import Console
    from rich.table import Table

    store = open_existing_store(store_spec)
    try:
        stats = store.stats()
    finally:
        store.close()
    table = Table(title="elision store")
    table.add_column("what")
    table.add_column("value", overflow="fold")  # a long path wraps; it is never cut
    oldest = "-" if stats.oldest is None else _when(stats.oldest)
    for name, value in (
        ("bodies", f"{stats.bodies:,}"), ("refs", f"{stats.refs:,}"),
        ("bytes", f"{stats.bytes:,}"), ("oldest", oldest), ("quota", f"{stats.quota_bytes:,}"),
        ("ttl", f"{stats.ttl:,.0f} s"), ("references", f"{stats.references:,}"),
        ("path", stats.path),
    ):
        table.add_row(name, safe_text(value))  # a path may hold anything
    Console(soft_wrap=True).print(table)


@store_group.command("gc")
@store_option
@reports_errors
def gc_command(store_spec: str | None) -> None:
    """Drop expired refs and the bodies no ref uses any more, and stray body files."""
    store = open_existing_store(store_spec)
    try:
        result = store.gc()
    finally:
        store.close()
    stray = (f"; swept {result.stray_files:,} body files no row named"
             if result.stray_files else "")
    click.echo(f"removed {result.expired_refs:,} expired refs and {result.bodies:,} bodies "
               f"({result.bytes:,} bytes); forgot {result.tombstones:,} old tombstones{stray}")


@store_group.command("rm")
@click.argument("ref")
@store_option
@reports_errors
def rm_command(ref: str, store_spec: str | None) -> None:
    """Remove REF now; its body goes too once no other ref uses it."""
    store = open_existing_store(store_spec)
    try:
        if not store.remove(ref):
            raise not_found(ref)
    finally:
        store.close()
    click.echo(f"removed {visible(ref)}")  # a ref pasted from a model's output may hold anything


@store_group.command("migrate")
@store_option
@reports_errors
def migrate_command(store_spec: str | None) -> None:
    """Create the store's tables, or bring them to this elision's schema version.

    Every store also does this when it opens; run it as a deploy step so that replicas
    starting together find the schema ready. A schema newer than this elision is refused.
    """
    from elision.store import MemoryStore, SQLiteStore
    from elision.store import sqlite as sqlite_store

    store = open_store(store_spec)
    try:
        if isinstance(store, MemoryStore):
            click.echo("a memory store has no schema to migrate")
            return
        version = (sqlite_store.SCHEMA_VERSION if isinstance(store, SQLiteStore)
                   else getattr(store, "schema_version", None))
        click.echo(f"store {visible(store.stats().path)} is at schema version {version}")
    finally:
        store.close()


def _when(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
