"""The ``elision`` click group: every command, each loaded only when it is asked for.

:func:`elision.cli.run` answers the two commands a harness runs on every tool call without it
when their arguments are plain; everything else comes here.
"""

from __future__ import annotations

import importlib

import click

from elision.cli import COMMANDS


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._load(name) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # that command is not built yet
                return None
            raise
        command = getattr(module, attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="elision")
def main() -> None:
    """elision: make tool results fit a size budget honestly.

    A result that was cut never looks complete, what was cut can be fetched, and credentials in
    results never reach the model.

    \b
    Exit status:
      0  done
      1  the operation was tried and failed, or its answer is no: a ref not kept, a store,
         audit log or server that cannot be reached, a log that does not verify, a lint FAIL
      2  elision was asked in a form it cannot read and did nothing: an unknown option, a
         flag value such as a budget below 512 or --listen without a port, a selector, a
         config file or key that does not parse, a body not in the --format asked for
    """
