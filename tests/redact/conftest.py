"""Fixtures for the redaction tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from elision.redact import keywords, triggers
from support.before import code_before
from support.engines import trigger_engines, using_engine


@pytest.fixture
def unbounded() -> Iterator[None]:
    """No density bound: the judge itself, on a text the bound would withhold unread (a line
    of one form repeated, many headers). Its reading must be bounded too: for the texts under
    the bound's allowance, and for those just under its limit in every window."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "DENSE_ALLOWANCE", 1 << 30)
        yield


@pytest.fixture(params=[pytest.param(engine, id=type(engine).__name__.strip("_").lower())
                        for engine in trigger_engines()])
def each_engine(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Each trigger engine this process can use in turn (the regex passes, hyperscan), every
    trigger search of the test run on it."""
    with using_engine(request.param):
        yield request.param


@pytest.fixture(params=["hyperscan", "re"])
def keyword_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each keyword search in turn (the regex one with no hyperscan: ``keywords._Plain``)."""
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "re":
            mp.setattr(keywords, "_built", [keywords._Plain()])
        elif not isinstance(keywords._engine(), keywords._Hyperscan):
            pytest.skip("hyperscan is not installed")
        yield request.param


@pytest.fixture(scope="module")
def code_before_answers() -> Iterator[Callable[[str, str], Any]]:
    """``ask(kind, payload)``: the redaction as the code before answers it, in a child of its
    own (:mod:`support.before`); the test is skipped where ``ELISION_BEFORE_SRC`` is unset."""
    with code_before() as ask:
        yield ask
