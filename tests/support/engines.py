"""The trigger search's engines, built once for the whole test session, and a mark for tests
of one engine's own paths.

``triggers.engines()`` builds a fresh hyperscan engine on each call, which compiles the
databases of every family (about 0.35 s idle): called once per parametrized case, that was
over two minutes of the suite. A built engine is what the process itself keeps for its life
(``triggers.engine()`` caches it), so sharing one across tests is the way it is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import pytest

from elision.redact import triggers


@cache
def trigger_engines() -> tuple[Any, ...]:
    """Every engine this process can use, the regex passes first (``triggers.engines()``)."""
    return tuple(triggers.engines())


@contextmanager
def using_engine(engine: Any) -> Iterator[None]:
    """Every trigger search in the block runs on ``engine``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triggers, "engine", lambda: engine)
        yield


def hyperscan_only(why: str) -> pytest.MarkDecorator:
    """Skip where the trigger search is not hyperscan (``ELISION_REDACT_ENGINE=re``): ``why``
    says which path under test is hyperscan's own."""
    return pytest.mark.skipif(triggers.engine_name() != "hyperscan", reason=why)
