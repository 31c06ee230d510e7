"""The four rules a tool response keeps, as checks over one tool's calls and schemas.

1. Coverage and caveat metadata serialize **before** bulk arrays (in a text answer, coverage
   lines come before the data lines: :func:`rule1_text`).
2. ``limit`` bounds **every** bulk array, not one of them.
3. Truncation warns with numbers (shown-of-total), never a bare "truncated".
4. An unreadable dataset reports null or an error, never zero.

Each check returns a :class:`Verdict` per rule, PASS as well as FAIL, with evidence a reader can
act on without re-running anything: paths, byte offsets, lengths and the offending text.
Checks are pure: :mod:`elision.lint.runner` makes the calls, this module judges them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from elision.lint.scan import Node, Scan
from elision.lint.textscan import TRUNCATION, CoverageLine, scan_text
from elision.redact.messages import clip
from elision.shape import DEFAULT_CAVEAT_KEYS
from elision.shape.json import caveat_matcher

Status = Literal["pass", "fail", "not exercised"]

RULES: dict[int, str] = {
    1: "coverage and caveats come before bulk arrays",
    2: "limit bounds every array",
    3: "truncation names shown-of-total",
    4: "an unreadable dataset reports null or an error, never zero",
}
#: Head-slice caps consumers are known to cut at, in bytes.
HEAD_SLICE_CAPS: tuple[int, ...] = (4096, 8192, 16384, 32768)

#: The caveat keys that say how much there is or how to get more: one of them beside an array
#: at its limit makes the cut declared. A subset of the one project-wide list.
COUNT_OR_CURSOR_KEYS: tuple[str, ...] = tuple(
    k for k in DEFAULT_CAVEAT_KEYS
    if k.startswith(("total", "count", "has", "more", "next", "cursor", "matched", "num_", "n_",
                     "omitted", "dropped", "skipped"))
)
is_caveat = caveat_matcher(DEFAULT_CAVEAT_KEYS)
is_count_or_cursor = caveat_matcher(COUNT_OR_CURSOR_KEYS)

_LIMIT_NAMES = frozenset({
    "limit", "maxresults", "maxitems", "maxrows", "maxrecords", "maxcount", "pagesize",
    "perpage", "top", "first",
})
_AGGREGATE_WORDS = frozenset({
    "total", "balance", "count", "sum", "amount", "average", "avg", "mean",
})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_ERRORISH = re.compile(
    r"error|fail|unavailable|unreachable|expired|unauthori[sz]ed|forbidden|denied|timed? ?out|"
    r"could not|cannot|can't|not synced|unsynced|invalid token",
    re.IGNORECASE,
)


@dataclass
class Verdict:
    """One rule for one tool."""

    rule: int
    status: Status
    evidence: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return RULES[self.rule]


@dataclass
class Response:
    """One call's answer as a consumer reads it."""

    label: str  # which scenario, e.g. "scenario 'a year'" or "limit=1"
    body: bytes  # the text a consumer reads (JSON when ``scan`` is set)
    is_error: bool
    scan: Scan | None  # None when the answer is not a JSON document
    limit: int | None = None  # the limit-like argument's value, when one was passed
    induced_failure: str | None = None


def limit_argument(input_schema: dict[str, Any]) -> str | None:
    """The name of a tool's limit-like integer argument, if it takes one."""
    props = input_schema.get("properties") or {}
    for name, spec in props.items():
        normalized = re.sub(r"[^a-z]", "", name.lower())
        if normalized in _LIMIT_NAMES or normalized.endswith("limit"):
            types = _types_of(spec if isinstance(spec, dict) else {}, input_schema)
            if not types or types & {"integer", "number"}:
                return str(name)
    return None


def is_aggregate(key: str) -> bool:
    """Whether ``key`` names an aggregate (total, balance, count, sum, ...)."""
    return any(word.lower() in _AGGREGATE_WORDS for word in _WORD.findall(key))


def _items(n: int) -> str:
    return f"{n:,} item" + ("" if n == 1 else "s")


def _kb(n: int) -> str:
    return f"{n // 1024} KB" if n % 1024 == 0 else f"{n:,} bytes"


# -- rule 1 -------------------------------------------------------------------------------------


