"""Grow hostile inputs on the paths beside redaction and shaping, and flag costs that grow faster.

    .venv/bin/python bench/fuzz_paths.py                       # every family, 64 KB to 1 MB
    .venv/bin/python bench/fuzz_paths.py --families tokens govern --sizes 0.0625 0.25 1

``bench/fuzz_linear.py`` grows inputs through ``redact_*`` and ``shape``; these are the paths
it does not drive, each with a floor of prose through the same path:

* ``tokens``: the offline token counter (``tokens.default_counter``) on one long pre-token (a
  word of letters, a run of punctuation, of spaces, of CJK), and ``shape`` at a budget in tokens
  of lines of such words (a token budget counts candidate outputs up to 8x the budget);
* ``page``: ``store.fetch.shape_page`` of a body already read, 16 KB pages near its end
  (``lines=``, ``bytes=``, ``$[i:]``, a member range of a dense object);
* ``govern``: the proxy's per-message gate (``mcp.gate.egress.Egress.gate_bytes``, called on
  every message an upstream sends) on ``_meta`` of many keys, content blocks with
  ``annotations`` (alike, or each its own text), a notification's long message, and an error
  whose ``data`` is long, escaped or deep;
* ``audit``: the JCS bytes of an entry (``audit.jcs.canonical``) as its members grow, the
  verifier's hash of one (``audit.verify.recompute_hash``), and an append to a growing log
  (``AuditLog.append``; the size is the entries before it, a KB each);
* ``envelope``: ``shape`` of JSON holding many distinct credentials, each a withheld entry.

Each family and size is timed in this process (``--runs`` calls, median CPU time; a fresh
input for each call, so no cache answers a later one), with the peak (``tracemalloc``) of one
call at the largest size over the input. The table gives the growth exponent of the CPU time
(1.0 is linear), the time at the largest size over the family's prose floor, and the peak.
The exit status is 1 when an exponent is over ``--limit``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import itertools
import json
import random
import statistics
import string
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from fuzz_linear import MIB, _prose, slope
from measuring import load

#: A class: ``make(size, run)`` gives a call whose cost is measured, and the input's bytes.
Make = Callable[[int, int], tuple[Callable[[], object], int]]


def _counted(text_of: Callable[[int, int], str]) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision.tokens import default_counter

        counter, text = default_counter(), text_of(size, run)
        return lambda: counter.count(text), len(text.encode())

    return make


def _word(unit: str) -> Callable[[int, int], str]:
    # A fresh first char each run: the counter's cache of pieces answers no later run.
    return lambda size, run: string.ascii_lowercase[run % 26] + unit * (size // len(unit.encode()))


def _letters(n: int) -> str:
    out = ""
    while True:
        n, at = divmod(n, 26)
        out += string.ascii_lowercase[at]
        if not n:
            return out


def _shaped_tokens(unit: str, width: int) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision import Budget, shape

        line = unit * (width // len(unit))
        # Each line's word its own (letters before it, not digits, which split a piece off),
        # so no cache of pieces answers for another line.
        text = "\n".join(f"{_letters(run * 100_000 + i)}{line}"
                         for i in range(max(1, size // (width + 8))))
        return lambda: shape(text, Budget(4096, "tokens")), len(text.encode())

    return make


def _paged(body_of: Callable[[int], bytes], fmt: str, **selector_of: Callable[[int], str]) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision import Budget
        from elision.store.fetch import shape_page

        body = body_of(size)
        sha = hashlib.sha256(body).hexdigest()
        ref = f"el_fuzzPaths{next(_REFS):016d}"  # a page's view is kept by its ref
        chosen = {name: of(len(body)) for name, of in selector_of.items()}
        return (lambda: shape_page(body, ref=ref, sha256=sha, format=fmt,
                                   budget=Budget(16384), **chosen)), len(body)

    return make


_REFS = itertools.count()


def _records(size: int) -> bytes:
    return orjson.dumps([{"id": i, "note": "ok fine"} for i in range(size // 28)])


def _dense(size: int) -> bytes:
    return orjson.dumps({f"k{i:09d}": 0 for i in range(size // 15)})  # 15 bytes a member


def _gated(message_of: Callable[[int, int], dict[str, Any]]) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision.mcp.gate.egress import Egress

        # The standard library's writer: orjson stops at 255 levels, an upstream need not.
        raw = json.dumps(message_of(size, run), separators=(",", ":")).encode()
        gate = Egress(keep=lambda body, scope: "el_fuzzPathsKept0000000000")
        return lambda: gate.gate_bytes(raw), len(raw)

    return make


def _result_prose(size: int, run: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": run, "result": {"content": [{"type": "text",
                                                                 "text": _prose(size)}]}}


def _meta_keys(size: int, run: int) -> dict[str, Any]:
    meta = {f"com.example/k{i}": "v" for i in range(size // 22)}
    return {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "ok", "_meta": meta}}


def _annotated(size: int, run: int) -> dict[str, Any]:
    block = {"type": "text", "text": "ok",
             "annotations": {"audience": ["user", "assistant"], "priority": 0.5}}
    return {"jsonrpc": "2.0", "id": run, "result": {"content": [block] * (size // 84)}}


def _annotated_distinct(size: int, run: int) -> dict[str, Any]:
    """As :func:`_annotated`, each block's text its own: no two seams alike."""
    return {"jsonrpc": "2.0", "id": run, "result": {"content": [
        {"type": "text", "text": f"ok {i}",
         "annotations": {"audience": ["user", "assistant"], "priority": 0.5}}
        for i in range(size // 90)]}}


def _progress(size: int, run: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": run, "progress": 1, "message": _prose(size)}}


def _error_data(data_of: Callable[[int], Any]) -> Callable[[int, int], dict[str, Any]]:
    return lambda size, run: {"jsonrpc": "2.0", "id": run,
                              "error": {"code": -32000, "message": "failed", "data": data_of(size)}}


def _deep(size: int) -> list[Any]:
    one: Any = "x"
    for _ in range(300):
        one = [one]
    return [one] * max(1, size // 602)


def _canonical(entry_of: Callable[[int], dict[str, Any]]) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision.audit.jcs import canonical

        entry = entry_of(size)
        return lambda: canonical(entry), len(str(entry))  # orjson stops at 255 levels

    return make


def _verified(entry_of: Callable[[int], dict[str, Any]]) -> Make:
    def make(size: int, run: int) -> tuple[Callable[[], object], int]:
        from elision.audit.verify import recompute_hash

        entry = {"entry_id": "1", **entry_of(size), "previous_hash": None}
        return lambda: recompute_hash(entry), len(str(entry))

    return make


def _entry_floats(size: int) -> dict[str, Any]:
    # Halves: orjson and repr both write them as JCS does.
    return {"step_id": "s", "values": [i + 0.5 for i in range(size // 8)]}


def _entry_whole_floats(size: int) -> dict[str, Any]:
    # Integral floats: orjson writes 1.0 where JCS writes 1, so each is spelled on its own.
    return {"step_id": "s", "values": [float(i) for i in range(size // 8)]}


def _entry_long(size: int) -> dict[str, Any]:
    return {"step_id": "s", "tool": "t" * size}


def _entry_deep(size: int) -> dict[str, Any]:
    return {"step_id": "s", "args": _deep(size)}


def _appended(size: int, run: int) -> tuple[Callable[[], object], int]:
    from elision.audit.chain import tool_result_entry
    from elision.audit.log import AuditLog

    folder = Path(tempfile.mkdtemp(prefix="fuzz-paths-"))
    log = AuditLog(folder / "audit.db")
    digest = "0" * 64

    def entry(i: int) -> dict[str, Any]:
        return tool_result_entry(step_id=f"s{i}", tool="search", full_sha256=digest,
                                 full_bytes=i, shown_sha256=digest, shown_bytes=i,
                                 complete=True, decision="allow", server="demo")

    for i in range(size // 1024):  # one entry a KB of the size
        log.append(entry(i))
    return (lambda: [log.append(entry(size + i)) for i in range(20)]), size


def _withheld(size: int, run: int) -> tuple[Callable[[], object], int]:
    from elision import Budget, shape

    rng = random.Random(run)
    alnum = string.ascii_letters + string.digits
    tokens = ["ghp_" + "".join(rng.choice(alnum) for _ in range(36)) for _ in range(size // 43)]
    body = orjson.dumps(tokens)
    return lambda: shape(body, Budget(4096)), len(body)


def _shaped_prose(size: int, run: int) -> tuple[Callable[[], object], int]:
    from elision import Budget, shape

    text = f"{run} " + _prose(size)
    return lambda: shape(text, Budget(4096)), len(text.encode())


FAMILIES: dict[str, dict[str, Make]] = {
    "tokens": {
        "prose": _counted(lambda size, run: f"{run} " + _prose(size)),
        "word-lower": _counted(_word("lorem")),
        "word-cjk": _counted(_word("中")),
        "punct-run": _counted(_word("!")),
        "space-run": _counted(lambda size, run: " " * size + string.ascii_lowercase[run % 26]),
        "slash-newlines": _counted(_word("!/\n")),
        "shape-prose": _shaped_prose,
        "shape-word-lines": _shaped_tokens("lorem", 4000),
    },
    "page": {
        "prose": lambda size, run: _paged(lambda n: _prose(n).encode(), "text",
                                          lines=lambda n: "1-")(size, run),
        "lines-end": _paged(lambda n: _prose(n).encode(), "text",
                            lines=lambda n: f"{n // 80}-"),
        "bytes-end": _paged(lambda n: _prose(n).encode(), "text",
                            byte_range=lambda n: f"{max(0, n - 20000)}-"),
        "slice-end": _paged(_records, "json", path=lambda n: f"$[{max(0, n // 28 - 400)}:]"),
        "member-range-end": _paged(_dense, "json",
                                   path=lambda n: f"$['k{max(0, n // 15 - 400):09d}':]"),
    },
    "govern": {
        "prose": _gated(_result_prose),
        "meta-keys": _gated(_meta_keys),
        "annotations": _gated(_annotated),
        "annotations-distinct": _gated(_annotated_distinct),
        "progress-message": _gated(_progress),
        "error-data-prose": _gated(_error_data(lambda n: _prose(n))),
        "error-data-controls": _gated(_error_data(lambda n: "\x01\x02\\\"" * (n // 4))),
        "error-data-deep": _gated(_error_data(_deep)),
    },
    "audit": {
        "prose": _canonical(lambda n: {"step_id": "s", "note": _prose(n)}),
        "canonical-floats": _canonical(_entry_floats),
        "canonical-whole-floats": _canonical(_entry_whole_floats),
        "canonical-long-tool": _canonical(_entry_long),
        "canonical-deep": _canonical(_entry_deep),
        "verify-floats": _verified(_entry_floats),
        "verify-whole-floats": _verified(_entry_whole_floats),
        "append-to-log": _appended,
    },
    "envelope": {
        "prose": _shaped_prose,
        "many-withheld": _withheld,
    },
}


def measure(make: Make, size: int, runs: int) -> float:
    times = []
    for run in range(runs):
        call, _ = make(size, run + 1)
        gc.collect()
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times)


def peak(make: Make, size: int) -> float:
    call, length = make(size, 99)
    tracemalloc.start()
    try:
        call()
        most = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (most + length) / length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.0625, 0.25, 1])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--families", nargs="+", choices=sorted(FAMILIES), default=sorted(FAMILIES))
    parser.add_argument("--classes", nargs="+", help="only these (each family's prose always)")
    parser.add_argument("--limit", type=float, default=1.3)
    args = parser.parse_args()
    sizes = [int(mb * MIB) for mb in args.sizes]
    print(f"sizes: {', '.join(f'{s / MIB:g} MB' for s in sizes)}; median CPU of {args.runs}; "
          f"load {load()}", flush=True)
    print(f"{'family':<9} {'class':<20} {'time exp':>8} {'s @max':>9} {'x prose':>8} "
          f"{'peak x in':>9}  verdict", flush=True)
    flagged = 0
    for family in args.families:
        floor = 0.0
        for name, make in FAMILIES[family].items():
            if args.classes and name != "prose" and name not in args.classes:
                continue
            make(1 << 12, 0)[0]()  # warm: imports, databases, caches of what is not input
            costs = [measure(make, size, args.runs) for size in sizes]
            if name == "prose":
                floor = costs[-1]
            exponent = slope(sizes, costs)
            bad = exponent > args.limit
            flagged += bad
            print(f"{family:<9} {name:<20} {exponent:>8.2f} {costs[-1]:>9.3f} "
                  f"{costs[-1] / floor if floor else float('nan'):>8.1f} "
                  f"{peak(make, sizes[-1]):>9.2f}  {'time super-linear' if bad else 'ok'}",
                  flush=True)
    print(f"{flagged} class(es) flagged" if flagged else "no class flagged", flush=True)
    sys.exit(1 if flagged else 0)


if __name__ == "__main__":
    main()
