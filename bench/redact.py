"""Redaction throughput beside the shaper alone and its floor (one orjson parse), in one run.

    .venv/bin/python bench/redact.py                 # 10 KB to 100 MB, 5 rounds each
    .venv/bin/python bench/redact.py --sizes 0.01 0.1 1 10 --rounds 3
    ELISION_REDACT_ENGINE=re .venv/bin/python bench/redact.py   # without hyperscan

Sizes are in MB (0.01 is 10 KB). Below 1 MB each round times enough calls to last about as
long as one call on 1 MB, and reports the time of one.

For each size the corpus is mixed: JSON tool results (records with ordinary URLs, prose,
base64 image blocks, MCP resource lanes, and a sparse sprinkling of signed URLs and keys: a
fake of every one of the families, in turn) and a plain-text log with the same sprinkling.
Every family is always on: the trigger search looks for all their keywords at once. The
JSON comes in two densities, side by side:

* ``realistic``  a few lane records in the whole result (8 inline images, 4 resource uris),
                 as a typical tool result has: a search hit list with a thumbnail or two;
* ``dense``      an inline image every 50 records and a resource uri every 97, so nearly
                 every run of siblings holds both and must be narrowed: the worst case.

Each row gives the median wall time of:

* ``loads``                 the floor: ``orjson.loads`` of the JSON corpus (for the log, of
                            the JSON corpus of the same size); the shaper costs about one parse;
* ``+sha256``               loads plus SHA-256 of the bytes: DESIGN.md's shaper floor;
* ``shape``                 the shaper alone: ``shape()`` of the same body (the log: of the
                            text) at the proxy's default budget of 8 KB, no store;
* ``redact_value(body=)``   what the pipeline calls (it has the raw body, so a clean run of the
                            document skips one serialization);
* ``redact_value``          the same without the body;
* ``redact_text``           the log, as text.

``ratio`` is redaction over loads, ``ratio2`` over loads + SHA-256, ``/shape`` over the shaper
alone, each the median of the per-round ratios (a round times them one right after the other,
so all see the same load). The issue's target is ``/shape`` below 1.0 on 1-100 MB: redaction
adds less than the shaper's own cost. ``ratio`` below 1.0 is the stricter reading (less than
one parse), which the shaper itself never meets.

Then the worst cases ``bench/fuzz_linear.py`` found (issue 23: a run of ``A``, the base64 of
zeros, a line of escapes, lines of ``password=`` assignments, headers, ``login`` words and
unclosed containers under credential names, many tiny strings that each hold a keyword, the
same or each its own, many keys that each hold one, documents 300 levels deep, a base64 run
that repeats a keyword's head mid-run, NDJSON records of 1.8 KB that each hold an ``sk-``), each
beside prose of the same size and kind (``prose()``: the corpus above with no secret and no
lane record, the floor bench/fuzz_linear.py divides by too), in two readings of
"prose of the same size":

* ``redact``  redaction alone (``redact_text``, or ``redact_value`` with its body) over the
              same on prose: on prose that is one hyperscan pass that finds nothing (about
              1 ms a MB), so any input with a candidate to judge is far over it;
* ``shape``   what the proxy and ``elision shape`` pay: ``shape()`` at 4 KB with redaction on
              over the same on prose (a text's shape reads what its budget shows, a JSON
              body is parsed: 3-30 ms a MB).

Each is the median of ``--rounds`` times in a fresh process (``fuzz_linear.measure``; ``x
prose``: the ratio of the medians), with its first call's peak RSS growth plus the input over
the input (``peak``: x the input). The issue's target is 2x prose's time; ``--worst`` picks
the classes (``--worst`` alone: none). With ``--before SRC`` (a checkout's ``src``, say of
``main``), the same worst cases are also run by that code, in a process of its own, and shown
first on each line: prose, the code before, this code.

    .venv/bin/python bench/redact.py --sizes 1 --corpus --before ../main/src   # worst only

With ``--cpu`` the worst cases show each one's median CPU time (``time.process_time`` in its
child) in place of its wall time: on a machine that other work loads, wall time counts the
waits for a core too, and CPU time moves far less from one run to the next.

``--slope`` measures memory only, as the bounded-memory targets state it (JSON 3x the input,
text and NDJSON 1.5x): each worst case at 1, 4 and 16 MB (``--sizes`` to change), through
both targets, each in a fresh process warmed up by a first small call of its class (the
trigger databases built, the modules imported: a fixed cost, the same at any size), then one
call's RSS growth above the input and a second call's ``tracemalloc`` peak. The slope of
each through the sizes (least squares: bytes held a byte of input) is what grows with the
input; ``x in`` is 1 + the RSS slope, beside the bound. With ``--before SRC`` both codes run
each size in turn, and the outputs' digests say whether they agree.

    .venv/bin/python bench/redact.py --slope --before /work/base/src --worst assign-under-limit
"""

