"""From command-line choices to a :class:`~elision.mcp.proxy.Proxy` (kept out of the CLI).

The proxy runs the whole pipeline by default: the Guardian (a size ceiling, tool allow and
deny lists, your own policies from the guard config), the redaction rules, shaping, and the
audit log beside the default store. ``--no-redact`` and ``--no-audit`` turn a stage off.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from elision.budget import Budget
from elision.errors import InputError
from elision.mcp.agent.clients import ClientBudgets, ClientLimit, config_client_budgets
from elision.mcp.agent.scopes import require_auth_scope_from_env, scope_key_from_env
from elision.mcp.proxy import Proxy
from elision.mcp.upstream.config import ServerSpec, load_config
from elision.pipeline import Pipeline

if TYPE_CHECKING:
    from elision.audit.log import AuditLog
    from elision.guard.config import GuardianConfig
    from elision.guard.stage import GuardStage

#: With no --max-bytes, a body over the store's own limit is refused whole: it could be
#: neither kept nor fetched, only cut.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: The budget of what no client-specific budget covers (resources and prompts, say).
DEFAULT_BUDGET = 8192


@dataclass(frozen=True)
class Stages:
    """The command-line choices for the guard, redact and audit stages."""

    guard_config: str | None = None
    max_bytes: int | None = None
    allow_tools: tuple[str, ...] = ()
    deny_tools: tuple[str, ...] = ()
    redact: bool = True
    audit: bool = True
    audit_path: str | None = None


def build_proxy(
    *,
    command: Sequence[str] = (),
    upstream_url: str | None = None,
    config_path: str | None = None,
    budget: int | None = None,
    unit: str = "bytes",
    store_spec: str | None = None,
    no_store: bool = False,
    timeout: float = 60.0,
    media_budget: int = 256 * 1024,
    stages: Stages | None = None,
    require_auth_scope: bool | None = None,
    resource_budget: int | None = None,
    max_message_bytes: int | None = None,
    client_budgets: Mapping[str, int | ClientLimit] | None = None,
) -> Proxy:
    """One proxy from exactly one upstream choice: a command, a URL, or a config file.

    ``require_auth_scope`` (default: ``$ELISION_REQUIRE_AUTH_SCOPE``) refuses fetches from
    stateless HTTP clients that send no Authorization header (see :mod:`elision.mcp.agent.scopes`,
    which also reads ``$ELISION_SCOPE_KEY``, the key for hashing that header).

    ``max_message_bytes`` (default: :func:`message_ceiling`) is the most one message from a
    stdio server may be: a larger one is dropped as it is read and its call fails.

    Without ``budget`` (nor a file-wide one in the config), each result's budget follows the
    client connected (:mod:`elision.mcp.agent.clients`), ``client_budgets`` over the table.
    """
    given = [
        name for name, value in
        (("a command after --", command), ("--upstream-url", upstream_url),
         ("--config", config_path))
        if value
    ]
    if len(given) != 1:
        raise InputError(
            "give exactly one upstream: a command after --, --upstream-url or --config; got "
            + (", ".join(given) if given else "none")
        )
    if timeout <= 0:
        raise InputError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    if media_budget < 0:
        raise InputError(f"--media-budget must not be negative, got {media_budget!r}")
    scope_key_from_env()  # a key too short to be a secret stops the proxy here, not mid-call
    default_budget = Budget(budget or DEFAULT_BUDGET, unit)  # type: ignore[arg-type]
    follow = budget is None
    overrides = dict(client_budgets or {})
    if config_path:
        specs, file_budget = load_config(config_path, default_timeout=timeout, unit=unit)
        default_budget = file_budget or default_budget
        follow = follow and file_budget is None
        overrides = {**config_client_budgets(config_path), **overrides}
        namespaced = True
    elif upstream_url:
        if not upstream_url.startswith(("http://", "https://")):
            raise InputError(
                f"--upstream-url must be an http:// or https:// URL, got {upstream_url!r}"
            )
        specs, namespaced = [ServerSpec("upstream", url=upstream_url, timeout=timeout)], False
    else:
        specs = [ServerSpec("upstream", command=command[0], args=tuple(command[1:]),
                            timeout=timeout, inherit_env=True)]
        namespaced = False
    stages = stages or Stages()
    if max_message_bytes is not None and max_message_bytes < 1:
        raise InputError(
            f"--max-message-bytes must be a positive number of bytes, got {max_message_bytes!r}"
        )
    ceiling = max_message_bytes or message_ceiling(stages.max_bytes)
    specs = [replace(spec, max_message_bytes=ceiling) for spec in specs]
    config = _guard_config(stages)
    guard = _guard(stages, config)
    store = None
    if not no_store:
        from elision.store import open_store

        store = open_store(store_spec)
    redactor = None
    if stages.redact:
        from elision.redact import RedactStage

        redactor = RedactStage(store=store)
    log = _audit_log(stages, config) if stages.audit else None
    auditor = None
    if log is not None:
        from elision.audit.stage import LogAuditor

        auditor = LogAuditor(log, session_id=str(uuid.uuid4()), store=store)
    pipeline = Pipeline(
        budget=default_budget, store=store, guard=guard, redactor=redactor, auditor=auditor
    )
    if require_auth_scope is None:
        require_auth_scope = require_auth_scope_from_env()
    resources = None if resource_budget is None else Budget(
        resource_budget, default_budget.unit, default_budget.counter
    )
    proxy = Proxy(specs, pipeline, namespaced=namespaced, media_budget=media_budget,
                  require_auth_scope=require_auth_scope, resource_budget=resources,
                  client_budgets=ClientBudgets(overrides) if follow else None)
    if log is not None:
        # Closing writes the final signed checkpoint, so a cut tail shows.
        proxy.on_close.append(log.close)
        if auditor is not None:
            # on_close runs last-in first: the bodies kept for elision view go before the log.
            proxy.on_close.append(auditor.close)
    return proxy


def message_ceiling(max_bytes: int | None) -> int:
    """The default --max-message-bytes: three times the body ceiling, never below 768 MiB.

    A body comes twice in one message when a server echoes it as ``structuredContent``, and
    escaped: well under three times. So every body the Guardian's ceiling (``--max-bytes``)
    would judge is still read and refused whole there, audited as ever; only a message far
    past anything the proxy would keep is dropped unread."""
    return 3 * max(max_bytes or DEFAULT_MAX_BYTES, DEFAULT_MAX_BYTES)


def _guard_config(stages: Stages) -> GuardianConfig | None:
    if stages.guard_config is None:
        return None
    from elision.guard.config import load_config as load_guard_config

    return load_guard_config(stages.guard_config)


def _guard(stages: Stages, config: GuardianConfig | None) -> GuardStage:
    from elision.guard.policy import Guardian, Policy, RedactionPolicy, SizeCeiling, ToolLists
    from elision.guard.stage import GuardStage

    if stages.max_bytes is not None and stages.max_bytes < 1:
        raise InputError(
            f"--max-bytes must be a positive number of bytes, got {stages.max_bytes!r}"
        )
    policies: list[Policy] = []
    ceiling: int | None = stages.max_bytes
    allow, deny = list(stages.allow_tools), list(stages.deny_tools)
    for policy in config.policies if config is not None else []:
        if isinstance(policy, SizeCeiling):
            ceiling = ceiling if ceiling is not None else policy.max_bytes
        elif isinstance(policy, ToolLists):
            allow.extend(policy.allow)
            deny.extend(policy.deny)
        elif not isinstance(policy, RedactionPolicy):
            # The redaction rules run as the redact stage, which shows stubs; as a guard
            # policy they could only deny, since a guard here cannot modify.
            policies.append(policy)
    policies.insert(0, SizeCeiling(ceiling if ceiling is not None else DEFAULT_MAX_BYTES))
    if allow or deny:
        policies.insert(1, ToolLists(allow=tuple(allow), deny=tuple(deny)))
    return GuardStage(Guardian(policies))


def _audit_log(stages: Stages, config: GuardianConfig | None) -> AuditLog:
    """The SQLite log, or the shared PostgreSQL chain for a ``postgresql://`` spec."""
    from elision.audit.log import DEFAULT_CHECKPOINT_EVERY
    from elision.audit.opener import open_audit_log

    path: str | Path | None = stages.audit_path
    if path is None and config is not None:
        path = config.audit_log
    log: AuditLog = open_audit_log(
        path,
        key=config.audit_key if config is not None else None,
        checkpoint_every=(
            config.checkpoint_every if config is not None and config.checkpoint_every
            else DEFAULT_CHECKPOINT_EVERY
        ),
    )
    return log


def parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise InputError(f"--listen must be HOST:PORT such as 127.0.0.1:8765, got {value!r}")
    return host.strip("[]"), int(port)
