"""`.ci/run` runs what the README says CI runs.

Found by reading it (issue 14, item 15): the README said CI ran ruff and mypy; `.ci/run` ran
pytest alone, so a lint or type error could land.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _readme_test_command() -> tuple[str, str]:
    """The README's test command: its install part and its pytest part."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pattern = r"^(python3 -m venv \.venv && .*'\.\[test\]') && (\.venv/bin/python -m pytest\b.*)$"
    match = re.search(pattern, readme, re.MULTILINE)
    assert match, "README's test command not found"
    return match.group(1), match.group(2)


def test_ci_runs_ruff_and_mypy_before_pytest() -> None:
    commands = _commands()
    ruff = next(i for i, c in enumerate(commands) if c.startswith(".venv/bin/ruff check"))
    mypy = next(i for i, c in enumerate(commands) if c == ".venv/bin/mypy")
    pytest = next(i for i, c in enumerate(commands) if c.startswith(".venv/bin/python -m pytest"))
    assert "src tests bench" in commands[ruff]
    # pytest last: CI reads the test runner's closing line.
    assert ruff < pytest and mypy < pytest and pytest == len(commands) - 1


def test_ci_runs_a_subset_of_the_redaction_tests_with_the_regex_passes() -> None:
    """Found by running tests/redact under ``ELISION_REDACT_ENGINE=re`` (13 failures no CI job
    had seen): the regex passes' own bounds run in CI, before the suite's closing line."""
    commands = _commands()
    subset = [c for c in commands[:-1] if c.startswith("ELISION_REDACT_ENGINE=re ")]
    assert subset and "tests/redact/test_redact_json_dense.py" in subset[0]


def test_ci_installs_as_the_readme_test_command_does() -> None:
    install, _ = _readme_test_command()
    assert install in _commands()


def test_ci_runs_pytest_as_the_readme_test_command_does() -> None:
    """Its options too: the suite's workers (``-n``) and how tests are given to them
    (``--dist loadfile``, so a module's fixtures start once) are the README's, not CI's own."""
    _, pytest = _readme_test_command()
    assert _commands()[-1] == pytest


def test_pytest_loads_the_plugins_it_names_and_not_langsmiths(
        request: pytest.FixtureRequest) -> None:
    """langchain-core (the [test] extra's adapter) brings langsmith, whose pytest plugin loaded
    in every pytest process by entry point (0.85 s of CPU of a 1.75 s run of one test file,
    paid again by each xdist worker) for a marker no test here uses; autoload is off, and the
    plugins the suite needs are named in pyproject.toml."""
    plugins = request.config.pluginmanager
    assert not plugins.has_plugin("langsmith_plugin")
    assert plugins.has_plugin("_hypothesis_pytestplugin") and plugins.has_plugin("pytest_timeout")


def test_ci_installs_chromium_for_the_browser_tests_only_when_it_is_absent() -> None:
    """The viewer's browser tests (tests/view/) drive Debian's chromium; without it they skip,
    so CI would pass without ever running them."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    guard = text.index("if ! command -v chromium")
    install = text.index("apt-get install -y -qq chromium")
    assert guard < install < text.index(".venv/bin/python -m pytest")
