"""Regexes compiled on first use, for module constants a short command may never use.

A CLI that shapes one small result imports every module of the pipeline, and their regexes
compiled at import cost it more than the result did (issue 24). :func:`lazy_compile` stands
in for :func:`re.compile` at module level: the first call of a method compiles the pattern and
puts the compiled pattern's own bound methods on the instance, so every later call is the
compiled method itself, looked up in the instance's dict.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class LazyPattern(Generic[AnyStr]):
    """A :class:`re.Pattern` compiled when first used (the methods :data:`_METHODS`)."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self._flags = flags

    def compiled(self) -> re.Pattern[AnyStr]:
        compiled = re.compile(self.pattern, self._flags)
        for name in _METHODS:
            self.__dict__[name] = getattr(compiled, name)  # shadows the methods below
        self.__dict__["compiled"] = lambda: compiled
        return compiled

    @property
    def flags(self) -> int:
        return self.compiled().flags

    @property
    def groupindex(self) -> Any:
        return self.compiled().groupindex

    def search(self, string: AnyStr, pos: int = 0,
               endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0,
              endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0,
                  endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0,
                 endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled().finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(string, pos, endpos)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr,
            count: int = 0) -> AnyStr:
        return self.compiled().sub(repl, string, count)

    def subn(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr,
             count: int = 0) -> tuple[AnyStr, int]:
        return self.compiled().subn(repl, string, count)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled().split(string, maxsplit)


def lazy_compile(pattern: AnyStr, flags: int = 0) -> LazyPattern[AnyStr]:
    """``re.compile(pattern, flags)``, done on first use."""
    return LazyPattern(pattern, flags)
