"""Per-call overhead of ``elision proxy`` over a direct call, stdio, side by side in one run.

    .venv/bin/python bench/proxy.py [--calls 200] [--big-calls 40] [--budget 8192]
                                    [--modes default,no-audit,bare] [--baseline SRC]
    .venv/bin/python bench/proxy.py --peak 10 100 [--modes default,bare]
    .venv/bin/python bench/proxy.py --beside-big 5 [--baseline SRC]

Starts this file as an MCP server (``--serve``) once for direct calls and once behind each
proxy mode: ``default`` (guard, redact and audit on, as a user runs it; the audit log is a
temporary SQLite file, never the real one), ``no-audit`` (``--no-audit``) and ``bare``
(``--no-audit --no-redact``: the floor of the MCP hop itself). Calls go round-robin over
every path so machine noise hits all alike. Reports the median latency of each, the
overhead over the direct call (target: <= 2 ms for a small result), and the load average
before and after, since on a shared machine the figures move with it. On Linux it also
reports the CPU time each server process spent per call (from /proc): that is what elision
controls, and it moves far less with the load than latency does. The CPU a path spends over
the bare proxy's is printed too: what guard, redact, shape and audit cost, without the hop.

``--peak MB ...`` measures memory instead of time: how far one result of MB (a JSON record
array, then a log, each kind in proxies of its own) raises each proxy's peak RSS (its
high-water mark reset just before the call), over the result's size. Each proxy keeps cut
bodies in a SQLite file, as a user's does; ``--baseline SRC`` works here too.

``--beside-big N`` measures one client's small calls while another client's large message is
gated: each proxy (default mode) listens on HTTP, and N times one client asks for a completion
of 100 values, 8 MB of records that each hold tokens amid prose (no shaper cuts it first: the
egress gate governs all of it), while a second client calls ``small`` back to back until it is
answered. It reports the median and the longest of those small calls, the small call's median
alone, the proxy's CPU time per big message (a big call alone, medians), each proxy side by
side, round-robin, and each proxy's peak RSS while ``--at-once`` (4) big messages are in
flight together.

``--baseline SRC`` adds a ``baseline`` path: the default proxy run from another copy of the
source (``git archive <commit> src | tar -x -C /tmp/base``, then ``--baseline /tmp/base/src``),
so a change is measured before and after in the same run; ``--baseline-mode bare`` runs it
bare instead, to compare the hop itself.

The client speaks the newest protocol (``mode="auto"``) and the upstream is of the handshake
era, so each call through the proxy is ready to be bridged (a question asked mid-call becomes
an ``InputRequiredResult``). ``--legacy-client`` adds a ``legacy`` path: a default proxy
whose client does the initialize handshake instead, to show what that readiness costs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve()

MODES: dict[str, list[str]] = {
    "default": [],
    "no-audit": ["--no-audit"],
    "bare": ["--no-audit", "--no-redact"],
}


def serve(port: int | None = None) -> None:
    """The bench's upstream: on stdio, or on streamable HTTP at 127.0.0.1:``port``."""
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

    @server.completion()
    async def big(ref: Any, argument: Any, context: Any) -> Any:
        """100 values, 8 MB of records that each hold tokens amid prose (for --beside-big)."""
        from mcp_types import Completion

        record = json.dumps({"token": "ghp_B3s1d3B1gT0k3nXyZ0123456789abcdEF",
                             "note": "a row of an export; " + "lorem ipsum dolor " * 50})
        value = ",".join([record] * (80_000 // len(record)))
        return Completion(values=[value] * 100, has_more=False)

    @server.prompt()
    def brief() -> str:
        """A prompt, so a completion has something to name (for --beside-big)."""
        return "brief"

    @server.tool()
    def blob(megabytes: float = 10, text: bool = False) -> str:
        """A JSON record array, or a log, of about the given size (for --peak)."""
        row = json.dumps({"id": 1, "name": "item", "memo": "settlement batch reconciled"})
        if text:
            row = "2026-11-30T12:00:00Z INFO [build] step ok (took 12ms, worker=w3)"
        count = int(megabytes * 1_000_000) // (len(row) + 1)
        return "\n".join([row] * count) if text else "[" + ",".join([row] * count) + "]"

    if port is None:
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=port)


def _proc_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise OSError(f"no {field} in /proc/{pid}/status")


async def measure_peak(
    sizes: list[float], budget: int, modes: list[str], workdir: str,
    baseline: str | None = None, baseline_mode: str = "default",
) -> list[dict[str, Any]]:
    """For each mode and size: how far one result of that size raises the proxy's peak RSS.

    The proxy's high-water mark is reset (Linux ``clear_refs``) after a warm-up call, so the
    peak is this call's; the growth is over the RSS just before it. Each proxy keeps what it
    cuts in a SQLite file, as a user's does: a memory store would hold the body on purpose.
    """
    runs: list[tuple[str, str, str | None]] = [(mode, mode, None) for mode in modes]
    if baseline is not None:
        runs.append(("baseline", baseline_mode, baseline))
    paths = _paths(budget, runs, workdir, sqlite_store=True)
    del paths["direct"]
    rows = []
    # Fresh proxies for each kind: memory freed after one call stays in the process (the
    # allocator keeps it), and the next call would grow into it unseen.
    for text in (False, True):
        async with AsyncExitStack() as stack:
            clients = {
                key: await stack.enter_async_context(Client(p, mode="auto"))
                for key, p in paths.items()
            }
            pids = _server_pids()
            for key, client in clients.items():
                await client.call_tool("blob", {"megabytes": 0.5, "text": text})  # warm up
                for mb in sizes:
                    pid = pids[key]
                    Path(f"/proc/{pid}/clear_refs").write_text("5")
                    before = _proc_kb(pid, "VmRSS")
                    result = await client.call_tool("blob", {"megabytes": mb, "text": text})
                    growth = (_proc_kb(pid, "VmHWM") - before) * 1024
                    rows.append({"path": key, "mb": mb, "kind": "text" if text else "JSON",
                                 "growth": growth, "ratio": growth / (mb * 1_000_000),
                                 "error": result.is_error})
    return rows


def _cpu_ms(pid: int) -> float | None:
    """User + system CPU time of a process so far, from /proc (None where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _server_pids() -> dict[str, int]:
    """Path name -> pid of each server this process started (the -c marker names proxies)."""
    found: dict[str, int] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        if ppid != os.getpid():
            continue
        if "#path=" in cmdline:
            found[cmdline.split("#path=", 1)[1].split()[0]] = int(entry.name)
        elif "--serve" in cmdline:
            found["direct"] = int(entry.name)
    return found


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def _paths(
    budget: int, runs: list[tuple[str, str, str | None]], workdir: str, *,
    sqlite_store: bool = False,
) -> dict[str, StdioServerParameters]:
    """The direct path and one proxy per (key, mode, source: another copy of src or None).

    The store is in memory unless ``sqlite_store``: then each proxy has a SQLite file in
    ``workdir``, as a user's proxy has (a memory store holds every kept body by design)."""
    upstream = [sys.executable, str(HERE), "--serve"]
    paths: dict[str, StdioServerParameters] = {
        "direct": StdioServerParameters(command=upstream[0], args=upstream[1:]),
    }
    for key, mode, source in runs:
        audit = ["--audit", str(Path(workdir) / f"audit-{key}.db")] if mode == "default" else []
        # The proxy must never write the real data directory from a benchmark.
        env = {**os.environ, "XDG_DATA_HOME": workdir}
        if source is not None:
            env["PYTHONPATH"] = source
        store = str(Path(workdir) / f"store-{key}.db") if sqlite_store else ":memory:"
        paths[key] = StdioServerParameters(
            command=sys.executable,
            args=["-c", f"from elision.cli import main; main()  #path={key}", "proxy",
                  "--budget", str(budget),
                  "--store", store, *audit, *MODES[mode], "--", *upstream],
            env=env,
        )
    return paths


async def measure(
    calls: int, big_calls: int, budget: int, modes: list[str], workdir: str,
    baseline: str | None = None, baseline_mode: str = "default", legacy_client: bool = False,
) -> list[dict[str, Any]]:
    runs: list[tuple[str, str, str | None]] = [(mode, mode, None) for mode in modes]
    if legacy_client:
        runs.append(("legacy", "default", None))
    if baseline is not None:
        runs.append(("baseline", baseline_mode, baseline))
    paths = _paths(budget, runs, workdir)
    rows = []
    async with AsyncExitStack() as stack:
        clients = {
            key: await stack.enter_async_context(
                Client(p, mode="legacy" if key == "legacy" else "auto")
            )
            for key, p in paths.items()
        }
        pids = _server_pids()
        for name, tool, arguments, n in (
            ("small", "small", {}, calls),
            ("300 KB", "sized", {"kilobytes": 300}, big_calls),
        ):
            if n < 1:
                continue  # --big-calls 0: that case is not run
            times: dict[str, list[float]] = {key: [] for key in clients}
            sizes: dict[str, int] = {}
            for _ in range(max(1, n // 20)):  # warm up every path
                for key, client in clients.items():
                    result = await client.call_tool(tool, arguments)
                    sizes[key] = sum(len(getattr(b, "text", "")) for b in result.content)
            cpu_before = {key: _cpu_ms(pid) for key, pid in pids.items()}
            for _ in range(n):
                for key, client in clients.items():
                    started = time.perf_counter()
                    await client.call_tool(tool, arguments)
                    times[key].append((time.perf_counter() - started) * 1000)
            cpu: dict[str, float | None] = {}
            for key, pid in pids.items():
                before, after = cpu_before[key], _cpu_ms(pid)
                if before is not None and after is not None:
                    cpu[key] = (after - before) / n
            direct_ms = statistics.median(times["direct"])
            for key in clients:
                ms = statistics.median(times[key])
                rows.append({
                    "case": name, "path": key, "calls": n, "median_ms": ms,
                    "overhead_ms": ms - direct_ms, "bytes": sizes[key], "cpu_ms": cpu.get(key),
                })
    return rows


async def measure_beside_big(
    rounds: int, budget: int, workdir: str, baseline: str | None = None, at_once: int = 4,
    upstream_http: bool = False,
) -> list[dict[str, Any]]:
    """For each proxy: its small calls' latency while another client's big message is gated,
    and its peak RSS while ``at_once`` big messages are in flight together. With
    ``upstream_http`` the upstream is one server on streamable HTTP that both proxies call."""
    from mcp_types import PromptReference

    runs: list[tuple[str, str | None]] = [("default", None)]
    if baseline is not None:
        runs.append(("baseline", baseline))
    upstream = [sys.executable, str(HERE), "--serve"]
    rows = []
    async with AsyncExitStack() as stack:
        if upstream_http:
            port = _free_port()
            server = await anyio.open_process([*upstream, "--port", str(port)],
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL)
            stack.push_async_callback(server.wait)
            stack.callback(server.terminate)
            await _listens(port)
            upstream = ["--upstream-url", f"http://127.0.0.1:{port}/mcp"]
        urls = {}
        for key, source in runs:
            env = {**os.environ, "XDG_DATA_HOME": workdir}
            if source is not None:
                env["PYTHONPATH"] = source
            urls[key] = await stack.enter_async_context(_listening(
                [sys.executable, "-c", f"from elision.cli import main; main()  #path={key}",
                 "proxy", "--budget", str(budget), "--store", ":memory:",
                 "--audit", str(Path(workdir) / f"audit-{key}.db"),
                 "--listen", "127.0.0.1:0",
                 *(upstream if upstream_http else ["--", *upstream])], env))
        pids = _server_pids()
        ref = PromptReference(type="ref/prompt", name="brief")
        pairs = {key: (await stack.enter_async_context(Client(url)),
                       await stack.enter_async_context(Client(url)))
                 for key, url in urls.items()}
        alone: dict[str, list[float]] = {key: [] for key in urls}
        beside: dict[str, list[float]] = {key: [] for key in urls}
        cpu: dict[str, list[float]] = {key: [] for key in urls}

        async def big_call(big: Client, done: anyio.Event) -> None:
            await big.complete(ref, {"name": "big", "value": ""})
            done.set()

        for big, _ in pairs.values():
            await big.complete(ref, {"name": "big", "value": ""})  # warm up
        for _ in range(rounds):  # round-robin over the proxies: the machine's noise hits all
            for key, (big, other) in pairs.items():
                for _ in range(5):
                    started = time.perf_counter()
                    await other.call_tool("small", {})
                    alone[key].append((time.perf_counter() - started) * 1000)
                before = _cpu_ms(pids[key])
                await big.complete(ref, {"name": "big", "value": ""})  # alone: its CPU
                after = _cpu_ms(pids[key])
                if before is not None and after is not None:
                    cpu[key].append(after - before)
                done = anyio.Event()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(big_call, big, done)
                    while not done.is_set():
                        started = time.perf_counter()
                        await other.call_tool("small", {})
                        beside[key].append((time.perf_counter() - started) * 1000)
        peak: dict[str, tuple[int, int]] = {}
        for key, (big, _) in pairs.items():  # memory: at_once big messages in flight together
            Path(f"/proc/{pids[key]}/clear_refs").write_text("5")
            before_kb = _proc_kb(pids[key], "VmRSS")
            async with anyio.create_task_group() as tg:
                for _ in range(at_once):
                    tg.start_soon(big.complete, ref, {"name": "big", "value": ""})
            peak[key] = (before_kb, _proc_kb(pids[key], "VmHWM"))
        for key in urls:
            rows.append({"path": key, "alone_ms": statistics.median(alone[key]),
                         "beside_ms": statistics.median(beside[key]),
                         "longest_ms": max(beside[key]), "calls": len(beside[key]),
                         "cpu_ms": statistics.median(cpu[key]) if cpu[key] else None,
                         "rss_mb": peak[key][0] // 1024, "peak_mb": peak[key][1] // 1024})
    return rows


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _listens(port: int, timeout: float = 30) -> None:
    with anyio.fail_after(timeout):
        while True:
            try:
                await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                return
            except OSError:
                await anyio.sleep(0.05)


@asynccontextmanager
async def _listening(command: list[str], env: dict[str, str]) -> AsyncIterator[str]:
    """Run a proxy on HTTP until the block ends; its URL once it listens."""
    process = await anyio.open_process(command, env=env, stdout=subprocess.DEVNULL)
    try:
        assert process.stderr is not None
        seen = b""
        while b"listening on " not in seen or not seen.endswith(b"\n"):
            chunk = await process.stderr.receive()
            seen += chunk
        url = seen.split(b"listening on ", 1)[1].split()[0].decode()
        yield url
    finally:
        process.terminate()
        await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=200, help="small-result calls per path")
    parser.add_argument("--big-calls", type=int, default=40, help="300 KB calls per path")
    parser.add_argument("--budget", type=int, default=8192)
    parser.add_argument("--modes", default="default,no-audit,bare",
                        help=f"proxy modes to run, comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--baseline", metavar="SRC",
                        help="also run the proxy from this source directory")
    parser.add_argument("--baseline-mode", default="default", choices=list(MODES),
                        help="the mode the --baseline proxy runs in (bare: compare the hop)")
    parser.add_argument("--legacy-client", action="store_true",
                        help="also call a default proxy from a client of the handshake era")
    parser.add_argument("--beside-big", type=int, metavar="N",
                        help="instead: small calls while another client's 8 MB message is "
                        "gated, N times")
    parser.add_argument("--at-once", type=int, default=4, metavar="N",
                        help="--beside-big: how many big messages are in flight together "
                        "while the peak RSS is measured")
    parser.add_argument("--upstream-http", action="store_true",
                        help="--beside-big: the upstream on streamable HTTP, not stdio")
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--peak", type=float, nargs="+", metavar="MB",
                        help="instead: how far one result of MB raises each proxy's peak RSS")
    args = parser.parse_args()
    if args.serve:
        serve(args.port)
        return
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        parser.error(f"unknown mode(s) {unknown!r}; choose from {', '.join(MODES)}")
    if args.beside_big:
        print(f"load before: {load()}")
        with tempfile.TemporaryDirectory(prefix="elision-bench-") as workdir:
            beside = anyio.run(measure_beside_big, args.beside_big, args.budget, workdir,
                               args.baseline, args.at_once, args.upstream_http)
        print(f"load after:  {load()}")
        for r in beside:
            cpu = f"{r['cpu_ms']:.0f}" if r["cpu_ms"] is not None else "-"
            print(f"{r['path']:<9} small call alone {r['alone_ms']:.1f} ms median; beside a "
                  f"big message {r['beside_ms']:.1f} ms median, {r['longest_ms']:.0f} ms "
                  f"longest ({r['calls']} calls); proxy CPU {cpu} ms a big message; peak RSS "
                  f"{r['peak_mb']} MB from {r['rss_mb']} MB with {args.at_once} at once")
        return
    if args.peak:
        with tempfile.TemporaryDirectory(prefix="elision-bench-") as workdir:
            peaks = anyio.run(measure_peak, args.peak, args.budget, modes, workdir,
                              args.baseline, args.baseline_mode)
        print(f"load: {load()}")
        for r in peaks:
            print(f"{r['path']:<9} one {r['mb']:g} MB {r['kind']} result raised the proxy's "
                  f"peak by {r['growth'] / 1e6:,.0f} MB = {r['ratio']:.2f}x the result "
                  f"(target <= 3x){'  [isError]' if r['error'] else ''}")
        return
    print(f"load before: {load()}")
    with tempfile.TemporaryDirectory(prefix="elision-bench-") as workdir:
        rows = anyio.run(
            measure, args.calls, args.big_calls, args.budget, modes, workdir, args.baseline,
            args.baseline_mode, args.legacy_client,
        )
    print(f"load after:  {load()}")
    print(f"{'case':<8} {'path':<9} {'calls':>5} {'median ms':>10} {'overhead ms':>12} "
          f"{'bytes':>9} {'server CPU ms/call':>19}")
    for r in rows:
        cpu = f"{r['cpu_ms']:.3f}" if r["cpu_ms"] is not None else "-"
        print(f"{r['case']:<8} {r['path']:<9} {r['calls']:>5} {r['median_ms']:>10.2f} "
              f"{r['overhead_ms']:>12.2f} {r['bytes']:>9,} {cpu:>19}")
    cpu_of = {(r["case"], r["path"]): r["cpu_ms"] for r in rows}
    for r in rows:
        floor = cpu_of.get((r["case"], "bare"))
        if r["path"] in ("direct", "bare") or floor is None or r["cpu_ms"] is None:
            continue
        # What the pipeline itself costs: the same proxy hop, less the bare proxy's CPU.
        print(f"pipeline CPU, {r['case']}, {r['path']}: {r['cpu_ms'] - floor:.3f} ms a call "
              "over the bare proxy")
    for r in rows:
        if r["case"] == "small" and r["path"] != "direct":
            verdict = "meets" if r["overhead_ms"] <= 2 else "misses"
            print(f"small-result overhead, {r['path']}: {r['overhead_ms']:.2f} ms median: "
                  f"{verdict} the 2 ms target")


if __name__ == "__main__":
    main()
