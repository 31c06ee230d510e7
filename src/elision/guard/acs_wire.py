"""The ACS v0.1 wire, as the Guardian's endpoint reads and writes it: error codes, the
error envelope, and the readers of request params that refuse bad input without ever echoing
a content-bearing value (it could hold a credential)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
import rfc8785

from elision.redact.messages import clip
from elision.shape.jsonparse import repeated_keys

ACS_VERSION = "0.1.0"
SKEW_WINDOW_MS = 300_000

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
UNSUPPORTED_VERSION, NOT_NEGOTIATED, REPLAY_DETECTED, OUT_OF_WINDOW = -32001, -32003, -32005, -32006
SIGNATURE_INVALID, SESSION_REFUSED, CHAIN_MISMATCH = -32004, -32000, -32007


class AcsError(Exception):
    """A JSON-RPC error to send back: ``code``, a message, and the ``data.reason``."""

    def __init__(self, code: int, message: str, reason: str, **data: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, {"reason": reason, **data}


def kind(value: Any) -> str:
    """A content-bearing value is named by its type only: an error must never echo a
    credential the value might hold."""
    return f"a JSON {type(value).__name__}" if value is not None else "null"


def short(value: Any, limit: int = 80) -> str:
    return clip(repr(value), limit)  # redacted, then cut: a cut token is no longer found


def error(msg_id: Any, exc: AcsError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id,
            "error": {"code": exc.code, "message": exc.message,
                      "data": {**exc.data, "message": exc.message}}}


def session_id(params: Mapping[str, Any]) -> str:
    metadata = params.get("metadata")
    sid = metadata.get("session_id") if isinstance(metadata, Mapping) else None
    return sid if isinstance(sid, str) else ""


def check_timestamp(value: Any) -> None:
    if value is None:
        return
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
    except ValueError:
        raise AcsError(INVALID_PARAMS, "params.timestamp must be an ISO 8601 date-time such as "
                       "2026-12-01T21:00:00Z (its value is not shown)", "invalid_params") from None
    skew = abs((datetime.now(UTC) - when).total_seconds()) * 1000
    if skew > SKEW_WINDOW_MS:
        raise AcsError(OUT_OF_WINDOW, f"params.timestamp is {skew / 1000:,.0f} s from this "
                       f"Guardian's clock, outside the {SKEW_WINDOW_MS} ms window; correct "
                       "the clock and retry",
                       "timestamp_out_of_window", skew_window_ms=SKEW_WINDOW_MS)


def payload(params: Mapping[str, Any]) -> dict[str, Any]:
    payload = params.get("payload")
    if not isinstance(payload, dict):
        raise AcsError(INVALID_PARAMS, f"params.payload must be an object, got {kind(payload)}",
                       "invalid_params")
    return payload


def tool(payload: Mapping[str, Any]) -> tuple[str, str | None]:
    tool = payload.get("tool")
    name = tool.get("name") if isinstance(tool, Mapping) else tool
    server = (tool.get("server") or tool.get("provider")) if isinstance(tool, Mapping) else (
        payload.get("server"))
    if not isinstance(name, str) or not name:
        raise AcsError(INVALID_PARAMS, f"payload.tool must name the tool, got {kind(tool)}",
                       "invalid_params")
    return name, server if isinstance(server, str) else None


def digest(value: Any) -> str:
    text = value.removeprefix("sha256:") if isinstance(value, str) else ""
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        # Its length only: whatever sits in a malformed digest field is not for an error.
        got = f"{len(value)} chars" if isinstance(value, str) else kind(value)
        raise AcsError(INVALID_PARAMS, "digest must be 'sha256:' and 64 lowercase hex digits, "
                       f"got {got}", "invalid_params")
    return text


def canonical(value: Any) -> bytes:
    try:
        return bytes(rfc8785.dumps(value))
    except (rfc8785.CanonicalizationError, TypeError, ValueError):
        return orjson.dumps(value)


def body_of(value: Any) -> bytes:
    return value.encode("utf-8", "replace") if isinstance(value, str) else canonical(value)


def digest_of(body: bytes) -> tuple[str, int]:
    return hashlib.sha256(body).hexdigest(), len(body)


def parsed(body: bytes) -> tuple[Any, int]:
    """The value policies decide on - JSON, else the text - and how many members of it a
    repeated key shadows (policies see only the last of each)."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace"), 0
    return value, len(repeated_keys(body, value))
