"""The store's Hypothesis state machine: put, read, fetch, remove, time passing, gc and restarts.

The model is the retention contract written plainly: TTL from put, LRU eviction under the quota
of distinct bodies, tombstones that answer "expired" for 30 days, and scopes that hide refs.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from elision.budget import Budget
from elision.errors import BodyTooLarge, RefExpired, RefNotFound
from elision.shape import new_ref
from elision.store.base import TOMBSTONE_SECONDS

TTL = 100.0
QUOTA = 3000
MAX_BODY = 2500  # the 2600-char fill of 'é' is 5200 bytes, 'a' 2600: both refused


@dataclass
class Kept:
    body: bytes
    sha: str
    scope: str | None
    created: float
    last_access: float


def machine_for(backend: Any) -> type[RuleBasedStateMachine]:
    class StoreMachine(RuleBasedStateMachine):
        refs = Bundle("refs")

        def __init__(self) -> None:
            super().__init__()
            self.clock = backend.clock
            self.db_name, self.store = backend.open_empty(**self._options())
            self.live: dict[str, Kept] = {}
            self.gone: dict[str, tuple[str | None, float]] = {}  # ref -> (scope, when)

        def _options(self) -> dict[str, Any]:
            # SQLite with files: bodies of 1,200 bytes and more are files, smaller ones rows.
            files = {"file_bytes": 1000} if backend.name == "sqlite-files" else {}
            return {"ttl": TTL, "quota_bytes": QUOTA, "max_body_bytes": MAX_BODY,
                    "lru_resolution": 0, "clock": self.clock, **files}

        def _tick(self) -> float:
            # Every step moves time a little, so LRU order never has ties.
            self.clock.advance(0.001)
            return self.clock.now

        # -- the model's retention rules --

        def _expire(self, now: float) -> None:
            for ref, kept in list(self.live.items()):
                if now >= kept.created + TTL:
                    del self.live[ref]
                    self.gone[ref] = (kept.scope, now)

        def _total(self) -> int:
            return sum({k.sha: len(k.body) for k in self.live.values()}.values())

        # -- rules --

        # Few distinct bodies (so dedup happens) of sizes where two or three fill the quota
        # (so eviction order matters), and one over the limit.
        @rule(target=refs, fill=st.sampled_from("abé"),
              size=st.sampled_from([1, 300, 700, 1200, 1500, 2600]),
              scope=st.sampled_from([None, "a", "b"]))
        def put(self, fill: str, size: int, scope: str | None) -> Any:
            body = (fill * size).encode()
            sha = hashlib.sha256(body).hexdigest()
            ref = new_ref()
            now = self._tick()
            if len(body) > MAX_BODY:
                with pytest.raises(BodyTooLarge):
                    self.store.put(body, ref=ref, sha256=sha, format="text", scope=scope)
                return ref
            self.store.put(body, ref=ref, sha256=sha, format="text", scope=scope)
            self._expire(now)
            if sha not in {k.sha for k in self.live.values()}:
                for old in sorted(self.live, key=lambda r: self.live[r].last_access):
                    if self._total() + len(body) <= QUOTA:
                        break
                    self.gone[old] = (self.live.pop(old).scope, now)
            self.live[ref] = Kept(body, sha, scope, now, now)
            return ref

        def _expect(self, ref: str, scope: str | None) -> Kept | type[Exception]:
            now = self.clock.now
            kept = self.live.get(ref)
            if kept is not None and kept.scope == scope:
                return RefExpired if now >= kept.created + TTL else kept
            stone = self.gone.get(ref)
            if stone is not None and stone[0] == scope:
                return RefExpired
            return RefNotFound

        @rule(ref=refs, scope=st.sampled_from([None, "a", "b"]))
        def read(self, ref: str, scope: str | None) -> None:
            self._tick()
            expected = self._expect(ref, scope)
            if isinstance(expected, Kept):
                assert self.store.read(ref, scope=scope) == expected.body
                expected.last_access = self.clock.now
            else:
                with pytest.raises(expected):
                    self.store.read(ref, scope=scope)

        @rule(ref=refs)
        def fetch_whole(self, ref: str) -> None:
            self._tick()
            kept = self.live.get(ref)
            expected = self._expect(ref, kept.scope if kept else None)
            if isinstance(expected, Kept):
                page = self.store.fetch(ref, scope=expected.scope, budget=Budget(1 << 20))
                assert page.text.encode() == expected.body and page.complete
                expected.last_access = self.clock.now

        @rule(ref=consumes(refs))
        def remove(self, ref: str) -> None:
            self._tick()
            assert self.store.remove(ref) is (ref in self.live)
            self.live.pop(ref, None)

        @rule(seconds=st.sampled_from([1.0, 30.0, TTL, 10 * TTL, TOMBSTONE_SECONDS]))
        def time_passes(self, seconds: float) -> None:
            self.clock.advance(seconds)

        @rule()
        def gc(self) -> None:
            now = self._tick()
            self.store.gc()
            self._expire(now)
            cutoff = now - TOMBSTONE_SECONDS
            self.gone = {r: g for r, g in self.gone.items() if g[1] >= cutoff}

        @precondition(lambda self: backend.persistent)
        @rule()
        def restart(self) -> None:
            self.store.close()
            self.store = backend.open(db_name=self.db_name, **self._options())

        @invariant()
        def totals_match(self) -> None:
            stats = self.store.stats()
            assert (stats.refs, stats.bytes) == (len(self.live), self._total())
            assert stats.bytes <= QUOTA

        @invariant()
        def every_ref_is_where_the_model_says(self) -> None:
            # info() does not touch LRU order, so checking never changes what is evicted next.
            for ref, kept in self.live.items():
                expected = self._expect(ref, kept.scope)
                if isinstance(expected, Kept):
                    assert self.store.info(ref, scope=kept.scope).sha256 == kept.sha
                else:
                    with pytest.raises(expected):
                        self.store.info(ref, scope=kept.scope)
            for ref, (scope, _) in self.gone.items():
                with pytest.raises(RefExpired):
                    self.store.info(ref, scope=scope)

        @invariant()
        def body_files_are_the_large_bodies_kept(self) -> None:
            files = getattr(self.store, "files", None)
            if files is None:
                return
            names = set(os.listdir(files.root)) if files.root.exists() else set()
            large = {k.sha for k in self.live.values() if len(k.body) >= self.store.file_bytes}
            assert names == large

        def teardown(self) -> None:
            backend.set_aside(self.store)

    return StoreMachine


def run_machine(backend: Any) -> None:
    run_state_machine_as_test(
        machine_for(backend),
        settings=settings(stateful_step_count=40,
                          suppress_health_check=[HealthCheck.function_scoped_fixture]),
    )
