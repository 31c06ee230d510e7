"""Behaviour every store backend shares: keep, serve, check, expire, evict, scope."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from elision.budget import Budget
from elision.errors import BodyTooLarge, IntegrityError, RefExpired, RefNotFound, StoreError
from elision.shape import new_ref
from elision.store.base import Store, not_found


def put(store: Store, body: bytes, *, scope: str | None = None, fmt: str = "text") -> str:
    ref = new_ref()
    store.put(body, ref=ref, sha256=hashlib.sha256(body).hexdigest(), format=fmt, scope=scope)
    return ref


def test_store_satisfies_protocol(backend: Any) -> None:
    assert isinstance(backend.open(), Store)


def test_read_gives_exact_bytes_and_info(backend: Any) -> None:
    store = backend.open()
    body = "héllo\x00wörld\n".encode() * 100
    ref = put(store, body, fmt="text")
    assert store.read(ref) == body
    info = store.info(ref)
    assert (info.ref, info.size, info.format) == (ref, len(body), "text")
    assert info.sha256 == hashlib.sha256(body).hexdigest()
    assert info.expires == info.created + store.retention.ttl


def test_unknown_ref_is_not_found(backend: Any) -> None:
    store = backend.open()
    with pytest.raises(RefNotFound, match="el_nope"):
        store.read("el_nope")


def test_same_body_twice_is_stored_once_under_two_refs(backend: Any) -> None:
    store = backend.open()
    a, b = put(store, b"x" * 1000), put(store, b"x" * 1000)
    assert a != b
    stats = store.stats()
    assert (stats.bodies, stats.refs, stats.bytes) == (1, 2, 1000)
    # Removing one ref must not take the body from the other.
    assert store.remove(a) is True
    assert store.read(b) == b"x" * 1000
    assert store.remove(a) is False
    with pytest.raises(RefNotFound):
        store.read(a)
    store.remove(b)
    assert store.stats().bodies == 0


def test_wrong_digest_is_refused(backend: Any) -> None:
    store = backend.open()
    with pytest.raises(IntegrityError, match="sha256="):
        store.put(b"abc", ref=new_ref(), sha256="0" * 64, format="text")
    assert store.stats().refs == 0


def test_corrupted_body_is_never_served(backend: Any) -> None:
    store = backend.open()
    body = b'{"rows": [1, 2, 3]}'
    ref = put(store, body, fmt="json")
    store.corrupt_for_test(hashlib.sha256(body).hexdigest(), b'{"rows": [1, 2, 4]}')
    with pytest.raises(IntegrityError, match="no longer matches"):
        store.read(ref)
    with pytest.raises(IntegrityError):
        store.fetch(ref, path="$.rows")


@pytest.mark.parametrize(
    ("max_body", "quota", "size", "match"),
    [
        (1000, 10_000, 1001, "maximum of 1,000 bytes"),  # one byte over the body limit
        (10_000, 1000, 1001, "whole store quota"),  # a body no eviction could make room for
    ],
)
def test_too_large_body_is_refused(
    backend: Any, max_body: int, quota: int, size: int, match: str
) -> None:
    store = backend.open(max_body_bytes=max_body, quota_bytes=quota)
    with pytest.raises(BodyTooLarge, match=match):
        put(store, b"a" * size)
    put(store, b"a" * (size - 1))  # the limit itself is allowed


def test_expired_ref_says_expired_not_missing(backend: Any) -> None:
    store = backend.open(ttl=60)
    ref = put(store, b"body")
    backend.clock.advance(59)
    assert store.read(ref) == b"body"
    backend.clock.advance(1)
    with pytest.raises(RefExpired, match=r"expired.*shape the tool result again.*TTL"):
        store.read(ref)
    # After gc has dropped the body, the ref still answers "expired".
    result = store.gc()
    assert (result.expired_refs, result.bodies, result.bytes) == (1, 1, 4)
    with pytest.raises(RefExpired):
        store.info(ref)
    assert store.stats().bodies == 0


def test_tombstones_are_forgotten_eventually(backend: Any) -> None:
    store = backend.open(ttl=60)
    ref = put(store, b"body")
    backend.clock.advance(61)
    store.gc()
    backend.clock.advance(31 * 24 * 3600)
    assert store.gc().tombstones == 1
    with pytest.raises(RefNotFound):
        store.read(ref)


def test_quota_evicts_least_recently_used(backend: Any) -> None:
    store = backend.open(quota_bytes=3000)
    first = put(store, b"1" * 1000)
    backend.clock.advance(1)
    second = put(store, b"2" * 1000)
    backend.clock.advance(1)
    third = put(store, b"3" * 1000)
    backend.clock.advance(1)
    store.read(first)  # first is now the most recently used
    backend.clock.advance(1)
    fourth = put(store, b"4" * 1000)
    with pytest.raises(RefExpired, match=r"evicted.*quota"):
        store.read(second)
    for ref in (first, third, fourth):
        assert len(store.read(ref)) == 1000
    assert store.stats().bytes <= 3000


def test_reads_touch_lru_at_most_once_per_resolution(backend: Any) -> None:
    store = backend.open(lru_resolution=1.0)
    ref = put(store, b"page me")
    created = store.info(ref).last_access
    backend.clock.advance(0.5)
    store.read(ref)  # a page walk in quick succession: no write
    assert store.info(ref).last_access == created
    backend.clock.advance(0.5)
    store.fetch(ref, budget=Budget(512))
    assert store.info(ref).last_access == created + 1.0


def test_scoped_ref_is_invisible_from_another_scope(backend: Any) -> None:
    store = backend.open(ttl=60)
    ref = put(store, b"secret body", scope="tenant-a")
    assert store.read(ref, scope="tenant-a") == b"secret body"
    for other in ("tenant-b", None):
        with pytest.raises(RefNotFound) as caught:
            store.read(ref, scope=other)
        # The same words as for a ref that never existed: nothing reveals it is there.
        assert str(caught.value) == str(not_found(ref))
    backend.clock.advance(61)
    with pytest.raises(RefNotFound):
        store.read(ref, scope="tenant-b")  # not even "expired" leaks across scopes
    with pytest.raises(RefExpired):
        store.read(ref, scope="tenant-a")


def test_reference_records_are_private_and_scoped(backend: Any) -> None:
    store = backend.open(ttl=60)
    record = {"uri": "https://bucket.example/x?X-Amz-Signature=deadbeef", "mime": "image/png"}
    store.put_reference("ref_k3f9", record, scope="s1")
    assert store.get_reference("ref_k3f9", scope="s1") == record
    with pytest.raises(RefNotFound) as caught:
        store.get_reference("ref_k3f9", scope="s2")
    assert "deadbeef" not in str(caught.value)
    # A stub id is never a body ref: read/fetch must not serve the record.
    with pytest.raises(RefNotFound):
        store.read("ref_k3f9", scope="s1")
    assert store.stats().references == 1
    backend.clock.advance(61)
    with pytest.raises(RefNotFound):
        store.get_reference("ref_k3f9", scope="s1")


@pytest.mark.parametrize("scope", ["", 5])
def test_bad_scope_is_refused(backend: Any, scope: Any) -> None:
    store = backend.open()
    with pytest.raises(StoreError, match="scope must be"):
        put(store, b"x", scope=scope)


def test_restart_keeps_bodies(backend: Any) -> None:
    if not backend.persistent:
        pytest.skip("a memory store does not outlive its process by design")
    store = backend.open()
    ref = put(store, b"kept across restarts", scope="s")
    store.close()
    again = backend.open()
    assert again.read(ref, scope="s") == b"kept across restarts"


@pytest.mark.parametrize(
    ("option", "value"),
    [("ttl", 0), ("ttl", float("inf")), ("quota_bytes", -1), ("max_body_bytes", 1.5),
     ("lru_resolution", -1)],
)
def test_bad_retention_is_refused(backend: Any, option: str, value: Any) -> None:
    with pytest.raises(StoreError, match=option):
        backend.open(**{option: value})
