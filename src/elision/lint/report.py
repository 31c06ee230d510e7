"""The lint report, as markdown (for people), JSON (for scripts) or SARIF 2.1.0 (for CI).

Every tool and every rule is listed, PASS as well as FAIL, with its evidence, so whoever reads
it next knows what was checked and does not audit again.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from elision.lint.judge import ToolReport
from elision.lint.rules import RULES
from elision.lint.runner import LintResult
from elision.redact import redact_value
from elision.redact.messages import clip
from elision.terminal import visible_lines

FORMATS: tuple[str, ...] = ("markdown", "json", "sarif")
#: SARIF rule ids, one per rule.
RULE_IDS: dict[int, str] = {n: f"ELISION{n:03d}" for n in RULES}
_RULE_NAMES = {1: "CoverageFirst", 2: "LimitBoundsEveryArray", 3: "TruncationNamesShownOfTotal",
               4: "UnreadableIsNullNotZero"}
_SHORT = {1: "coverage first", 2: "limit bounds arrays", 3: "shown-of-total",
          4: "null, not zero"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(result: LintResult, fmt: str) -> str:
    if fmt == "markdown":
        return to_markdown(result)
    if fmt == "json":
        return json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(result), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"report format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def to_json(result: LintResult) -> dict[str, Any]:
    statuses = [v.status for t in result.tools for v in t.verdicts]
    return {
        "target": result.target,
        "ok": not result.failed,
        "status": result.status,
        "summary": {
            "tools": len(result.tools),
            "tools_failing": sum(t.failed for t in result.tools),
            "tools_not_exercised": sum(not t.exercised for t in result.tools),
            "pass": statuses.count("pass"),
            "fail": statuses.count("fail"),
            "not exercised": statuses.count("not exercised"),
        },
        "unknown_scenarios": result.unknown_scenarios,
        "skipped": result.skipped,
        "tools": [
            {
                "name": t.name,
                "status": _tool_status(t),
                "exercised": t.exercised,
                "arguments_generated": _redacted(t.generated),
                "not_called": t.not_called,
                "limit_argument": t.limit_argument,
                "errors": t.errors,
                "rules": [
                    {"rule": v.rule, "id": RULE_IDS[v.rule], "title": v.title,
                     "status": v.status, "evidence": v.evidence}
                    for v in t.verdicts
                ],
            }
            for t in result.tools
        ],
    }


def _redacted(arguments: dict[str, Any] | None) -> Any:
    # A schema's default or examples may hold a live token, and a report goes to CI logs.
    return None if arguments is None else redact_value(arguments).value


def to_markdown(result: LintResult) -> str:
    failing = [t for t in result.tools if t.failed]
    unexercised = [t for t in result.tools if not t.exercised]
    lines = [f"# elision lint: `{result.target}`", ""]
    idle = (f"; {len(unexercised)} not exercised (nothing they answered could be judged)"
            if unexercised else "")
    if result.status == "fail":
        lines.append(f"**FAIL**: {len(failing)} of {len(result.tools)} tools break a rule"
                     + (" (and the scenarios name unknown tools)"
                        if result.unknown_scenarios else "") + idle + ".")
    elif result.status == "not exercised":
        lines.append(f"**NOT EXERCISED**: {len(unexercised)} of {len(result.tools)} tools gave "
                     "no answer to judge, so the run does not pass; give them arguments that "
                     "reach data with `--scenarios FILE` (see `elision lint --help`).")
    else:
        lines.append(f"**PASS**: no tool of {len(result.tools)} breaks a rule.")
    lines += ["", "| tool | exercised | " + " | ".join(f"{n}. {t}" for n, t in _SHORT.items())
              + " |", "|---|---|" + "---|" * len(RULES)]
    for t in result.tools:
        cells = [_status(v.status) for v in t.verdicts]
        lines.append(f"| `{_cell(t.name)}` | {'yes' if t.exercised else 'not exercised'} | "
                     + " | ".join(cells) + " |")
    if result.skipped:
        lines += ["", "Not linted: " + ", ".join(f"`{_cell(n)}`" for n in result.skipped)
                  + ", the tools elision proxy adds (they page what another tool answered)."]
    if result.unknown_scenarios:
        lines += ["", "Scenarios name tools the server does not list: "
                  + ", ".join(f"`{n}`" for n in result.unknown_scenarios)]
    for t in result.tools:
        lines += ["", f"## `{t.name}`" + ("" if t.exercised else " (not exercised)"), ""]
        if t.limit_argument:
            lines.append(f"Limit-like argument: `{t.limit_argument}`.")
            lines.append("")
        if t.generated is not None:
            lines.append("Called with arguments made from its input schema: "
                         f"`{_cell(clip(json.dumps(t.generated, ensure_ascii=False), 300))}`.")
            lines.append("")
        if t.not_called:
            lines.append(f"- **not called**: {t.not_called}; give it a scenario")
        for err in t.errors:
            lines.append(f"- **call failed**: {err}")
        for v in t.verdicts:
            lines.append(f"- Rule {v.rule}, {v.title}: **{_status(v.status)}**")
            lines += [f"  - {e}" for e in v.evidence]
    # People read this one (a terminal, a CI log that obeys ANSI): a tool's name, error or
    # evidence is the server's text, so its controls are shown, not obeyed.
    return visible_lines("\n".join(lines) + "\n")


def to_sarif(result: LintResult) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for t in result.tools:
        for v in t.verdicts:
            kind = {"pass": "pass", "fail": "fail"}.get(v.status, "notApplicable")
            text = f"tool {t.name!r}: rule {v.rule} ({v.title}): {v.status.upper()}"
            if v.evidence:
                text += ". " + "; ".join(v.evidence)
            results.append({
                "ruleId": RULE_IDS[v.rule],
                "ruleIndex": v.rule - 1,
                "kind": kind,
                "level": "error" if kind == "fail" else "none",
                "message": {"text": text},
                "locations": [{"logicalLocations": [
                    {"name": t.name, "fullyQualifiedName": f"tools/{t.name}", "kind": "function"}
                ]}],
            })
    notifications = [
        {"level": "error", "message": {"text": f"tool {t.name!r}: {err}"}}
        for t in result.tools for err in t.errors
    ] + [
        {"level": "error", "message": {"text": f"scenarios name an unknown tool {name!r}"}}
        for name in result.unknown_scenarios
    ] + [
        {"level": "error", "message": {"text": f"tool {t.name!r} was not exercised: no answer "
                                               "to judge; give it a scenario"}}
        for t in result.tools if not t.exercised
    ]
    return {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "elision lint",
                "version": _version(),
                "rules": [
                    {"id": RULE_IDS[n], "name": _RULE_NAMES[n],
                     "shortDescription": {"text": title},
                     "defaultConfiguration": {"level": "error"}}
                    for n, title in RULES.items()
                ],
            }},
            "invocations": [{
                "executionSuccessful": True,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    }


def _tool_status(tool: ToolReport) -> str:
    return "fail" if tool.failed else "pass" if tool.exercised else "not exercised"


def _status(status: str) -> str:
    return status.upper() if status != "not exercised" else "not exercised"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _version() -> str:
    try:
        return version("elision")
    except PackageNotFoundError:
        return "0"
