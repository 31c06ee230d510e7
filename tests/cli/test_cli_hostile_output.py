"""Every operator surface shows hostile names and bodies as text (issue 25).

Found by planting names in a log and a config as an attacker who names a tool or a server
would: `audit show` crashed on `markup[/]x` (rich MarkupError) and a CSI in a tool name hid the
row above; `doctor` printed raw ESC and OSC 52 (a clipboard write) from a server's name and
its stderr; `shape` and `fetch` wrote a body's `\\r` to the terminal, so a line overwrote
itself. Output for programs (`--json`, a body to a pipe or a file) stays byte-exact.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from elision.audit.chain import tool_result_entry
from elision.audit.log import AuditLog
from elision.cli import main

#: (name, why): each is a tool or server name an attacker may choose.
HOSTILE = [
    ("markup[/]x", "a closing tag rich cannot match: MarkupError"),
    ("[bold]loud[/bold]", "markup that would restyle the row"),
    ("evil\x1b[2K\x1b[1A", "CSI: erase this line and move up"),
    ("clip\x1b]52;c;ZWNobyBwd25lZA==\x07", "OSC 52: writes the reader's clipboard"),
    ("c1\x9b2J", "a C1 CSI"),
    ("ok\rEVIL", "a carriage return overwrites the start of the line"),
    ("abc\b\b\bXYZ", "backspaces overwrite"),
    ("\u202etxt.exe", "a right-to-left override reverses what follows"),
]
IDS = [why for _, why in HOSTILE]
#: What must not reach a reader as it is (a line break is checked apart, per line).
RAW = ("\x1b", "\x9b", "\r", "\b", "\x07", "\u202e")


def assert_safe(output: str, *, crlf: bool = False) -> None:
    """No raw control reaches the reader; with ``crlf``, a CRLF line end may (it overwrites
    nothing)."""
    if crlf:
        output = output.replace("\r\n", "\n")
    for raw in RAW:
        assert raw not in output, f"{raw!r} reached the reader: {output!r}"


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ELISION_STORE", "ELISION_AUDIT", "ELISION_AUDIT_KEY"):
        monkeypatch.delenv(name, raising=False)


def _log_with(path: Path, tool: str, server: str = "docs") -> None:
    with AuditLog(path) as log:
        for i, name in enumerate(("before", tool, "after")):
            log.append(tool_result_entry(
                step_id=f"s{i}", tool=name, server=server, full_sha256="a" * 64,
                full_bytes=1000, shown_sha256="b" * 64, shown_bytes=100, complete=False,
                decision="allow", policy_ids=[],
            ))


@pytest.mark.parametrize(("name", "why"), HOSTILE, ids=IDS)
def test_audit_show_prints_a_hostile_tool_name_as_text(tmp_path: Path, name: str,
                                                       why: str) -> None:
    log = tmp_path / "audit.db"
    _log_with(log, name)
    result = CliRunner().invoke(main, ["audit", "show", "--log", str(log)])
    assert result.exit_code == 0, (why, result.output, result.exception)
    assert_safe(result.stdout)
    # every row is there: the one before the hostile name is not hidden
    assert "before" in result.stdout and "after" in result.stdout
    if name.isprintable():
        assert name in result.stdout  # markup is shown as it is spelled


@pytest.mark.parametrize(("name", "why"), HOSTILE, ids=IDS)
def test_audit_show_prints_a_hostile_server_name_as_text(tmp_path: Path, name: str,
                                                         why: str) -> None:
    log = tmp_path / "audit.db"
    _log_with(log, "search", server=name)
    result = CliRunner().invoke(main, ["audit", "show", "--log", str(log)])
    assert result.exit_code == 0, (why, result.output, result.exception)
    assert_safe(result.stdout)


def test_audit_show_json_stays_exact(tmp_path: Path) -> None:
    """--json is for programs: the entry as hashed, its escapes JSON's own."""
    log = tmp_path / "audit.db"
    _log_with(log, "x\x1b]52;c;AA==\x07")
    result = CliRunner().invoke(main, ["audit", "show", "--log", str(log), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[1])["tool"] == "x\x1b]52;c;AA==\x07"
    assert_safe(result.stdout)  # JSON escapes control characters itself


@pytest.mark.e2e
def test_doctor_prints_hostile_server_names_and_stderr_as_text(tmp_path: Path) -> None:
    """A server that fails after writing OSC 52 and a CSI to its stderr, under a name that
    holds them too."""
    server = tmp_path / "bad_server.py"
    server.write_text(
        "import sys\n"
        "sys.stderr.write('boom \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x1b[2K\\u202efine\\n')\n"
        "sys.exit(3)\n", "utf-8")
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"mcpServers": {
        name: {"command": sys.executable, "args": [str(server)]} for name, _ in HOSTILE
    }}), "utf-8")
    result = CliRunner().invoke(main, ["doctor", "gemini-cli", "--config", str(config),
                                       "--timeout", "30"])
    assert result.exit_code == 1, result.output
    assert_safe(result.output)
    assert result.stdout.count("DOES NOT START") == len(HOSTILE)
    assert "markup[/]x" in result.stdout


