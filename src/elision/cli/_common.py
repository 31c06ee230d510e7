"""What every command shares: turning ElisionError into a message and an exit code."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import click

from elision.errors import ElisionError, InputError, SelectorError
from elision.redact.messages import redact_message

P = ParamSpec("P")
R = TypeVar("R")

#: Exit codes: 1 for a refusal or failure, 2 for bad usage or bad input (as click does).
EXIT_FAILURE = 1
EXIT_USAGE = 2


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn an ElisionError into ``error: <message>`` on stderr and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ElisionError as exc:
            # Redacted: a message may quote a config value or what a server sent.
            click.echo(f"error: {redact_message(str(exc))}", err=True)
            code = EXIT_USAGE if isinstance(exc, InputError | SelectorError) else EXIT_FAILURE
            sys.exit(code)

    return wrapper
