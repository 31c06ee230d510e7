"""The scope of a stateless client: its Authorization header, hashed, keyed when a key is set."""

from __future__ import annotations

import hashlib
import hmac
from types import SimpleNamespace
from typing import Any

import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.errors import InputError
from elision.mcp.agent.scopes import SCOPE_KEY_ENV, auth_scope, client_scope, scope_key_from_env

KEY = "k" * 16
MODERN = sorted(MODERN_PROTOCOL_VERSIONS)[-1]


def stateless_ctx(authorization: str | None) -> Any:
    headers = {"authorization": authorization} if authorization else {}
    connection = SimpleNamespace(session_id=None, protocol_version=MODERN, state={})
    return SimpleNamespace(
        session=SimpleNamespace(_connection=connection), request=SimpleNamespace(headers=headers)
    )


def scope(authorization: str | None) -> str:
    return client_scope(stateless_ctx(authorization), shared="proxy:x", require_auth_scope=False)


def test_without_a_key_the_scope_is_the_plain_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCOPE_KEY_ENV, raising=False)
    expected = "auth:" + hashlib.sha256(b"Bearer alice").hexdigest()[:32]
    assert scope("Bearer alice") == expected == auth_scope("Bearer alice", None)


def test_with_a_key_the_scope_is_an_hmac_that_the_plain_hash_cannot_find(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SCOPE_KEY_ENV, KEY)
    keyed = scope("Bearer alice")
    assert keyed == "auth:" + hmac.new(
        KEY.encode(), b"Bearer alice", hashlib.sha256
    ).hexdigest()[:32]
    # Whoever holds the store but not the key cannot test a guessed credential against it.
    assert keyed != auth_scope("Bearer alice", None)
    # Same key, same client: every replica agrees; another client or key is another scope.
    assert scope("Bearer alice") == keyed
    assert scope("Bearer bob") != keyed
    monkeypatch.setenv(SCOPE_KEY_ENV, "another key of 16+ chars")
    assert scope("Bearer alice") != keyed


def test_no_header_is_the_shared_scope_with_or_without_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SCOPE_KEY_ENV, KEY)
    assert scope(None) == "proxy:x"


@pytest.mark.parametrize(("value", "expected"), [
    ("", None),
    (KEY, KEY.encode()),
    ("short", InputError),
    ("x" * 15, InputError),
])
def test_the_key_is_read_strictly(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: object
) -> None:
    monkeypatch.setenv(SCOPE_KEY_ENV, value)
    if expected is InputError:
        with pytest.raises(InputError, match=r"ELISION_SCOPE_KEY is \d+ chars; use a random"):
            scope_key_from_env()
    else:
        assert scope_key_from_env() == expected


def test_a_short_key_stops_the_proxy_at_startup(monkeypatch: pytest.MonkeyPatch) -> None:
    from elision.mcp.launch import build_proxy

    monkeypatch.setenv(SCOPE_KEY_ENV, "short")
    with pytest.raises(InputError, match="ELISION_SCOPE_KEY"):
        build_proxy(command=["true"])
