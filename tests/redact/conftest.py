"""Fixtures for the redaction tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elision.redact import keywords, triggers


@pytest.fixture
def unbounded() -> Iterator[None]:
    """No density bound: the judge itself, on a text the bound would withhold unread (a line
    of one form repeated, many headers). Its reading must be bounded too: for the texts under
    the bound's allowance, and for those just under its limit in every window."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "DENSE_ALLOWANCE", 1 << 30)
        yield


@pytest.fixture(params=["hyperscan", "re"])
def keyword_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each keyword search in turn (the regex one with no hyperscan: ``keywords._Plain``)."""
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "re":
            mp.setattr(keywords, "_built", [keywords._Plain()])
        elif not isinstance(keywords._engine(), keywords._Hyperscan):
            pytest.skip("hyperscan is not installed")
        yield request.param