def rule1_order(resp: Response) -> tuple[list[str], list[str]]:
    """Caveats after bulk arrays (failures), and what head slices would cost (notes)."""
    assert resp.scan is not None
    scan = resp.scan
    bulk = scan.bulk_arrays
    late: list[str] = []
    for member in scan.caveat_members:
        before = next((b for b in bulk if b.end <= member.key_start), None)
        if before is not None:
            late.append(
                f"{resp.label}: {member.path} (byte {member.key_start:,}) comes after bulk array "
                f"{before.path} (bytes {before.start:,}-{before.end:,}, {_items(before.value)})"
            )
    fails, notes = _reached(late, scan.size)
    for cap in HEAD_SLICE_CAPS:
        if scan.size <= cap:
            notes.append(f"{resp.label}: {scan.size:,} bytes fit a head slice at {_kb(cap)} whole")
            break
        lost = [m.path for m in scan.caveat_members if m.end > cap]
        if lost:
            notes.append(f"{resp.label}: a head slice at {_kb(cap)} of {scan.size:,} bytes "
                         "loses " + ", ".join(lost))
        else:
            notes.append(f"{resp.label}: a head slice at {_kb(cap)} of {scan.size:,} bytes "
                         "keeps every caveat")
    return fails, notes


#: Data lines a text answer may put before its first coverage line: a title, a header row and
#: a few rows ("Trades\nid qty\n1 10\n2 of 2 shown"). More than this makes them bulk.
TEXT_LEAD_LINES = 5


def rule1_text(resp: Response) -> tuple[list[str], list[str]]:
    """Rule 1 for a text answer: coverage lines after the data (failures), head slices (notes).

    Coverage lines are found by :func:`elision.lint.textscan.coverage_kind`. One is late, and
    fails, when more than :data:`TEXT_LEAD_LINES` data lines come before it (a title and a
    header row may lead), or when any data does and it ends past the smallest head-slice cap
    (the tightest consumer never sees it). A gap marker (``[… 2,909 lines elided …]``) is
    judged only when no coverage line leads: after a header that says how much is shown, it
    marks the spot of a gap that header already declared.
    """
    text = scan_text(resp.body)
    leading = [c for c in text.coverage if not _late(c)]
    judged = [c for c in text.coverage if not (c.gap and leading)]
    fails, unreached = _reached([f"{resp.label}: {_late_line(c)}" for c in judged if _late(c)],
                                text.size)
    shape = (f"text answer of {text.lines:,} line{'s' if text.lines != 1 else ''}, "
             f"{text.data_lines:,} of them data")
    if not judged:
        return fails, [f"{resp.label}: {shape}; no line says how much there is or how to get "
                       "more, so there is no coverage to misplace"]
    notes: list[str] = unreached
    if not fails and not unreached:
        first = judged[0]
        place = ("comes before the data" if not first.data_before else
                 f"comes after only {first.data_before} data line"
                 + ("s" if first.data_before != 1 else "")
                 + f", within the {TEXT_LEAD_LINES} a title and header rows may take")
        notes.append(f"{resp.label}: {shape}; coverage line {first.number:,} "
                     f"{_quote(first.text)} {place}")
    for cap in HEAD_SLICE_CAPS:
        if text.size <= cap:
            notes.append(f"{resp.label}: {text.size:,} bytes fit a head slice at {_kb(cap)} "
                         "whole")
            break
        lost = [c for c in judged if c.end > cap]
        where = f"{resp.label}: a head slice at {_kb(cap)} of {text.size:,} bytes"
        if lost:
            shown = "; ".join(f"line {c.number:,}: {_quote(c.text)}" for c in lost[:3])
            more = f"; and {len(lost) - 3:,} more coverage lines" if len(lost) > 3 else ""
            notes.append(f"{where} loses {shown}{more}")
        else:
            notes.append(f"{where} keeps every caveat")
    return fails, notes


def _reached(late: list[str], size: int) -> tuple[list[str], list[str]]:
    """Misplaced coverage fails only where a cut reaches it: an answer that fits the tightest
    head slice whole loses nothing to any of them, so there the misorder is a note (a larger
    answer from the same tool would lose it)."""
    if not late or size > HEAD_SLICE_CAPS[0]:
        return late, []
    why = (f"; the whole answer ({size:,} bytes) fits the tightest head slice "
           f"({_kb(HEAD_SLICE_CAPS[0])}), so no cut loses it here: put it first before answers "
           "grow")
    return [], [line + why for line in late]


def _late(line: CoverageLine) -> bool:
    return line.data_before > TEXT_LEAD_LINES or (
        line.data_before > 0 and line.end > HEAD_SLICE_CAPS[0])


