"""A lint report never quotes a credential from a tool's answers (issue 13: every surface).

The lint quotes answers as evidence (an error's text, a line that says it was cut, a value
beside an error), and a report goes to CI logs, SARIF uploads and the agents that read them.
Each seeded credential is put where the lint quotes it; no rendering of the report holds it.
"""

from __future__ import annotations

import mcp_types as types
import pytest

from elision.lint.judge import judge_tool
from elision.lint.report import render
from elision.lint.runner import LintResult, response_of
from support.seeded import Seed, seeds

SCHEMA = {"type": "object", "properties": {"limit": {"type": "integer"}}}


def _answer(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)


@pytest.mark.parametrize("seed", seeds(), ids=lambda s: s.name)
def test_no_report_format_quotes_a_seeded_credential(seed: Seed) -> None:
    ordinary = [response_of(_answer(f"results truncated:\n{seed.text}"), "scenario 'all'")]
    failed = response_of(_answer(f"denied: {seed.text}", error=True), "limit=1")
    failed.limit = 1
    report = judge_tool("t", SCHEMA, None, ordinary, [failed])
    evidence = " ".join(e for v in report.verdicts for e in v.evidence)
    assert "denied: " in evidence, "the lint no longer quotes the error: the test checks nothing"
    for fmt in ("markdown", "json", "sarif"):
        out = render(LintResult("python s.py", [report], []), fmt)
        assert seed.secret not in out, f"the {fmt} report quotes the {seed.name} seed"


@pytest.mark.parametrize("seed", seeds(), ids=lambda s: s.name)
def test_the_generated_arguments_line_quotes_no_seeded_credential(seed: Seed) -> None:
    """Issue 13, item 5: the report prints the arguments the lint made from a schema, and a
    schema's own ``default`` or ``examples`` may hold a live token (a server that documents
    its key there); the line was cut to 300 chars, never redacted."""
    from elision.lint.judge import ToolReport, Verdict

    report = ToolReport("t", True, None, [Verdict(1, "pass")],
                        generated={"api_key": seed.text, "note": seed.text})
    for fmt in ("markdown", "json"):
        out = render(LintResult("python s.py", [report], []), fmt)
        assert "arguments made from its input schema" in out or "arguments_generated" in out
        assert seed.secret not in out, f"the {fmt} report quotes the {seed.name} seed"


def test_a_schema_whose_default_is_refused_is_reported_without_the_default() -> None:
    # The made-up arguments did not validate, and jsonschema's message quotes the value (cut
    # to 200 chars before: a cut token is no longer recognised).
    from elision.lint.runner import plan

    token = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"
    tool = types.Tool(name="t", input_schema={"type": "object", "properties": {
        "key": {"type": "string", "default": token, "maxLength": 8}}})
    scenarios, why = plan([tool], {})["t"]
    assert scenarios == [] and why is not None and "too long" in why
    assert token not in why and "ghp_" not in why
