"""How far a text's redaction is from the least any redactor could do with the same verdicts.

    .venv/bin/python bench/floor.py                        # the dense classes at 1 MB
    .venv/bin/python bench/floor.py --classes assign-under-limit prose --sizes 0.25 1

Issue 23 asks that no body cost more than twice prose of the same size. A text with a
credential on every line is a body where that cannot hold while the contract holds (one
``withheld`` entry a value, each value replaced by its stub in the text): whatever judges the
values, a redactor must at least cut the text at each value, put a stub there, join the pieces
and make one entry a value. This measures that least, **the floor**, beside prose and beside
elision, each in a process of its own, on the same inputs as ``bench/fuzz_linear.py``:

- ``prose``: ``redact_text`` of prose of the same size (the floor every "x prose" divides by);
- ``floor``: the text's withheld count ``N`` is read first (one ``redact_text`` call, not
  timed), with ``N`` cut points spread over the text; timed: ``N + 1`` slices, ``N`` stubs,
  one ``join``, ``N`` entry dicts. No search, no judging: a lower bound on any redactor's work
  for that output, in CPython;
- ``compact``: the same floor with the entries held as the pipeline now holds a text's
  (:class:`elision.withheld.LineEntries`' layout): a line number in an ``array('I')`` and a
  reason's index in an ``array('B')`` a value, no dict;
- ``redact``: ``redact_text`` of the class (what ``bench/fuzz_linear.py`` times).

CPU medians of ``--runs`` calls; peak is the first call's high-water mark over the input's
(Linux ``clear_refs``, as ``fuzz_linear`` measures it), over the input's size.

A JSON class (``json-pairs``: a Kubernetes env of credential pairs) whose entries are each an
array element or a member of one (``$[i]``, ``$[i].value``) has a floor of the same kind: its
parsed value's ``N`` withheld places read first (one ``redact_value`` call, not timed); timed:
a copy of the array, ``N`` copies of the records with the value made a stub, ``N`` entry
dicts (``compact``: :class:`elision.withheld.PathEntries`' numbers). Its "x prose" divides by
``json-prose``'s ``redact_value``, as ``bench/redact.py``'s worst rows do.

A class with nothing withheld (``url-token-closers``) has no floor of that kind, but its
candidates have one: ``reports`` is one hyperscan pass of elision's own trigger literals over
the text's bytes with a Python handler that only counts (no density, no judging): the least
any judge pays that is told of each candidate in Python (hyperscan only; a class of many
candidates and nothing withheld is printed with it).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import re
import statistics
import sys
import time
from array import array
from pathlib import Path
from typing import Any

import fuzz_linear
from measuring import child_result, load

STUB = "[credential withheld: credential-assignment]"
#: The classes that are one withheld entry a value. A class withheld whole (``assign-value``,
#: ``login-words``: one entry) has no floor of this kind: its row says so; one with nothing
#: withheld (``url-token-closers``) is given its candidates' floor instead.
DENSE = ["assign-under-limit", "json-pairs"]
#: A withheld place a JSON floor can copy: an array element, or a member of one.
_PLACE = re.compile(r"\$\[(\d+)\](?:\.([A-Za-z_][A-Za-z0-9_]*))?\Z")


def _floor_child(name: str, size: int, runs: int, form: str = "dicts") -> dict[str, Any]:
    """The floor for class ``name`` at ``size``, measured in this fresh process, with the
    entries as dicts or (``form="compact"``) as numbers in arrays."""
    from elision.redact import redact_text

    payload = fuzz_linear._classes(0)[name].make(size)
    if not isinstance(payload, str):
        return _json_floor_child(payload, runs, form)
    entries = len(redact_text(payload).withheld)
    if not entries:
        return _reports_child(payload, runs)
    step = len(payload) // (entries + 1) if entries else len(payload)
    cuts = [step * (i + 1) for i in range(entries)]

    def floor() -> tuple[str, list[dict[str, Any]]]:
        pieces: list[str] = []
        withheld: list[dict[str, Any]] = []
        start = 0
        for line, cut in enumerate(cuts, 1):
            pieces.append(payload[start:cut])
            pieces.append(STUB)
            withheld.append({"line": line, "reason": "credential-assignment"})
            start = cut
        pieces.append(payload[start:])
        return "".join(pieces), withheld

    def compact() -> tuple[str, tuple[array[int], array[int]]]:
        pieces: list[str] = []
        lines, reasons = array("I"), array("B")
        start = 0
        for line, cut in enumerate(cuts, 1):
            pieces.append(payload[start:cut])
            pieces.append(STUB)
            lines.append(line)
            reasons.append(0)  # the index of "credential-assignment" in a table of reasons
            start = cut
        pieces.append(payload[start:])
        return "".join(pieces), (lines, reasons)

    made: Any = compact if form == "compact" else floor
    return _timed(made, runs) | {"len": len(payload.encode()), "entries": entries}


def _json_floor_child(payload: bytes, runs: int, form: str) -> dict[str, Any]:
    """The floor of a JSON class whose entries are array elements or members of them."""
    from elision.redact import redact_value
    from elision.shape.jsonparse import parse_json
    from elision.withheld import PathEntries

    value = parse_json(payload)
    places: list[tuple[int, str | None, str]] = []
    for entry in redact_value(value, body=payload).withheld:
        place = _PLACE.match(str(entry.get("path", "")))
        if not isinstance(value, list) or place is None:
            return {"error": "JSON: only entries of an array's elements have a floor here"}
        places.append((int(place[1]), place[2], str(entry["reason"])))

    def floor() -> tuple[list[Any], Any]:
        out = list(value)
        withheld: Any = PathEntries() if form == "compact" else []
        for index, key, reason in places:
            out[index] = STUB if key is None else {**value[index], key: STUB}
            if form == "compact":
                withheld.add("$", index, reason, "" if key is None else "." + key)
            else:
                path = f"$[{index}]" if key is None else f"$[{index}].{key}"
                withheld.append({"path": path, "reason": reason})
        return out, withheld

    return _timed(floor, runs) | {"len": len(payload), "entries": len(places), "json": True}


def _timed(made: Any, runs: int) -> dict[str, Any]:
    """``made()``'s median CPU time over ``runs`` calls, and the first call's peak (bytes)."""
    made()  # warm
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    try:
        Path("/proc/self/clear_refs").write_text("5")
        base = fuzz_linear._status_kb("VmRSS")
    except OSError:
        base = 0
    cpu: list[float] = []
    peak = 0
    for _ in range(runs):
        start = time.process_time()
        made()
        cpu.append(time.process_time() - start)
        if not peak:
            with contextlib.suppress(OSError):
                peak = fuzz_linear._status_kb("VmHWM") - base
    return {"cpu": statistics.median(cpu), "peak": max(0, peak) * 1024}


def _reports_child(payload: str, runs: int) -> dict[str, Any]:
    """The candidates' floor of ``payload``: a hyperscan pass of the trigger literals, each
    match reported to a Python handler that counts it."""
    from elision.redact import triggers

    engine = triggers.engine()
    if triggers.engine_name() != "hyperscan":
        return {"len": len(payload.encode()), "entries": 0, "reports": None}
    db = engine.text_literals
    scratch = engine.hs.Scratch(db)
    data = payload.encode()
    count = 0

    def report(expr: int, start: int, end: int, flags: int, ctx: object) -> None:
        nonlocal count
        count += 1

    db.scan(data, match_event_handler=report, scratch=scratch)  # warm
    reports, count = count, 0
    cpu: list[float] = []
    for _ in range(runs):
        start = time.process_time()
        db.scan(data, match_event_handler=report, scratch=scratch)
        cpu.append(time.process_time() - start)
    return {"len": len(data), "entries": 0, "reports": reports, "cpu": statistics.median(cpu)}


def _floor(name: str, size: int, runs: int, form: str = "dicts") -> dict[str, Any]:
    return child_result(
        [sys.executable, __file__, "--child", name, str(size), str(runs), form],
        timeout=fuzz_linear.TIMEOUT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--classes", nargs="+", default=DENSE,
                        help="text classes of bench/fuzz_linear.py")
    parser.add_argument("--sizes", type=float, nargs="+", default=[1.0], help="MiB")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        name, size, runs, form = args.child
        print(json.dumps(_floor_child(name, int(size), int(runs), form)))
        return
    fuzz_linear.warm_up()
    print(f"load {load()}; CPU medians of {args.runs}; peak over the input")
    print(f"{'size':>6} {'class':<22} {'entries':>8} {'prose':>9} {'floor':>9} "
          f"{'redact':>9} {'floor/prose':>11} {'redact/prose':>12} {'redact/floor':>12} "
          f"{'floor peak':>10} {'redact peak':>11} {'compact':>9} {'compact/prose':>13} "
          f"{'compact peak':>12}")
    for mb in args.sizes:
        size = int(mb * fuzz_linear.MIB)
        proses = {kind: fuzz_linear.measure(kind, size, "redact", args.runs)
                  for kind in ("prose", "json-prose")}
        for name in args.classes:
            low = _floor(name, size, args.runs)
            least = _floor(name, size, args.runs, "compact")
            got = fuzz_linear.measure(name, size, "redact", args.runs)
            prose = proses["json-prose" if low.get("json") else "prose"]
            bad = [m["error"] for m in (prose, low, least, got) if "error" in m]
            if bad:
                print(f"{mb:>5g}M {name:<22} error: {'; '.join(bad)}")
                continue
            n = low["len"]
            if not low["entries"]:
                if low.get("reports"):
                    print(f"{mb:>5g}M {name:<22} nothing withheld; {low['reports']:,} "
                          f"candidates reported to Python {low['cpu'] * 1e3:.2f}ms "
                          f"({low['cpu'] / prose['cpu']:.1f}x prose), redact "
                          f"{got['cpu'] * 1e3:.2f}ms ({got['cpu'] / prose['cpu']:.1f}x prose, "
                          f"{got['cpu'] / low['cpu']:.1f}x the reports)", flush=True)
                    continue
                print(f"{mb:>5g}M {name:<22} nothing withheld: no floor of this kind "
                      f"(redact {got['cpu'] / prose['cpu']:.1f}x prose)")
                continue
            print(f"{mb:>5g}M {name:<22} {low['entries']:>8,} {prose['cpu'] * 1e3:>7.2f}ms "
                  f"{low['cpu'] * 1e3:>7.2f}ms {got['cpu'] * 1e3:>7.2f}ms "
                  f"{low['cpu'] / prose['cpu']:>10.1f}x {got['cpu'] / prose['cpu']:>11.1f}x "
                  f"{got['cpu'] / low['cpu']:>11.1f}x {(low['peak'] + n) / n:>9.2f}x "
                  f"{(got['peak'] + n) / n:>10.2f}x {least['cpu'] * 1e3:>7.2f}ms "
                  f"{least['cpu'] / prose['cpu']:>12.1f}x {(least['peak'] + n) / n:>11.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
