"""What the MCP SDK logs while `elision lint` or `elision doctor` talks to a server reaches
stderr redacted and in one line (QA pass as a server author).

Found by linting, and running doctor on, a server that prints a line to stdout before it
speaks MCP: the SDK logged "Failed to parse JSONRPC message from server" through Python's
last-resort handler, a traceback ending in pydantic's ``input_value='config loaded:
token=ghp...vwxyz0123456789'``: part of the token, cut so that no rule reads it as one."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pydantic
import pytest
from click.testing import CliRunner

from elision.cli import main

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def sdk_fails_to_parse_a_line() -> None:
    """What mcp.client.stdio does with a stdout line that is not JSON-RPC."""
    try:
        pydantic.TypeAdapter(dict).validate_json(f"config loaded: token={TOKEN} \x1b[2J")
    except pydantic.ValidationError:
        logging.getLogger("mcp.client.stdio").exception(
            "Failed to parse JSONRPC message from server")


def invoke(args: list[str]) -> Any:
    """The command run with the root logger as its process has it: no handler (pytest's
    capture handlers, added for the test's call, would take the records instead)."""
    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()
    try:
        return CliRunner().invoke(main, args)
    finally:
        root.handlers[:] = kept


def said_once_redacted(stderr: str) -> None:
    assert "Failed to parse JSONRPC message from server" in stderr
    assert "Traceback" not in stderr and "input_value" not in stderr
    assert "vwxyz0123456789" not in stderr and "\x1b" not in stderr


def test_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    import elision.lint
    from elision.lint.runner import LintResult

    def lint(*args: Any, **kwargs: Any) -> LintResult:
        sdk_fails_to_parse_a_line()
        return LintResult("server", [], [])

    monkeypatch.setattr(elision.lint, "lint", lint)
    result = invoke(["lint", "--no-progress", "--", "server"])
    said_once_redacted(result.stderr)
    assert result.stderr.startswith("elision lint: mcp.client.stdio: ")


def test_doctor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import elision.install.doctor

    def check(*args: Any, **kwargs: Any) -> list[Any]:
        sdk_fails_to_parse_a_line()
        return []

    monkeypatch.setattr(elision.install.doctor, "check", check)
    config = tmp_path / "claude.json"
    config.write_text('{"mcpServers": {}}')
    result = invoke(["doctor", "claude-code", "--config", str(config)])
    said_once_redacted(result.stderr)
    # the handler is the command's alone: gone once it returns
    assert not [h for h in logging.getLogger().handlers
                if type(h.formatter).__name__ == "Brief"]
