"""Budgets and the measures they are counted in.

A budget is a limit in one unit: ``bytes`` (UTF-8, the default and always exact), ``chars``
(Unicode code points, exact) or ``tokens`` (counted by a pluggable :class:`TokenCounter`).
Below :data:`MINIMUM` a budget cannot hold even an envelope, so it is refused.

A budget may also cap lines (``lines``), for a harness that cuts a result by lines as well as
by size (OpenCode keeps 2,000, Qwen Code 1,000): lines are counted as those harnesses count
them, the pieces of the text split at ``\n`` (:func:`line_count`).
"""

from __future__ import annotations

from typing import Literal, Protocol, get_args, runtime_checkable

from elision._record import field, record_class, replace
from elision.errors import BudgetError

Unit = Literal["bytes", "chars", "tokens"]
UNITS: tuple[str, ...] = get_args(Unit)

#: The smallest budget, per unit, that still holds an envelope and one elided entry.
MINIMUM: dict[str, int] = {"bytes": 512, "chars": 512, "tokens": 512}
#: The smallest line cap: room for a page's header, a line, its marker and the line after.
MINIMUM_LINES = 8


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens in a text. Implementations must be deterministic."""

    name: str

    def count(self, text: str) -> int: ...


@record_class(frozen=True)
class Budget:
    """A size limit in one unit.

    >>> Budget(8192).limit, Budget(8192).unit
    (8192, 'bytes')
    """

    limit: int
    unit: Unit = "bytes"
    counter: TokenCounter | None = field(default=None, compare=False, repr=False)
    #: The most lines a shaped text may have (:func:`line_count`), or None for no cap.
    lines: int | None = None

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
        if self.lines is not None and (
            isinstance(self.lines, bool)
            or not isinstance(self.lines, int)
            or self.lines < MINIMUM_LINES
        ):
            raise BudgetError(
                f"a line cap must be a whole number of at least {MINIMUM_LINES} lines, got "
                f"{self.lines!r}: a cut text needs its header and its marker line"
            )

    def measure(self, text: str) -> int:
        """The size of ``text`` in this budget's unit."""
        if self.unit == "bytes":
            return utf8_len(text)
        if self.unit == "chars":
            return len(text)
        return self.token_counter().count(text)

    def fits(self, text: str) -> bool:
        return self.measure(text) <= self.limit and self.fits_lines(text)

    def fits_lines(self, text: str | bytes) -> bool:
        """Whether ``text`` is within the line cap (always, without one)."""
        return self.lines is None or line_count(text) <= self.lines

    def with_limit(self, limit: int) -> Budget:
        """This budget (unit, counter, line cap) with another limit: a share of it."""
        return replace(self, limit=limit)

    def token_counter(self) -> TokenCounter:
        if self.counter is not None:
            return self.counter
        from elision.tokens import default_counter

        return default_counter()


def line_count(text: str | bytes) -> int:
    """Lines as a harness that caps them counts: the pieces of ``text`` split at ``\\n``.

    A ``\\r\\n`` ending is one line; a lone ``\\r`` ends none; a last newline opens one more
    (empty) line, as ``text.split("\\n")`` in OpenCode and Qwen Code makes it.
    """
    if isinstance(text, str):
        return text.count("\n") + 1
    return text.count(b"\n") + 1


def utf8_len(text: str) -> int:
    """UTF-8 length of ``text`` without encoding it when it is pure ASCII."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))
