"""Shaping, side by side: elision against the floor and against the other tools, on one corpus.

Set up once (the competitors go into their own venv, never into the project's dependencies):

    python3 -m venv bench/.venv && bench/.venv/bin/pip install -e . -r bench/requirements.txt

Run:

    bench/.venv/bin/python bench/shape.py --quick      # 1 MB inputs only, under a minute
    bench/.venv/bin/python bench/shape.py              # 1, 10 and 100 MB (several minutes)
    bench/.venv/bin/python bench/shape.py --gigabyte   # and one 1 GB ledger (needs ~12 GB RAM)
    .venv/bin/python bench/shape.py --hostile --baseline /tmp/base/src   # bench/hostile.py

For every input (bench/corpus.py: a ledger search result, a build log, an NDJSON stream, a
deep document and a huge object, caveats written last) and budget (4, 16 and 64 KB) it
measures each tool's median time, its peak memory (above the input it was handed, and in
inputs with the input counted, beside the floor's), and what the model would get:
the share of the budget used, whether the result still parses, whether the caveats survived,
and whether it says how many of how many were shown. The table is printed and written as
markdown to bench/out/shape.md.

The floor is the least any honest shaper must do: read the whole body (orjson.loads for JSON,
per line for NDJSON, a UTF-8 decode for text) and SHA-256 it. Each measurement runs in a
forked child of a driver that has already read the input and imported every tool, so import
costs are excluded; the child resets its high-water mark first (Linux ``clear_refs``), so its
peak RSS counts only what the tool allocated on top of the input.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import hashlib
import json
import os
import platform
import re
import resource
import select
import signal
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
import hostile

BUDGETS = (4096, 16384, 65536)
SIZES = (1.0, 10.0, 100.0)
OUT_MD = Path(__file__).resolve().parent / "out" / "shape.md"
#: Per measurement: stop repeating once this much time was spent, give up after TIMEOUT.
REPEAT_SECONDS = 15.0
MIB = 1 << 20
#: --gigabyte: one 1 GB input, elision and the floor only, at the middle budget.
GIGABYTE_MB = 1000.0
TIMEOUT = 300.0

#: (visible, main): everything the model is shown, and the part that should parse.
Output = tuple[str, str]
Adapter = Callable[[bytes, int], Output]


# --- the tools, each called in-process through its public API ---------------------------------


def _floor(fmt: str) -> Adapter:
    def floor(body: bytes, budget: int) -> Output:
        hashlib.sha256(body).hexdigest()
        if fmt == "json":
            orjson.loads(body)
        elif fmt == "ndjson":
            for line in body.splitlines():
                if line.strip():
                    orjson.loads(line)
        else:
            body.decode("utf-8").count("\n")
        return "", ""

    return floor


def _elision(body: bytes, budget: int) -> Output:
    import elision

    # The shaper alone, as the other tools: none of them redacts (bench/redact.py times that).
    text = elision.shape(body, elision.Budget(budget), redactor=None).text
    return text, text


def _elision_store(body: bytes, budget: int) -> Output:
    import elision
    from elision.store import open_store

    # A fresh SQLite file each call, so every run writes the body (a kept store would find
    # it by digest and skip the write from the second run on).
    with tempfile.TemporaryDirectory(prefix="elision-bench-store-") as where:
        store = open_store(str(Path(where) / "store.db"))
        try:
            text = elision.shape(body, elision.Budget(budget), store=store, redactor=None).text
        finally:
            store.close()
    return text, text


def _head_slice(body: bytes, budget: int) -> Output:
    # What Codex, Claude Code, OpenHands and Copilot CLI do: keep the first N bytes.
    text = body[:budget].decode("utf-8", "ignore")
    return text, text


def _fastmcp(body: bytes, budget: int) -> Output:
    from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware
    from fastmcp.tools.base import ToolResult
    from mcp_types import TextContent

    middleware = ResponseLimitingMiddleware(max_size=budget)
    result = ToolResult(content=[TextContent(type="text", text=body.decode("utf-8"))])

    async def call_next(context: Any) -> ToolResult:
        return result

    # on_call_tool reads only context.message.name; the rest of a real context is not needed.
    context = types.SimpleNamespace(message=types.SimpleNamespace(name="search"))
    limited = asyncio.run(middleware.on_call_tool(context, call_next))
    text = "\n\n".join(block.text for block in limited.content if hasattr(block, "text"))
    return text, text


def _governor(body: bytes, budget: int) -> Output:
    from tool_result_governor.governor import Budget, Governor, ReceiptSigner, SpillStore

    with tempfile.TemporaryDirectory(prefix="trsg-") as spill:
        # Its token estimate is bytes / 4, so this token cap binds exactly where the byte cap
        # does; max_records keeps its default (50), which is how the tool ships.
        governor = Governor(
            SpillStore(spill),
            ReceiptSigner(b"bench-key"),
            default_budget=Budget(max_bytes=budget, max_tokens=budget // 4),
        )
        result = {"content": [{"type": "text", "text": body.decode("utf-8")}]}
        shaped, _ = governor.shape_mcp_result("search", {}, result)
    blocks = [block["text"] for block in shaped["content"]]
    # The receipt goes to the model as extra text blocks, so it counts toward what it sees.
    return "\n".join(blocks), blocks[0]


_TOOLTRIM_FOOTER = re.compile(r"\n\n\[tooltrim: [^\n]*\]\Z")


def _tooltrim(body: bytes, budget: int) -> Output:
    from tooltrim import ToolCompressor

    # Its budget is in tokens, estimated as chars / 4 without tiktoken (which cannot fetch
    # a vocabulary offline), so a quarter of the byte budget asks for the same size.
    text = ToolCompressor(max_tokens=budget // 4).compress(body.decode("utf-8")).text
    # The footer it appends is not JSON; judge parsing on the body without it (generously).
    return text, _TOOLTRIM_FOOTER.sub("", text)


TOOLS: dict[str, Callable[[str], Adapter]] = {
    "floor": _floor,
    "elision": lambda fmt: _elision,
    "elision+store": lambda fmt: _elision_store,
    "head slice": lambda fmt: _head_slice,
    "fastmcp": lambda fmt: _fastmcp,
    "tr-size-governor": lambda fmt: _governor,
    "tooltrim": lambda fmt: _tooltrim,
}
_IMPORTS = {
    "elision": "elision",
    "elision+store": "elision",
    "fastmcp": "fastmcp.server.middleware.response_limiting",
    "tr-size-governor": "tool_result_governor.governor",
    "tooltrim": "tooltrim",
}
_DISTRIBUTIONS = {
    "elision": "elision",
    "elision+store": "elision",
    "fastmcp": "fastmcp",
    "tr-size-governor": "tool-result-size-governor",
    "tooltrim": "tooltrim",
}


# --- judging what the model gets ---------------------------------------------------------------


def parses(main: str, fmt: str) -> bool | None:
    if fmt == "text":
        return None
    try:
        if fmt == "json":
            orjson.loads(main)
        else:
            for line in main.splitlines():
                if line.strip():
                    orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


_OMITTED = re.compile(r"\d[\d,]* (?:more|omitted|elided|hidden|truncated)\b")


def count_pattern(total: int) -> re.Pattern[str]:
    spellings = {str(total), f"{total:,}", f"{total:_}"}
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, spellings)) + r")(?![\w.])")


def total_in_body(body: bytes, meta: corpus.Meta) -> bool:
    """Whether the body spells its own bulk total (then finding it in a result proves nothing)."""
    return count_pattern(meta.total).search(body.decode("utf-8")) is not None


def judge(out: Output, meta: corpus.Meta, budget: int, ambiguous: bool) -> dict[str, Any]:
    visible, main = out
    size = len(visible.encode("utf-8"))
    counts: str | None
    if ambiguous:
        counts = None
    elif count_pattern(meta.total).search(visible):
        counts = "yes"
    elif _OMITTED.search(visible):
        counts = "omitted only"  # "+3189 more items": how many were cut, but not of how many
    else:
        counts = "NO"
    return {
        "bytes": size,
        "used": size / budget,
        "parses": parses(main, meta.format),
        "caveats": sum(marker in visible for marker in meta.caveats),
        "caveats_of": len(meta.caveats),
        "counts": counts,
    }


# --- measuring, one forked child per measurement -----------------------------------------------


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> float:
    """Start this process's peak RSS again from its present RSS, and return that in MB.

    A forked child inherits its parent's high-water mark, which may be well above what the
    child holds (an earlier, bigger input): Linux lets a process reset it (``clear_refs``),
    so the child's peak is its own. Elsewhere the peak so far is the base.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return _proc_status_mb("VmRSS")
    except OSError:
        return _maxrss_mb()


