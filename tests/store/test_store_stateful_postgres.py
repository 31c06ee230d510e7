"""The store state machine (``support.store_machine``) on PostgreSQL, in a file of its own so that
``--dist loadfile`` runs it beside the other backends' machines."""

from __future__ import annotations

import hashlib
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


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_each_example_starts_on_an_empty_store(backend: Any) -> None:
    """The machine's examples share one schema (``open_empty``): what one example left, a ref,
    its tombstone, a reference record, must be gone for the next, on the store set aside and
    on one reopened after a restart."""
    from elision.errors import RefExpired, RefNotFound

    db_name, store = backend.open_empty()
    assert store.stats().refs == 0
    body = b"kept" * 10
    store.put(body, ref="ref-0", sha256=hashlib.sha256(body).hexdigest(), format="text",
              scope=None)
    backend.clock.advance(store.retention.ttl)
    store.gc()  # ref-0 expired: a tombstone
    store.put(body, ref="ref-1", sha256=hashlib.sha256(body).hexdigest(), format="text",
              scope="a")
    store.put_reference("stub-1", {"a": 1}, scope=None)
    with pytest.raises(RefExpired):
        store.info("ref-0")
    assert store.stats().refs == 1
    backend.set_aside(store)
    again_name, again = backend.open_empty()
    assert (again_name, again) == (db_name, store)  # the same store, pool and all
    stats = again.stats()
    assert (stats.refs, stats.bodies, stats.bytes, stats.references) == (0, 0, 0, 0)
    for ref, scope in (("ref-0", None), ("ref-1", "a")):
        with pytest.raises(RefNotFound):
            again.info(ref, scope=scope)
    # A restart closes the store; the next example takes the reopened one, emptied too.
    again.put(b"x", ref="ref-2", sha256=hashlib.sha256(b"x").hexdigest(), format="text",
              scope=None)
    again.close()
    reopened = backend.open(db_name=db_name)
    assert reopened.stats().refs == 1
    backend.set_aside(reopened)
    _, last = backend.open_empty()
    assert last is reopened and last.stats().refs == 0
