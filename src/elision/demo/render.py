"""Print a :class:`~elision.demo.run.DemoReport` so a newcomer gets it at a glance."""

from __future__ import annotations

import shlex

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from elision.demo.run import Comparison, DemoReport, View
from elision.terminal import visible

_YES = "[green]✓[/green]"
_NO = "[red]✗[/red]"


def render(report: DemoReport, console: Console) -> None:
    console.print(Panel.fit(
        f"An agent calls a ledger MCP server whose results are big and put their caveats "
        f"[bold]last[/bold].\nLeft: what a plain {report.budget:,}-byte head slice gives it "
        f"(what most agent harnesses do).\nRight: what it gets through "
        f"[bold]elision proxy --budget {report.budget}[/bold].",
        title="elision demo",
    ))
    for comparison in report.comparisons:
        console.print(_table(comparison))
    if report.fetch_call and report.fetch_view is not None:
        page = report.fetch_view
        console.print(Text("Following next: ", style="bold") + Text(visible(report.fetch_call)))
        console.print(
            Text("  ") + _mark(True, f"page of {page.shown_bytes:,} bytes: {page.records}; ")
            + _mark(report.digest_matches, "same sha256 as the first result"
                    if report.digest_matches else "sha256 differs")
        )
        if page.rest:
            console.print(Text(f"  next: {visible(page.rest)}"))
        where = "" if report.default_store else f" --store {shlex.quote(report.store)}"
        console.print(Text(
            f"\nThe cut bodies are kept in {visible(report.store)}; read the rest yourself:\n"
            f"  $ elision fetch {shlex.quote(visible(report.fetch_call))}{visible(where)}"),
            soft_wrap=True)  # one line however narrow the terminal: it is copied whole
    console.print(
        "\nTry it on your own server:  [bold]elision proxy --budget 8192 -- <command that "
        "starts your MCP server>[/bold]"
    )


def _table(comparison: Comparison) -> Table:
    args = ", ".join(f"{k}={v!r}" for k, v in comparison.arguments.items())
    head, shaped = comparison.head, comparison.elision
    table = Table(title=Text(visible(f"{comparison.tool}({args})")), title_justify="left",
                  show_lines=True,
                  expand=True)
    table.add_column("", style="bold", no_wrap=True)
    table.add_column(f"head slice ({head.shown_bytes:,} B)", ratio=1, overflow="fold")
    table.add_column(f"elision ({shaped.shown_bytes:,} B)", ratio=1, overflow="fold")
    table.add_row("shown", _size(head), _size(shaped))
    table.add_row("readable", _mark(head.intact, head.integrity),
                  _mark(shaped.intact, shaped.integrity))
    table.add_row("says it is partial", _mark(False, "nothing says so"),
                  _mark(shaped.says_partial is not None, shaped.says_partial or "no"))
    table.add_row("caveats kept", _caveats(head), _caveats(shaped))
    table.add_row("records", Text(visible(head.records)), Text(visible(shaped.records)))
    table.add_row("the rest", _mark(False, "gone"),
                  _mark(shaped.rest is not None, shaped.rest or "nothing was cut"))
    table.add_row("ends with", Text(repr(head.tail)), Text(repr(shaped.tail)))
    return table


def _size(view: View) -> str:
    return f"{view.shown_bytes:,} of {view.total_bytes:,} bytes"


def _mark(ok: bool, text: str) -> Text:
    # The mark is ours (markup); the text quotes a server's result: never markup.
    return Text.from_markup(_YES if ok else _NO) + Text(" " + visible(text))


def _caveats(view: View) -> Text:
    if not view.caveats:
        return _mark(False, "none: an agent would read the rows as the whole answer")
    return _mark(True, "; ".join(view.caveats))
