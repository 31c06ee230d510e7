"""Every error elision raises, under one base.

    ElisionError                  anything elision refuses or cannot do
    ├── BudgetError               a budget below the documented minimum, or an unknown unit
    ├── TokenizerUnavailable      a token budget with no offline token counter installed
    ├── InputError                a body that cannot be read in the format asked for
    │   └── DepthError            nesting deeper than elision will walk
    ├── SelectorError             a path / lines / bytes selector that is not one of the valid forms
    ├── StoreError                the content store could not keep or serve a body
    │   ├── RefNotFound           no body was ever kept under this ref (or not in this scope)
    │   ├── RefExpired            the body was kept but has expired or been evicted
    │   ├── BodyTooLarge          the body is over the store's configured maximum
    │   └── IntegrityError        a stored body no longer matches its digest
    ├── UpstreamError             an MCP server behind the proxy failed, hung or sent garbage
    ├── PolicyDenied              the Guardian denied a call (its reason is for the agent)
    └── AuditError                the audit log could not be written or does not verify

Messages say what was wrong and what to do, and show the bad value with ``!r``; a value a
model or a user typed (a ref, a path, a tool's name), which may be any size and hold anything,
with :func:`quoted`. They never contain a withheld credential or the host-private record
behind a stub.
"""

from __future__ import annotations

#: How many chars of a ref, a selector or a name an error message quotes.
QUOTE_LIMIT = 64


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes input it did not make (a tool's name, a ref, a
    selector): redacted, cut to ``limit`` chars with the whole length said, and every char a
    terminal would act on or hide (controls, bidi and zero-width format chars) escaped. A
    200 KB ref is not echoed whole, and a name cannot rewrite the line it is shown on."""
    from elision.redact.messages import redact_message  # errors is imported by everything

    text = value if isinstance(value, str) else str(value)
    shown = redact_message(text[: limit * 4])  # a credential cut by the bound still reads
    safe = "".join(_escaped(c) for c in shown[:limit])
    if len(text) <= limit and len(shown) <= limit:
        return f"'{safe}'"
    return f"'{safe}…' ({len(text):,} chars)"


def _escaped(char: str) -> str:
    if char in "'\\":
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class ElisionError(Exception):
    """Base of every error elision raises on purpose."""


class BudgetError(ElisionError, ValueError):
    """A budget elision cannot honour: below the minimum, or in an unknown unit."""


class TokenizerUnavailable(ElisionError):
    """A token budget was asked for but no offline token counter is installed."""


class InputError(ElisionError, ValueError):
    """A body that cannot be read in the format asked for."""


class DepthError(InputError):
    """Nesting deeper than elision will walk."""


class SelectorError(ElisionError, ValueError):
    """A selector that is not one of the valid forms."""


class StoreError(ElisionError):
    """The content store could not keep or serve a body."""


class RefNotFound(StoreError, KeyError):
    """No body was ever kept under this ref, or not in the caller's scope."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class RefExpired(StoreError):
    """The body was kept but has since expired or been evicted."""


class BodyTooLarge(StoreError):
    """The body is larger than the store's configured maximum."""


class IntegrityError(StoreError):
    """A stored body no longer matches the digest it was stored under."""


class UpstreamError(ElisionError):
    """An MCP server behind the proxy failed, hung or sent something unreadable."""


class PolicyDenied(ElisionError):
    """The Guardian denied the call; the message is the reason given to the agent."""


class AuditError(ElisionError):
    """The audit log could not be written, or it does not verify."""
