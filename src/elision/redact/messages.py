"""What elision itself writes (log lines, error messages, stderr): redacted first, cut after.

A cut before redaction can leave part of a credential that no rule recognises any more
(36 of the 40 chars of a ``ghp_`` token are as good as the token), so every text elision
writes from data it did not make (an upstream's output, a client's request, a config value,
an exception's message) goes through :func:`clip` or :func:`describe`, and the proxy's log
records through :class:`RedactingFormatter`. pydantic's own messages cut the input they quote
(``input_value='ghp_R4nd0mT0k3nF0...'``) before elision sees them, so a validation error is
described from its error list, without the input.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

from pydantic import ValidationError
from pydantic_core import ValidationError as CoreValidationError

#: How much of one exception's message a description keeps.
DESCRIBE_LIMIT = 300
#: How much of one log record (with its traceback) is written.
LOG_RECORD_LIMIT = 8000


def redact_message(message: str) -> str:
    """``message`` with every credential or signed URL in it replaced by its stub."""
    from elision.redact import redact_text

    done = redact_text(message)
    return str(done.value) if done.withheld else message


def clip(text: str, limit: int) -> str:
    """``text`` redacted, then cut to at most ``limit`` chars (ending in ``...`` when cut)."""
    shown = redact_message(text)
    if len(shown) <= limit:
        return shown
    return shown[: max(0, limit - 3)] + "..."


def describe(exc: BaseException, limit: int = DESCRIBE_LIMIT) -> str:
    """``Type: message`` for ``exc`` (the first of a group), redacted, then cut."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    name = type(exc).__name__
    if isinstance(exc, ValidationError | CoreValidationError):
        text = _validation_summary(exc)
    else:
        text = str(exc)
    if not text:
        return name
    return f"{name}: {clip(text, limit)}"


def _validation_summary(exc: ValidationError | CoreValidationError) -> str:
    """Where and why validation failed, never with what (its input may be a credential)."""
    errors = exc.errors(include_input=False, include_url=False, include_context=False)
    shown = [
        f"{'.'.join(str(part) for part in error['loc']) or 'value'}: {error['msg']}"
        for error in errors[:3]
    ]
    more = f"; and {len(errors) - 3} more" if len(errors) > 3 else ""
    count = f"{len(errors)} validation error{'s' if len(errors) != 1 else ''}"
    return f"{count} for {exc.title}: " + "; ".join(shown) + more


class RedactingFormatter(logging.Formatter):
    """A formatter whose every record (message, exception and all) is redacted, then cut.

    A record from outside elision (the SDK's own warnings) is written with its logger's name.
    An exception's own message is described as :func:`describe` does, so a validation error
    shows no input either.
    """

    def __init__(self, prefix: str = "") -> None:
        super().__init__("%(message)s")
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        if isinstance(record.args, tuple) and any(_is_validation(a) for a in record.args):
            record.args = tuple(
                describe(a) if isinstance(a, ValidationError | CoreValidationError) else a
                for a in record.args
            )
        origin = "" if record.name.startswith("elision") else f"{record.name}: "
        # The record goes to a host's log or an operator's terminal and may quote what a
        # server or a client sent: its controls are shown as escapes (lines kept).
        from elision.terminal import visible_lines

        return visible_lines(clip(self.prefix + origin + super().format(record),
                                  LOG_RECORD_LIMIT))

    def formatException(self, ei: Any) -> str:
        exc = ei[1]
        if not isinstance(exc, BaseException):
            return super().formatException(ei)
        frames = "".join(traceback.format_tb(ei[2]))
        return f"Traceback (most recent call last):\n{frames}{describe(exc, LOG_RECORD_LIMIT)}"


def _is_validation(value: object) -> bool:
    return isinstance(value, ValidationError | CoreValidationError)