from __future__ import annotations

import argparse
import base64
import gc
import hashlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from elision import Budget, shape
from elision.redact import redact_text, redact_value
from elision.redact.families import FAMILIES, sample

#: The shaper alone runs at the proxy's default budget.
BUDGET = Budget(8192)

SECRETS = [
    "https://b.s3.amazonaws.com/o.png?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130"
    "&X-Amz-Signature=0f0e0d0c0b0a09080706050403020100",
    "Authorization: Bearer 0123456789abcdefBENCHtoken",
    "ghp_BENCHonlyNOTaREALtoken0123456789abcd",
    "https://api.example.com/v1/me?access_token=ya29.BENCHonly",
    # A fake of every family of the table, on one line: all families are on.
    *(sample(f, 0, "bench")[0].replace("\n", " ") for f in FAMILIES if f.finder != "field"),
]
WORDS = [
    "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "result", "row", "value",
    "status", "ok", "error", "none", "warning", "partition", "shard", "replica", "latency",
    "p99", "request", "response", "cache", "miss", "hit",
]


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _record(
    rng: random.Random, i: int, secret_every: int, image: bool, resource: bool
) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": i,
        "name": _prose(rng, 4),
        "url": f"https://example.com/items/{i}?page={i % 7}&sort=asc",
        "score": rng.random(),
        "tags": [rng.choice(WORDS) for _ in range(3)],
        "note": _prose(rng, 12),
    }
    if image:
        rec["thumbnail"] = {"type": "image", "mimeType": "image/png",
                            "data": base64.b64encode(rng.randbytes(600)).decode()}
    if resource:
        rec["doc"] = {"type": "resource", "uri": f"https://example.com/docs/{i}.pdf",
                      "mimeType": "application/pdf"}
    if secret_every and i % secret_every == 0:
        rec["note"] += " " + rng.choice(SECRETS)
    return rec


#: Lane records in a whole realistic result, whatever its size.
REALISTIC_IMAGES = 8
REALISTIC_RESOURCES = 4
#: Average record size, to spread the realistic corpus's few lanes over the whole result.
_RECORD_BYTES = 258


def json_corpus(
    size: int, secret_every: int, dense: bool = True, seed: int = 7, lanes: bool = True
) -> bytes:
    """Records of a tool result; ``lanes=False``: no image or resource block among them."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    approx = 0
    i = 0
    records = max(1, size // _RECORD_BYTES)
    image_every = 50 if dense else max(1, records // REALISTIC_IMAGES)
    resource_every = 97 if dense else max(1, records // REALISTIC_RESOURCES)
    while approx < size:
        image = lanes and i % image_every == 0
        rec = _record(rng, i, secret_every, image, lanes and i % resource_every == 0)
        approx += len(orjson.dumps(rec)) + 1
        rows.append(rec)
        i += 1
    doc = {"total": len(rows), "warnings": ["bench corpus"], "rows": rows}
    return orjson.dumps(doc)


def prose(size: int, kind: str) -> str | bytes:
    """Prose of ``size`` bytes, the one floor every "x prose" in bench/ divides by (this
    file's worst rows and bench/fuzz_linear.py's ``prose`` and ``json-prose`` classes alike).

    Text: the log above (timestamps, words, a URL a line) with no secret. JSON: the corpus's
    records with no secret and no lane record. An image or resource block is left out because
    it is no floor: with the realistic 8 thumbnails and 4 resource links in 1 MB, redacting the
    JSON costs 4.5 ms a MB of CPU against 0.9 without them (the image lanes send the body
    through the base64-head pass), so the two harnesses' floors were 3-5.7 and about 1 ms a MB
    and their "x prose" did not compare. Redacting either prose is one trigger search that
    judges next to nothing: about 1 ms a MB.
    """
    if kind == "text":
        return text_corpus(size, 0)
    return json_corpus(size, 0, dense=False, lanes=False)


def text_corpus(size: int, secret_every: int, seed: int = 11) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    approx = 0
    i = 0
    while approx < size:
        line = f"2026-11-30T12:00:{i % 60:02d}Z INFO {_prose(rng, 10)} https://example.com/p/{i}"
        if secret_every and i % secret_every == 0:
            line += " " + rng.choice(SECRETS)
        lines.append(line)
        approx += len(line) + 1
        i += 1
    return "\n".join(lines)


#: Calls per timed round: set from the size, so a 10 KB round is not a timer tick.
_repeat = 1


def _time(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    for _ in range(_repeat):
        fn()
    return (time.perf_counter() - start) / _repeat


def side_by_side(fns: list[Callable[[], object]], rounds: int) -> list[list[float]]:
    """Per round, each of ``fns`` timed once, one right after another: on a shared machine
    the load drifts, and a ratio of two times taken together drifts much less than either."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for fn, got in zip(fns, times, strict=True):
            got.append(_time(fn))
    return times


