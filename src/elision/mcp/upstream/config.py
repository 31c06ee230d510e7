"""``servers.json``: the ``mcpServers`` layout agent clients already use, plus budgets.

```json
{"budget": 8192, "timeout": 60,
 "mcpServers": {
   "ledger": {"command": "python", "args": ["-m", "elision.demo.server"], "env": {},
              "budget": 16384, "timeout": 30, "toolBudgets": {"search_trades": 4096}},
   "docs":   {"url": "http://127.0.0.1:9000/mcp", "mode": "auto"}}}
```

A budget is the most specific of: the tool's, the server's, the file's, the command line's,
all counted in the file's ``unit`` (``bytes``, ``chars`` or ``tokens``), else the proxy's
``--unit``. A ``timeout`` bounds a server's start (spawn and handshake) as well as each call.
``"disabled": true`` (as Cline and Windsurf write it) leaves an entry out; ``type``
(``stdio`` or ``http``), ``autoApprove`` and ``alwaysAllow`` from other clients' files are
accepted and do nothing more. Any other key is an error that names it and its path: the
schema, ``elision/data/servers.schema.json``, is checked before anything starts
(:mod:`elision.mcp.upstream.config_schema`).

``mode`` is how the proxy's session with that server picks its protocol era. ``"legacy"``
(the default) is the ``initialize`` handshake every server speaks: log messages and
list-changed notifications reach the agent, and a server that needs input asks for it
mid-call. ``"auto"`` uses the newest era (2026-07-28) when the server speaks it, so a tool
that needs input answers with an ``InputRequiredResult``, which the proxy passes to the agent
as is and whose answer it passes back. The proxy listens to such a server for its list-changed
and resource events and asks it for log messages on every request (see
:mod:`elision.mcp.agent.notify`), so agents of either era still get them.

``sampling`` (default ``false``) lets the proxy tell a server it can sample: a server's
``sampling/createMessage`` then goes to the agent whose call asked. Off, the server is not
told the proxy can sample (it cannot know that any agent behind it will), so it does not ask.
``elicitation`` and ``roots`` (default ``true``) let the proxy tell a server it can
elicit and list roots. A stdio proxy offers them only when its agent declared them too; an
HTTP proxy serves many agents over one upstream session and cannot follow each, so it offers
what the config allows (see :mod:`elision.mcp.upstream.offer`, :mod:`elision.mcp.asking`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from elision.budget import Budget
from elision.errors import BudgetError, InputError

#: Joins a server's name and its tool's (or prompt's) name when several servers share a proxy.
SEPARATOR = "__"
DEFAULT_TIMEOUT = 60.0
#: The ``mode`` values of a server entry: how its session picks the protocol era.
MODES = ("legacy", "auto")

_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")


@dataclass(frozen=True)
class ServerSpec:
    """One upstream MCP server: a command to launch (stdio) or a URL (streamable HTTP)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    budget: Budget | None = None
    tool_budgets: Mapping[str, Budget] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    #: A command given on the command line runs with the user's environment; one from a
    #: config file gets the SDK's safe defaults plus its ``env``, as agent clients do.
    inherit_env: bool = False
    #: How the session picks its protocol era (see the module docstring).
    mode: str = "legacy"
    #: Whether the proxy tells this server it can sample (see the module docstring).
    sampling: bool = False
    #: Whether the proxy may tell this server it can elicit / list roots (see above).
    elicitation: bool = True
    roots: bool = True
    #: A message from a stdio server over this many bytes is refused unread (--max-message-bytes).
    max_message_bytes: int | None = None

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise InputError(
                f"server {self.name!r} needs exactly one of command or url, got "
                f"command={self.command!r} and url={self.url!r}"
            )
        if self.timeout <= 0:
            raise InputError(
                f"server {self.name!r}: timeout must be a positive number of seconds, got "
                f"{self.timeout!r}"
            )
        if self.mode not in MODES:
            raise InputError(
                f"server {self.name!r}: mode must be one of {', '.join(MODES)}, got "
                f"{self.mode!r}"
            )

    @property
    def target(self) -> str:
        """How the server is reached, for messages (never its environment: it may hold keys)."""
        return self.url if self.url is not None else " ".join((self.command or "", *self.args))

    def budget_for(self, tool: str, default: Budget) -> Budget:
        return self.tool_budgets.get(tool) or self.budget or default


