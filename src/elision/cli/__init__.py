"""The ``elision`` command line: thin commands over the library.

Each command lives in its own module here and only parses its options, calls one library
function and turns an :class:`~elision.errors.ElisionError` into a one-line message and an exit
code. Commands are loaded lazily so that ``elision shape`` does not import the MCP SDK.
"""

from __future__ import annotations

import importlib

import click

#: command name -> "module:attribute" under elision.cli
COMMANDS: dict[str, str] = {
    "shape": "elision.cli.shape:shape_command",
    "fetch": "elision.cli.store:fetch_command",
    "store": "elision.cli.store:store_group",
    "proxy": "elision.cli.proxy:proxy_command",
    "demo": "elision.cli.demo:demo_command",
    "audit": "elision.cli.audit:audit_group",
    "guardian": "elision.cli.guardian:guardian_command",
    "lint": "elision.cli.lint:lint_command",
    "install": "elision.cli.install:install_command",
    "uninstall": "elision.cli.install:uninstall_command",
    "doctor": "elision.cli.install:doctor_command",
    "hook": "elision.cli.hook:hook_group",
    "view": "elision.cli.view:view_command",
}


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