def measure(mb: float, rounds: int, secret_every: int, corpora: list[str]) -> None:
    global _repeat
    _repeat = max(1, round(1 / mb)) if mb < 1 else 1
    for corpus in corpora:
        _json_rows(mb, rounds, secret_every, corpus)
    # A log has no parse of its own to compare with, so its floor is the parse of a JSON body
    # of the same size: what the shaper would cost on it.
    body = json_corpus(int(mb * 1_000_000), secret_every, dense=False)
    text = text_corpus(int(mb * 1_000_000), secret_every)
    floor, sha, shaper, cost = side_by_side([
        lambda: orjson.loads(body), lambda: hashlib.sha256(body).digest(),
        lambda: shape(text, budget=BUDGET, redactor=None), lambda: redact_text(text),
    ], rounds)
    withheld = len(redact_text(text).withheld)
    _row(mb, "text", floor, sha, shaper, cost, f"redact_text, {withheld} withheld")


def _json_rows(mb: float, rounds: int, secret_every: int, corpus: str) -> None:
    """Time the JSON corpus of one density against its floor (loads, sha256)."""
    body = json_corpus(int(mb * 1_000_000), secret_every, dense=corpus == "dense")
    value = orjson.loads(body)
    withheld = len(redact_value(value, body=body).withheld)
    floor, sha, shaper, with_body, without = side_by_side([
        lambda: orjson.loads(body), lambda: hashlib.sha256(body).digest(),
        lambda: shape(body, budget=BUDGET, redactor=None),
        lambda: redact_value(value, body=body), lambda: redact_value(value),
    ], rounds)
    for what, cost in (("redact_value(body=)", with_body), ("redact_value", without)):
        _row(mb, "json", floor, sha, shaper, cost, f"{corpus}: {what}, {withheld} withheld")


def _row(
    mb: float, kind: str, floor: list[float], sha: list[float], shaper: list[float],
    cost: list[float], what: str,
) -> None:
    """Medians of the times, and the median of the per-round ratios."""
    size = f"{mb * 1000:g}KB" if mb < 1 else f"{mb:g}MB"
    both = [f + s for f, s in zip(floor, sha, strict=True)]
    ratio = statistics.median(c / f for c, f in zip(cost, floor, strict=True))
    ratio2 = statistics.median(c / b for c, b in zip(cost, both, strict=True))
    ratio3 = statistics.median(c / s for c, s in zip(cost, shaper, strict=True))
    print(f"{size:>6} {kind:<5} {_ms(statistics.median(floor))} {_ms(statistics.median(both))} "
          f"{_ms(statistics.median(shaper))} {_ms(statistics.median(cost))} {ratio:>6.2f} "
          f"{ratio2:>6.2f} {ratio3:>6.2f}  {what}", flush=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:>8.3f}ms" if seconds < 1 else f"{seconds:>8.3f}s "


