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

Its schema ships as ``elision/data/guard.schema.json``; a file off it is refused whole, every
problem named by its key path (:mod:`elision.guard.config_schema`).
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from elision.errors import InputError
from elision.guard.config_schema import message, problems
from elision.guard.policy import (
    Guardian,
    Policy,
    RedactionPolicy,
    SizeCeiling,
    ToolLists,
    store_keeper,
)


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
    """Policies and audit settings from a config's table; ``where`` names it in errors.

    The table is checked against the shipped schema first (:mod:`elision.guard.config_schema`),
    so what follows reads values of known keys and types only."""
    found = problems(doc)
    if found:
        raise ConfigError(message(where, found))
    guardian: Mapping[str, Any] = doc.get("guardian", {})
    audit: Mapping[str, Any] = doc.get("audit", {})
    policies: list[Policy] = []
    if "max_bytes" in guardian:
        policies.append(SizeCeiling(guardian["max_bytes"]))
    allow = tuple(guardian.get("allow_tools", ()))
    deny = tuple(guardian.get("deny_tools", ()))
    if allow or deny:
        policies.append(ToolLists(allow=allow, deny=deny))
    if guardian.get("redact", False):
        policies.append(RedactionPolicy())
    for n, spec in enumerate(guardian.get("policies", []), start=1):
        policies.append(_user_policy(spec, f"{where}: guardian.policies[{n}]"))
    log = audit.get("log")
    return GuardianConfig(
        policies=policies,
        audit_log=Path(log).expanduser() if log else None,
        audit_key=audit.get("key"),
        checkpoint_every=audit.get("checkpoint_every"),
        on_partial_evidence=guardian.get("on_partial_evidence", "deny"),
    )


def _user_policy(spec: Mapping[str, Any], where: str) -> Policy:
    target: str = spec["use"]
    options: Mapping[str, Any] = spec.get("options", {})
    module_name, _, attr = target.partition(":")
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
