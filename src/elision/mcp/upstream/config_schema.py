"""The schema of ``servers.json`` and the errors that name what is wrong in one.

The schema ships in the package (``elision/data/servers.schema.json``, JSON Schema 2020-12) and
is checked with :mod:`jsonschema`. Every problem is reported at once, each by its path
(``mcpServers.ledger.budgt``) with what to do: an unknown key gets the key it was probably
meant to be, or the place where it belongs. A value under ``env`` is never quoted: it may be a
secret.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib.resources import files
from typing import Any

from elision.errors import InputError
from elision.redact.messages import clip

#: At most this many problems are listed in one error.
MAX_PROBLEMS = 10

#: Keys that are right somewhere else, or that other clients give a meaning the proxy lacks.
_HINTS: dict[tuple[str, str], str] = {
    ("top", "toolBudgets"): "toolBudgets belongs in a server entry: "
                            "mcpServers.<name>.toolBudgets",
    ("top", "command"): "a server's keys go in an entry under mcpServers",
    ("top", "args"): "a server's keys go in an entry under mcpServers",
    ("top", "url"): "a server's keys go in an entry under mcpServers",
    ("top", "servers"): "elision reads the mcpServers layout: rename it to mcpServers",
    ("server", "unit"): "the unit is file-wide: put \"unit\" at the top level",
    ("server", "serverUrl"): "elision reads url: rename it to url",
    ("server", "headers"): "the proxy sends no headers upstream; put the server behind a "
                           "command that adds them, or ask for this feature",
    ("server", "disabledTools"): "hide tools with --deny-tool <server>/<tool> instead",
    ("server", "envFile"): "list the variables under env instead",
}


@cache
def schema() -> dict[str, Any]:
    """The documented schema of ``servers.json``."""
    text = files("elision").joinpath("data/servers.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def check(raw: Any, *, source: str) -> None:
    """Raise :class:`InputError` listing every way ``raw`` breaks the schema."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(raw), key=lambda e: [str(p) for p in e.absolute_path])
    problems: list[str] = []
    for error in errors:
        problems += _describe(error, raw, source)
    if not problems:
        return
    if len(problems) == 1:
        raise InputError(problems[0])
    shown = problems[:MAX_PROBLEMS]
    more = len(problems) - len(shown)
    raise InputError(
        f"{source} has {len(problems)} problems:\n" + "\n".join(f"  - {p}" for p in shown)
        + (f"\n  - and {more} more" if more else "")
    )


def _describe(error: Any, raw: Any, source: str) -> list[str]:
    path = list(error.absolute_path)
    sub: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(sub.get("properties") or {})
        level = "top" if not path else "server"
        unknown = [k for k in error.instance if k not in allowed]
        return [_unknown(source, path, key, allowed, level) for key in unknown]
    if error.validator == "required" and not path:
        return [f"{source} {_must(sub)}, got {short(raw)!r}"]
    if sub.get("x-at-parent") and path:
        key = path[-1]
        where = _where(source, path[:-1])
        return [f"{where} must {sub['x-must']} ({_key(key)} is not)"]
    where = _where(source, path)
    if "env" in path[2:3] or "env" in path[:1]:
        return [f"{where} {_must(sub)}"]
    return [f"{where} {_must(sub)}, got {short(error.instance)!r}"]


def _unknown(source: str, path: list[Any], key: str, allowed: list[str], level: str) -> str:
    where = _where(source, [*path, key])
    hint = _HINTS.get((level, key))
    if hint is None:
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        hint = (f"did you mean {close[0]!r}?" if close
                else "the keys here are " + ", ".join(allowed))
    return f"{where}: unknown key {key!r}; {hint} (the schema: elision/data/servers.schema.json)"


def _must(sub: dict[str, Any]) -> str:
    return "must " + str(sub.get("x-must") or "match the schema")


def _where(source: str, path: list[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"{source}: {text}" if text else source


def _key(key: Any) -> str:
    return f"item {key}" if isinstance(key, int) else repr(key)


def short(value: Any) -> Any:
    """``value`` for a message: itself, or its repr cut to 80 characters."""
    text = repr(value)
    shown = clip(text, 80)  # redacted, then cut: a config value may be a token
    return value if shown == text else shown