#: The worst inputs ``bench/fuzz_linear.py`` found, by its class names.
WORST = ["run-A", "run-b64-zeros", "pem-one-line", "run-u-escape", "run-pct", "assign-eq",
         "assign-eq-lines", "assign-value", "assign-under-limit", "auth-header-line",
         "login-words",
         "bracket-unclosed", "json-string-A", "json-string-b64-zeros", "json-raw-u-escape",
         "json-strings-sk", "json-strings-sk-numbered", "json-keys-A", "json-deep",
         "run-b64-heads-mid", "run-b64-short-heads", "ndjson-sk-lines", "b64-random-line",
         "b64-random-wrapped"]


def worst_rows(mb: float, rounds: int, names: list[str]) -> dict[str, dict[str, Any]]:
    """Each worst case beside prose of the same size and kind, redacted alone and shaped with
    redaction, each in a process of its own (``fuzz_linear.measure``):
    ``{name: {target: {"prose": …, "case": …}}}``."""
    from fuzz_linear import measure

    size = int(mb * 1_000_000)
    prose = {(kind, target): measure(name, size, target, rounds)
             for kind, name in (("text", "prose"), ("json", "json-prose"))
             for target in ("redact", "shape")}
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        got = {target: measure(name, size, target, rounds) for target in ("redact", "shape")}
        ok = [m for m in got.values() if "len" in m]
        n = ok[0]["len"] if ok else size
        kind = "json" if ok and ok[0]["json"] else "text"
        out[name] = {"n": n}
        for target in ("redact", "shape"):
            out[name][target] = {"prose": prose[(kind, target)], "case": got[target]}
    return out


def print_worst(
    mb: float, now: dict[str, Any], before: dict[str, Any] | None, key: str = "median",
) -> None:
    """The worst rows by ``key``: ``median`` (wall time) or ``cpu`` (the process's CPU time,
    which the other sessions' load on a shared host moves less)."""
    for name, row in now.items():
        n = row["n"]
        cells = []
        for target in ("redact", "shape"):
            base, got = row[target]["prose"], row[target]["case"]
            old = before[name][target]["case"] if before else None
            if any("error" in m for m in (base, got, old) if m is not None):
                cells.append("error: " + "; ".join(
                    m["error"] for m in (base, got, old) if m is not None and "error" in m))
                continue
            cell = f"{_ms(base[key])} {(base['peak'] + n) / n:>6.2f} "
            if old is not None:
                cell += (f"{_ms(old[key])} {old[key] / base[key]:>8.1f} "
                         f"{(old['peak'] + n) / n:>6.2f} ")
            cell += (f"{_ms(got[key])} {got[key] / base[key]:>8.1f} "
                     f"{(got['peak'] + n) / n:>6.2f}")
            cells.append(cell)
        print(f"{_mb(mb):>6} {name:<18} {' | '.join(cells)}", flush=True)


def _before(src: str, mb: float, rounds: int, names: list[str]) -> dict[str, Any]:
    """The worst rows as the code under ``src`` runs them, in a process of its own."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, __file__, "--sizes", str(mb), "--rounds", str(rounds), "--corpus",
         "--json", "--worst", *names], env=env, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def linear_slope(xs: list[int], ys: list[int]) -> tuple[float, float]:
    """Least-squares slope and intercept of ``ys`` over ``xs``: bytes held a byte of input,
    and the bytes held whatever the input (what a line through the sizes meets at zero)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0
    return k, my - k * mx


#: The issue-23 bounded-memory targets, the input included: JSON, and text and NDJSON.
TARGET = {"json": 3.0, "text": 1.5}


