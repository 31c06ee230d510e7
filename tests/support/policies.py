"""Guard policies for tests of what the guard stage hands its policies."""

from __future__ import annotations

from typing import Any

from elision.guard.decision import Decision


class Seen:
    """A guard policy that records the value it was handed; ``reads_values`` as given (left
    undeclared when ``None``, as a foreign policy would leave it)."""

    def __init__(self, reads_values: bool | None) -> None:
        if reads_values is not None:
            self.reads_values = reads_values
        self.values: list[Any] = []

    def decide(self, result: Any, call: Any) -> Decision:
        self.values.append(result.value)
        return Decision.allow()


#: What :class:`DenyMarker` denies: planted by the egress gate's tests wherever a credential
#: may hide (a block's ``_meta``, a wrapper key, an error message).
DENY_MARKER = "elision-deny-marker-7f3a"


class DenyMarker:
    """A guard policy that denies a result holding :data:`DENY_MARKER` anywhere in its
    judged view, as a key or in a value (named in guard.toml as
    ``support.policies:deny_marker``, with tests/ on the proxy's PYTHONPATH)."""

    id = "deny-marker"
    reads_values = True

    def decide(self, result: Any, call: Any) -> Decision:
        if _holds(result.value, DENY_MARKER):
            return Decision.deny("the result holds the test's deny marker", "deny_marker")
        return Decision.allow()


def deny_marker(**options: Any) -> DenyMarker:
    return DenyMarker()


def _holds(value: Any, marker: str) -> bool:
    if isinstance(value, str | bytes):
        return marker in (value if isinstance(value, str) else value.decode("utf-8", "replace"))
    if isinstance(value, dict):
        return any(_holds(k, marker) or _holds(v, marker) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds(v, marker) for v in value)
    return marker in str(value)
