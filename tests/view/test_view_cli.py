"""`elision view` as a command: its help, its warnings, its errors (it never serves then)."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from elision.audit.log import AuditLog
from elision.cli import main


def test_help_says_what_it_serves_and_how_it_is_guarded() -> None:
    result = CliRunner().invoke(main, ["view", "--help"])
    assert result.exit_code == 0
    for words in ("--show-raw", "--port", "--host", "token", "127.0.0.1", "--store"):
        assert words in result.output


def test_a_log_that_is_not_there_is_an_error_naming_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["view", "--log", str(tmp_path / "none.db")])
    assert result.exit_code == 1
    assert "no audit log at" in result.output and "none.db" in result.output


def test_a_non_loopback_host_warns_and_a_port_in_use_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "audit.db"
    AuditLog(log).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, [
            "view", "--log", str(log), "--store", str(tmp_path / "store.db"),
            "--host", "0.0.0.0", "--port", str(port), "--show-raw"])
    assert "not a loopback address" in result.output
    assert "credentials included" in result.output  # --show-raw warns too
    # 0.0.0.0 takes every address, 127.0.0.1:port among them: that port is in use.
    assert result.exit_code == 2 and f"cannot listen on 0.0.0.0:{port}" in result.output
