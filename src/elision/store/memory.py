"""An in-process store with the same behaviour as the SQLite one, for tests and short lives."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson

from elision._record import record_class, replace
from elision.store.base import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_QUOTA_BYTES,
    DEFAULT_TTL,
    GcResult,
    PagedStore,
    RefInfo,
    Retention,
    StoreStats,
    check_name,
    corrupted,
    expired,
    is_storable,
    not_found,
    reference_not_found,
    scope_allows,
    scope_key,
)


@record_class
class _Ref:
    info: RefInfo
    scope: str


@record_class
class _Tombstone:
    scope: str
    reason: str
    at: float


class MemoryStore(PagedStore):
    """Bodies in a dict: nothing survives the process. Thread-safe."""

    def __init__(
        self,
        *,
        ttl: float = DEFAULT_TTL,
        quota_bytes: int = DEFAULT_QUOTA_BYTES,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        lru_resolution: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.retention = Retention(ttl, quota_bytes, max_body_bytes, lru_resolution)
        self._clock = clock
        self._lock = threading.RLock()
        self._bodies: dict[str, bytes] = {}
        self._refs: dict[str, _Ref] = {}
        self._tombstones: dict[str, _Tombstone] = {}
        self._references: dict[tuple[str, str], tuple[bytes, float]] = {}

    def put(
        self, body: bytes, *, ref: str, sha256: str, format: str, scope: str | None = None,
        verified: bool = False,
    ) -> None:
        body = bytes(body)
        check_name(ref, keeping=True)
        self.retention.check_body(body, sha256, verified=verified)
        key = scope_key(scope)
        with self._lock:
            now = self._clock()
            self._expire(now)
            self._drop_ref(ref)
            incoming = 0 if sha256 in self._bodies else len(body)
            self._evict_for(incoming, now)
            self._bodies.setdefault(sha256, body)
            info = RefInfo(ref, sha256, len(body), format, now,
                           self.retention.expires_at(now), now)
            self._refs[ref] = _Ref(info, key)
            self._tombstones.pop(ref, None)

    def read(self, ref: str, *, scope: str | None = None) -> bytes:
        with self._lock:
            entry = self._live(ref, scope)
            body = self._bodies[entry.info.sha256]
            now = self._clock()
            if self.retention.needs_touch(entry.info.last_access, now):
                entry.info = replace(entry.info, last_access=now)
        actual = hashlib.sha256(body).hexdigest()
        if actual != entry.info.sha256:
            raise corrupted(ref, entry.info.sha256, actual)
        return body

    def info(self, ref: str, *, scope: str | None = None) -> RefInfo:
        with self._lock:
            return self._live(ref, scope).info

    def _read(self, ref: str, scope: str | None) -> tuple[bytes, RefInfo]:
        return self.read(ref, scope=scope), self.info(ref, scope=scope)

    def refs_for(self, sha256: str) -> list[str]:
        with self._lock:
            now = self._clock()
            live = [r.info for r in self._refs.values()
                    if r.info.sha256 == sha256 and not self.retention.is_expired(
                        r.info.expires, now)]
        return [info.ref for info in sorted(live, key=lambda i: i.created, reverse=True)]

    def remove(self, ref: str) -> bool:
        if not is_storable(ref):
            return False
        with self._lock:
            found = ref in self._refs
            self._drop_ref(ref)
            return found

    def gc(self) -> GcResult:
        with self._lock:
            now = self._clock()
            before_bodies, before_bytes = len(self._bodies), self._total_bytes()
            expired_refs = self._expire(now)
            cutoff = self.retention.tombstone_cutoff(now)
            old = [ref for ref, stone in self._tombstones.items() if stone.at < cutoff]
            for ref in old:
                del self._tombstones[ref]
            return GcResult(expired_refs, before_bodies - len(self._bodies),
                            before_bytes - self._total_bytes(), len(old))

    def stats(self) -> StoreStats:
        with self._lock:
            oldest = min((r.info.created for r in self._refs.values()), default=None)
            return StoreStats(len(self._bodies), len(self._refs), self._total_bytes(), oldest,
                              self.retention.quota_bytes, self.retention.ttl, ":memory:",
                              len(self._references))

    def close(self) -> None:
        """Nothing to release; the bodies go with the object."""

    def put_reference(self, stub_id: str, record: dict[str, Any], *, scope: str | None) -> None:
        check_name(stub_id, "stub", keeping=True)
        blob = orjson.dumps(record)
        with self._lock:
            now = self._clock()
            self._references[(stub_id, scope_key(scope))] = (blob, self.retention.expires_at(now))

    def get_reference(self, stub_id: str, *, scope: str | None) -> dict[str, Any]:
        check_name(stub_id, "stub")
        with self._lock:
            found = self._references.get((stub_id, scope_key(scope)))
            if found is None or self.retention.is_expired(found[1], self._clock()):
                raise reference_not_found(stub_id)
        record: dict[str, Any] = orjson.loads(found[0])
        return record

    def corrupt_for_test(self, sha256: str, body: bytes) -> None:
        """Replace stored bytes in place, as a failing disk would (tests only)."""
        with self._lock:
            self._bodies[sha256] = body

    # -- internals; callers hold the lock --

    def _live(self, ref: str, scope: str | None) -> _Ref:
        check_name(ref)
        key = scope_key(scope)
        entry = self._refs.get(ref)
        if entry is not None and scope_allows(key, entry.scope):
            if self.retention.is_expired(entry.info.expires, self._clock()):
                raise expired(ref, "expired", self.retention)
            return entry
        stone = self._tombstones.get(ref)
        if stone is not None and scope_allows(key, stone.scope):
            raise expired(ref, stone.reason, self.retention)
        raise not_found(ref)

    def _total_bytes(self) -> int:
        return sum(len(body) for body in self._bodies.values())

    def _drop_ref(self, ref: str, reason: str | None = None) -> None:
        entry = self._refs.pop(ref, None)
        if entry is None:
            return
        if reason is not None:
            self._tombstones[ref] = _Tombstone(entry.scope, reason, self._clock())
        sha = entry.info.sha256
        if not any(r.info.sha256 == sha for r in self._refs.values()):
            self._bodies.pop(sha, None)

    def _expire(self, now: float) -> int:
        gone = [ref for ref, entry in self._refs.items()
                if self.retention.is_expired(entry.info.expires, now)]
        for ref in gone:
            self._drop_ref(ref, "expired")
        stale = [key for key, (_, expires) in self._references.items()
                 if self.retention.is_expired(expires, now)]
        for key in stale:
            del self._references[key]
        return len(gone)

    def _evict_for(self, incoming: int, now: float) -> None:
        total = self._total_bytes()
        by_age = sorted(self._refs.items(), key=lambda item: item[1].info.last_access)
        for ref, _ in by_age:
            if total + incoming <= self.retention.quota_bytes:
                break
            self._drop_ref(ref, "been evicted")
            total = self._total_bytes()
