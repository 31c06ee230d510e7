"""Budgets and the measures they are counted in.

A budget is a limit in one unit: ``bytes`` (UTF-8, the default and always exact), ``chars``
(Unicode code points, exact) or ``tokens`` (counted by a pluggable :class:`TokenCounter`).
Below :data:`MINIMUM` a budget cannot hold even an envelope, so it is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args, runtime_checkable

from elision.errors import BudgetError

Unit = Literal["bytes", "chars", "tokens"]
UNITS: tuple[str, ...] = get_args(Unit)

#: The smallest budget, per unit, that still holds an envelope and one elided entry.
MINIMUM: dict[str, int] = {"bytes": 512, "chars": 512, "tokens": 512}


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens in a text. Implementations must be deterministic."""

    name: str

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class Budget:
    """A size limit in one unit.

    >>> Budget(8192).limit, Budget(8192).unit
    (8192, 'bytes')
    """

    limit: int
    unit: Unit = "bytes"
    counter: TokenCounter | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise BudgetError(f"budget unit must be one of {', '.join(UNITS)}, got {self.unit!r}")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int):
            raise BudgetError(f"budget limit must be an integer, got {self.limit!r}")
        minimum = MINIMUM[self.unit]
        if self.limit < minimum:
            raise BudgetError(
                f"budget must be at least {minimum} {self.unit}, got {self.limit}: "
                f"below that not even the envelope that says what was cut fits"
            )

    def measure(self, text: str) -> int:
        """The size of ``text`` in this budget's unit."""
        if self.unit == "bytes":
            return utf8_len(text)
        if self.unit == "chars":
            return len(text)
        return self.token_counter().count(text)

    def fits(self, text: str) -> bool:
        return self.measure(text) <= self.limit

    def token_counter(self) -> TokenCounter:
        if self.counter is not None:
            return self.counter
        from elision.tokens import default_counter

        return default_counter()


def utf8_len(text: str) -> int:
    """UTF-8 length of ``text`` without encoding it when it is pure ASCII."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))
