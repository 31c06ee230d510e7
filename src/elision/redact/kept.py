"""Judgements of short strings kept for the process: names and values repeat (a log's every
line has its ``password=``, an array its ``"sk-"``), and the rules are fixed, so an answer
never goes stale. Long strings are judged each time: keeping them would hold their text."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

#: The most answers kept by one judgement, and the longest string kept.
LIMIT = 4096
LONGEST = 128
_T = TypeVar("_T")


def kept(judge: Callable[[str], _T]) -> Callable[[str], _T]:
    """``judge`` (a pure function of one string) with its answers for short strings kept."""
    answers: dict[str, _T] = {}

    @functools.wraps(judge)
    def remembered(text: str) -> _T:
        if text in answers:
            return answers[text]
        got = judge(text)
        if len(text) <= LONGEST and len(answers) < LIMIT:
            answers[text] = got
        return got

    return remembered
