"""The checks every harness passes, imported by each ``test_<harness>.py`` (one file a harness,
so xdist's ``--dist loadfile`` gives the harnesses to different workers).

Each file defines a module-scoped ``spec`` fixture; ``runs`` drives the harness once per tool it
is asked for and keeps the record for the module's other checks. The per-harness files are the
full matrix (``-m harness_full``); test_ci_matrix.py runs the checks marked ``harness`` (one tool
call per harness) for every harness at once, side by side, which is what CI runs.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from elision.budget import Budget
from elision.install.harnesses import HARNESSES
from elision.store import open_store
from elision.store.base import OWNER_SCOPE
from harness import received
from harness.fakemodel import next_call
from harness.harnesses import (
    LATEST,
    NEWEST,
    PINNED,
    Ctx,
    Spec,
    install,
    install_latest,
    run,
    version,
)
from harness.toolserver import AWS_KEY, GITHUB_TOKEN, LOG_VERDICT, WARNING
from harness.toolserver import INSTRUCTIONS as FIXTURE_INSTRUCTIONS

CI_SUBSET = [pytest.mark.harness_full, pytest.mark.harness]
FULL_ONLY = [pytest.mark.harness_full]

Runs = Callable[[str], dict[str, Any]]


#: what changed in what the model receives, pinned → @latest (ELISION_HARNESS_LATEST=1), one
#: line each; a file, since xdist's workers find the changes and its controller prints them
#: (the conftest, at the end of the run)
CHANGES = NEWEST.parent / "changes.txt"


def drive(spec: Spec, tool: str, root: Path, modules: Path = PINNED) -> dict[str, Any]:
    """One harness run asking for ``tool``, with the fixture server put behind elision by
    ``elision install`` (no ``--budget``: the proxy sizes results for the client connected)."""
    ctx = Ctx(root, modules)
    config = spec.configure(ctx)
    said = install(spec, ctx, config)
    written = config.read_text("utf-8")
    assert '"proxy"' in written, f"nothing installed: {said}"
    assert "--budget" not in written, f"the installer wrote a budget into {config}"
    record = run(spec, ctx, tool)
    record["ctx"] = ctx
    return record


@pytest.fixture(scope="module")
def runs(spec: Spec, loopback_only: None, tmp_path_factory: pytest.TempPathFactory,
         request: pytest.FixtureRequest) -> Iterator[Runs]:
    if not spec.executable().exists():
        pytest.skip(f"{spec.title} is not installed: npm install --prefix tests/harness")
    if LATEST:
        install_latest(spec)
    done: dict[str, dict[str, Any]] = {}
    # runs a module started at once, side by side (test_ci_matrix.py)
    started: dict[tuple[str, str], Future[dict[str, Any]]] = getattr(
        request.module, "STARTED", {})

    def get(tool: str) -> dict[str, Any]:
        if tool not in done:
            future = started.get((spec.key, tool))
            done[tool] = future.result() if future is not None else drive(
                spec, tool, tmp_path_factory.mktemp(f"{spec.key}-{tool}"),
                NEWEST if LATEST else PINNED)
            if LATEST:
                pinned = summary(drive(spec, tool, tmp_path_factory.mktemp(
                    f"{spec.key}-{tool}-pinned")))
                newest = summary(done[tool])
                label = (f"{spec.title} {version(spec)} -> {version(spec, NEWEST)}, {tool}")
                with CHANGES.open("a", encoding="utf-8") as out:
                    out.writelines(line + "\n" for line in compare(label, pinned, newest))
        return done[tool]

    yield get


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """What the model received, in short: the tools it was offered and each result's size,
    framing and ends."""
    seen = received.turns(record)
    results = []
    for r in seen.results:
        start = min((i for i in (r.text.find('{"__elision__"'), r.text.find("[elision] "))
                     if i >= 0), default=-1)
        results.append({"name": r.name, "bytes": len(r.text.encode()),
                        # numbers vary run to run (Codex: "Wall time: 2.3 seconds")
                        "framing before": re.sub(r"\d+(?:\.\d+)?", "N", r.text[:start])
                        if start >= 0 else None,
                        "head": r.text[:80], "tail": r.text[-80:]})
    return {"tools": sorted(seen.tools), "results": results,
            "clients": [f"{c.get('name')} {c.get('version')}" for c in record["clients"]]}


def compare(label: str, pinned: dict[str, Any], newest: dict[str, Any]) -> list[str]:
    """One line per difference between two summaries."""
    lines = []
    added = sorted(set(newest["tools"]) - set(pinned["tools"]))
    gone = sorted(set(pinned["tools"]) - set(newest["tools"]))
    if added or gone:
        lines.append(f"{label}: tools offered: +{added} -{gone}")
    if pinned["clients"] != newest["clients"]:
        lines.append(f"{label}: clientInfo: {pinned['clients']} -> {newest['clients']}")
    if len(pinned["results"]) != len(newest["results"]):
        lines.append(f"{label}: results handed over: {len(pinned['results'])} -> "
                     f"{len(newest['results'])}")
    for i, (old, new) in enumerate(zip(pinned["results"], newest["results"], strict=False)):
        for key in ("name", "framing before", "bytes"):
            if (old[key] != new[key] and key != "bytes") or (
                    key == "bytes" and abs(old[key] - new[key]) > 64):
                lines.append(f"{label}: result {i + 1} {key}: {old[key]!r} -> {new[key]!r}")
    return lines or [f"{label}: no change in what the model receives"]


def said(record: dict[str, Any]) -> str:
    """The harness's own output, for a failing assertion's message."""
    return (f"exit {record['code']} in {record['seconds']} s; stdout: {record['stdout'][-1500:]!r}"
            f"; stderr: {record['stderr'][-1500:]!r}")


#: product failures this suite found that are not fixed yet: a harness, the line its own log
#: writes when it happens, and what it means. A check that fails with that line in the log is
#: an expected failure (xfail); failing without it, it is a failure; passing, a pass.
KNOWN: dict[str, tuple[str, str]] = {}
# (Copilot CLI's fallback to initialize after its server/discover, refused with -32022 by a
# proxy slow to start, is served since the proxy stamps each line's arrival:
# elision.mcp.agent.arrivals.)


def known_failure(spec: Spec, record: dict[str, Any]) -> None:
    """xfail the check if the harness's logs show a known failure of the product."""
    if spec.key not in KNOWN:
        return
    line, why = KNOWN[spec.key]
    ctx: Ctx = record["ctx"]
    for log in ctx.home.rglob("*.log"):
        if line in log.read_text("utf-8", "replace"):
            pytest.xfail(why)


