"""Per-call overhead of ``elision proxy`` over a direct call, stdio, side by side in one run.

    .venv/bin/python bench/proxy.py [--calls 200] [--big-calls 40] [--budget 8192]

Starts this file as an MCP server twice (``--serve``): once for direct calls, once behind the
proxy. Calls alternate between the two so machine noise hits both alike. Reports the median
latency of each and the difference (target: <= 2 ms for a small result) and ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve()


def serve() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("elision-bench-upstream")
    rows = [{"id": i, "name": f"item {i}", "price": i * 1.25, "tags": ["a", "b"]}
            for i in range(6000)]

    @server.tool()
    def small() -> str:
        """A result of a few dozen bytes."""
        return '{"ok": true, "count": 3}'

    @server.tool()
    def sized(kilobytes: int = 300) -> str:
        """A JSON document of about the given size, caveats last."""
        out, size = [], 0
        for row in rows:
            out.append(row)
            size += 60
            if size >= kilobytes * 1024:
                break
        return json.dumps({"rows": out, "warnings": ["searched 528 of 22,933 rows"],
                           "total_rows": 22933})

    server.run()


async def measure(calls: int, big_calls: int, budget: int) -> list[dict[str, Any]]:
    upstream = [sys.executable, str(HERE), "--serve"]
    direct = StdioServerParameters(command=upstream[0], args=upstream[1:])
    proxied = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from elision.cli import main; main()", "proxy", "--budget", str(budget),
              "--store", ":memory:", "--", *upstream],
    )
    rows = []
    async with Client(direct) as d, Client(proxied) as p:
        for name, tool, arguments, n in (
            ("small", "small", {}, calls),
            ("300 KB", "sized", {"kilobytes": 300}, big_calls),
        ):
            times: dict[str, list[float]] = {"direct": [], "proxy": []}
            sizes: dict[str, int] = {}
            for client, key in ((d, "direct"), (p, "proxy")):  # warm up both paths
                result = await client.call_tool(tool, arguments)
                sizes[key] = sum(len(getattr(b, "text", "")) for b in result.content)
            for _ in range(n):
                for client, key in ((d, "direct"), (p, "proxy")):
                    started = time.perf_counter()
                    await client.call_tool(tool, arguments)
                    times[key].append((time.perf_counter() - started) * 1000)
            direct_ms = statistics.median(times["direct"])
            proxy_ms = statistics.median(times["proxy"])
            rows.append({
                "case": name, "calls": n, "direct_ms": direct_ms, "proxy_ms": proxy_ms,
                "overhead_ms": proxy_ms - direct_ms, "ratio": proxy_ms / direct_ms,
                "direct_bytes": sizes["direct"], "proxy_bytes": sizes["proxy"],
            })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=200, help="small-result calls per path")
    parser.add_argument("--big-calls", type=int, default=40, help="300 KB calls per path")
    parser.add_argument("--budget", type=int, default=8192)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    rows = anyio.run(measure, args.calls, args.big_calls, args.budget)
    print(f"{'case':<8} {'calls':>5} {'direct ms':>10} {'proxy ms':>9} {'overhead ms':>12} "
          f"{'ratio':>6} {'direct bytes':>13} {'proxy bytes':>12}")
    for r in rows:
        print(f"{r['case']:<8} {r['calls']:>5} {r['direct_ms']:>10.2f} {r['proxy_ms']:>9.2f} "
              f"{r['overhead_ms']:>12.2f} {r['ratio']:>6.2f} {r['direct_bytes']:>13,} "
              f"{r['proxy_bytes']:>12,}")
    small = rows[0]
    verdict = "meets" if small["overhead_ms"] <= 2 else "misses"
    print(f"small-result overhead {small['overhead_ms']:.2f} ms median: {verdict} the 2 ms target")


if __name__ == "__main__":
    main()
