"""``elision install HARNESS``: put every MCP server of an agent harness behind the proxy.

The installer rewrites each server entry of the harness's own config file to run through
``elision proxy`` (:mod:`elision.install.entries`), keeps every other byte of the file
(:mod:`elision.install.jsonc`, :mod:`elision.install.tomlcfg`, :mod:`elision.install.yamlcfg`
with :mod:`elision.install.yamledit`), and records what it changed so that ``elision uninstall``
restores it exactly (:mod:`elision.install.record`). Each harness gets a budget below its own cut
(:mod:`elision.install.harnesses`), so a shaped result is never cut a second time.

``install --hook`` puts the results of a harness's own tools through ``elision hook``: Claude
Code's PostToolUse hook (:mod:`elision.install.hook`) or OpenCode's plugin
(:mod:`elision.install.opencode_hook`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from elision.install.harnesses import HARNESSES, Harness, default_config, harness

if TYPE_CHECKING:
    from elision.install.plan import Change, Plan

# The planner, the file editors under it and difflib are loaded on first use, not with this
# package: the proxy reads the budget table (elision.install.harnesses) and nothing else of it,
# and they were some 10 ms of its start (issue 24).

__all__ = ["HARNESSES", "HOOKED", "Change", "Harness", "Plan", "install", "install_hook",
           "uninstall", "uninstall_hook"]


def install(
    name: str,
    *,
    config: Path | None = None,
    budget: int | None = None,
    servers: tuple[str, ...] = (),
    store: str | None = None,
    audit: str | None = None,
    dry_run: bool = False,
) -> Plan:
    """Rewrite the harness's servers to run through elision; with ``dry_run``, only plan it."""
    from elision.audit.log import default_log_path
    from elision.install.entries import Settings, proxy_executable
    from elision.install.plan import plan_install, write
    from elision.store import default_store_path

    h = harness(name)
    path = config if config is not None else default_config(h)
    settings = Settings(
        budget=budget,  # None: the proxy sizes results for the client connected
        store=store or str(default_store_path()),
        audit=audit or str(default_log_path()),
        executable=tuple(proxy_executable()),
    )
    plan = plan_install(h, path, settings, servers)
    if not dry_run:
        write(plan)
    return plan


def uninstall(name: str, *, config: Path | None = None, dry_run: bool = False) -> Plan:
    """Put back every entry this installation rewrote, as it was."""
    from elision.install.plan import plan_uninstall, write

    h = harness(name)
    plan = plan_uninstall(h, config if config is not None else default_config(h))
    if not dry_run:
        write(plan)
    return plan


#: the harnesses whose after-tool hook can replace a result and that ``install --hook`` serves
HOOKED = ("claude-code", "opencode")


def install_hook(name: str = "claude-code", *, config: Path | None = None,
                 budget: int | None = None, store: str | None = None,
                 audit: str | None = None, dry_run: bool = False) -> Plan:
    """Put a harness's own tools' results through ``elision hook``: Claude Code's PostToolUse
    hook on every tool, or OpenCode's plugin."""
    from elision.audit.log import default_log_path
    from elision.install import hook, opencode_hook
    from elision.install.entries import Settings, proxy_executable
    from elision.store import default_store_path

    if name == "opencode":
        path = config if config is not None else opencode_hook.default_plugin()
        budget = HARNESSES["opencode"].budget if budget is None else budget
    else:
        path = config if config is not None else hook.default_settings()
    settings = Settings(
        budget=budget,  # None: the hook's own default, Claude Code's budget
        store=store or str(default_store_path()),
        audit=audit or str(default_log_path()),
        executable=tuple(proxy_executable()),
        lines=HARNESSES[name].lines,  # a harness that cuts lines too gets no more than that
    )
    planner = opencode_hook.plan_install if name == "opencode" else hook.plan_install
    plan = planner(path, settings)
    if not dry_run:
        hook.write(plan)
    return plan


def uninstall_hook(name: str = "claude-code", *, config: Path | None = None,
                   dry_run: bool = False) -> Plan:
    """Remove exactly what ``install_hook`` added."""
    from elision.install import hook, opencode_hook

    if name == "opencode":
        plan = opencode_hook.plan_uninstall(
            config if config is not None else opencode_hook.default_plugin())
    else:
        plan = hook.plan_uninstall(config if config is not None else hook.default_settings())
    if not dry_run:
        hook.write(plan)
    return plan


def __getattr__(name: str) -> Any:
    if name in ("Change", "Plan"):
        from elision.install import plan

        return getattr(plan, name)
    raise AttributeError(f"module 'elision.install' has no attribute {name!r}")
