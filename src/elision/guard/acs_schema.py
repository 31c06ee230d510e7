"""Requests checked against the ACS v0.1.0 schemas, which ship in the package.

The schemas are the standard's own (``elision/data/acs/v0.1.0/``, see its NOTICE.md), read
with :mod:`jsonschema`. The files mix two ``$id`` bases, so each is registered under both;
``ask-details.json`` and ``defer-details.json``, which ``response-envelope.json`` refers to but
which were not published beside it, are registered as permissive placeholders.

ACS-Core validates hook payloads against the base schemas with ``provenance`` OPTIONAL (§7,
conformance.md); the transcribed hook schemas still list it as required, so the Core variant
used here drops it from ``required`` and changes nothing else. A request's values are never
quoted in an error: only the path, and what the schema asks for there.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from typing import Any

from elision.guard.acs_wire import INVALID_PARAMS, INVALID_REQUEST, AcsError

BASES = (
    "https://acs.org/schema/v0.1.0/",
    "https://genai-security-project.github.io/agent-control-standard/schema/v0.1.0/",
)
FILES = (
    "request-envelope.json", "response-envelope.json", "handshake.json", "modifications.json",
    "provenance.json", "hooks/tool-call-request.json", "hooks/tool-call-result.json",
)
PLACEHOLDERS = ("ask-details.json", "defer-details.json")
#: The hook payloads that have a published schema, by method.
HOOK_SCHEMAS = {
    "steps/toolCallRequest": "hooks/tool-call-request.json",
    "steps/toolCallResult": "hooks/tool-call-result.json",
}


def load(name: str) -> dict[str, Any]:
    """One shipped schema file, as published."""
    text = files("elision").joinpath(f"data/acs/v0.1.0/{name}").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def core_variant(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``provenance`` taken out of every ``required`` list (ACS-Core)."""
    out = copy.deepcopy(schema)
    stack: list[Any] = [out]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            required = node.get("required")
            if isinstance(required, list) and "provenance" in required:
                node["required"] = [r for r in required if r != "provenance"]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


@cache
def registry() -> Any:
    return build_registry(load)


def build_registry(load: Callable[[str], dict[str, Any]]) -> Any:
    """A :mod:`referencing` registry of every file ``load`` reads, under both ``$id`` bases,
    hook payloads in their ACS-Core variant (tests build one from their own copy)."""
    from referencing import Registry, Resource

    resources = []
    for name in FILES:
        schema = load(name)
        if name.startswith("hooks/"):
            schema = core_variant(schema)
        for base in BASES:
            resources.append((base + name, Resource.from_contents(schema)))
    for name in PLACEHOLDERS:
        placeholder = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "type": "object"}
        for base in BASES:
            resources.append((base + name, Resource.from_contents(placeholder)))
    return Registry().with_resources(resources)


@cache
def validator(ref: str) -> Any:
    """A validator for ``ref`` (``file.json`` or ``file.json#/$defs/X``), formats checked."""
    return validator_in(registry(), ref)


def validator_in(registry: Any, ref: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator({"$ref": BASES[0] + ref}, registry=registry,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(ref: str, instance: Any) -> list[str]:
    """Every way ``instance`` breaks the schema at ``ref``, each by its path."""
    errors = sorted(validator(ref).iter_errors(instance),
                    key=lambda e: [str(p) for p in e.absolute_path])
    return [describe(e) for e in errors]


def check_request(message: Any) -> None:
    """Refuse a request that ``request-envelope.json`` (and, for a hook with a published
    schema, that hook's payload schema) does not accept: an error, never a decision."""
    if not isinstance(message, dict) or "params" not in message:
        found = problems("request-envelope.json", message)
        raise AcsError(INVALID_REQUEST, "not an ACS request: " + "; ".join(found[:3]),
                       "invalid_request")
    found = problems("request-envelope.json", message)
    hook = HOOK_SCHEMAS.get(message.get("method", ""))
    params = message.get("params")
    if hook is not None and isinstance(params, dict) and isinstance(params.get("payload"), dict):
        found += [f"params.payload{p.removeprefix('(root)')}" if p.startswith("(root)")
                  else f"params.payload.{p}" for p in problems(hook, params["payload"])]
    if found:
        raise AcsError(INVALID_PARAMS, "the request does not match the ACS v0.1.0 schema: "
                       + "; ".join(found[:5]) + ("; ..." if len(found) > 5 else ""),
                       "invalid_params", problems=found[:20])


def describe(error: Any) -> str:
    """``path: what the schema asks`` without the offending value (it may be a secret)."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    where = path.removeprefix(".") or "(root)"
    keyword = error.validator
    if keyword == "required":
        missing = [k for k in error.validator_value if not (
            isinstance(error.instance, dict) and k in error.instance)]
        return f"{where} is missing {', '.join(missing)}"
    if keyword == "additionalProperties":
        allowed = sorted(error.schema.get("properties") or {})
        return f"{where} has members the schema does not allow (only {', '.join(allowed)})"
    if keyword in ("type", "enum", "const", "format", "pattern", "minimum", "minItems",
                   "minLength", "maxLength", "uniqueItems"):
        return f"{where} must satisfy {keyword} {error.validator_value!r}"
    return f"{where} does not match the schema ({keyword})"
