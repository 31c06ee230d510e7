"""``elision lint``: audit an MCP server's tools against the four rules a response keeps.

    >>> from elision.lint import Target, lint
    >>> result = lint(Target(command=("python", "my_server.py")))  # doctest: +SKIP
    >>> result.failed  # doctest: +SKIP

The rules live in :mod:`elision.lint.rules`, the calls in :mod:`elision.lint.runner`, the
verdicts per tool in :mod:`elision.lint.judge` and the report in :mod:`elision.lint.report`.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from elision.lint.judge import ToolReport
from elision.lint.rules import RULES, Verdict
from elision.lint.runner import DEFAULT_CALL_TIMEOUT, LintResult, Target, run_lint
from elision.lint.scenarios import Scenario, load_scenarios

__all__ = [
    "RULES", "LintResult", "Scenario", "Target", "ToolReport", "Verdict", "lint",
    "load_scenarios",
]


def lint(
    target: Target,
    scenarios: dict[str, list[Scenario]] | None = None,
    *,
    timeout: float = DEFAULT_CALL_TIMEOUT,
    on_start: Callable[[int], None] | None = None,
    on_call: Callable[[str], None] | None = None,
) -> LintResult:
    """Lint the server ``target``: connect, call each tool's scenarios, judge the answers."""

    async def main() -> LintResult:
        return await run_lint(target, scenarios or {}, timeout=timeout, on_start=on_start,
                              on_call=on_call)

    return anyio.run(main)
