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