def test_install_report_prints_hostile_server_names_as_text(tmp_path: Path) -> None:
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"mcpServers": {
        name: {"command": "some-server"} for name, _ in HOSTILE
    }}), "utf-8")
    for args in (["install", "gemini-cli", "--config", str(config), "--dry-run"],
                 ["install", "gemini-cli", "--config", str(config)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert_safe(result.stderr)


def test_the_error_line_shows_controls_as_text(tmp_path: Path) -> None:
    """An error message quotes what it was given: a path or a ref with an ESC in it."""
    result = CliRunner().invoke(main, ["fetch", "el_\x1b]52;c;AA==\x07", "--store",
                                       str(tmp_path / "nowhere\x1b[2K.db")])
    assert result.exit_code == 1
    assert "error:" in result.stderr
    assert_safe(result.stderr)


# -- bodies: made visible on a terminal, byte-exact to a pipe --------------------------------

BODY = (b"first line\r\nsecond \x1b]52;c;cm0gLXJmIH4=\x07line\n"
        b"spoof\rHEADER\n" + b"".join(b"row %d\n" % i for i in range(3000)))


def _elision(*args: str, stdin: bytes, env: dict[str, str], tty: bool) -> bytes:
    """Run ``elision ARGS`` with stdout on a pseudo-terminal (``tty``) or a pipe."""
    cmd = [sys.executable, "-m", "elision", *args]
    if not tty:
        return subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=True,
                              timeout=60).stdout
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=follower,
                                stderr=subprocess.DEVNULL, env=env)
        os.close(follower)
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        out = bytearray()
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(leader)
    # the terminal's line discipline writes \n as \r\n; take that back
    return bytes(out).replace(b"\r\n", b"\n")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "TERM": "xterm"}


def test_shape_to_a_terminal_makes_a_body_s_controls_visible(env: dict[str, str]) -> None:
    out = _elision("shape", "--format", "text", "--budget", "2048", stdin=BODY, env=env,
                   tty=True)
    text = out.decode("utf-8")
    assert "[elision] partial" in text
    assert_safe(text, crlf=True)
    # elision counts a lone \r as a line end: shown, and the line broken there
    assert "spoof\\r\nHEADER" in text and "\\x1b]52;" in text


def test_shape_to_a_pipe_stays_byte_exact(env: dict[str, str]) -> None:
    small = BODY[:BODY.index(b"row 20\n")]
    assert _elision("shape", "--format", "text", stdin=small, env=env, tty=False) == small


def test_fetch_to_a_terminal_makes_a_body_s_controls_visible(env: dict[str, str]) -> None:
    shaped = _elision("shape", "--format", "text", "--budget", "2048", stdin=BODY, env=env,
                      tty=False)
    ref = shaped.decode().split("ref=")[1].split()[0].rstrip(";)")
    lines = ["fetch", ref, "--lines", "1-4"]
    piped = _elision(*lines, stdin=b"", env=env, tty=False)
    assert b"spoof\rHEADER" in piped  # a pipe gets the body's bytes
    shown = _elision(*lines, stdin=b"", env=env, tty=True).decode("utf-8")
    assert_safe(shown, crlf=True)
    assert "spoof\\r\nHEADER" in shown


@pytest.mark.parametrize(("name", "why"), HOSTILE, ids=IDS)
def test_lint_markdown_shows_a_hostile_tool_name_as_text(name: str, why: str) -> None:
    """The markdown report is read by people (in a terminal, a CI log that obeys ANSI); JSON
    and SARIF are for programs and keep the name as the server spelled it."""
    from elision.lint.judge import ToolReport
    from elision.lint.report import render
    from elision.lint.rules import Verdict
    from elision.lint.runner import LintResult

    tool = ToolReport(name=name, exercised=True, limit_argument=None,
                      verdicts=[Verdict(1, "fail", [f"evidence quoting {name}"])],
                      errors=[f"call of {name} failed"])
    result = LintResult(target=f"python {name}.py", tools=[tool], unknown_scenarios=[name])
    assert_safe(render(result, "markdown"))
    assert json.loads(render(result, "json"))["tools"][0]["name"] == name


def test_proxy_log_lines_show_controls_as_text() -> None:
    """A proxy warning quotes what a server said (its failure, its stderr line): the host's
    log or the operator's terminal gets it with its controls visible, lines kept."""
    import logging

    from elision.redact.messages import RedactingFormatter

    record = logging.LogRecord("elision.proxy", logging.WARNING, __file__, 1,
                               "upstream %s stopped: %s", ("s\x1b[2K", "boom\x1b]52;c;AA==\x07"
                                                           "\r\u202e"), None)
    line = RedactingFormatter("elision proxy: ").format(record)
    assert_safe(line)
    assert "\\x1b]52" in line


def test_store_commands_show_a_hostile_path_and_ref_as_text(tmp_path: Path) -> None:
    """A store path or a ref pasted from a model's answer may hold controls."""
    from elision.store import SQLiteStore

    path = tmp_path / "s\x1b]52;c;AA==\x07\u202e.db"
    SQLiteStore(path).close()
    for args in (["store", "stats", "--store", str(path)],
                 ["store", "migrate", "--store", str(path)],
                 ["store", "rm", "el_\x1b[2K\rx", "--store", str(path)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code in (0, 1), result.output
        assert_safe(result.output)


@pytest.mark.e2e
def test_guardian_start_lines_show_the_log_path_as_text(tmp_path: Path) -> None:
    log = tmp_path / "a\x1b]52;c;AA==\x07\u202e.db"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("ELISION_AUDIT_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "elision", "guardian", "--listen", "127.0.0.1:0", "--log",
         str(log), "--no-store"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline() for _ in range(2)]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        assert proc.stderr is not None
        proc.stderr.close()
    assert "serving ACS on" in lines[0] and "audit log:" in lines[1], lines
    assert_safe(lines[1].rstrip("\n"))
