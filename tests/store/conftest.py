"""One fixture for every store test, parametrized over the backends.

A PostgreSQL backend joins by adding one param and one branch in ``_Backend.open``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from elision.store import MemoryStore, SQLiteStore
from elision.store.base import Store


@dataclass
class FakeClock:
    """A clock the test moves by hand, so TTLs expire without sleeping."""

    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class _Backend:
    name: str
    tmp: Path
    clock: FakeClock = field(default_factory=FakeClock)
    opened: list[Store] = field(default_factory=list)

    @property
    def persistent(self) -> bool:
        return self.name != "memory"

    def open(self, *, db_name: str = "store.db", **options: Any) -> Store:
        """A store of this backend; the same ``db_name`` reopens the same data if persistent."""
        options.setdefault("clock", self.clock)
        store: Store
        if self.name == "memory":
            store = MemoryStore(**options)
        else:
            store = SQLiteStore(self.tmp / db_name, **options)
        self.opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture(params=["memory", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[_Backend]:
    b = _Backend(request.param, tmp_path)
    yield b
    b.close_all()
