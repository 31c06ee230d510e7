"""Fetching pages of a big kept JSON body, side by side: this code, the code before, the floor.

    .venv/bin/python bench/fetch.py [--sizes 100] [--kind ledger] [--baseline SRC] [--runs 3]

Make the baseline from a commit with ``git archive <commit> src | tar -x -C /tmp/base`` and pass
``--baseline /tmp/base/src``. For each corpus body (bench/corpus.py, a ledger unless
``--kind``) the body is kept in a fresh ``SQLiteStore`` and each selector below is fetched
through ``SQLiteStore.fetch`` at a 16 KB budget, by each code in a process of its own
(``--child``), which imports it, keeps the body, drops it, then resets its high-water mark
(Linux ``clear_refs``) before the first fetch: the peak is what one page costs, the body it
reads included, reported as MB and as that / the body (the floor is the read alone,
``SQLiteStore.read``). Time is the median of ``--runs`` fetches of the same page (the first one
included: a body over 64 MiB was never kept parsed between pages). ``page`` rows measure the
same page cut from a body already read (``shape_page``, what fetch.py does after the read), as
bench/shape.py measures shaping: (peak + the body) / the body, so the read's own copies, which
are the store's, do not hide what the page costs. Every page's bytes are hashed, and the two
codes' pages (or errors) must be the same: a row that differs is marked ``DIFFERS``. The load
average is printed before and after, since on a shared machine the times move with it.

``--view-pages`` measures instead the later ``bytes=`` pages of a kept view of a 1 MB body
with a token in it (``["sk-", …]``, an array of 300-deep documents; ``--view-mb`` to change
the size): its first page (``bytes=0-``) redacts it and keeps the view, then each later page
(``bytes=k-``, k spread over the view) is timed in CPU time (median of ``--runs`` rounds; wall
time beside it) and its tracemalloc peak taken, ÷ the body; then a 16 KB page near the start
(``bytes=1000-17383``), which need not write the rest of the view.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from measuring import child_result, load

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
REF = "el_benchFetchPages00000000"
WARM_REF = "el_benchFetchWarmUp00000000"
BUDGET = 16384
#: What a model pages through: the envelope's next, a middle page, the last row, a nested
#: caveat, the whole document, a path that is not there, and no selector (the original whole).
NO_SELECTOR = "(none)"
SELECTORS = {
    "ledger": ("$.rows[7:]", "$.rows[100:200]", "$.rows[-1]", "$.warnings", "$", "$.missing",
               NO_SELECTOR),
    # A dense object of millions of keys: its first key, its last, one it does not have.
    "keys": ("$.k000000005", "$.coverage_note", "$.k999999999", "$"),
    "deep": ("$.document.body.chapters[3:]", "$.coverage", "$"),
}
MODES = ("fetch", "page", "shown")
#: A made-up GitHub token (it matches the redaction's rule), for the shown view's mode.
TOKEN = b"ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"
MIB = 1 << 20
#: The kept views --view-pages pages through (see the module docstring).
VIEW_BODIES = ("sk-strings", "deep-documents")
NEAR = "1000-17383"


# --- the child: one code, one body, one selector -----------------------------------------------


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no {field} in /proc/self/status")


def child(src: str, corpus_file: str, selector: str | None, mode: str, runs: int,
          workdir: str) -> None:
    sys.path.insert(0, src)
    from elision.budget import Budget
    from elision.store import SQLiteStore
    from elision.store.fetch import shape_page

    store = SQLiteStore(Path(workdir) / "store.db", quota_bytes=1 << 40,
                        max_body_bytes=1 << 31)
    body = Path(corpus_file).read_bytes()
    size = len(body)
    store.put(body, ref=REF, sha256=hashlib.sha256(body).hexdigest(), format="json")
    del body
    # A warm-up page: the redaction's pattern databases are compiled once per process.
    small = orjson.dumps({"rows": [{"id": i, "note": "x" * 40} for i in range(200)]})
    store.put(small, ref=WARM_REF, sha256=hashlib.sha256(small).hexdigest(), format="json")
    store.fetch(WARM_REF, path="$.rows[7:]", budget=Budget(BUDGET))
    gc.collect()
    path = None if selector == NO_SELECTOR else selector
    read = store._read(REF, None) if mode == "page" else None
    ref, kept = REF, None
    if mode == "shown":
        ref, kept = _shown(store, Path(corpus_file).read_bytes(), Budget(BUDGET))

    def page() -> str:
        if selector is None:  # the floor: the bytes any page must read (digest checked)
            return hashlib.sha256(store.read(REF)).hexdigest()
        try:
            if read is None:
                text = store.fetch(ref, path=path, budget=Budget(BUDGET)).text
                text = text.replace(ref, REF)  # shape() drew the ref: the same page either way
            else:
                body, info = read
                text = shape_page(body, ref=REF, sha256=info.sha256, format=info.format,
                                  budget=Budget(BUDGET), path=path).text
        except Exception as exc:  # an error is a page too: the same one, or it differs
            text = f"{type(exc).__name__}: {exc}"
        return hashlib.sha256(text.encode()).hexdigest()

    _trim()
    Path("/proc/self/clear_refs").write_text("5")
    base = _status_mb("VmRSS")
    times: list[float] = []
    start = time.perf_counter()
    digest = page()
    times.append(time.perf_counter() - start)
    peak = _status_mb("VmHWM") - base
    while len(times) < runs:
        start = time.perf_counter()
        page()
        times.append(time.perf_counter() - start)
    store.close()
    held = size if read is not None else 0  # the body this child held before the reset
    print(json.dumps({"ms": statistics.median(times) * 1000, "peak_mb": peak,
                      "peak_x": (peak * MIB + held) / size, "page": digest, "kept_mb": kept}))


def _shown(store: Any, body: bytes, budget: Any) -> tuple[str, float]:
    """Shape ``body`` with a token in it through the pipeline (redaction on, this store), as
    the proxy does: the view it showed is kept for the body's pages. Returns the ref and how
    much the call left the process holding (MB), the body it was handed not counted."""
    import elision

    seeded = body.replace(b'{"rows":[', b'{"note":"push with ' + TOKEN + b'","rows":[', 1)
    del body
    warm = b'{"note":"push with ' + TOKEN + b'","rows":[' + b'"x",' * 3000 + b'"x"]}'
    elision.shape(warm, budget, store=store)  # the walk's databases are compiled once too
    gc.collect()
    _trim()
    before = _status_mb("VmRSS")
    shaped = elision.shape(seeded, budget, store=store)
    gc.collect()
    _trim()
    assert shaped.ref is not None
    return shaped.ref, _status_mb("VmRSS") - before


def _trim() -> None:
    """Hand freed heap back to the system (glibc), so RSS is what is still held: else the
    shaping call's freed value stays mapped, and the page after it reuses it unseen."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def view_body(kind: str, mb: float) -> bytes:
    """About ``mb`` MB of ``kind``, with the made-up token last (in the last document)."""
    n = int(mb * MIB)
    if kind == "sk-strings":
        return orjson.dumps(["sk-"] * (n // 6) + [TOKEN.decode()])
    deep = b'{"k":' * 300 + b'"x"' + b"}" * 300
    secret = b'{"k":' * 300 + orjson.dumps("key " + TOKEN.decode()) + b"}" * 300
    return b"[" + b",".join([deep] * (n // len(deep)) + [secret]) + b"]"


def view_child(src: str, kind: str, mb: float, runs: int) -> None:
    sys.path.insert(0, src)
    import tracemalloc

    from elision.budget import Budget
    from elision.store.fetch import shape_page

    body = view_body(kind, mb)
    sha = hashlib.sha256(body).hexdigest()

    def page(spec: str) -> str:
        return shape_page(body, ref=REF, sha256=sha, format="json", budget=Budget(BUDGET),
                          byte_range=spec).text

    first_cpu, first_wall = time.process_time(), time.perf_counter()
    first = page("0-")  # redacts the body and keeps its view
    first_ms = ((time.process_time() - first_cpu) * 1000, (time.perf_counter() - first_wall) * 1000)
    specs = [f"{len(body) * i // 8}-" for i in range(1, 6)]  # within the (shorter) view
    cpu: list[float] = []
    wall: list[float] = []
    digest = hashlib.sha256(first.encode())
    for round_ in range(runs):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        texts = [page(spec) for spec in specs]
        cpu.append((time.process_time() - start_cpu) * 1000 / len(specs))
        wall.append((time.perf_counter() - start_wall) * 1000 / len(specs))
        if round_ == 0:
            for text in texts:
                digest.update(text.encode())
    near: list[float] = []
    for _ in range(runs):  # a page of 16 KB near the start: it need not write the rest
        start_cpu = time.process_time()
        digest.update(page(NEAR).encode())
        near.append((time.process_time() - start_cpu) * 1000)
    peaks = []
    for spec in (specs[0], NEAR):
        tracemalloc.start()
        page(spec)
        peaks.append(tracemalloc.get_traced_memory()[1] / len(body))
        tracemalloc.stop()
    print(json.dumps({"first_cpu_ms": first_ms[0], "first_ms": first_ms[1],
                      "cpu_ms": statistics.median(cpu), "ms": statistics.median(wall),
                      "peak_x": peaks[0], "near_cpu_ms": statistics.median(near),
                      "near_peak_x": peaks[1], "page": digest.hexdigest()}))


def view_pages(codes: list[tuple[str, Path]], mb: float, runs: int) -> None:
    header = (f"{'body':<15} {'code':<7} | {'first page cpu/wall ms':>22} | "
              f"{'later page cpu ms':>17} {'wall ms':>8} | {'peak x body':>11} | "
              f"{NEAR + ' cpu ms':>17} {'peak x':>7} | pages")
    print(header)
    print("-" * len(header))
    for kind in VIEW_BODIES:
        digests: list[str] = []
        for name, src in codes:
            row = child_result([sys.executable, __file__, "--view-child", str(src), kind,
                                str(mb), str(runs)], timeout=900)
            if "error" in row:
                print(f"{kind:<15} {name:<7} | error: {row['error']}")
                continue
            digests.append(row["page"])
            same = "" if len(set(digests)) == 1 else "DIFFERS"
            print(f"{kind:<15} {name:<7} | {row['first_cpu_ms']:>10.0f} / {row['first_ms']:>9.0f} "
                  f"| {row['cpu_ms']:>17.1f} {row['ms']:>8.1f} | {row['peak_x']:>10.2f}x | "
                  f"{row['near_cpu_ms']:>17.2f} {row['near_peak_x']:>6.2f}x | "
                  f"{row['page'][:12]} {same}")


# --- the driver --------------------------------------------------------------------------------


def measure(src: Path, corpus_file: Path, selector: str | None, mode: str, runs: int,
            workdir: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        return child_result([sys.executable, __file__, "--child", str(src), str(corpus_file),
                             selector or "", mode, str(runs), tmp], timeout=900)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        src, corpus_file, selector, mode, runs, workdir = argv[1:7]
        child(src, corpus_file, selector or None, mode, int(runs), workdir)
        return 0
    if argv[:1] == ["--view-child"]:
        view_child(argv[1], argv[2], float(argv[3]), int(argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[100.0],
                        help="ledger sizes in MB (bench/corpus.py)")
    parser.add_argument("--baseline", metavar="SRC", default=None,
                        help="another copy of src/ to measure beside this one")
    parser.add_argument("--runs", type=int, default=3, help="fetches of each page per code")
    parser.add_argument("--kind", default="ledger", choices=sorted(SELECTORS),
                        help="which corpus body (bench/corpus.py)")
    parser.add_argument("--selectors", nargs="+", default=None,
                        help="paths to fetch (default: a set for the kind)")
    parser.add_argument("--modes", nargs="+", default=["fetch", "page"], choices=MODES,
                        help="fetch: through SQLiteStore.fetch; page: from the body read; "
                        "shown: a body with a token, shaped through the pipeline first (the "
                        "view it showed is kept for its pages), then fetched")
    parser.add_argument("--dir", default=None, help="where the temporary stores go")
    parser.add_argument("--view-pages", action="store_true",
                        help="time later bytes= pages of a kept view of a body with a token")
    parser.add_argument("--view-mb", type=float, default=1.0, help="its size (--view-pages)")
    parser.add_argument("--extra", nargs=2, action="append", default=[],
                        metavar=("NAME", "SRC"), help="a further copy of src/ to measure")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import corpus

    codes = [("this", SRC)] + ([("before", Path(args.baseline))] if args.baseline else [])
    codes += [(name, Path(src)) for name, src in args.extra]
    print(f"load average before: {load()}")
    if args.view_pages:
        view_pages(codes, args.view_mb, args.runs)
        print(f"load average after: {load()}")
        return 0
    header = (f"{'MB':>5} {'selector':<16} {'code':<7} {'mode':<5} | {'median ms':>9} | "
              f"{'peak MB':>8} {'peak x body':>11} | page")
    print(header)
    print("-" * len(header))
    for mb in args.sizes:
        path, _ = corpus.ensure(args.kind, mb)
        floor = measure(SRC, path, None, "fetch", args.runs, args.dir)
        print(f"{mb:>5g} {'(read only)':<16} {'floor':<7} {'read':<5} | "
              f"{floor.get('ms', 0):>9.0f} | {floor.get('peak_mb', 0):>8.0f} "
              f"{floor.get('peak_x', 0):>10.2f}x |")
        for selector in args.selectors or SELECTORS[args.kind]:
            shown: list[str] = []
            read: list[str] = []
            for mode in args.modes:
                pages = shown if mode == "shown" else read
                for name, src in codes:
                    row = measure(src, path, selector, mode, args.runs, args.dir)
                    where = f"{mb:>5g} {selector:<16} {name:<7} {mode:<5} |"
                    if "error" in row:
                        print(f"{where} error: {row['error']}")
                        continue
                    pages.append(row["page"])  # the shown body has a token: its own pages
                    same = "" if len(set(pages)) == 1 else "DIFFERS"
                    kept = "" if row.get("kept_mb") is None else (
                        f" (the shaping call kept {row['kept_mb']:.0f} MB)")
                    print(f"{where} {row['ms']:>9.0f} | {row['peak_mb']:>8.0f} "
                          f"{row['peak_x']:>10.2f}x | {row['page'][:12]} {same}{kept}")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
