"""The schema of ``guard.toml`` and the errors that say where a config leaves it.

The schema ships in the package (``elision/data/guard.schema.json``, JSON Schema 2020-12) and
is checked with :mod:`jsonschema` on the table ``tomllib`` reads, before any policy is built,
so a typo is refused instead of silently dropping a ceiling or a policy's options. Every
problem is listed, sorted by its path in TOML's dotted form (``guardian.policies[1].use``),
each with what the schema expects; an unknown key gets the known key it is closest to. A
value marked ``x-secret`` (the audit key) is never quoted.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

from elision.redact.messages import clip

#: At most this many problems are listed in one error.
MAX_PROBLEMS = 10

#: How a value's type is named in "got ..." when showing the value says little.
_KINDS: dict[type, str] = {dict: "a table", list: "an array"}


@cache
def schema() -> dict[str, Any]:
    """The documented schema of ``guard.toml``."""
    text = files("elision").joinpath("data/guard.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def problems(doc: Mapping[str, Any]) -> list[str]:
    """Every way ``doc`` leaves the schema, each as ``<key path> <what is expected>``."""
    from jsonschema import Draft202012Validator

    found: list[tuple[str, str]] = []
    for error in Draft202012Validator(schema()).iter_errors(dict(doc)):
        path = list(error.absolute_path)
        sub: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
        if error.validator == "additionalProperties":
            known = sorted(sub.get("properties") or {})
            for key in sorted(k for k in error.instance if k not in known):
                where = _dotted([*path, key])
                found.append((where, f"{where}: unknown key; {_closest(key, known)}"))
        elif error.validator == "required":
            where = _dotted(path)
            found.append((where, f"{where} must have use = \"package.module:factory\""))
        else:
            where = _dotted(path)
            must = sub.get("x-must") or "match the schema"
            got = "" if sub.get("x-secret") else f", got {_shown(error.instance)}"
            found.append((where, f"{where or 'the document'} must {must}{got}"))
    return [text for _, text in sorted(found)]


def message(source: str, found: list[str]) -> str:
    """One error text for ``found``, naming the file first."""
    if len(found) == 1:
        return f"{source}: {found[0]} (the schema: elision/data/guard.schema.json)"
    shown = found[:MAX_PROBLEMS]
    more = len(found) - len(shown)
    return (
        f"{source}: {len(found)} problems (the schema: elision/data/guard.schema.json):\n"
        + "\n".join(f"  - {p}" for p in shown) + (f"\n  - and {more} more" if more else "")
    )


def _closest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else "the keys here are " + ", ".join(known)


def _dotted(path: list[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    return clip(repr(value), 80)  # redacted, then cut: a config value may be a token
