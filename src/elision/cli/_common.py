"""What every command shares: turning ElisionError into a message and an exit code."""

from __future__ import annotations

import contextlib
import functools
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from elision.errors import (
    BudgetError,
    ElisionError,
    InputError,
    SelectorError,
    TokenizerUnavailable,
)

P = ParamSpec("P")
R = TypeVar("R")

#: The one exit-code scheme of every command (README "Exit status", docs/design.md):
#: 2 when elision was asked in a form it cannot read and did nothing (click's usage errors
#: are 2 too), 1 when it tried and the operation failed or its answer is no.
EXIT_FAILURE = 1
EXIT_USAGE = 2

#: What is wrong with the asking, by error class: a flag's value, a budget, a selector, a
#: config file, a key or a body not in the format asked for, or a unit this install cannot
#: count. Every other ElisionError is a failure of the operation itself.
USAGE_ERRORS = (InputError, SelectorError, BudgetError, TokenizerUnavailable)


#: A library message names the Python argument that would fix it (``format='text'``); on the
#: command line the same advice is a flag. Python argument -> the flag that sets it.
CLI_FLAGS = {"format": "--format"}
_PYTHON_ARGUMENT = re.compile(r"\b(" + "|".join(CLI_FLAGS) + r")='([\w-]+)'")


def as_cli_flags(message: str) -> str:
    """``message`` with each Python argument it suggests named as the CLI flag instead:
    ``shape it as text (format='text')`` -> ``shape it as text (--format text)``."""
    return _PYTHON_ARGUMENT.sub(lambda m: f"{CLI_FLAGS[m[1]]} {m[2]}", message)


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn an ElisionError into ``error: <message>`` on stderr and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ElisionError as exc:
            # Redacted: a message may quote a config value or what a server sent. Imported
            # here: the redactor costs every command's start, --help's too, and is needed
            # only once something failed; click too, which a hook answering by
            # elision.cli.entry never loads otherwise (issue 24).
            import click

            from elision.redact.messages import redact_message
            from elision.terminal import visible

            message = as_cli_flags(redact_message(str(exc)))
            click.echo(f"error: {visible(message)}", err=True)
            code = EXIT_USAGE if isinstance(exc, USAGE_ERRORS) else EXIT_FAILURE
            sys.exit(code)

    return wrapper


@contextlib.contextmanager
def sdk_logs_redacted(prefix: str) -> Iterator[None]:
    """While a command talks to servers through the MCP SDK, the SDK's log records go to
    stderr as the proxy's do: redacted, controls shown as escapes, and an exception as one
    line (its type and message, a validation error without its input), not a traceback.

    Without it Python's last-resort handler wrote them raw: a server's stray stdout line
    became a 10-line traceback under `elision lint` or `elision doctor`, ending in
    pydantic's ``input_value`` cut to ``ghp...vwxyz0123456789``, which no rule reads as the
    token it was."""
    import logging

    from elision.redact.messages import LOG_RECORD_LIMIT, RedactingFormatter, describe

    class Brief(RedactingFormatter):
        def format(self, record: logging.LogRecord) -> str:
            # Another handler may have cached the traceback on the record: not reused.
            cached, record.exc_text = record.exc_text, None
            try:
                return super().format(record)
            finally:
                record.exc_text = cached

        def formatException(self, ei: Any) -> str:
            exc = ei[1]
            if isinstance(exc, BaseException):
                return describe(exc, LOG_RECORD_LIMIT)
            return super().formatException(ei)

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Brief(prefix))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