def _late_line(c: CoverageLine) -> str:
    (first, start), (last, end) = c.first_data, c.last_data
    rows = f"line {first:,}" if first == last else f"lines {first:,}-{last:,}"
    lines = f"{c.data_before:,} data line" + ("s" if c.data_before != 1 else "")
    if c.data_before > TEXT_LEAD_LINES:
        fix = (f"move it before the data (a title and header rows, up to {TEXT_LEAD_LINES} "
               "lines, may come first)")
    else:
        fix = (f"it ends past {_kb(HEAD_SLICE_CAPS[0])}, where the tightest head slice cuts; "
               "move it to the top")
    return (f"{c.kind} line {c.number:,} (byte {c.start:,}) {_quote(c.text)} comes after "
            f"{lines} ({rows}, bytes {start:,}-{end:,}); {fix}")


def _quote(text: str) -> str:
    return repr(clip(text, 120))


# -- rule 2 -------------------------------------------------------------------------------------


def rule2_bounded(resp: Response) -> tuple[list[str], list[str]]:
    """At the given limit, every bulk array longer than it (failures) and the size (notes)."""
    assert resp.scan is not None and resp.limit is not None
    fails = [
        f"{resp.label}: {b.path} has {_items(b.value)} at limit={resp.limit}"
        for b in resp.scan.bulk_arrays if b.value > resp.limit
    ]
    arrays = len(resp.scan.bulk_arrays)
    notes = [f"{resp.label}: response is {resp.scan.size:,} bytes at limit={resp.limit}, "
             f"{arrays} bulk array{'s' if arrays != 1 else ''}"]
    return fails, notes


# -- rule 3 -------------------------------------------------------------------------------------


def rule3_declared(resp: Response) -> list[str]:
    """Silent truncation and truncation notes without numbers."""
    fails: list[str] = []
    if resp.scan is None:
        text = resp.body.decode("utf-8", "replace")
        for line in text.splitlines():
            if TRUNCATION.search(line) and not re.search(r"[0-9]", line):
                fails.append(f"{resp.label}: {_quote(line.strip())} says it was cut without "
                             "numbers; say shown-of-total, e.g. '37 of 2,000 rows'")
        return fails
    scan = resp.scan
    declared = _declared_by_envelope(scan)
    if resp.limit is not None:
        for b in scan.bulk_arrays:
            if b.value != resp.limit or b.value == 0 or declared:
                continue
            if not _count_beside(scan, b):
                fails.append(
                    f"{resp.label}: {b.path} has exactly {_items(b.value)}, its limit, and "
                    "nothing beside it says how many there are (no total, has_more or cursor)"
                )
    for node in scan.nodes:
        if node.bulk:
            continue
        if node.kind == "string" and TRUNCATION.search(node.value) and not re.search(
            r"[0-9]", node.value
        ):
            fails.append(f"{resp.label}: {node.path} = {_quote(node.value)} says it was cut "
                         "without numbers; say shown-of-total, e.g. '37 of 2,000 rows'")
        elif (node.kind == "boolean" and node.value is True and node.key is not None
              and TRUNCATION.search(node.key) and not _count_beside(scan, node)):
            fails.append(f"{resp.label}: {node.path} is true with no count beside it; say "
                         "shown-of-total, e.g. total or has_more with a count")
    return fails


def _declared_by_envelope(scan: Scan) -> bool:
    """An elision envelope at the root: it lists every cut with shown-of-total itself."""
    return any(n.path == "$.__elision__" and n.kind == "object" for n in scan.nodes)


def _count_beside(scan: Scan, node: Node) -> bool:
    """A count or cursor among ``node``'s siblings or the root's members."""
    places = {node.parent or "$", "$"}
    return any(
        m.key is not None and m.key != node.key and is_count_or_cursor(m.key)
        for place in places for m in scan.members_of(place)
    )


# -- rule 4 -------------------------------------------------------------------------------------


def rule4_schema(output_schema: dict[str, Any] | None) -> list[str]:
    """Aggregate fields the output schema declares that cannot be null."""
    if not output_schema:
        return []
    fails: list[str] = []
    for path, spec in _schema_properties(output_schema, output_schema, "$", 0):
        key = path.rsplit(".", 1)[-1]
        if not is_aggregate(key):
            continue
        types = _types_of(spec, output_schema)
        if types and "null" not in types:
            fails.append(
                f"output schema: {path} is {'|'.join(sorted(types))} and cannot be null, so an "
                "unreadable dataset would have to report a number; allow null"
            )
    return fails


