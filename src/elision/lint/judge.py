"""From one tool's schemas and answers to a verdict on each of the four rules.

A tool is judged on its answers (and its schemas). A tool that gave no answer to judge (every
call failed or answered with an error, or no call could be made) is **not exercised**: a rule
that needs an answer says so instead of PASS (a schema may still make it FAIL), and the run
does not pass (see :attr:`elision.lint.runner.LintResult.status`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from elision.lint.rules import (
    Response,
    Verdict,
    limit_argument,
    rule1_order,
    rule1_text,
    rule2_bounded,
    rule3_declared,
    rule4_induced,
    rule4_schema,
    rule4_zero,
    schema_order,
)
from elision.lint.textscan import scan_text, text_rows
from elision.redact.messages import clip

#: A bulk array longer than this, from a tool with no limit-like argument, is unbounded.
UNBOUNDED_ITEMS = 100


@dataclass
class ToolReport:
    """Everything the lint found about one tool."""

    name: str
    exercised: bool
    limit_argument: str | None
    verdicts: list[Verdict]
    #: Calls that did not produce an answer (the client raised, or timed out).
    errors: list[str] = field(default_factory=list)
    #: Why no call was made, when none was (no arguments could be made from the schema).
    not_called: str | None = None
    #: The arguments made from the input schema, when the tool had no scenario.
    generated: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(v.status == "fail" for v in self.verdicts)


def judge_tool(
    name: str,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None,
    responses: list[Response],
    limit_responses: list[Response],
    errors: list[str] | None = None,
) -> ToolReport:
    """The four verdicts for one tool.

    ``responses`` are the scenario answers (largest first); ``limit_responses`` the answers to
    the same arguments with the limit-like argument at 1.
    """
    limit_arg = limit_argument(input_schema)
    ordinary = [r for r in responses if r.induced_failure is None]
    called = bool(responses or limit_responses)
    # Exercised: at least one answer that says something about the data, not an error.
    exercised = any(not r.is_error for r in [*ordinary, *limit_responses]) or any(
        r.induced_failure is not None for r in responses)
    verdicts = [
        _rule1(ordinary, output_schema, called),
        _rule2(ordinary, limit_responses, limit_arg, output_schema, called),
        _rule3(ordinary, limit_responses, limit_arg),
        _rule4(responses, output_schema),
    ]
    return ToolReport(name, exercised, limit_arg, verdicts, list(errors or []))


def _verdict(rule: int, fails: list[str], notes: list[str], exercised: bool) -> Verdict:
    if fails:
        return Verdict(rule, "fail", _redacted(fails + notes))
    return Verdict(rule, "pass" if exercised else "not exercised", _redacted(notes))


def _redacted(evidence: list[str]) -> list[str]:
    # Evidence quotes the tool's answers, and a report goes to CI logs, SARIF uploads and
    # the agents that read them: a credential in an answer is withheld here too.
    from elision.redact import redact_text

    return [str(redact_text(line).value) for line in evidence]


def _rule1(ordinary: list[Response], schema: dict[str, Any] | None, exercised: bool) -> Verdict:
    """JSON answers by their caveat members, text answers by their coverage lines."""
    fails, _ = schema_order(schema)
    notes: list[str] = []
    answers = [r for r in ordinary if not r.is_error]
    json_answers = [r for r in answers if r.scan is not None]
    for resp in answers:
        f, n = rule1_order(resp) if resp.scan is not None else rule1_text(resp)
        fails += f
        notes += n
    if not fails and not answers:
        notes.append("every answer was an error: nothing to read" if ordinary else
                     "only induced failures were called: no ordinary answer to read"
                     if exercised else
                     "no scenario: only the output schema's order was checked; give it one "
                     "with --scenarios to judge its answers"
                     if schema else "no scenario and no output schema; give it one with "
                     "--scenarios to judge its answers")
    elif not fails and json_answers:
        has_bulk = any(r.scan is not None and r.scan.bulk_arrays for r in json_answers)
        notes.insert(0, "every caveat comes before the first bulk array" if has_bulk
                     else "no bulk array in any answer")
    return _verdict(1, fails, notes, bool(answers))


def _rule2(
    ordinary: list[Response], limited: list[Response], limit_arg: str | None,
    schema: dict[str, Any] | None, exercised: bool,
) -> Verdict:
    fails: list[str] = []
    notes: list[str] = []
    if limit_arg is None:
        answers = [r for r in ordinary if not r.is_error]
        for resp in answers:
            if resp.scan is None:
                # Rows however they are printed: lines, or records on one long line.
                lines = scan_text(resp.body).data_lines
                rows = text_rows(resp.body)
                if rows > UNBOUNDED_ITEMS:
                    how = (f"{lines:,} data lines" if rows == lines else
                           f"{rows:,} rows on {lines:,} line{'s' if lines != 1 else ''} "
                           f"({len(resp.body):,} bytes)")
                    fails.append(f"{resp.label}: text answer of {how} and the tool takes no "
                                 "limit-like argument to bound them")
                continue
            for b in resp.scan.bulk_arrays:
                if b.value > UNBOUNDED_ITEMS:
                    fails.append(f"{resp.label}: {b.path} has {b.value:,} items and the tool "
                                 "takes no limit-like argument to bound it")
        if not answers:
            _, arrays = schema_order(schema)
            if arrays:
                fails.append("output schema declares arrays (" + ", ".join(arrays) + ") "
                             "and the tool takes no limit-like argument to bound them")
        if not fails:
            notes.append("takes no limit-like argument; no bulk array over "
                         f"{UNBOUNDED_ITEMS} items or text lines" if answers else
                         "takes no limit-like argument")
        return _verdict(2, fails, notes, bool(answers))
    for resp in limited:
        if resp.is_error:
            fails.append(f"{resp.label}: answered with an error: "
                         f"{clip(resp.body.decode('utf-8', 'replace'), 200)!r}")
        elif resp.scan is None:
            text = scan_text(resp.body)
            notes.append(f"{resp.label}: answer is text, not JSON, {text.data_lines:,} data "
                         f"line{'s' if text.data_lines != 1 else ''} at {limit_arg}="
                         f"{resp.limit}; no arrays to count")
        else:
            f, n = rule2_bounded(resp)
            fails += f
            notes += n
    if not limited:
        notes.append(f"takes {limit_arg!r}; " + ("no scenario to call it with"
                     if not exercised else "not called with it"))
    elif not fails and any(r.scan is not None for r in limited):
        notes.insert(0, f"{limit_arg}=1 bounds every bulk array")
    return _verdict(2, fails, notes, bool(limited))


def _rule3(ordinary: list[Response], limited: list[Response], limit_arg: str | None) -> Verdict:
    answers = [r for r in [*ordinary, *limited] if not r.is_error]
    fails: list[str] = []
    for resp in answers:
        fails += rule3_declared(resp)
    base = [scan_text(r.body).data_lines for r in ordinary if not r.is_error and r.scan is None]
    for resp in limited:
        if resp.is_error or resp.scan is not None or not base:
            continue
        text = scan_text(resp.body)
        if text.data_lines < max(base) and not text.coverage:
            # The limit cut the answer (the call without it showed more), and nothing says so.
            fails.append(
                f"{resp.label}: text answer of {text.data_lines:,} data line"
                f"{'s' if text.data_lines != 1 else ''} at {limit_arg}={resp.limit}, where "
                f"the call without it showed {max(base):,}, and no line says how much there "
                "is or how to get more; say shown-of-total, e.g. '1 of 2,000 commits shown'"
            )
    notes = [] if fails or not answers else [
        f"{len(answers)} answer{'s' if len(answers) != 1 else ''} read: every array at its "
        "limit has a count or cursor beside it, every truncation note has numbers"
    ]
    if not answers:
        notes.append("no answer to read (" + ("every call answered with an error"
                     if ordinary or limited else "no call was made") + ")")
    return _verdict(3, fails, notes, bool(answers))


def _rule4(responses: list[Response], schema: dict[str, Any] | None) -> Verdict:
    fails = rule4_schema(schema)
    notes: list[str] = []
    read = [r for r in responses if r.induced_failure is not None or not r.is_error]
    for resp in responses:
        if resp.induced_failure is not None:
            f, n = rule4_induced(resp)
            fails += f
            notes += n
        elif not resp.is_error:
            fails += rule4_zero(resp)
    if not any(r.induced_failure for r in responses):
        notes.append("no scenario induces a failure")
    if schema and not fails:
        notes.insert(0, "output schema: no aggregate field that cannot be null")
    if not read:
        notes.append("no answer to read: the schema alone cannot show a zero that should be "
                     "null")
    return _verdict(4, fails, notes, bool(read))