def load_config(
    path: str | Path, *, default_timeout: float = DEFAULT_TIMEOUT, unit: str = "bytes"
) -> tuple[list[ServerSpec], Budget | None]:
    """The servers in a ``servers.json`` and the file-wide budget, if it sets one."""
    try:
        raw = orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read the config {str(path)!r}: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise InputError(f"config {str(path)!r} is not valid JSON: {exc}") from None
    return parse_config(raw, source=str(path), default_timeout=default_timeout, unit=unit)


def parse_config(
    raw: Any, *, source: str = "config", default_timeout: float = DEFAULT_TIMEOUT,
    unit: str = "bytes",
) -> tuple[list[ServerSpec], Budget | None]:
    """The enabled servers of ``raw`` and the file-wide budget, after checking ``raw``
    against the schema (:mod:`elision.mcp.upstream.config_schema`). Budgets are counted in the
    file's
    ``unit``, else in ``unit`` (the proxy's ``--unit``)."""
    # The checker (jsonschema, difflib for its suggestions) is loaded only for a config: a
    # proxy of one server never reads one, and its start waits on its imports (issue 24).
    from elision.mcp.upstream.config_schema import check

    check(raw, source=source)
    unit = raw.get("unit", unit)
    file_budget = _budget(raw.get("budget"), f"{source}: budget", unit)
    timeout = float(raw.get("timeout", default_timeout))
    servers = []
    for name, entry in raw["mcpServers"].items():
        where = f"{source}: mcpServers.{name}"
        if not _NAME.match(name) or SEPARATOR in name:
            raise InputError(
                f"{where}: a server name must be letters, digits, '_', '.' or '-' without "
                f"{SEPARATOR!r} (it prefixes tool names), got {name!r}"
            )
        tool_budgets = entry.get("toolBudgets", {})
        spec = ServerSpec(
            name=name,
            command=entry.get("command"),
            args=tuple(entry.get("args", ())),
            env=entry.get("env"),
            cwd=entry.get("cwd"),
            url=entry.get("url"),
            budget=_budget(entry.get("budget"), f"{where}.budget", unit),
            tool_budgets={
                tool: b for tool, value in tool_budgets.items()
                if (b := _budget(value, f"{where}.toolBudgets.{tool}", unit)) is not None
            },
            timeout=float(entry.get("timeout", timeout)),
            mode=entry.get("mode", "legacy"),
            sampling=entry.get("sampling", False),
            elicitation=entry.get("elicitation", True),
            roots=entry.get("roots", True),
        )
        _check_type(entry.get("type"), spec, where)
        if not entry.get("disabled", False):
            servers.append(spec)
    if not raw["mcpServers"]:
        raise InputError(f"{source}: \"mcpServers\" is empty; add at least one server")
    if not servers:
        raise InputError(
            f"{source}: every server in \"mcpServers\" is disabled; remove \"disabled\": true "
            "from the ones to proxy"
        )
    return servers, file_budget


def _check_type(kind: str | None, spec: ServerSpec, where: str) -> None:
    """Another client's ``type`` must agree with how the entry is reached."""
    if kind is None:
        return
    if (kind == "stdio") != (spec.command is not None):
        raise InputError(
            f"{where}.type is {kind!r} but the entry has a "
            f"{'command' if spec.command is not None else 'url'}; use \"stdio\" with a "
            "command and \"http\" with a url, or drop type"
        )


def _budget(value: Any, where: str, unit: str) -> Budget | None:
    if value is None:
        return None
    try:
        return Budget(value, unit)  # type: ignore[arg-type]  # the schema checked it
    except BudgetError as exc:
        raise InputError(f"{where}: {exc}") from None
