"""A deterministic corpus of realistic tool results, for the benchmarks in bench/.

Six kinds of body, each at any size in MB, each with its caveats written LAST (as real servers
write them, and as a head slice loses them first):

- ``ledger``  a search result: ``{"rows": [...], "warnings": [...], "total_rows": 22933, ...}``
- ``log``     a build log whose verdict is the last lines
- ``ndjson``  an event stream whose final record is the scan summary
- ``deep``    a nested document (chapters > sections > paragraphs) with coverage notes at the end
- ``keys``    one huge object (a 100 MB body has 4 million keys), its caveat keys last
- ``keys-shuffled``  the same keys in no order (a map dumped from a hash table): the lazy
              read's key ranges cannot prove its runs apart, its repeat filter must

Every body comes with a :class:`Meta`: the caveat markers a shaped result should still contain,
and the total count of its bulk unit (rows, lines, records, chapters) so a checker can tell
whether a shaped result says "shown of total". Integers in the bodies stay out of the range of
those totals, so finding the total in a shaped result means the tool wrote it.

    python bench/corpus.py 1 10        # writes bench/out/corpus/*.{json,log,ndjson} + .meta.json
    python bench/corpus.py 100 --kinds log keys
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

#: Bump when a generator changes, so cached files are made again.
VERSION = 2
KINDS: tuple[str, ...] = ("ledger", "log", "ndjson", "deep", "keys", "keys-shuffled")
OUT = Path(__file__).resolve().parent / "out" / "corpus"

# fmt: off
_WORDS: tuple[str, ...] = (
    "settlement", "batch", "reconciled", "pending", "ledger", "account", "transfer", "invoice",
    "vendor", "refund", "adjustment", "quarterly", "review", "audit", "export", "region",
    "cluster", "shard", "replica", "timeout", "retry", "gateway", "upstream", "cache",
    "eviction", "warmup", "zürich", "東京", "café", "naïve", "façade", "São", "Paulo", "Kraków",
)
# fmt: on
_CCY = ("EUR", "USD", "CHF", "JPY", "GBP")


@dataclasses.dataclass(frozen=True)
class Meta:
    kind: str
    format: str  # json | text | ndjson
    bytes: int
    #: Substrings that a result which kept its caveats still contains (ASCII, no quotes).
    caveats: tuple[str, ...]
    #: What the bulk unit is, and how many of it the body holds.
    unit: str
    total: int


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _ledger_row(rng: random.Random, i: int) -> dict[str, object]:
    # ids and amounts are shaped so no bare integer in a row can be mistaken for a row count
    return {
        "id": f"tx_{rng.getrandbits(48):012x}",
        "seq": 1_000_000_000 + i,
        "ts": f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
        "account": f"CH{rng.randint(10**13, 10**14 - 1)}",
        "amount": round(rng.uniform(-50_000, 50_000), 2),
        "currency": rng.choice(_CCY),
        "qty": rng.randint(1, 99),
        "memo": _sentence(rng, rng.randint(3, 12)),
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))],
        "counterparty": {
            "name": _sentence(rng, 2).title(),
            "country": rng.choice(["CH", "DE", "JP", "BR", "PL"]),
        },
        "reconciled": rng.random() < 0.8,
    }


def _fill(
    megabytes: float, slack: int, make: Callable[[int], dict[str, object]]
) -> list[dict[str, object]]:
    """Items from ``make(index)`` until they (JSON, comma-separated) come within ``slack``
    bytes of ``megabytes``: the rest of the document goes in that slack."""
    target = int(megabytes * 1_000_000)
    items: list[dict[str, object]] = []
    size = 0
    while size < target - slack:
        item = make(len(items))
        size += len(orjson.dumps(item)) + 1
        items.append(item)
    return items


def ledger(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    rows = _fill(megabytes, 600, lambda i: _ledger_row(rng, i))
    warning = "22405 older trades arrive as 3152 hourly rollups and are not in rows"
    cursor = f"cur_{rng.getrandbits(64):016x}"
    doc = {
        "rows": rows,
        "warnings": [warning, "rows searched: 528 of 22933 (index partially built)"],
        "total_rows": 22933,
        "searched_rows": 528,
        "next_cursor": cursor,
    }
    body = orjson.dumps(doc)
    caveats = (warning, "22933", cursor)
    return body, Meta("ledger", "json", len(body), caveats, "rows", len(rows))


def _log_lines(rng: random.Random) -> Iterator[str]:
    levels = ("INFO",) * 12 + ("DEBUG",) * 6 + ("WARN",) * 2 + ("ERROR",)
    minute = 0
    while True:
        minute += 1
        level = rng.choice(levels)
        ts = f"2026-11-30T{(minute // 3600) % 24:02d}:{(minute // 60) % 60:02d}:{minute % 60:02d}Z"
        what = rng.choice(("compile", "link", "test", "fetch", "cache", "deploy"))
        yield (
            f"{ts} {level:<5} [{what}] {_sentence(rng, rng.randint(4, 14))} "
            f"(took {rng.randint(1, 9999)}ms, worker=w{rng.randint(1, 64)})"
        )


def log(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    target = int(megabytes * 1_000_000)
    lines: list[str] = []
    size = 0
    for line in _log_lines(rng):
        if size >= target - 200:
            break
        lines.append(line)
        size += len(line.encode()) + 1
    verdict = "FATAL: build failed with 3 errors (see above)"
    summary = "Summary: 3 errors, 17 warnings, 1 flaky test skipped"
    lines += [summary, verdict]
    body = ("\n".join(lines) + "\n").encode()
    return body, Meta("log", "text", len(body), (summary, verdict), "lines", len(lines))


def ndjson(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    target = int(megabytes * 1_000_000)
    out: list[bytes] = []
    size = 0
    while size < target - 300:
        event = {
            "type": "event",
            "id": f"ev_{rng.getrandbits(40):010x}",
            "at": f"2026-11-30T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "source": rng.choice(("api", "worker", "cron", "webhook")),
            "attrs": {"region": rng.choice(("eu-1", "us-2", "ap-3")), "ok": rng.random() < 0.9},
            "message": _sentence(rng, rng.randint(5, 15)),
        }
        line = orjson.dumps(event)
        out.append(line)
        size += len(line) + 1
    cursor = f"cur_{rng.getrandbits(64):016x}"
    summary = {
        "type": "summary",
        "scanned": "1.2M of 4.8M events (sampled)",
        "truncated": True,
        "next_cursor": cursor,
    }
    out.append(orjson.dumps(summary))
    body = b"\n".join(out) + b"\n"
    caveats = ("1.2M of 4.8M events (sampled)", cursor)
    return body, Meta("ndjson", "ndjson", len(body), caveats, "records", len(out))


def _chapter(rng: random.Random, number: int) -> dict[str, object]:
    return {
        "title": f"Chapter {_sentence(rng, 3)}",
        "key": f"ch_{number:05d}",
        "sections": [
            {
                "heading": _sentence(rng, 4),
                "paragraphs": [
                    _sentence(rng, rng.randint(20, 60)) for _ in range(rng.randint(2, 5))
                ],
                "figures": [
                    {"caption": _sentence(rng, 6), "ref": f"fig_{rng.getrandbits(32):08x}"}
                    for _ in range(rng.randint(0, 2))
                ],
                "meta": {"lang": rng.choice(("en", "de", "ja")), "reviewed": rng.random() < 0.5},
            }
            for _ in range(rng.randint(2, 4))
        ],
    }


def deep(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    chapters = _fill(megabytes, 800, lambda i: _chapter(rng, i))
    note = "chapters past the first 40 are not yet indexed; search results may be incomplete"
    doc = {
        "document": {
            "id": f"doc_{rng.getrandbits(48):012x}",
            "title": "Operations handbook",
            "body": {"chapters": chapters},
        },
        "coverage": {"indexed_chapters": 40, "note": note},
        "errors": ["figure fig_0000 could not be rendered"],
    }
    body = orjson.dumps(doc)
    caveats = (note, "could not be rendered")
    return body, Meta("deep", "json", len(body), caveats, "chapters", len(chapters))


def keys(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    # Written piece by piece: a dict of millions of keys would cost the generator gigabytes.
    target = int(megabytes * 1_000_000)
    out: list[bytes] = []
    size, count = 0, 0
    while size < target - 300:
        piece = b'"k%09d":%d' % (count, rng.randint(10**7, 10**8 - 1))
        out.append(piece)
        size += len(piece) + 1
        count += 1
    note = "keys past 2**20 are sampled, not exact"
    tail = b'"coverage_note":"%s","key_count_estimate":"%d (sampled)"' % (note.encode(), count)
    body = b"{" + b",".join([*out, tail]) + b"}"
    return body, Meta("keys", "json", len(body), (note,), "keys", count + 2)


def keys_shuffled(megabytes: float, rng: random.Random) -> tuple[bytes, Meta]:
    member = len(b'"k%09d":%d,' % (0, 10**7))  # every member is this long
    count = max(1, (int(megabytes * 1_000_000) - 300) // member)
    order = list(range(count))
    rng.shuffle(order)
    note = "keys past 2**20 are sampled, not exact"
    tail = b'"coverage_note":"%s","key_count_estimate":"%d (sampled)"' % (note.encode(), count)
    pieces = (b'"k%09d":%d' % (n, rng.randint(10**7, 10**8 - 1)) for n in order)
    body = b"{" + b",".join([*pieces, tail]) + b"}"
    return body, Meta("keys-shuffled", "json", len(body), (note,), "keys", count + 2)


GENERATORS: dict[str, Callable[[float, random.Random], tuple[bytes, Meta]]] = {
    "ledger": ledger,
    "log": log,
    "ndjson": ndjson,
    "deep": deep,
    "keys": keys,
    "keys-shuffled": keys_shuffled,
}
_SUFFIX = {"json": "json", "text": "log", "ndjson": "ndjson"}


def make(kind: str, megabytes: float) -> tuple[bytes, Meta]:
    """Generate one body; the same kind and size always give the same bytes."""
    if kind not in GENERATORS:
        raise SystemExit(f"corpus kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return GENERATORS[kind](
        megabytes, random.Random(f"elision-corpus-v{VERSION}-{kind}-{megabytes}")
    )


def ensure(kind: str, megabytes: float, out: Path = OUT) -> tuple[Path, Meta]:
    """The cached file for ``kind`` at ``megabytes`` (made on first use) and its meta."""
    stem = f"v{VERSION}-{kind}-{megabytes:g}mb"
    meta_path = out / f"{stem}.meta.json"
    if meta_path.exists():
        raw = json.loads(meta_path.read_text())
        meta = Meta(**{**raw, "caveats": tuple(raw["caveats"])})
        path = out / f"{stem}.{_SUFFIX[meta.format]}"
        if path.exists() and path.stat().st_size == meta.bytes:
            return path, meta
    body, meta = make(kind, megabytes)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.{_SUFFIX[meta.format]}"
    path.write_bytes(body)
    meta_path.write_text(json.dumps(dataclasses.asdict(meta), indent=1))
    return path, meta


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("sizes", type=float, nargs="*", default=[1.0], metavar="MB")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    args = parser.parse_args(argv)
    for mb in args.sizes:
        for kind in args.kinds:
            path, meta = ensure(kind, mb)
            print(f"{path}  {meta.bytes:,} bytes, {meta.total:,} {meta.unit}")


if __name__ == "__main__":
    main(sys.argv[1:])