def result_of(spec: Spec, record: dict[str, Any], index: int = 0) -> received.Event:
    seen = received.turns(record)
    if len(seen.results) <= index:
        known_failure(spec, record)
    assert len(seen.results) > index, f"the model got {len(seen.results)} results; {said(record)}"
    handed = seen.results[index]
    return dataclasses.replace(handed, text=spec.unwrap(handed.text))


def proxy_page(record: dict[str, Any], next_args: dict[str, str], budget: int,
               lines: int | None = None) -> str:
    """The page the proxy's store gives for a fetch, read as its owner (what ``elision fetch``
    prints; read here in the test's own process, one process start fewer a harness), within
    the harness's line cap as the proxy gives it."""
    ctx: Ctx = record["ctx"]
    store = open_store(str(ctx.store))
    try:
        page = store.fetch(next_args["ref"], path=next_args.get("path"),
                           lines=next_args.get("lines"), byte_range=next_args.get("bytes"),
                           budget=Budget(budget, "bytes", lines=lines), scope=OWNER_SCOPE)
    finally:
        store.close()
    return page.text


# ---- the checks ------------------------------------------------------------------------------

@pytest.mark.parametrize("tool", [pytest.param("trade_report", marks=CI_SUBSET),
                                  pytest.param("build_log", marks=FULL_ONLY)])
def test_the_model_is_offered_the_tool_and_elision_fetch(spec: Spec, runs: Runs,
                                                         tool: str) -> None:
    record = runs(tool)
    tools = received.turns(record).tools
    if spec.tool_name(tool) not in tools:
        known_failure(spec, record)
    assert spec.tool_name(tool) in tools, f"{sorted(tools)}; {said(record)}"
    assert spec.tool_name("elision_fetch") in tools, sorted(tools)


@pytest.mark.parametrize("tool", [pytest.param("trade_report", marks=CI_SUBSET)])
def test_the_harness_names_itself_as_the_budget_table_expects(
        spec: Spec, runs: Runs, tool: str) -> None:
    """The ``clientInfo`` the harness really sends (seen by the witness server it starts
    beside the proxy) is one the table of per-client budgets gives to this harness."""
    from elision.mcp.agent.clients import ClientBudgets  # the MCP types: not at collection

    record = runs(tool)
    assert record["clients"], f"the witness saw no clientInfo; {said(record)}"
    table = ClientBudgets()
    title = f"{spec.title} {version(spec, record['ctx'].modules)}"
    for info in record["clients"]:
        assert table.harness_of(info.get("name")) == spec.target, (
            f"{title} calls itself {info!r}; the table of elision.install.harnesses gives "
            f"that name to {table.harness_of(info.get('name'))}")


@pytest.mark.parametrize("tool", [pytest.param("trade_report", marks=CI_SUBSET)])
def test_a_large_json_result_reaches_the_model_whole_with_its_envelope_first(
        spec: Spec, runs: Runs, tool: str) -> None:
    """~340 KB of rows with ``warnings`` and ``total`` last: the model gets valid JSON, the
    envelope first, the caveats, and every row the envelope says is shown (no second cut)."""
    record = runs(tool)
    got = result_of(spec, record).text
    framing, shaped = received.shaped_json(got)
    assert '"rows"' not in framing and len(framing) < 200, framing
    doc = json.loads(shaped)
    assert next(iter(doc)) == "__elision__"
    envelope = doc["__elision__"]
    # A harness may hand over structuredContent re-serialized (Claude Code: JavaScript writes
    # 12.0 as 12), so the bytes can differ by a little from the proxy's; the rows cannot.
    assert len(shaped.encode()) <= envelope["bytes"]["shown"] <= spec.budget
    # sized for this harness (the shaper fills a budget to within 1%), not for a client the
    # table does not know (the lowest budget), nor a budget written into the config
    assert envelope["bytes"]["shown"] > 0.95 * spec.budget, (envelope["bytes"], spec.budget)
    rows = next(e for e in envelope["elided"] if e["path"] == "$.rows")
    assert len(doc["rows"]) == rows["shown"] and rows["total"] == 2_000
    assert doc["warnings"] == [WARNING] and doc["total"] == 48_113


