"""The shape of a regex where inputs backtrack exponentially: a repeat inside a repeat."""

from __future__ import annotations

from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any


def repeats_a_repeat(pattern: str) -> bool:
    """Whether ``pattern`` repeats (more than once) something that itself repeats
    (``(a+)+``, ``(?:[0-9]+|v[0-9]+)+``), in a group, a branch or a look-around."""
    return _nested(_parser.parse(pattern))


def _nested(items: Any, inside: bool = False) -> bool:
    for op, arg in items:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            _, most, sub = arg
            if inside and most > 1:
                return True
            if _nested(sub, inside or most > 1):
                return True
            continue
        if op == sre.SUBPATTERN:
            held = [arg[3]]
        elif op == sre.BRANCH:
            held = arg[1]
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            held = [arg[1]]
        else:
            held = []
        if any(_nested(sub, inside) for sub in held):
            return True
    return False


class CountingPattern:
    """A compiled pattern that counts its ``finditer`` searches and its matches, and keeps the
    texts it was asked to ``search`` (a family's own shapes are searched once, to tell whether
    a match takes in the next)."""

    def __init__(self, real: Any) -> None:
        self.real, self.searches, self.matches = real, 0, 0
        self.searched: list[str] = []
        self.pattern, self.flags, self.groupindex = real.pattern, real.flags, real.groupindex

    def finditer(self, text: str, *args: Any) -> Any:
        self.searches += 1
        return self.real.finditer(text, *args)

    def match(self, text: str, *args: Any) -> Any:
        self.matches += 1
        return self.real.match(text, *args)

    def search(self, text: str, *args: Any) -> Any:
        self.searched.append(text)
        return self.real.search(text, *args)
