"""Arguments for a tool that has no scenario, made from its ``inputSchema``.

Deterministic, so that two runs of the lint make the same calls and a report can be
reproduced: each value is the schema's own ``const``, first ``enum`` member, ``default`` or
first ``examples`` entry when it has one, else the smallest value its constraints allow
(``minimum``, ``minLength``, ``minItems``), shaped by its ``format`` (``date``, ``email``,
``uri`` …) or a ``pattern`` it matches. Required properties are always given; optional ones
only when the schema suggests a value for them (``default``, ``examples``, ``const``), so that
the server's own defaults apply. A limit-like argument that is optional is left out: the
lint's second call sets it to 1. ``anyOf``/``oneOf`` take their first option that is not
``null``; ``allOf`` is merged; local ``$ref`` is followed.

The result is checked against the schema with :mod:`jsonschema`: arguments that do not
validate are not sent, and the report says why and asks for a scenario. (A property-based
generator such as hypothesis-jsonschema would give random, not repeatable, calls, and
its last release does not run with current Hypothesis.)
"""

from __future__ import annotations

import re
from typing import Any

#: How deep nested objects and arrays are followed; deeper gets an empty value.
MAX_DEPTH = 16

_FORMATS: dict[str, str] = {
    "date": "2026-01-01",
    "date-time": "2026-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "duration": "P1D",
    "regex": ".*",
    "json-pointer": "/",
}
#: Strings tried, in order, against a ``pattern``.
_CANDIDATES = ("example", "a", "A", "1", "example-1", "a/b", "a.b", "example.txt", "2026-01-01",
               "owner/repo", "ABC", "a1", "x_1", "0")


class ArgumentsError(Exception):
    """No arguments that satisfy the schema could be made."""


def generate_arguments(
    input_schema: dict[str, Any], limit_arg: str | None = None
) -> dict[str, Any]:
    """Arguments for one call, valid against ``input_schema`` (or :class:`ArgumentsError`)."""
    value = _value(input_schema, input_schema, 0, skip=limit_arg)
    if not isinstance(value, dict):
        value = {}
    problem = _invalid(value, input_schema)
    if problem is not None:
        raise ArgumentsError(problem)
    return value


def _invalid(value: dict[str, Any], schema: dict[str, Any]) -> str | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator = validator_for(schema, default=Draft202012Validator)
        error = next(iter(validator(schema).iter_errors(value)), None)
    except (SchemaError, TypeError, ValueError) as exc:
        return f"the input schema cannot be read ({type(exc).__name__})"
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    from elision.redact.messages import clip

    # jsonschema quotes the value, and a schema's default may be a live token: redacted first,
    # then cut (a cut token is no longer recognised).
    return f"{'arguments' + where}: {clip(error.message, 200)}"


def _resolve(spec: Any, root: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while isinstance(spec, dict) and isinstance(spec.get("$ref"), str) and seen < 32:
        ref = spec["$ref"]
        if not ref.startswith("#"):
            break
        target: Any = root
        for part in ref[1:].split("/")[1:]:
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) \
                if isinstance(target, dict) else {}
        spec = {**target, **{k: v for k, v in spec.items() if k != "$ref"}} \
            if isinstance(target, dict) else {}
        seen += 1
    return spec if isinstance(spec, dict) else {}


def _suggested(spec: dict[str, Any]) -> tuple[bool, Any]:
    """The value the schema itself suggests, if any."""
    if "const" in spec:
        return True, spec["const"]
    enum = spec.get("enum")
    if isinstance(enum, list) and enum:
        return True, next((v for v in enum if v is not None), enum[0])
    if "default" in spec and spec["default"] is not None:
        return True, spec["default"]
    examples = spec.get("examples")
    if isinstance(examples, list) and examples:
        return True, examples[0]
    return False, None


