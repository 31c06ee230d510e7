"""``elision demo``: the same tool calls through a head slice and through elision, side by side.

It starts the bundled ledger server twice (once directly, once behind ``elision proxy`` as a
subprocess), makes real calls with the official ``mcp.Client``, and reports what each view lets
an agent conclude. Offline and deterministic. The bodies it cuts are kept in elision's default
store (or ``--store``), where ``elision fetch`` finds them afterwards; its audit entries go to a
temporary log, never into the user's own chain.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from elision.envelope import META_KEY
from elision.store import default_store_path
from mcp import Client, StdioServerParameters

SERVER = [sys.executable, "-m", "elision.demo.server"]
_NEXT_PATH = re.compile(r'path="((?:[^"\\]|\\.)*)"')
_CAVEATS = ("warnings", "matched", "searched_rows", "total_rows")


@dataclass
class View:
    """What one way of bounding a result leaves the agent with."""

    shown_bytes: int
    total_bytes: int
    #: Whether the text is still readable as what it is, and how it reads.
    intact: bool
    integrity: str
    says_partial: str | None
    caveats: list[str]
    records: str
    rest: str | None
    tail: str


@dataclass
class Comparison:
    tool: str
    arguments: dict[str, Any]
    head: View
    elision: View


@dataclass
class DemoReport:
    budget: int
    comparisons: list[Comparison] = field(default_factory=list)
    fetch_call: str | None = None
    #: The store the proxy kept the cut bodies in, and whether it is elision's default one
    #: (then ``elision fetch`` needs no ``--store`` to read them).
    store: str = ""
    default_store: bool = True
    fetch_view: View | None = None
    digest_matches: bool = False


def run_demo(budget: int = 8192, store: str | None = None) -> DemoReport:
    """Run the demo calls and return what each view showed."""
    return anyio.run(_run, budget, store)


async def _run(budget: int, store: str | None) -> DemoReport:
    with tempfile.TemporaryDirectory(prefix="elision-demo-") as tmp:
        # Where `elision fetch` looks by default, named to the proxy: a host-started process
        # gets no XDG_DATA_HOME or ELISION_STORE of ours. A temporary store left the demo's
        # `next` calls pointing at nothing once it ended.
        store_spec = store or os.environ.get("ELISION_STORE") or str(default_store_path())
        proxy = StdioServerParameters(
            command=sys.executable,
            # The demo's audit entries go to a temporary log, never into the user's own
            # audit chain.
            args=["-c", "from elision.cli import main; main()", "proxy", "--budget",
                  str(budget), "--store", store_spec, "--audit", str(Path(tmp) / "audit.db"),
                  "--", *SERVER],
        )
        direct = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
        report = DemoReport(budget, store=store_spec, default_store=store is None)
        calls: list[tuple[str, dict[str, Any]]] = [
            ("search_trades", {}), ("failed_settlements", {}),
        ]
        async with Client(direct) as raw, Client(proxy) as shaped:
            first: dict[str, Any] | None = None
            for tool, arguments in calls:
                original = _text(await raw.call_tool(tool, arguments))
                result = await shaped.call_tool(tool, arguments)
                first = first or _envelope(result)
                report.comparisons.append(Comparison(
                    tool, arguments, head_view(original, budget), elision_view(result, original)
                ))
            match = _NEXT_PATH.search(first.get("next", "")) if first else None
            if first is not None and match is not None:
                report.fetch_call = first["next"]
                page = await shaped.call_tool(
                    "elision_fetch", {"ref": first["ref"], "path": json.loads(f'"{match[1]}"')}
                )
                report.fetch_view = elision_view(page, None)
                report.digest_matches = (_envelope(page) or {}).get("sha256") == first["sha256"]
        return report


def head_view(original: str, budget: int) -> View:
    """What a plain byte head slice of ``budget`` bytes leaves."""
    raw = original.encode("utf-8")
    cut = raw[:budget].decode("utf-8", "ignore")
    if original.lstrip().startswith(("{", "[")):
        intact = _parses(cut)
        integrity = "valid JSON" if intact else "torn JSON: no parser reads it"
    else:
        intact = cut.endswith("\n")
        integrity = "whole lines" if intact else "ends mid-line"
    found = [key for key in _CAVEATS if f'"{key}"' in cut]
    if original.lstrip().startswith("{"):
        whole = cut.count('"id":')  # whole-or-torn records, the slice cannot tell
        records = f"~{max(whole - 1, 0)} whole rows, then one torn mid-token"
    else:
        lines = cut.count("\n")
        total = original.count("\n")
        records = f"lines 1-{lines} of {total:,}; the last {total - lines:,} are gone"
    return View(
        shown_bytes=len(cut.encode()), total_bytes=len(raw), intact=intact,
        integrity=integrity, says_partial=None,
        caveats=found, records=records, rest=None, tail=cut[-70:],
    )


def elision_view(result: types.CallToolResult, original: str | None) -> View:
    text = _text(result)
    env = _envelope(result) or {}
    parses = _parses(text)
    doc = json.loads(text) if parses else None
    if parses:
        intact, integrity = True, "valid JSON"
    else:
        intact, integrity = text.endswith("\n"), "whole lines, head and tail"
    caveats: list[str] = []
    records = ""
    if isinstance(doc, dict):
        caveats = [
            f"{key}: {json.dumps(doc[key])}" if key == "warnings" else f"{key}={doc[key]!r}"
            for key in _CAVEATS if key in doc
        ]
        for entry in env.get("elided", []):
            start = entry.get("from", 0)
            records = (
                f"{entry['kind']} {entry['path']}: {start + 1}-{start + entry['shown']} of "
                f"{entry['total']:,}, all whole"
            )
    elif text.startswith("[elision] "):
        header = text.split("\n", 1)[0]
        records = header.split(";", 1)[0].removeprefix("[elision] partial: ")
        if "SUMMARY:" in text:
            caveats = ["SUMMARY line (the verdict, written last)"]
    partial = None
    if text.startswith("[elision] partial"):
        partial = "[elision] header line first: lines shown of total, digest, ref"
    elif env and not env.get("complete", True):
        partial = "__elision__ first: complete=false, what was cut, and where it is"
    total = env.get("bytes", {}).get("total") or (len(original.encode()) if original else 0)
    return View(
        shown_bytes=len(text.encode()), total_bytes=total, intact=intact, integrity=integrity,
        says_partial=partial, caveats=caveats, records=records, rest=env.get("next"),
        tail=text[-70:],
    )


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _envelope(result: types.CallToolResult) -> dict[str, Any] | None:
    meta = result.meta or {}
    env = meta.get(META_KEY)
    return env if isinstance(env, dict) else None


def _parses(text: str) -> bool:
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
