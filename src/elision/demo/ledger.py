"""The demo ledger: 22,933 trades generated deterministically in code (no files, no network).

Its search mimics a real failure: only the most recent 528 trades are indexed, and the tool says
so in ``warnings`` and ``searched_rows``, written after the rows, where a head slice cuts first.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

TOTAL_ROWS = 22_933
INDEXED_ROWS = 528
SYMBOLS = ("ACME", "BOLT", "CRUX", "DYNA", "EVOK", "FLUX", "GRIT", "HALO")
_START = datetime(2026, 11, 1, tzinfo=UTC)


@lru_cache(maxsize=1)
def trades() -> tuple[dict[str, Any], ...]:
    """Every trade, oldest first; the same rows on every machine and every run."""
    rng = random.Random(22_933)
    rows = []
    for i in range(TOTAL_ROWS):
        when = _START + timedelta(seconds=i * 113)
        rows.append({
            "id": 700_000 + i,
            "ts": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "symbol": rng.choice(SYMBOLS),
            "side": rng.choice(("buy", "sell")),
            "qty": rng.randint(1, 500),
            "price": round(rng.uniform(5, 400), 2),
            "account": f"ACC-{rng.randint(1, 60):04d}",
            "status": "settled" if rng.random() < 0.97 else "failed",
        })
    return tuple(rows)


def search_trades(symbol: str | None = None, side: str | None = None) -> dict[str, Any]:
    """Matching trades among the indexed ones, with the coverage caveat written last."""
    recent = trades()[-INDEXED_ROWS:]
    rows = [
        r for r in recent
        if (symbol is None or r["symbol"] == symbol.upper()) and (side is None or r["side"] == side)
    ]
    older = TOTAL_ROWS - INDEXED_ROWS
    return {
        "query": {"symbol": symbol, "side": side},
        "rows": rows,
        "warnings": [
            f"searched {INDEXED_ROWS} of {TOTAL_ROWS:,} rows: only the last 24 hours are indexed",
            f"{older:,} older trades were not searched; use get_rollups for them",
        ],
        "matched": len(rows),
        "searched_rows": INDEXED_ROWS,
        "total_rows": TOTAL_ROWS,
    }


def failed_settlements() -> str:
    """A settlement log: one line per trade of the last day, the verdict on the last line."""
    recent = trades()[-INDEXED_ROWS * 4:]
    lines = [
        f"{r['ts']} {'ERROR' if r['status'] == 'failed' else 'INFO '} settle id={r['id']} "
        f"{r['symbol']} {r['side']} qty={r['qty']} price={r['price']:.2f} account={r['account']}"
        for r in recent
    ]
    failed = sum(1 for r in recent if r["status"] == "failed")
    lines.append(
        f"SUMMARY: {failed} of {len(recent):,} settlements FAILED; "
        "do not close the books until they are resolved"
    )
    return "\n".join(lines) + "\n"


def account_summary(account: str) -> dict[str, Any]:
    """A small result: fits any budget and passes through unchanged."""
    rows = [r for r in trades() if r["account"] == account.upper()]
    return {
        "account": account.upper(),
        "trades": len(rows),
        "volume": round(sum(r["qty"] * r["price"] for r in rows), 2),
        "failed": sum(1 for r in rows if r["status"] == "failed"),
    }
