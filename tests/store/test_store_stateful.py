"""The store state machine (``support.store_machine``) on the in-memory and SQLite stores:
put, read, fetch, remove, time passing, gc and restarts, against the retention contract.

PostgreSQL's machine is test_store_stateful_postgres.py: it is the longest of the four (a
round trip a step and a check), and in a file of its own it runs beside this one under
``--dist loadfile``, not after it on the same worker.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.store_machine import run_machine


@pytest.mark.parametrize("backend", ["memory", "sqlite", "sqlite-files"], indirect=True)
def test_store_state_machine(backend: Any) -> None:
    run_machine(backend)
