"""Talking ACS v0.1.0 to the Guardian in tests, with every response checked against the
standard's schemas.

The schemas come from the project's ``shared/acs/v0.1.0`` beside the repository (CI puts a
copy of ``shared/`` beside the clean clone; a worktree under ``wt/`` finds it one level
further up). Where no such copy exists, the copy shipped in the package is used, and
``test_the_shipped_schemas_are_the_standards`` (which compares the two) is skipped, saying so.
"""

from __future__ import annotations

import hashlib
import json
import urllib.request
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from elision.audit.chain import now_timestamp
from elision.guard.acs_bounded import bounded_output
from elision.guard.acs_schema import build_registry, validator_in

ROOT = Path(__file__).resolve().parents[2]
PACKAGED = ROOT / "src" / "elision" / "data" / "acs" / "v0.1.0"


def shared_acs() -> Path | None:
    """The project's shared ACS data files, if this checkout has them beside it."""
    for base in (ROOT.parent, ROOT.parent.parent):
        candidate = base / "shared" / "acs" / "v0.1.0"
        if (candidate / "response-envelope.json").is_file():
            return candidate
    return None


def schema_dir() -> Path:
    return shared_acs() or PACKAGED


@cache
def schema_registry() -> Any:
    return build_registry(lambda name: json.loads((schema_dir() / name).read_text("utf-8")))


def schema_errors(ref: str, instance: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}"
            for e in validator_in(schema_registry(), ref).iter_errors(instance)]


def checked(response: Any, method: str | None = None) -> Any:
    """``response`` after asserting that the ACS schemas accept it (and, for a successful
    handshake, that its result is a ServerHello)."""
    problems = schema_errors("response-envelope.json", response)
    assert not problems, f"response breaks response-envelope.json: {problems}"
    if method == "handshake/hello" and "result" in response:
        problems = schema_errors("handshake.json#/$defs/ServerHello", response["result"])
        assert not problems, f"ServerHello breaks handshake.json: {problems}"
    return response


HOOKS = [
    "steps/sessionStart", "steps/userMessage", "steps/agentTrigger", "steps/toolCallRequest",
    "steps/toolCallResult", "steps/agentResponse", "steps/subagentStart", "steps/sessionEnd",
]


def client_hello(**overrides: Any) -> dict[str, Any]:
    hello: dict[str, Any] = {
        "acs_versions_supported": ["0.1.0"], "methods_implemented": [*HOOKS, "system/ping"],
        "transports_supported": ["http"], "provenance_producer": "none",
        "profiles_supported": ["acs-core"],
    }
    hello.update(overrides)
    return hello


def message(method: str, payload: Any, session: str, *, msg_id: Any = 1,
            **params: Any) -> dict[str, Any]:
    """A request as ``request-envelope.json`` describes it; ``params`` override members
    (``None`` removes one)."""
    envelope: dict[str, Any] = {
        "acs_version": "0.1.0", "request_id": str(uuid.uuid4()), "timestamp": now_timestamp(),
        "metadata": {"agent_id": "test-agent", "session_id": session}, "payload": payload,
    }
    for key, value in params.items():
        if value is None:
            envelope.pop(key, None)
        else:
            envelope[key] = value
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": envelope}


def result_payload(*values: Any, tool: str = "search") -> dict[str, Any]:
    return {"tool": {"name": tool}, "exit_status": "success",
            "outputs": [{"value": v} for v in values]}


def request_payload(tool: str = "search", **arguments: Any) -> dict[str, Any]:
    return {"tool": {"name": tool}, "arguments": {k: {"value": v} for k, v in arguments.items()}}


def digest(body: bytes) -> str:
    return "sha256:" + hashlib.sha256(body).hexdigest()


def beside(body: bytes, ref: str | None, prefix: int = 40) -> dict[str, Any]:
    """A bounded output, its members beside ``value``: what elision's clients send."""
    return bounded_output(body, ref, inline_bytes=prefix)


def inside(body: bytes, ref: str | None, prefix: int = 40) -> dict[str, Any]:
    """A bounded output, the bounded object as ``value``."""
    bound: dict[str, Any] = {"inline": body[:prefix].decode(), "truncated": True,
                             "digest": digest(body), "bytes": len(body)}
    if ref is not None:
        bound["content_ref"] = ref
    return {"value": bound}


class Driver:
    """Sends requests to an endpoint in-process (``handle``) or over HTTP (``url``), one
    session, and checks every response against the schemas."""

    def __init__(self, send: Callable[[dict[str, Any]], Any], session: str | None = None):
        self.send, self.session, self.next_id = send, session or str(uuid.uuid4()), 0

    @classmethod
    def http(cls, url: str, session: str | None = None) -> Driver:
        def post(body: dict[str, Any]) -> Any:
            return post_raw(url, orjson.dumps(body))

        return cls(post, session)

    def call(self, method: str, payload: Any = None, **params: Any) -> Any:
        self.next_id += 1
        sent = message(method, {} if payload is None else payload, self.session,
                       msg_id=self.next_id, **params)
        return checked(self.send(sent), method)

    def hello(self, **overrides: Any) -> Any:
        return self.call("handshake/hello", client_hello(**overrides))

    def result(self, *outputs: dict[str, Any], tool: str = "search", **params: Any) -> Any:
        payload = {"tool": {"name": tool}, "exit_status": "success", "outputs": list(outputs)}
        return self.call("steps/toolCallResult", payload, **params)


def post_raw(url: str, body: bytes) -> Any:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"},
                                 method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return orjson.loads(resp.read())
