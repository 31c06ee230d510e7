"""The Guardian's config file, in TOML: readable, commented, and in the standard library.

TOML rather than JSON because an operator's policy file wants comments saying why a tool is
denied, and ``tomllib`` reads it with no new dependency::

    [guardian]
    max_bytes = 10_000_000          # refused whole above this, never cut
    allow_tools = ["search", "read_*"]
    deny_tools = ["shell", "*/delete_*"]
    redact = true                   # the redaction rules as a policy
    on_partial_evidence = "deny"    # or "defer": a bound whose full body cannot be read

    [[guardian.policies]]           # your own, in Python
    use = "mypackage.policies:make_policy"
    options = { threshold = 3 }     # keyword arguments for the factory

    [audit]
    log = "~/.local/share/elision/audit.db"
    checkpoint_every = 1000         # the key comes from ELISION_AUDIT_KEY, or `key` here
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from elision.errors import InputError
from elision.guard.policy import (
    Guardian,
    Policy,
    RedactionPolicy,
    SizeCeiling,
    ToolLists,
    store_keeper,
)

_GUARDIAN_KEYS = {
    "max_bytes", "allow_tools", "deny_tools", "redact", "policies", "on_partial_evidence",
}
_AUDIT_KEYS = {"log", "checkpoint_every", "key"}


class ConfigError(InputError):
    """The Guardian's config file cannot be used as written."""


@dataclass
class GuardianConfig:
    policies: list[Policy] = field(default_factory=list)
    audit_log: Path | None = None
    audit_key: str | None = None
    checkpoint_every: int | None = None
    #: The ACS answer to a bounded output the Guardian could not resolve: deny or defer.
    on_partial_evidence: Literal["deny", "defer"] = "deny"

    def guardian(self) -> Guardian:
        return Guardian(self.policies)

    def bind_store(self, store: Any, *, scope: str | None = None) -> None:
        """Give the config's redaction policy (``redact = true``) the store its stubs' records
        go to, so a stub it shows can be resolved later, like one from the default redactor.

        A policy that already keeps its records somewhere (a user policy built with ``keep``)
        is left as it is; with no store there is nothing to bind.
        """
        if store is None:
            return
        self.policies = [
            p.keeping(store_keeper(store, scope=scope))
            if isinstance(p, RedactionPolicy) and not p.keeps_references else p
            for p in self.policies
        ]


def load_config(path: str | Path) -> GuardianConfig:
    """Read a TOML config file into policies and audit settings."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {str(path)!r}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"the config file {str(path)!r} is not valid TOML: {exc}") from None
    return config_from_mapping(doc, where=str(path))


def config_from_mapping(doc: Mapping[str, Any], *, where: str = "config") -> GuardianConfig:
    guardian = _table(doc, "guardian", where)
    audit = _table(doc, "audit", where)
    _no_unknown(guardian, _GUARDIAN_KEYS, f"{where} [guardian]")
    _no_unknown(audit, _AUDIT_KEYS, f"{where} [audit]")
    policies: list[Policy] = []
    if "max_bytes" in guardian:
        policies.append(SizeCeiling(_positive_int(guardian["max_bytes"], "max_bytes", where)))
    allow = _names(guardian.get("allow_tools", []), "allow_tools", where)
    deny = _names(guardian.get("deny_tools", []), "deny_tools", where)
    if allow or deny:
        policies.append(ToolLists(allow=allow, deny=deny))
    redact = guardian.get("redact", False)
    if not isinstance(redact, bool):
        raise ConfigError(f"{where}: redact must be true or false, got {redact!r}")
    if redact:
        policies.append(RedactionPolicy())
    partial = guardian.get("on_partial_evidence", "deny")
    if partial not in ("deny", "defer"):
        raise ConfigError(f"{where}: on_partial_evidence must be \"deny\" or \"defer\", got "
                          f"{partial!r}")
    for n, spec in enumerate(guardian.get("policies", []), start=1):
        policies.append(_user_policy(spec, f"{where} policy {n}"))
    every = audit.get("checkpoint_every")
    key = audit.get("key")
    if key is not None and not isinstance(key, str):
        raise ConfigError(f"{where}: [audit] key must be a string (its value is not shown)")
    log = audit.get("log")
    if log is not None and not isinstance(log, str):
        raise ConfigError(f"{where}: [audit] log must be a path string, got {log!r}")
    return GuardianConfig(
        policies=policies,
        audit_log=Path(log).expanduser() if log else None,
        audit_key=key,
        checkpoint_every=(
            _positive_int(every, "checkpoint_every", where) if every is not None else None
        ),
        on_partial_evidence=partial,
    )


def _table(doc: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: [{name}] must be a table, got {value!r}")
    return value


def _no_unknown(table: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{where} has unknown key(s) {', '.join(map(repr, unknown))}; the known keys are "
            f"{', '.join(sorted(known))}"
        )


def _positive_int(value: Any, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}: {name} must be a positive integer, got {value!r}")
    return value


def _names(value: Any, name: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: {name} must be a list of tool names, got {value!r}")
    return tuple(value)


def _user_policy(spec: Any, where: str) -> Policy:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("use"), str):
        raise ConfigError(
            f"{where}: each [[guardian.policies]] needs use = \"module:factory\", got {spec!r}"
        )
    target = spec["use"]
    options = spec.get("options", {})
    if not isinstance(options, Mapping):
        raise ConfigError(f"{where}: options must be a table, got {options!r}")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{where}: use must look like 'package.module:factory', got {target!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot load {target!r}: {exc}") from None
    try:
        policy = factory(**options)
    except Exception as exc:
        raise ConfigError(
            f"{where}: {target!r} failed to build a policy ({type(exc).__name__}: {exc})"
        ) from None
    if not isinstance(policy, Policy):
        raise ConfigError(
            f"{where}: {target!r} returned {type(policy).__name__}, which has no "
            "id and decide(result, call)"
        )
    return policy
