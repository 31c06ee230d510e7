"""Hostile shapes for the shaper, side by side: this code, the code before, and the floor.

    .venv/bin/python bench/shape.py --hostile [--baseline SRC] [--sizes 1 4 16] [--redact]
    .venv/bin/python bench/hostile.py [--baseline SRC] [--cases json-one-string ...]

Make the baseline from a commit with ``git archive <commit> src | tar -x -C /tmp/base`` and pass
``--baseline /tmp/base/src``. Each case is a body that is legal and plausible but far from the
corpus's records (bench/corpus.py): one long line of text, or a few; a JSON document that is
one big string (or a few, or one full of escapes, as a file's content is sent); a record
array (of objects, or of arrays) or NDJSON stream of documents nested 300 levels (past
orjson's 255); one document nested to its size (``[[[[…]]]]``, past the parser's 10,000
levels: refused as JSON, so shaped as text, and timed against the text floor). Each is shaped at
4 KB by each code in a process of its own (``--child``) that imports it, warms it up, reads
the body, then resets its high-water mark (Linux ``clear_refs``): its peak is what shaping
costs above the body, given as (that + the body) / the body, as bench/shape.py gives it (the
issue-23 targets: JSON at most 3x, text and NDJSON 1.5x), and its time is the median of
``--runs`` over the floor's (SHA-256 and a UTF-8 decode for text, one orjson parse for JSON,
one per line for NDJSON; target 2x). The shaper runs alone (``redactor=None``), as
bench/shape.py runs it; ``--redact`` adds rows with redaction on, what ``elision shape`` runs
(its costs are bench/redact.py's). The two codes' outputs are hashed and must agree
(``DIFFERS`` says they do not). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from measuring import child_result, load

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
OUT = HERE / "out" / "hostile"
MIB = 1 << 20
BUDGET = 4096
#: Either side of the lazy read's 4 MiB threshold, and well past it.
SIZES = (1.0, 4.0, 16.0)
WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "result", "status",
         "ok", "error", "partition", "shard", "replica", "latency", "request", "cache")


def _prose(size: int, sep: str) -> str:
    rng = random.Random(23)
    words = [rng.choice(WORDS) for _ in range(size // 4 + 16)]
    return sep.join(words)[:size]


def _lines(size: int, count: int) -> bytes:
    return "\n".join(_prose(size // count, " ") for _ in range(count)).encode() + b"\n"


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


_DEEP = b'{"k":' * 300 + b'"x"' + b"}" * 300
_LISTS = b"[" * 300 + b"1" + b"]" * 300
_ESCAPED = (b'{"/\\u001f":' * 96 + _dumps({f"/\x1f{i}": [i, "x"] for i in range(100)})
            + b"}" * 96)


CASES: dict[str, tuple[str, Callable[[int], bytes]]] = {
    "text-one-line": ("text", lambda n: _prose(n, " ").encode()),
    "text-four-lines": ("text", lambda n: _lines(n, 4)),
    "json-one-string": ("json", lambda n: _dumps({"note": _prose(n, " ")})),
    "json-three-strings": ("json", lambda n: _dumps(
        {"a": _prose(n // 3, " "), "b": _prose(n // 3, " "), "c": _prose(n // 3, " ")})),
    "json-escaped-string": ("json", lambda n: _dumps({"content": _prose(n, "\n")})),
    "json-deep-array": ("json", lambda n: b"[" + b",".join([_DEEP] * max(1, n // 1807)) + b"]"),
    "json-deep-lists": ("json", lambda n: b"[" + b",".join([_LISTS] * max(1, n // 602)) + b"]"),
    # Nested to its size, past the 10,000 levels the parser reads: refused as JSON, so text.
    "json-deep-one": ("text", lambda n: b"[" * (n // 2) + b"]" * (n // 2)),
    "ndjson-deep": ("ndjson", lambda n: b"\n".join([_DEEP] * max(1, n // 1807)) + b"\n"),
    # 96 levels of objects keyed by an escape and a control char around 100 members (drawn by
    # bench/fuzz_linear.py --drawn-json): with --redact, 13x prose's shape() and 5.6x its bytes.
    "json-deep-escaped-keys": ("json", lambda n: b"[" + b",".join([_ESCAPED] * max(
        1, n // (len(_ESCAPED) + 1))) + b"]"),
}


def ensure(case: str, megabytes: float) -> Path:
    """The cached body for ``case`` at ``megabytes`` (made on first use)."""
    path = OUT / f"{case}-{megabytes:g}mb.bin"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        path.write_bytes(CASES[case][1](int(megabytes * MIB)))
    return path


# --- the child: one code, one body -------------------------------------------------------------


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise OSError(f"no {field} in /proc/self/status")


def _floor(fmt: str) -> Callable[[bytes], str]:
    from shape import _floor as floor_of  # bench/shape.py's floor, the same one

    floor = floor_of(fmt)
    return lambda body: floor(body, BUDGET)[0]


def _shaper(redact: bool) -> Callable[[bytes], str]:
    import elision

    def shaped(body: bytes) -> str:
        if redact:
            return elision.shape(body, elision.Budget(BUDGET)).text
        return elision.shape(body, elision.Budget(BUDGET), redactor=None).text

    for _, make in CASES.values():  # import and build what shaping each case needs, now
        shaped(make(64 << 10))
    return shaped


def child(src: str, body_file: str, fmt: str, what: str, runs: int) -> None:
    sys.path.insert(0, src)
    call = _floor(fmt) if what == "floor" else _shaper(what == "redact")
    body = Path(body_file).read_bytes()
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # what warming up freed is not reused unseen
    Path("/proc/self/clear_refs").write_text("5")
    base = _status_kb("VmRSS")
    start = time.perf_counter()
    out = call(body)
    times = [time.perf_counter() - start]
    peak = (_status_kb("VmHWM") - base) * 1024
    while len(times) < runs:
        start = time.perf_counter()
        call(body)
        times.append(time.perf_counter() - start)
    print(json.dumps({
        "ms": statistics.median(times) * 1000, "peak_mb": peak / MIB,
        "peak_x": (peak + len(body)) / len(body),
        "out": hashlib.sha256(out.encode()).hexdigest()[:12],
    }))


# --- the driver --------------------------------------------------------------------------------


def measure(src: Path, body_file: Path, fmt: str, what: str, runs: int) -> dict[str, Any]:
    return child_result([sys.executable, __file__, "--child", str(src), str(body_file), fmt,
                         what, str(runs)], timeout=1800)


def run(sizes: list[float], cases: list[str], baseline: str | None, runs: int,
        redact: bool) -> list[str]:
    codes = [("this", SRC)] + ([("before", Path(baseline))] if baseline else [])
    modes = ["alone", "redact"] if redact else ["alone"]
    lines = [f"load average before: {load()}",
             f"{'case':<20} {'MB':>5} {'code':<7} {'mode':<6} | {'median ms':>9} "
             f"{'x floor':>7} | {'peak MB':>8} {'peak x in':>9} | out"]
    print("\n".join(lines), flush=True)
    for mb in sizes:
        for case in cases:
            fmt = CASES[case][0]
            path = ensure(case, mb)
            floor = measure(SRC, path, fmt, "floor", runs)
            row = (f"{case:<20} {mb:>5g} {'floor':<7} {'-':<6} | {floor.get('ms', 0):>9.1f} "
                   f"{'1.00':>7} | {floor.get('peak_mb', 0):>8.1f} "
                   f"{floor.get('peak_x', 0):>8.2f}x |")
            lines.append(row)
            print(row, flush=True)
            for mode in modes:
                outs = set()
                for name, src in codes:
                    got = measure(src, path, fmt, mode, runs)
                    where = f"{case:<20} {mb:>5g} {name:<7} {mode:<6} |"
                    if "error" in got:
                        row = f"{where} error: {got['error']}"
                    else:
                        outs.add(got["out"])
                        same = "" if len(outs) == 1 else " DIFFERS"
                        ratio = got["ms"] / floor["ms"] if floor.get("ms") else float("nan")
                        row = (f"{where} {got['ms']:>9.1f} {ratio:>7.2f} | "
                               f"{got['peak_mb']:>8.1f} {got['peak_x']:>8.2f}x | "
                               f"{got['out']}{same}")
                    lines.append(row)
                    print(row, flush=True)
    lines.append(f"load average after: {load()}")
    print(lines[-1], flush=True)
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", metavar="SRC", default=None,
                        help="another copy of src/ to measure beside this one")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--redact", action="store_true",
                        help="also shape with redaction on (what `elision shape` runs)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        src, body_file, fmt, what, runs = argv[1:6]
        child(src, body_file, fmt, what, int(runs))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=list(SIZES), metavar="MB")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement")
    add_arguments(parser)
    args = parser.parse_args(argv)
    lines = run(args.sizes, args.cases, args.baseline, args.runs, args.redact)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "hostile.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
