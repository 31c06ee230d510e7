"""The store state machine (``support.store_machine``) on PostgreSQL, in a file of its own so that
``--dist loadfile`` runs it beside the other backends' machines."""

from __future__ import annotations

from typing import Any

import pytest

from support.store_machine import run_machine


# The PostgreSQL backend's pool threads draw jitter from the ``random`` module while
# Hypothesis draws rules; that is not the strategy depending on global state.
@pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies"
    ":hypothesis.errors.HypothesisDeprecationWarning"
)
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_store_state_machine(backend: Any) -> None:
    run_machine(backend)