#: what every line but the verdict of each log holds
LOG_LINE = {"build_log": "INFO worker", "short_log": " passed", "tiny_log": "ok."}
#: how many lines each log has
LOG_TOTAL = {"build_log": 3_001, "short_log": 3_001, "tiny_log": 12_001}


@pytest.mark.parametrize("tool", [pytest.param("build_log", marks=FULL_ONLY),
                                  # short lines: a harness's line cap (OpenCode: 2,000 lines)
                                  # bites before its bytes cap, and then cuts the verdict
                                  pytest.param("short_log", marks=FULL_ONLY),
                                  # 4-byte lines: over the line cap at any byte budget
                                  pytest.param("tiny_log", marks=FULL_ONLY)])
def test_a_large_log_reaches_the_model_with_its_header_first_and_its_last_line(
        spec: Spec, runs: Runs, tool: str) -> None:
    """3,001 lines (12,001 in the tiny log) ending with the verdict: whole lines, head and
    tail, the header first, every line the header says is shown, and no more lines than the
    harness keeps."""
    record = runs(tool)
    got = result_of(spec, record).text
    framing, lines = received.shaped_text(got)
    marker = LOG_LINE[tool]
    assert marker not in framing and len(framing) < 200, framing
    header = received.HEADER.match(lines[0])
    assert header, lines[0]
    a, b, c, d, total = (int(x.replace(",", "")) for x in header.groups()[:5])
    assert (a, d, total) == (1, LOG_TOTAL[tool], LOG_TOTAL[tool])
    body = [x for x in lines[1:] if not x.startswith("[… ")]
    after: list[str] = []  # framing a harness adds after the text (</untrusted_context>)
    while body and body[-1].strip() != LOG_VERDICT and marker not in body[-1] \
            and len(after) < 3:
        after.append(body.pop())
    assert body[-1].strip() == LOG_VERDICT
    assert len([x for x in body if marker in x]) == (b - a + 1) + (d - c + 1) - 1
    cap = HARNESSES[spec.target].lines
    if cap is not None and tool != "build_log":  # the cap used, not a smaller share of it
        assert 0.9 * cap < d - c + 1 + b - a + 1 <= cap, (header.group(0), cap)


@pytest.mark.parametrize("tool", [pytest.param("deploy_config", marks=FULL_ONLY)])
def test_no_credential_reaches_the_model(spec: Spec, runs: Runs, tool: str) -> None:
    record = runs(tool)
    got = result_of(spec, record).text
    assert "region = eu-west-1" in got and "replicas = 3" in got, got
    everything = received.turns(record).everything
    assert AWS_KEY not in everything and GITHUB_TOKEN not in everything


@pytest.mark.parametrize("tool", [pytest.param("trade_report", marks=CI_SUBSET)])
def test_the_servers_instructions_reach_the_model_as_directly(
        spec: Spec, runs: Runs, tool: str) -> None:
    """Where the harness hands a server's instructions to its model (the witness's, given
    straight to it, arrive), the fixture server's arrive too, through elision: the proxy
    answered every ``initialize`` with its own and dropped the server's (found by the
    newcomer pass, 2026-12-05)."""
    from harness.witness import INSTRUCTIONS

    record = runs(tool)
    everything = received.turns(record).everything
    if INSTRUCTIONS not in everything:
        pytest.skip(f"{spec.title} hands no server's instructions to its model")
    assert FIXTURE_INSTRUCTIONS in everything, said(record)


@pytest.mark.parametrize("tool", [pytest.param("trade_report", marks=CI_SUBSET),
                                  pytest.param("build_log", marks=FULL_ONLY)])
def test_elision_fetch_gives_the_model_the_page_the_proxy_gives(
        spec: Spec, runs: Runs, tool: str) -> None:
    record = runs(tool)
    first = result_of(spec, record, 0).text
    args = next_call(first)
    assert args is not None, first[:300]
    page = result_of(spec, record, 1)
    assert page.name == spec.tool_name("elision_fetch"), page.name
    proxy = proxy_page(record, args, spec.budget, HARNESSES[spec.target].lines)
    assert proxy in page.text and len(page.text) - len(proxy) < 200, (
        f"the model got {page.text[:300]!r}, the proxy gives {proxy[:300]!r}")
    assert AWS_KEY not in received.turns(record).everything
