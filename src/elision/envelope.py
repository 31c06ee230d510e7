"""The wire contract, v1: the one place that writes and reads it.

JSON results carry one namespaced key, ``__elision__``, first in the root object; texts carry a
header line first. Both say, for every trimmed node, how much was shown of how much there was.
See docs/design.md, "The wire contract (v1)".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

VERSION = 1
ENVELOPE_KEY = "__elision__"
#: Where an MCP result carries the same envelope object.
META_KEY = "elision/shaping"
#: The key that holds a wrapped array or scalar root (or a root that has its own ``__elision__``).
VALUE_KEY = "value"
TEXT_HEADER_PREFIX = "[elision] "
#: The ``withheld`` reason for a member whose key the same object repeats later: the last
#: member wins (as orjson, the stdlib and JavaScript read it), and the earlier ones are not shown.
DUPLICATE_KEY = "duplicate-key"

PathPart = str | int

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def format_path(parts: Iterable[PathPart], root: str = "$") -> str:
    """A normalized JSONPath: ``$.rows[3].name``, ``$['key with space']``."""
    return root + "".join(spell_parts(parts))


def spell_parts(parts: Iterable[PathPart]) -> list[str]:
    """Each of ``parts`` as :func:`format_path` writes it after what comes before it."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENTIFIER.match(part):
            out.append(f".{part}")
        else:
            out.append("[" + quote_key(part) + "]")
    return out


def quote_key(key: str) -> str:
    """A key in single-quoted bracket form, escaping what JSONPath needs escaped."""
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


#: A key longer than this is named by its position in a member range (``$.items[3:]``), so a
#: ``next`` never spends the budget spelling it.
LONG_KEY = 128


def member_range(parent: str, key: str, index: int) -> str:
    """The selector of the members of object ``parent`` from ``key`` (at position ``index``)
    on, in the document's order: ``$.items['k7':]``; by position (``$.items[7:]``) for a key
    longer than :data:`LONG_KEY`."""
    if len(key) > LONG_KEY:
        return f"{parent}[{index}:]"
    return f"{parent}[{quote_key(key)}:]"


def format_next(
    ref: str, *, path: str | None = None, lines: str | None = None,
    byte_range: str | None = None,
) -> str:
    """The call a model makes to get the next page: ``elision_fetch(ref="…", path="…")``."""
    args = [f"ref={_quoted(ref)}"]
    if path is not None:
        args.append(f"path={_quoted(path)}")
    if lines is not None:
        args.append(f"lines={_quoted(lines)}")
    if byte_range is not None:
        args.append(f"bytes={_quoted(byte_range)}")
    return "elision_fetch(" + ", ".join(args) + ")"


def _quoted(value: str) -> str:
    return orjson.dumps(value).decode()


def elided_entry(
    path: str, kind: str, shown: int, total: int, start: int = 0
) -> dict[str, Any]:
    """One trimmed node: ``shown`` of ``total`` elements (arrays, objects) or chars (strings).

    ``start`` (written ``from``) is the index of the first shown element or char when a page
    starts part-way into the original node.
    """
    entry: dict[str, Any] = {"path": path, "kind": kind}
    if start:
        entry["from"] = start
    entry["shown"] = shown
    entry["total"] = total
    return entry


def duplicate_entries(paths: Iterable[str]) -> list[dict[str, Any]]:
    """One ``withheld`` entry per shadowed member, from the paths the parser reports.

    A body with a repeated key is never passed through as it came: the guard and the redactor
    judge the parsed value, in which only the last member lives, so the earlier members' bytes
    are dropped and each is declared here (``complete`` is then false). They carry no stub:
    nothing stands in for them, and nothing fetches them.
    """
    return [{"path": path, "reason": DUPLICATE_KEY} for path in paths]


def make_envelope(
    *,
    sha256: str,
    shown_bytes: int,
    total_bytes: int,
    elided: Sequence[dict[str, Any]] = (),
    withheld: Sequence[dict[str, Any]] = (),
    ref: str | None = None,
    next_call: str | None = None,
    page: str | None = None,
    stored: bool | None = None,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The ``__elision__`` object, with its members in wire order.

    Optional members are omitted rather than written as null. ``stored`` is written only when
    it is false: the body could not be kept, so there is no ``ref`` to fetch the rest with.
    """
    env: dict[str, Any] = {
        "v": VERSION,
        "complete": not elided and not withheld,
        "sha256": sha256,
        "bytes": {"shown": shown_bytes, "total": total_bytes},
    }
    if page is not None:
        env["page"] = page
    if elided:
        env["elided"] = list(elided)
    if withheld:
        env["withheld"] = list(withheld)
    if ref is not None:
        env["ref"] = ref
    if next_call is not None:
        env["next"] = next_call
    if stored is False:
        env["stored"] = False
    if notes:
        env["notes"] = list(notes)
    return env


def dump_envelope(envelope: dict[str, Any]) -> bytes:
    return orjson.dumps(envelope)


def read_envelope(text: str | bytes) -> dict[str, Any] | None:
    """The envelope of a shaped JSON text, or ``None`` when it carries none.

    Reads only the first member of the root, so it works on any head slice long enough to hold
    the envelope.
    """
    raw = text.encode() if isinstance(text, str) else text
    stripped = raw.lstrip()
    prefix = b'{"' + ENVELOPE_KEY.encode() + b'":'
    if not stripped.startswith(prefix):
        return None
    try:
        doc = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if isinstance(doc, dict):
        env = doc.get(ENVELOPE_KEY)
        if isinstance(env, dict) and env.get("v") == VERSION:
            return env
    return None


def is_envelope(value: Any) -> bool:
    """Whether ``value`` is an elision v1 envelope (as opposed to a tool's own key)."""
    return (
        isinstance(value, dict)
        and value.get("v") == VERSION
        and isinstance(value.get("complete"), bool)
        and isinstance(value.get("sha256"), str)
    )


def text_header(
    *,
    shown_ranges: Sequence[tuple[int, int]],
    total_lines: int,
    shown_bytes: int,
    total_bytes: int,
    sha256: str,
    ref: str | None,
    unit_name: str = "lines",
    extra: Sequence[str] = (),
) -> str:
    """The header line of a shaped text (no trailing newline).

    ``[elision] partial: lines 1-61 and 5941-6001 of 6001 shown; 8,102 of 586,661 bytes;
    sha256=ab12…; ref=el_…``
    """
    ranges = " and ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in shown_ranges)
    shown = f"{unit_name} {ranges} of {total_lines:,} shown" if ranges else (
        f"no {unit_name} of {total_lines:,} shown"
    )
    parts = [f"partial: {shown}", f"{shown_bytes:,} of {total_bytes:,} bytes", *extra,
             f"sha256={sha256}"]
    if ref is not None:
        parts.append(f"ref={ref}")
    return TEXT_HEADER_PREFIX + "; ".join(parts)


def is_text_header(line: str) -> bool:
    return line.startswith(TEXT_HEADER_PREFIX + "partial:")