def _value(spec: Any, root: dict[str, Any], depth: int, *, skip: str | None = None) -> Any:
    spec = _resolve(spec, root)
    found, value = _suggested(spec)
    if found:
        return value
    for combo in ("anyOf", "oneOf"):
        options = [o for o in spec.get(combo) or [] if isinstance(o, dict)]
        if options:
            chosen = next((o for o in options if _resolve(o, root).get("type") != "null"),
                          options[0])
            rest = {k: v for k, v in spec.items() if k not in (combo,)}
            return _value({**rest, **_resolve(chosen, root)}, root, depth, skip=skip)
    parts = [p for p in spec.get("allOf") or [] if isinstance(p, dict)]
    if parts:
        merged: dict[str, Any] = {k: v for k, v in spec.items() if k != "allOf"}
        for part in parts:
            part = _resolve(part, root)
            merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
            merged["required"] = [*merged.get("required", []), *part.get("required", [])]
            merged.update({k: v for k, v in part.items() if k not in ("properties", "required")})
        return _value(merged, root, depth, skip=skip)
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in spec else "array" if "items" in spec else "string"
    if depth > MAX_DEPTH:
        return {"object": {}, "array": []}.get(kind)
    if kind == "object":
        return _object(spec, root, depth, skip)
    if kind == "array":
        return _array(spec, root, depth)
    if kind in ("integer", "number"):
        return _number(spec, kind)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _string(spec)


def _object(spec: dict[str, Any], root: dict[str, Any], depth: int, skip: str | None) -> Any:
    props = spec.get("properties") or {}
    required = [r for r in spec.get("required") or [] if isinstance(r, str)]
    out: dict[str, Any] = {}
    for name, prop in props.items():
        resolved = _resolve(prop, root)
        if name == skip:
            if name in required:
                out[name] = _large_limit(resolved)
            continue
        if name in required or _suggested(resolved)[0]:
            out[name] = _value(resolved, root, depth + 1)
    for name in required:
        if name not in out:
            extra = spec.get("additionalProperties")
            out[name] = _value(extra if isinstance(extra, dict) else {}, root, depth + 1)
    return out


def _large_limit(spec: dict[str, Any]) -> Any:
    """A required limit: the schema's default, else a large page (100, or its maximum)."""
    found, value = _suggested(spec)
    if found:
        return value
    high = spec.get("maximum")
    value = min(high, 100) if isinstance(high, int | float) else 100
    return int(value) if spec.get("type") == "integer" else value


def _array(spec: dict[str, Any], root: dict[str, Any], depth: int) -> list[Any]:
    items = spec.get("items")
    prefix = spec.get("prefixItems")
    count = max(int(spec.get("minItems") or 0), 1)
    if isinstance(spec.get("maxItems"), int):
        count = min(count, spec["maxItems"])
    if isinstance(prefix, list) and prefix:
        return [_value(p, root, depth + 1) for p in prefix[:max(count, len(prefix))]]
    item = _value(items if isinstance(items, dict) else {}, root, depth + 1)
    if spec.get("uniqueItems") and count > 1 and isinstance(item, int | float):
        return [item + i for i in range(count)]
    return [item] * count


def _number(spec: dict[str, Any], kind: str) -> int | float:
    low = spec.get("minimum")
    high = spec.get("maximum")
    if isinstance(spec.get("exclusiveMinimum"), int | float):
        low = spec["exclusiveMinimum"] + (1 if kind == "integer" else 0.5)
    if isinstance(spec.get("exclusiveMaximum"), int | float):
        high = spec["exclusiveMaximum"] - (1 if kind == "integer" else 0.5)
    value: int | float = 1
    if isinstance(low, int | float) and value < low:
        value = low
    if isinstance(high, int | float) and value > high:
        value = high
    step = spec.get("multipleOf")
    if isinstance(step, int | float) and step > 0 and value % step:
        value = step * max(1, -(-value // step))
    if kind == "integer":
        return int(-(-value // 1))
    return value


def _string(spec: dict[str, Any]) -> str:
    fmt = spec.get("format")
    low = int(spec.get("minLength") or 0)
    high = spec.get("maxLength")
    pattern = spec.get("pattern")
    candidates = [_FORMATS[fmt]] if isinstance(fmt, str) and fmt in _FORMATS else []
    candidates += _CANDIDATES
    for text in candidates:
        if len(text) < low:
            text = text + "a" * (low - len(text))
        if isinstance(high, int) and len(text) > high:
            text = text[:high]
        if not isinstance(pattern, str) or _matches(pattern, text):
            return text
    return candidates[0]


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True  # a pattern Python cannot read: the server's validator will judge
