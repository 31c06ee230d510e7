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

Messages say what was wrong and what to do, and show the bad value with ``!r``. They never
contain a withheld credential or the host-private record behind a stub.
"""

from __future__ import annotations


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
