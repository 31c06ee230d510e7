"""Whose a kept body is: the ref scope of the client behind a request.

A ref or stub is fetchable only in the scope of the client that was shown it:

* a stdio proxy serves one client, so the proxy's own scope is that client's;
* an HTTP session (protocols up to 2025-11-25) is a scope, per connection;
* a stateless HTTP client (2026-07-28 has no session) is scoped by its Authorization
  header, hashed, so the same credential finds its refs on every replica of the proxy.
  The hash is keyed when ``$ELISION_SCOPE_KEY`` is set (HMAC-SHA256; give every replica the
  same key): a leaked store then does not let anyone test guessed credentials against it.
  Unset, it is a plain SHA-256, which is safe for high-entropy tokens only;
* a stateless HTTP client that sends no Authorization header cannot be told from another.
  By default such clients share the proxy's scope, where a ref is a bearer capability: 144
  random bits, shown only to the client that got the result; knowing it is the permission.
  With ``require_auth_scope`` (``$ELISION_REQUIRE_AUTH_SCOPE=1``) each of their calls gets
  a throwaway scope instead (nothing it was shown lands where another client could fetch
  it) and their fetches are refused with what to send instead.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from typing import Any

from mcp.server.connection import Connection
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elision.errors import InputError

#: The prefix of a throwaway scope: a stateless client that names itself nowhere.
UNNAMED = "unnamed:"


#: Set to 1 to refuse fetches from stateless clients that name themselves nowhere.
REQUIRE_AUTH_SCOPE_ENV = "ELISION_REQUIRE_AUTH_SCOPE"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


def require_auth_scope_from_env() -> bool:
    value = os.environ.get(REQUIRE_AUTH_SCOPE_ENV, "").strip().lower()
    if value not in _TRUE + _FALSE:
        raise InputError(
            f"${REQUIRE_AUTH_SCOPE_ENV} must be 1 or 0 (or true/false), got "
            f"{os.environ[REQUIRE_AUTH_SCOPE_ENV]!r}"
        )
    return value in _TRUE


#: A secret shared by the proxy's replicas that keys the hash of an Authorization header.
SCOPE_KEY_ENV = "ELISION_SCOPE_KEY"
_MIN_KEY = 16


def scope_key_from_env() -> bytes | None:
    """The key for hashing Authorization headers into scopes, or None when unset."""
    value = os.environ.get(SCOPE_KEY_ENV, "")
    if not value:
        return None
    if len(value) < _MIN_KEY:
        raise InputError(
            f"${SCOPE_KEY_ENV} is {len(value)} chars; use a random secret of at least {_MIN_KEY} "
            "(e.g. the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`), "
            "the same on every replica, or unset it"
        )
    return value.encode()


def auth_scope(authorization: str, key: bytes | None) -> str:
    """The scope of a client known only by its Authorization header."""
    if key is None:
        digest = hashlib.sha256(authorization.encode()).hexdigest()
    else:
        digest = hmac.new(key, authorization.encode(), hashlib.sha256).hexdigest()
    return "auth:" + digest[:32]


def new_proxy_scope() -> str:
    return "proxy:" + secrets.token_urlsafe(12)


def client_scope(ctx: Any, *, shared: str, require_auth_scope: bool) -> str:
    """The scope of the client behind ``ctx``; ``shared`` is the proxy-wide one.

    ``$ELISION_SCOPE_KEY`` is read here, per request, so every way of starting a proxy keys
    alike; :func:`scope_key_from_env` at startup refuses a key too short to be a secret.
    """
    connection: Connection | None = getattr(ctx.session, "_connection", None)
    if connection is None:
        return shared
    if connection.session_id:
        return "session:" + hashlib.sha256(connection.session_id.encode()).hexdigest()[:32]
    if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        auth = headers.get("authorization") if headers is not None else None
        if auth:
            # The credential is the client's identity; only its hash is ever stored.
            return auth_scope(auth, os.environ.get(SCOPE_KEY_ENV, "").encode() or None)
        if require_auth_scope and request is not None:
            return UNNAMED + secrets.token_urlsafe(12)
        return shared
    fresh = "conn:" + secrets.token_urlsafe(12)
    scope: str = connection.state.setdefault("elision.scope", fresh)
    return scope


def asgi_scope(request: Any, *, shared: str, require_auth_scope: bool = False) -> str:
    """The scope :func:`client_scope` names for the client of an HTTP request, told from its
    ASGI scope's headers alone (the egress gate keeps an error's full text there)."""
    headers = {k.lower(): v for k, v in request.get("headers") or ()}
    session = headers.get(b"mcp-session-id")
    if session:
        digest = hashlib.sha256(session).hexdigest()[:32]
        return "session:" + digest
    auth = headers.get(b"authorization")
    if auth:
        key = os.environ.get(SCOPE_KEY_ENV, "").encode() or None
        return auth_scope(auth.decode("latin-1"), key)
    if require_auth_scope:
        return UNNAMED + secrets.token_urlsafe(12)
    return shared


def is_unnamed(scope: str) -> bool:
    return scope.startswith(UNNAMED)


def unnamed_refusal(tool: str) -> str:
    return (
        f"{tool}: this proxy lets a client fetch only what it keeps for that client, and this "
        "request names no client: it came over stateless HTTP with no session and no "
        "Authorization header; send an Authorization header, whose hash is then your scope, "
        "or connect with a session (protocol 2025-11-25)"
    )
