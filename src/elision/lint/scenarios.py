"""Scenarios: the argument sets ``elision lint`` calls each tool with.

One file, JSON, TOML, or YAML when PyYAML is installed, chosen by its extension: a top-level
``tools`` mapping of tool name to a list of calls, each with ``arguments``, an optional
``name`` and an optional ``induced_failure`` (the form, with an example, is in
``elision lint --help``).

Scenarios run in the order written. The first scenario without an induced failure is also the
one the limit check reuses (with the limit-like argument set to 1).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elision.errors import InputError

_SCENARIO_KEYS = frozenset({"name", "arguments", "induced_failure"})


@dataclass(frozen=True)
class Scenario:
    """One call to make: a tool, its arguments, and the failure it induces, if any."""

    tool: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    induced_failure: str | None = None


def load_scenarios(path: str | Path) -> dict[str, list[Scenario]]:
    """Scenarios per tool name, read from a ``.json``, ``.toml``, ``.yaml`` or ``.yml`` file."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the scenarios file {str(file)!r}: {exc}") from None
    suffix = file.suffix.lower()
    data: Any
    try:
        if suffix == ".json":
            data = json.loads(text)
        elif suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            data = _load_yaml(text, file)
        else:
            raise InputError(
                f"scenarios file {str(file)!r} must end in .json, .toml, .yaml or .yml, "
                f"got {suffix or 'no extension'!r}"
            )
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"scenarios file {str(file)!r} does not parse: {exc}") from None
    return parse_scenarios(data, source=str(file))


def _load_yaml(text: str, file: Path) -> Any:
    try:
        import yaml  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ModuleNotFoundError:
        raise InputError(
            f"scenarios file {str(file)!r} is YAML but PyYAML is not installed; "
            "install it (pip install pyyaml) or write the same data as .json or .toml"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(f"scenarios file {str(file)!r} does not parse: {exc}") from None


def parse_scenarios(data: Any, *, source: str = "scenarios") -> dict[str, list[Scenario]]:
    """Scenarios per tool from already-parsed data (see the module docstring for the form)."""
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise InputError(
            f"{source}: expected a top-level 'tools' mapping of tool name to a list of "
            f"scenarios, got {got!r}"
        )
    out: dict[str, list[Scenario]] = {}
    for tool, entries in data["tools"].items():
        if not isinstance(entries, list) or not entries:
            raise InputError(
                f"{source}: tools.{tool} must be a non-empty list of scenarios, got {entries!r}"
            )
        scenarios = []
        for i, entry in enumerate(entries):
            where = f"{source}: tools.{tool}[{i}]"
            if not isinstance(entry, dict):
                raise InputError(f"{where} must be a mapping with 'arguments', got {entry!r}")
            unknown = set(entry) - _SCENARIO_KEYS
            if unknown:
                raise InputError(
                    f"{where} has unknown keys {sorted(unknown)!r}; "
                    f"use {sorted(_SCENARIO_KEYS)!r}"
                )
            arguments = entry.get("arguments", {})
            if not isinstance(arguments, dict):
                raise InputError(f"{where}.arguments must be a mapping, got {arguments!r}")
            failure = entry.get("induced_failure")
            if failure is not None and (not isinstance(failure, str) or not failure.strip()):
                raise InputError(
                    f"{where}.induced_failure must say what fails (e.g. 'expired token'), "
                    f"got {failure!r}"
                )
            name = entry.get("name", f"#{i + 1}")
            scenarios.append(Scenario(str(tool), str(name), dict(arguments), failure))
        out[str(tool)] = scenarios
    return out
