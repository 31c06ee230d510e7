"""Judgements of short strings kept for the process: names and values repeat (a log's every
line has its ``password=``, an array its ``"sk-"``), and the rules are fixed, so an answer
never goes stale. Long strings are judged each time: keeping them would hold their text.

A table that is full is emptied and filled again: kept until full and then left as it was, the
first 4,096 distinct strings a process saw (one document of distinct ids, in a proxy that runs
for days) held every later one out, the names that do repeat included."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, TypeVar, cast

#: The most answers kept by one judgement, and the longest string kept.
LIMIT = 4096
LONGEST = 128
_T = TypeVar("_T")
#: No answer kept (an answer may be None or False).
_MISSING: object = object()
_K = TypeVar("_K")
_A = TypeVar("_A", covariant=True)


class Kept(Protocol[_A]):
    """A judgement whose answers are kept; ``__wrapped__`` is the judgement unkept, for a
    caller that keeps its own answers (many distinct strings only fill the table and empty
    it)."""

    @property
    def __wrapped__(self) -> Callable[[str], _A]: ...

    def __call__(self, text: str) -> _A: ...


def keep(answers: dict[_K, _T], key: _K, answer: _T, most: int = LIMIT) -> None:
    """Keep ``answer`` for ``key`` in ``answers``, emptying the table first when it holds
    ``most``."""
    if len(answers) >= most:
        answers.clear()
    answers[key] = answer


def kept(judge: Callable[[str], _T]) -> Kept[_T]:
    """``judge`` (a pure function of one string) with its answers for short strings kept."""
    answers: dict[str, _T] = {}

    @functools.wraps(judge)
    def remembered(text: str) -> _T:
        was = answers.get(text, _MISSING)  # one look: another thread may empty it between two
        if was is not _MISSING:
            return was  # type: ignore[return-value]  # (no cast: a Python call a look)
        got = judge(text)
        if len(text) <= LONGEST:
            keep(answers, text, got)
        return got

    return cast("Kept[_T]", remembered)