def slope_rows(sizes: list[float], names: list[str], before: str | None) -> None:
    """Per class and target, what a warm process holds above the input at each size (RSS of
    the first call, and a second call's ``tracemalloc`` peak), and the slope through the
    sizes: the bytes held a byte of input, which the targets are about; a fixed cost (a
    database built, a module imported) moves the intercept, not the slope. ``before``: the
    same by the code under that ``src/``, each size run by both in turn."""
    from fuzz_linear import MIB, measure_slope

    runs = (("before", before), ("now", None)) if before else (("now", None),)
    head = " ".join(f"{run + ' rss':>10} {'traced':>7}" for run, _ in runs)
    print(f"{'worst case':<26} {'target':<7} {head} {'x in':>6} {'bound':>5}  (slope: bytes held "
          f"a byte of input, {', '.join(_mb(mb) for mb in sizes)}; x in: 1 + the RSS slope; "
          f"load {_load()})", flush=True)
    for name in names:
        for target in ("redact", "shape"):
            got: dict[str, list[dict[str, Any]]] = {run: [] for run, _ in runs}
            for mb in sizes:
                for run, src in runs:
                    got[run].append(measure_slope(name, int(mb * MIB), target, src))
            errors = [m["error"] for ms in got.values() for m in ms if "error" in m]
            if errors:
                print(f"{name:<26} {target:<7} error: {errors[0]}", flush=True)
                continue
            cells = []
            for run, _ in runs:
                lens = [m["len"] for m in got[run]]
                rss = linear_slope(lens, [m["rss"] for m in got[run]])[0]
                traced = linear_slope(lens, [m["traced"] for m in got[run]])[0]
                cells.append(f"{rss:>10.2f} {traced:>7.2f}")
            kind = "json" if got["now"][0]["json"] else "text"
            now = 1 + linear_slope([m["len"] for m in got["now"]],
                                   [m["rss"] for m in got["now"]])[0]
            same = "" if not before else (
                "  same output" if all(a["out"] == b["out"] for a, b in
                                       zip(got["before"], got["now"], strict=True))
                else "  OUTPUT DIFFERS")
            print(f"{name:<26} {target:<7} {' '.join(cells)} {now:>6.2f} {TARGET[kind]:>5.1f}"
                  f"{'' if now <= TARGET[kind] else ' over'}{same}", flush=True)


def _load() -> str:
    from measuring import load

    return load()


def _mb(mb: float) -> str:
    return f"{mb * 1000:g}KB" if mb < 1 else f"{mb:g}MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.01, 0.1, 1, 10, 100],
                        help="MB (0.01 is 10 KB)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--secret-every", type=int, default=2000,
                        help="one secret per this many records / lines (0: none)")
    parser.add_argument("--corpus", nargs="*", choices=["realistic", "dense"],
                        default=["realistic", "dense"],
                        help="JSON lane density (--corpus alone: the worst cases only)")
    parser.add_argument("--worst", nargs="*", default=WORST,
                        help="bench/fuzz_linear.py classes beside prose (none: skip)")
    parser.add_argument("--before", metavar="SRC",
                        help="also run the worst cases with the elision under SRC (its src/)")
    parser.add_argument("--cpu", action="store_true",
                        help="worst cases: the median CPU time of each, not its wall time "
                             "(steadier on a loaded machine)")
    parser.add_argument("--slope", action="store_true",
                        help="worst cases: memory held a byte of input, through --sizes (1 4 16 "
                             "unless given), beside --before's; no times")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # for --before
    args = parser.parse_args()
    if args.slope:
        sizes = args.sizes if "--sizes" in sys.argv else [1, 4, 16]
        slope_rows(sizes, args.worst, args.before)
        return
    from elision.redact.triggers import engine_name

    if args.json:  # the worst rows of one size, as data, for another checkout's run
        import json

        print(json.dumps(worst_rows(args.sizes[0], args.rounds, args.worst)))
        return
    print(f"trigger search: {engine_name()}")
    if args.corpus:
        print(f"{'size':>6} {'kind':<5} {'loads':>10} {'+sha256':>10} {'shape':>10} "
              f"{'redact':>10} {'ratio':>6} {'ratio2':>6} {'/shape':>6}  what")
        for mb in args.sizes:
            measure(mb, args.rounds, args.secret_every, args.corpus)
    if args.worst:
        runs = ("before", "now") if args.before else ("now",)
        half = " ".join(f"{run:>10} {'x prose':>8} {'peak':>6}" for run in runs)
        halves = [f"{'prose':>10} {'peak':>6} {half}" for _ in ("redact", "shape")]
        print(f"\n{'size':>6} {'worst case':<18} {' | '.join(halves)}")
        from measuring import load

        what = "CPU" if args.cpu else "wall"
        print(f"{'':25} redaction alone{'':47} | shape() with redaction at 4 KB"
              f"   (median {what} times; peak: x the input; load {load()})")
        for mb in args.sizes:
            before = _before(args.before, mb, args.rounds, args.worst) if args.before else None
            print_worst(mb, worst_rows(mb, args.rounds, args.worst), before,
                        "cpu" if args.cpu else "median")


if __name__ == "__main__":
    main()
