"""A ref, stub or scope holding a lone surrogate is refused cleanly by every backend.

Found by sending ``elision_fetch`` a ref of ``"\\udfff"`` over HTTP: the SQLite store raised
``UnicodeEncodeError`` while binding the query, and the client got -32603 and a traceback.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from elision.budget import Budget
from elision.errors import RefNotFound, StoreError
from elision.store.base import Store

BODY = b'{"rows": [1, 2, 3]}'
SHA = hashlib.sha256(BODY).hexdigest()


@pytest.mark.parametrize("name", [
    "\udfff",             # a lone low surrogate, the whole ref
    "el_abc\ud800def",    # a lone high surrogate inside an otherwise plausible ref
    "\udfff\ud800",       # the halves of a pair in the wrong order
])
@pytest.mark.parametrize("lookup", [
    pytest.param(lambda s, n: s.fetch(n, budget=Budget(1024)), id="fetch"),
    pytest.param(lambda s, n: s.fetch(n, path="$.rows", budget=Budget(1024), scope="alice"),
                 id="fetch-in-scope"),
    pytest.param(lambda s, n: s.read(n), id="read"),
    pytest.param(lambda s, n: s.info(n), id="info"),
    pytest.param(lambda s, n: s.get_reference(n, scope=None), id="get_reference"),
])
def test_a_ref_with_a_lone_surrogate_is_not_found(
    backend: Any, name: str, lookup: Callable[[Store, str], object]
) -> None:
    store = backend.open()
    with pytest.raises(RefNotFound, match="lone surrogate") as caught:
        lookup(store, name)
    str(caught.value).encode("utf-8")  # the message itself can be written anywhere


@pytest.mark.parametrize("keep", [
    pytest.param(lambda s: s.put(BODY, ref="el_\udfff", sha256=SHA, format="json"), id="put"),
    pytest.param(lambda s: s.put_reference("ref_\ud800", {"uri": "x"}, scope=None),
                 id="put_reference"),
    pytest.param(lambda s: s.put(BODY, ref="el_ok", sha256=SHA, format="json", scope="\ud800"),
                 id="put-scope"),
])
def test_nothing_is_kept_under_a_lone_surrogate(
    backend: Any, keep: Callable[[Store], object]
) -> None:
    store = backend.open()
    with pytest.raises(StoreError, match="lone surrogate"):
        keep(store)
    assert store.stats().refs == 0


def test_removing_a_ref_with_a_lone_surrogate_removes_nothing(backend: Any) -> None:
    store = backend.open()
    store.put(BODY, ref="el_kept", sha256=SHA, format="json")
    assert store.remove("el_kept\udfff") is False
    assert store.read("el_kept") == BODY


def test_a_scope_with_a_lone_surrogate_is_refused(backend: Any) -> None:
    store = backend.open()
    store.put(BODY, ref="el_kept", sha256=SHA, format="json", scope="alice")
    with pytest.raises(StoreError, match="lone surrogate"):
        store.read("el_kept", scope="alice\udfff")