def _proc_status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no {field} in /proc/self/status")


def _peak_mb() -> float:
    try:
        return _proc_status_mb("VmHWM")
    except OSError:
        return _maxrss_mb()


@dataclass(frozen=True)
class Case:
    """One input, read once by the driver and shared (copy-on-write) with every child."""

    body: bytes
    meta: corpus.Meta
    #: The body itself spells its bulk total, so the "counts given?" check cannot tell.
    ambiguous: bool


def _child(adapter: Adapter, case: Case, budget: int, runs: int) -> dict[str, Any]:
    body = case.body
    gc.collect()
    base = _reset_peak()
    start = time.perf_counter()
    out = adapter(body, budget)
    times = [time.perf_counter() - start]
    peak = _peak_mb() - base
    while len(times) < runs and sum(times) < REPEAT_SECONDS:
        start = time.perf_counter()
        adapter(body, budget)
        times.append(time.perf_counter() - start)
    row = {
        "ms": statistics.median(times) * 1000,
        "runs": len(times),
        "peak_mb": peak,
        # What holding the body and shaping it costs, in inputs: the 3x and 1.5x targets.
        "peak_x": (peak * MIB + len(body)) / max(len(body), 1),
    }
    if budget:
        row.update(judge(out, case.meta, budget, case.ambiguous))
    return row


