"""Small MCP servers for the lint end-to-end tests: ``python lint_server.py VARIANT``.

``good`` keeps all four rules (with elision.server's helpers). In ``bad`` each tool breaks
exactly one rule and keeps the other three, so the lint's findings can be asserted exactly:
``caveats_last`` rule 1, ``unbounded_fills`` rule 2, ``silent_cut`` rule 3, ``zero_balance``
rule 4, and ``grep_summary_last`` rule 1 in plain text. Each variant has a text tool (a
grep-like listing, returned as a str) with its coverage line first (good) or last (bad).
``--http PORT`` serves streamable HTTP instead of stdio. Every tool serves a deterministic
ledger of 2,000 trades.
"""

from __future__ import annotations

import sys
from typing import Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from elision.server import coverage, response, shaped

TRADES = [
    {"id": i, "symbol": ("ACME", "BOLT", "CRUX")[i % 3], "qty": 10 + i % 7,
     "day": f"2026-{1 + i % 11:02d}-{1 + i % 28:02d}"}
    for i in range(2000)
]
FILLS = [{"trade": i, "venue": "XNAS"} for i in range(300)]


def grep_lines(symbol: str, limit: int) -> tuple[list[str], str]:
    """A grep-like listing of one symbol's trades, and the line that says how much it shows."""
    hits = [t for t in TRADES if t["symbol"] == symbol]
    shown = hits[:limit]
    rows = [f"trades.log:{t['id'] + 1}:{t['day']} {t['symbol']} qty={t['qty']}" for t in shown]
    summary = f"{len(shown)} of {len(hits)} {symbol} trades shown"
    if len(shown) < len(hits):
        summary += f"; next page: offset={len(shown)}"
    return rows, summary


class Balance(TypedDict):
    account: str
    balance: float | None
    status: str


class RawBalance(TypedDict):
    account: str
    balance: float
    status: str


def build(variant: str) -> MCPServer:
    server = MCPServer(f"lint-{variant}")

    if variant == "good":

        @server.tool()
        def search_trades(since: str, until: str, limit: int = 50,
                          token: str = "ok") -> dict[str, Any]:
            """Trades between two days, coverage first."""
            if token != "ok":
                raise ToolError(f"upstream refused the token {token!r}: expired; sign in again")
            rows = [t for t in TRADES if since <= t["day"] <= until]
            cursor = str(limit) if limit < len(rows) else None
            return response(
                coverage(shown=min(limit, len(rows)), total=len(rows), range=(since, until),
                         next_cursor=cursor, unit="trades"),
                trades=rows[:limit], fills=FILLS[:limit],
            )

        @server.tool()
        def balance(account: str, token: str = "ok") -> Balance:
            """An account balance; null when the ledger cannot be read."""
            if token != "ok":
                return {"account": account, "balance": None,
                        "status": "error: token expired, balance unknown"}
            return {"account": account, "balance": 1234.5, "status": "ok"}

        @server.tool()
        @shaped(cap=8192)
        def ledger(limit: int = 2000) -> dict[str, Any]:
            """Everything, written carelessly (caveats last), shaped on the server."""
            return {"trades": TRADES[:limit] if limit < 100 else TRADES, "fills": FILLS,
                    "total_trades": len(TRADES)}

        @server.tool()
        def grep_trades(symbol: str = "ACME", limit: int = 50) -> str:
            """A grep-like listing with its coverage line first."""
            rows, summary = grep_lines(symbol, limit)
            return "\n".join([summary, *rows])

        @server.tool()
        def ping() -> str:
            """Never called by the scenarios: checked from its schema only."""
            return "pong"

    elif variant == "bad":

        @server.tool()
        def caveats_last(limit: int = 50) -> dict[str, Any]:
            """Caveats last: a head slice cuts them first."""
            return {"trades": TRADES[:limit], "total": len(TRADES),
                    "has_more": limit < len(TRADES),
                    "warnings": [f"{min(limit, len(TRADES))} of {len(TRADES)} trades shown"]}

        @server.tool()
        def unbounded_fills(limit: int = 50) -> dict[str, Any]:
            """limit bounds trades but not fills."""
            return {"total": len(TRADES), "has_more": limit < len(TRADES),
                    "trades": TRADES[:limit], "fills": FILLS}

        @server.tool()
        def silent_cut(limit: int = 50) -> dict[str, Any]:
            """A bare truncation note and no count beside the cut array."""
            return {"note": "results truncated", "trades": TRADES[:limit]}

        @server.tool()
        def zero_balance(account: str, token: str = "ok") -> RawBalance:
            """A zero balance when the token has expired."""
            if token != "ok":
                return {"account": account, "balance": 0.0, "status": "error: token expired"}
            return {"account": account, "balance": 1234.5, "status": "ok"}

        @server.tool()
        def grep_summary_last(symbol: str = "ACME", limit: int = 50) -> str:
            """The same listing with its coverage line last, where a head slice cuts it."""
            rows, summary = grep_lines(symbol, limit)
            return "\n".join([*rows, summary])

    else:
        raise SystemExit(f"unknown variant {variant!r}: use good or bad")
    return server


if __name__ == "__main__":
    server = build(sys.argv[1])
    if len(sys.argv) == 4 and sys.argv[2] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]))
    else:
        server.run()
