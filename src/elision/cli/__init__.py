"""The ``elision`` command line: thin commands over the library.

Each command lives in its own module here and only parses its options, calls one library
function and turns an :class:`~elision.errors.ElisionError` into a one-line message and an exit
code. Commands are loaded lazily so that ``elision shape`` does not import the MCP SDK.

``main`` is the click group (:mod:`elision.cli.group`), made on first use; ``run`` is the
``elision`` executable and ``python -m elision``: the two commands a harness runs on every
tool call, ``elision hook claude-code`` and ``elision shape``, are answered without loading
click when their arguments are plain (:mod:`elision.cli.entry`, issue 24).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elision.cli.group import main

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


def run() -> None:
    """The ``elision`` command (:mod:`elision.cli.entry`)."""
    from elision._startup import collector_paused_for_set_up, defer_import

    # orjson's import pulls in inspect through dataclasses; a call builds no dataclass.
    defer_import("inspect")
    with collector_paused_for_set_up():
        from elision.cli.entry import run as run_entry

    run_entry()


def __getattr__(name: str) -> Any:
    if name == "main":
        from elision.cli.group import main as group

        return group
    raise AttributeError(f"module 'elision.cli' has no attribute {name!r}")


__all__ = ["COMMANDS", "main", "run"]
