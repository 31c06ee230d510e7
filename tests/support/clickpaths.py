"""The click command at a path of names under ``elision``'s group (``["hook", "claude-code"]``)."""

from __future__ import annotations

import click

from elision.cli import main


def command_at(path: tuple[str, ...] | list[str]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None
        command = found
    return command