def measure(adapter: Adapter, case: Case, budget: int, runs: int) -> dict[str, Any]:
    """Run ``adapter`` in a forked child and return its figures (or an ``error``)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report, and leave without running the parent's cleanup
        os.close(read_fd)
        try:
            row = _child(adapter, case, budget, runs)
        except BaseException as exc:  # a competitor that crashes is a result, not a bench bug
            row = {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(json.dumps(row).encode())
        os._exit(0)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"error": f"timeout after {TIMEOUT:.0f} s"}
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"error": f"child died (status {status})"}
    result: dict[str, Any] = json.loads(b"".join(chunks))
    return result


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Row:
    tool: str
    kind: str
    megabytes: float
    budget: int | None
    figures: dict[str, Any]
    floor_ms: float | None
    floor_peak_x: float | None = None


def available_tools(wanted: list[str]) -> tuple[list[str], dict[str, str]]:
    """The tools that import here (imported now, so children don't pay for it) and versions."""
    tools, versions = [], {}
    for tool in wanted:
        module = _IMPORTS.get(tool)
        if module is not None:
            try:
                __import__(module)
            except ImportError as exc:
                print(f"skipping {tool}: {exc} (see bench/requirements.txt)", file=sys.stderr)
                continue
            with contextlib.suppress(metadata.PackageNotFoundError):
                versions[tool] = metadata.version(_DISTRIBUTIONS[tool])
        tools.append(tool)
    # Tools import parts of themselves on first use (elision its format shapers): do that
    # here, once, so no child pays for it and every child runs the same code.
    for kind in corpus.KINDS:
        sample, meta = corpus.make(kind, 0.02)
        for tool in tools:
            TOOLS[tool](meta.format)(sample, 4096)
    return tools, versions


def run(
    sizes: list[float],
    budgets: list[int],
    kinds: list[str],
    tools: list[str],
    runs: int,
    progress: Callable[[Row], None],
) -> list[Row]:
    logging_quiet()
    rows: list[Row] = []
    for mb in sizes:
        for kind in kinds:
            path, meta = corpus.ensure(kind, mb)
            body = path.read_bytes()
            case = Case(body, meta, total_in_body(body, meta))
            floor = measure(_floor(meta.format), case, 0, runs)
            floor_ms, floor_x = floor.get("ms"), floor.get("peak_x")
            rows.append(Row("floor", kind, mb, None, floor, floor_ms, floor_x))
            progress(rows[-1])
            for budget in budgets:
                for tool in tools:
                    if tool == "floor":
                        continue
                    figures = measure(TOOLS[tool](meta.format), case, budget, runs)
                    rows.append(Row(tool, kind, mb, budget, figures, floor_ms, floor_x))
                    progress(rows[-1])
            del body, case
    return rows


def logging_quiet() -> None:
    # fastmcp logs a warning per truncation; the bench is measuring, not monitoring.
    import logging

    logging.disable(logging.WARNING)


COLUMNS = (
    "tool",
    "input",
    "budget",
    "time ms (median)",
    "ratio to floor",
    "peak MB",
    "peak x input",
    "peak vs floor",
    "budget used %",
    "parses?",
    "caveats kept?",
    "counts given?",
)


def _yes(value: bool | str | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return "yes" if value else "NO"


def cells(row: Row) -> list[str]:
    f = row.figures
    where = f"{row.kind} {row.megabytes:g}MB"
    budget = "-" if row.budget is None else f"{row.budget // 1024}KB"
    if "error" in f:
        return [row.tool, where, budget, f["error"], *[""] * (len(COLUMNS) - 4)]
    ratio = f"{f['ms'] / row.floor_ms:.2f}x" if row.floor_ms else "-"
    memory = [f"{f['peak_mb']:.0f}", f"{f['peak_x']:.2f}x"]
    memory.append(f"{f['peak_x'] / row.floor_peak_x:.2f}x" if row.floor_peak_x else "-")
    if row.budget is None:
        return [
            row.tool,
            where,
            budget,
            f"{f['ms']:.1f}",
            "1.00x",
            *memory,
            "-",
            "-",
            "-",
            "-",
        ]
    caveats = f"{f['caveats']}/{f['caveats_of']}"
    caveats = ("yes " if f["caveats"] == f["caveats_of"] else "NO ") + caveats
    return [
        row.tool,
        where,
        budget,
        f"{f['ms']:.1f}",
        ratio,
        *memory,
        f"{f['used'] * 100:.0f}%",
        _yes(f["parses"]),
        caveats,
        _yes(f["counts"]),
    ]


def print_table(rows: list[Row]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="elision.shape() side by side", show_lines=False)
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("tool", "input") else "right")
    previous = None
    for row in rows:
        key = (row.kind, row.megabytes, row.budget)
        if previous is not None and key != previous:
            table.add_section()
        previous = key
        table.add_row(*cells(row))
    Console(width=160).print(table)


def markdown(rows: list[Row], versions: dict[str, str], args: argparse.Namespace) -> str:
    lines = [
        "# elision shape benchmark",
        "",
        f"- run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores (shared), {platform.machine()}",
        "- tools: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())),
        f"- sizes {', '.join(f'{s:g} MB' for s in args.sizes)}; budgets "
        f"{', '.join(str(b) for b in args.budgets)} bytes; median of up to {args.runs} runs",
        "- floor: SHA-256 plus a full parse (orjson; per line for NDJSON; UTF-8 decode for text)",
        "- peak MB: the child's peak RSS above the input it was handed (its high-water mark "
        "reset at the start); peak x input: (that + the input) / the input; peak vs floor: "
        "that ratio over the floor's on the same input",
        "- budget used: UTF-8 bytes the model is shown (receipts and footers included) / budget",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ]
    lines += ["| " + " | ".join(cells(row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="1 MB inputs only, 3 runs each")
    parser.add_argument("--sizes", type=float, nargs="*", default=list(SIZES), metavar="MB")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS), metavar="BYTES")
    parser.add_argument("--kinds", nargs="+", default=list(corpus.KINDS), choices=corpus.KINDS)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement (max)")
    parser.add_argument(
        "--gigabyte", nargs="?", const="ledger", choices=corpus.KINDS, metavar="KIND",
        help="also one 1 GB input (ledger unless named): floor and elision, 16 KB budget",
    )
    parser.add_argument("--out", type=Path, default=OUT_MD, help="where the markdown goes")
    parser.add_argument(
        "--hostile", action="store_true",
        help="instead: bench/hostile.py's bodies (one long line, one big JSON string, 300-deep "
        "documents, ...) beside the floor and, with --baseline SRC, the code before",
    )
    hostile.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.hostile:
        sizes = args.sizes if args.sizes != list(SIZES) else list(hostile.SIZES)
        hostile.main([
            "--sizes", *map(str, [1.0, 4.0] if args.quick else sizes),
            "--runs", str(min(args.runs, 3)), "--cases", *args.cases,
            *(["--baseline", args.baseline] if args.baseline else []),
            *(["--redact"] if args.redact else []),
        ])
        return
    if args.quick:
        global REPEAT_SECONDS
        args.sizes, args.runs, REPEAT_SECONDS = [1.0], min(args.runs, 3), 1.0
    tools, versions = available_tools(args.tools)

    def progress(row: Row) -> None:
        print("  " + " | ".join(cells(row)), file=sys.stderr, flush=True)

    rows = run(args.sizes, args.budgets, args.kinds, tools, args.runs, progress)
    if args.gigabyte:
        big = [tool for tool in tools if tool in ("floor", "elision")]
        rows += run([GIGABYTE_MB], [16384], [args.gigabyte], big, min(args.runs, 3), progress)
    print_table(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(rows, versions, args))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
