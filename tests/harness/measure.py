"""Measure where each harness cuts a tool result itself, with the harness: no elision.

    .venv/bin/python tests/harness/measure.py [HARNESS[:LOW:HIGH] ...]

With ELISION_HARNESS_LATEST=1 it measures the @latest installed in tests/harness/latest (the
suite's opt-in installs it there), to see a cut move before the pin does.

The fixture server is configured bare (no ``elision install``); the fake model calls
``sized_text(size)`` (numbered 100-byte lines, ``END`` last) and records what the harness hands
it, and the witness what the harness calls itself. A bisection on ``size`` finds the largest
result handed over whole and the smallest one cut (or spilled to a file); the figures go to
docs/harnesses.md ("measured"), and the installer's budgets must sit below them. Each probe is
one harness run (2-10 s).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import received
from harness.fakemodel import COMPACTED
from harness.harnesses import LATEST, NEWEST, PINNED, SPECS, Ctx, Spec, run, version
from harness.toolserver import sized_text


def whole(spec: Spec, size: int, root: Path) -> tuple[bool, str]:
    """Whether a ``size``-byte result reached the model whole, and a note on what it got."""
    ctx = Ctx(root / f"{spec.key}-{size}", MODULES)
    spec.configure(ctx)
    record = run(spec, ctx, "sized_text", args={"size": size})
    results = received.turns(record).results
    named = ", ".join(f"{c.get('name')} {c.get('version')}" for c in record["clients"])
    if not results and any((r.get("step") or {}).get("text") == COMPACTED
                           for r in record["records"]):
        # Continue CLI: the result filled the context, and the history was compacted
        return False, f"compacted away: the model was asked for a summary; clientInfo {named}"
    if not results:  # a run that failed says nothing about the cut: stop, do not guess
        raise SystemExit(f"{spec.title}: no result at {size:,} B (exit {record['code']}: "
                         f"{record['stderr'][-300:]!r}); a loaded machine? try again")
    got = results[0].text
    try:
        kept = sized_text(size) in spec.unwrap(got)
    except AssertionError:  # handed over as JSON, and that JSON was cut
        kept = False
    return kept, f"{len(got.encode()):,} B handed over; head {got[:60]!r}; clientInfo {named}"


def measure(spec: Spec, low: int = 1_000, high: int = 400_000) -> tuple[int, int]:
    """(largest size kept whole, smallest size cut), to within 1% of the size."""
    with tempfile.TemporaryDirectory(prefix="elision-measure-") as tmp:
        root = Path(tmp)
        ok, note = whole(spec, high, root)
        print(f"  {high:>8,} B: {'whole' if ok else 'cut'}  {note}", flush=True)
        if ok:
            return high, 0
        ok, note = whole(spec, low, root)
        print(f"  {low:>8,} B: {'whole' if ok else 'cut'}  {note}", flush=True)
        if not ok:
            return 0, low
        while high - low > max(100, low // 100):
            middle = (low + high) // 2
            ok, note = whole(spec, middle, root)
            print(f"  {middle:>8,} B: {'whole' if ok else 'cut'}  {note}", flush=True)
            low, high = (middle, high) if ok else (low, middle)
        return low, high


MODULES = NEWEST if LATEST else PINNED


def main(names: list[str]) -> None:
    """Each argument is HARNESS or HARNESS:LOW:HIGH (bytes), to narrow a known range."""
    for arg in names or list(SPECS):
        name, _, bounds = arg.partition(":")
        spec = SPECS[name]
        low, high = (int(x) for x in bounds.split(":")) if bounds else (1_000, 400_000)
        title = f"{spec.title} {version(spec, MODULES)}"
        print(f"{title}:", flush=True)
        kept, cut = measure(spec, low, high)
        print(f"{title}: keeps {kept:,} B whole, cuts {cut:,} B", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
