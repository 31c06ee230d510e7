"""From command-line choices to a :class:`~elision.mcp.proxy.Proxy` (kept out of the CLI)."""

from __future__ import annotations

from collections.abc import Sequence

from elision.budget import Budget
from elision.errors import InputError
from elision.mcp.config import ServerSpec, load_config
from elision.mcp.proxy import Proxy
from elision.pipeline import Pipeline


def build_proxy(
    *,
    command: Sequence[str] = (),
    upstream_url: str | None = None,
    config_path: str | None = None,
    budget: int = 8192,
    store_spec: str | None = None,
    no_store: bool = False,
    timeout: float = 60.0,
    media_budget: int = 256 * 1024,
) -> Proxy:
    """One proxy from exactly one upstream choice: a command, a URL, or a config file."""
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
    default_budget = Budget(budget)
    if config_path:
        specs, file_budget = load_config(config_path, default_timeout=timeout)
        default_budget = file_budget or default_budget
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
    store = None
    if not no_store:
        from elision.store import open_store

        store = open_store(store_spec)
    pipeline = Pipeline(budget=default_budget, store=store)
    return Proxy(specs, pipeline, namespaced=namespaced, media_budget=media_budget)


def parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise InputError(f"--listen must be HOST:PORT such as 127.0.0.1:8765, got {value!r}")
    return host.strip("[]"), int(port)
