"""Every command and every option says what it is for (sqlite-utils' habit)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from elision.cli import COMMANDS, main
from support.clickpaths import command_at


def _walk(command: click.Command, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    if isinstance(command, click.Group):
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            assert sub is not None
            paths += _walk(sub, (*prefix, name))
    return paths


ALL = _walk(main)


def _command(path: tuple[str, ...]) -> click.Command:
    return command_at(path)


def test_every_planned_command_that_exists_is_listed() -> None:
    listed = {path[0] for path in ALL if path}
    assert "shape" in listed
    assert listed <= set(COMMANDS)


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "elision")
def test_command_has_help_and_every_option_is_described(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    command = _command(path)
    assert (command.help or "").strip(), f"{' '.join(path)} has no help text"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert (param.help or "").strip(), f"{' '.join(path)} {param.opts} has no help"


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "elision")
def test_a_default_path_in_help_names_xdg_data_home(path: tuple[str, ...]) -> None:
    """Found by the QA pass: `proxy --help` gave the store's default as
    ~/.local/share/elision/store.db, but with $XDG_DATA_HOME set the proxy keeps it there."""
    for param in _command(path).params:
        text = getattr(param, "help", None) or ""
        if "~/.local/share" in text:
            assert "$XDG_DATA_HOME" in text, (path, param.name, text)


def test_help_loads_neither_the_redactor_nor_the_mcp_sdk() -> None:
    """Every command's module is imported to list it, so what one imports at the top every
    ``elision --help`` pays for: the redactor (its rules compile on import) and pydantic
    were 0.1 s of the 0.2 s it took, for a message redacted only when a command fails."""
    import subprocess
    import sys

    code = ("import sys\nfrom elision.cli import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('elision.redact', 'pydantic', 'mcp') if m in sys.modules),"
            " file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert "shape" in out.stdout
    assert out.stderr.strip() == "[]"


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "elision")
def test_an_example_command_in_help_is_printed_on_one_line(path: tuple[str, ...]) -> None:
    """Found as a newcomer reading `elision lint --help`: its second example was rewrapped
    with the prose around it, so its last flag (`--format sarif`) went to a line of its own
    and a copy of the first line ran another command; a no-rewrap mark after its YAML example
    printed a backspace."""
    examples = [line.strip() for line in (_command(path).help or "").splitlines()
                if line.startswith("    ") and line.strip().startswith("elision ")]
    output = CliRunner().invoke(main, [*path, "--help"], terminal_width=80).output
    # click's no-rewrap mark (\b) must start a paragraph, or it is printed as a backspace
    assert not [c for c in output if ord(c) < 32 and c != "\n"], path
    printed = {line.strip() for line in output.splitlines()}
    for example in examples:
        assert example in printed, (path, example)


def test_the_proxys_waiting_line_points_at_help_that_says_how_to_try_it() -> None:
    """Found as a newcomer: `elision proxy -- server` run in a terminal said "to try it by
    hand, see `elision proxy --help`", and the help said nothing about trying it by hand."""
    from elision.mcp.serve import WAITING

    assert "elision proxy --help" in WAITING
    shown = " ".join(CliRunner().invoke(main, ["proxy", "--help"]).output.split())
    assert "To try it by hand" in shown and "elision demo" in shown
