"""One exit-code scheme across every command: 2 when elision was asked wrongly, 1 when it tried.

Found in a QA pass: ``elision shape -b 12`` exited 1 while ``--unit words`` exited 2, and
``elision guardian --listen bogus`` exited 1 though nothing was ever tried. The scheme
(``elision --help``, the README's Configuration, docs/design.md):

- 2: the command line, a config file, a key or the input is not of a form elision can read,
  so nothing was done (click's own usage errors are 2 as well);
- 1: the operation was tried and failed, or its answer is no.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.audit.log import AuditLog
from elision.cli import main
from elision.cli._common import EXIT_FAILURE, EXIT_USAGE

GOOD_KEY = "hmac:" + "k" * 32


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ELISION_STORE", "ELISION_AUDIT", "ELISION_AUDIT_KEY", "ELISION_ACS_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "result.json").write_text(json.dumps({"rows": list(range(10))}))
    (tmp_path / "prose.txt").write_text("not json at all\n")
    (tmp_path / "bad.toml").write_text("[[policy]\n")
    (tmp_path / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"gone": {"command": "no-such-command-qa"}}}))
    log = AuditLog(tmp_path / "audit.db", key=GOOD_KEY, checkpoint_every=1)
    log.append({"step_id": "a", "decision": "allow"})
    log.close()


GUARDIAN = ["guardian", "--no-store", "--log", "{tmp}/g.db"]

CASES = [
    # --- 2: asked wrongly, nothing done
    (["shape", "{tmp}/result.json", "-b", "12"], EXIT_USAGE, "at least 512"),  # BudgetError
    (["shape", "{tmp}/result.json", "--unit", "words"], EXIT_USAGE, "words"),  # click's choice
    (["shape", "{tmp}/result.json", "--no-such-flag"], EXIT_USAGE, "no-such-flag"),  # click
    (["shape", "{tmp}/prose.txt", "--format", "json", "--no-store"], EXIT_USAGE, "JSON"),
    (["fetch", "elision_fetch(ref=", "--store", ":memory:"], EXIT_USAGE, "not a next call"),
    ([*GUARDIAN, "--listen", "bogus"], EXIT_USAGE, "HOST:PORT"),  # was 1
    ([*GUARDIAN, "--acs-key", "hex:zz"], EXIT_USAGE, "hex"),  # a malformed key
    ([*GUARDIAN, "--config", "{tmp}/bad.toml"], EXIT_USAGE, "bad.toml"),  # a config
    (["proxy", "--store", "s.db", "--no-store", "--", "true"], EXIT_USAGE, "--no-store"),
    (["proxy", "--budget", "12", "--no-store", "--no-audit", "--", "true"], EXIT_USAGE, "512"),
    (["lint", "--timeout", "0", "--", "true"], EXIT_USAGE, "--timeout"),
    (["install", "no-such-harness"], EXIT_USAGE, "no-such-harness"),
    # --- 1: tried, and failed or said no
    (["fetch", "el_" + "x" * 24, "--store", "{tmp}/store.db"], EXIT_FAILURE, "store"),
    (["audit", "verify", "--log", "{tmp}/nowhere.db"], EXIT_FAILURE, "no audit log"),
    (["audit", "verify", "--log", "{tmp}/audit.db", "--key", "hmac:" + "w" * 32],
     EXIT_FAILURE, "does not verify"),  # a well-formed key that is not the one
    (["lint", "--no-progress", "--", "no-such-command-qa"], EXIT_FAILURE, "no-such-command-qa"),
    (["doctor", "claude-code", "--config", "{tmp}/mcp.json"], EXIT_FAILURE, "gone"),
]


@pytest.mark.parametrize(("args", "code", "message"), CASES)
def test_every_command_exits_by_one_scheme(
    tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    result = CliRunner().invoke(main, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == code, result.output
    assert message in result.output
    if args[0] != "doctor" and "Usage:" not in result.output:
        assert result.stderr.startswith("error: "), result.output  # one line, ours


def test_the_scheme_is_in_the_top_level_help() -> None:
    text = CliRunner().invoke(main, ["--help"]).output
    assert "Exit status" in text and "2 " in text and "1 " in text