def rule4_zero(resp: Response) -> list[str]:
    """A zero aggregate beside error-like text."""
    if resp.scan is None:
        return []
    nodes = [n for n in resp.scan.nodes if not n.bulk]
    errors = [
        n for n in nodes
        if (n.kind == "string" and _ERRORISH.search(n.value))
        or (n.key is not None and n.key.lower().startswith("error") and n.kind != "null")
    ]
    if not errors:
        return []
    first = errors[0]
    where = f"{first.path} = {clip(first.value, 80)!r}" if first.kind == "string" else first.path
    return [
        f"{resp.label}: {n.path} = {n.value} beside error-like text at {where}; "
        "report null (or an error) when the data could not be read"
        for n in nodes
        if n.kind == "number" and n.value == 0 and n.key is not None and is_aggregate(n.key)
    ]


def rule4_induced(resp: Response) -> tuple[list[str], list[str]]:
    """An induced failure must answer with an error or null aggregates."""
    failure = resp.induced_failure
    if resp.is_error:
        return [], [f"{resp.label}: induced failure {failure!r} answered with an error"]
    if resp.scan is None:
        return [f"{resp.label}: induced failure {failure!r} answered with a non-error text "
                "result; answer with an error (isError) or null values"], []
    fails = [
        f"{resp.label}: induced failure {failure!r} but {n.path} = {n.value}; report null "
        "or an error when the data could not be read"
        for n in resp.scan.nodes
        if n.kind == "number" and n.key is not None and is_aggregate(n.key)
    ]
    fails += [
        f"{resp.label}: induced failure {failure!r} but {b.path} is an empty array, which "
        "reads as 'nothing there'; answer with an error or null"
        for b in resp.scan.bulk_arrays if b.value == 0
    ]
    if fails:
        return fails, []
    return [], [f"{resp.label}: induced failure {failure!r} answered with null aggregates"]


# -- schema helpers -----------------------------------------------------------------------------


def _resolve(spec: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = spec.get("$ref")
    seen = 0
    while isinstance(ref, str) and ref.startswith("#/") and seen < 32:
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        spec = {**target, **{k: v for k, v in spec.items() if k != "$ref"}}
        ref = target.get("$ref") if isinstance(target, dict) else None
        seen += 1
    return spec


def _types_of(spec: dict[str, Any], root: dict[str, Any]) -> set[str]:
    """The JSON types a schema allows; empty when it allows anything."""
    spec = _resolve(spec, root)
    found: set[str] = set()
    kind = spec.get("type")
    if isinstance(kind, str):
        found.add(kind)
    elif isinstance(kind, list):
        found.update(str(k) for k in kind)
    for combo in ("anyOf", "oneOf"):
        options = spec.get(combo)
        if isinstance(options, list):
            for option in options:
                inner = _types_of(option, root) if isinstance(option, dict) else set()
                if not inner:
                    return set()
                found |= inner
    if "const" in spec and spec["const"] is None:
        found.add("null")
    if isinstance(spec.get("enum"), list) and None in spec["enum"]:
        found.add("null")
    return found


def _schema_properties(
    spec: dict[str, Any], root: dict[str, Any], path: str, depth: int
) -> Iterable[tuple[str, dict[str, Any]]]:
    """Each declared object property outside arrays, with its path, in declaration order."""
    if depth > 32:
        return
    spec = _resolve(spec, root)
    options = [spec, *[o for c in ("anyOf", "oneOf", "allOf") for o in spec.get(c) or []
                      if isinstance(o, dict)]]
    for option in options:
        option = _resolve(option, root)
        for name, prop in (option.get("properties") or {}).items():
            if not isinstance(prop, dict):
                continue
            child = f"{path}.{name}"
            yield child, prop
            yield from _schema_properties(prop, root, child, depth + 1)


def schema_order(output_schema: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """Rule 1 from a schema alone: caveat properties declared after array properties."""
    if not output_schema:
        return [], []
    top = list(_schema_properties(output_schema, output_schema, "$", 31))
    fails: list[str] = []
    first_array: str | None = None
    for path, prop in top:
        key = path.rsplit(".", 1)[-1]
        types = _types_of(prop, output_schema)
        if is_caveat(key) and first_array is not None:
            fails.append(f"output schema: {path} is declared after array {first_array}, so it "
                         "serializes after it")
        elif "array" in types and first_array is None and not is_caveat(key):
            first_array = path
    arrays = [p for p, s in top if "array" in _types_of(s, output_schema)
              and not is_caveat(p.rsplit(".", 1)[-1])]
    return fails, arrays


