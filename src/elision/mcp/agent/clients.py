"""Which harness is on the other end, and the budget that fits under its own cut.

One config file is often read by several harnesses (Claude Code's ``.mcp.json`` by GitHub
Copilot CLI too, Gemini CLI's layout by Qwen Code), so a budget written into the file fits
only one of them. The proxy instead sizes each result for the client actually connected: the
client names itself in ``initialize`` (``clientInfo.name``) or, in the newest protocol era, in
each request's ``_meta["io.modelcontextprotocol/clientInfo"]``.

Precedence, most specific first: a tool's, a server's or the file's budget in ``servers.json``
and an explicit ``--budget`` (what the user wrote wins), then the client's budget
(``--client-budget NAME=N`` or the config's ``clientBudgets`` over the table of
:data:`elision.install.harnesses.HARNESSES`), then, for a client no table names, the lowest
budget the table knows.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from mcp_types import CLIENT_INFO_META_KEY

from elision.budget import Budget
from elision.errors import InputError
from elision.install.harnesses import HARNESSES


class ClientBudgets:
    """Budgets by client: the harness table, with the user's overrides on top.

    An override is keyed by a harness name (``copilot-cli``) or by a client's exact
    ``clientInfo.name``; the table matches a client by the substrings each harness is known to
    put in its name.
    """

    def __init__(self, overrides: Mapping[str, int] | None = None) -> None:
        self.overrides = {key.lower(): value for key, value in (overrides or {}).items()}
        self._budgets: dict[int, Budget] = {}
        self.lowest = min(h.budget for h in HARNESSES.values())

    def harness_of(self, client: str | None) -> str | None:
        """The harness a ``clientInfo.name`` belongs to, or None when no harness claims it."""
        if not client:
            return None
        name = client.lower()
        matches = [(len(part), h.name) for h in HARNESSES.values() for part in h.clients
                   if part in name]
        return max(matches)[1] if matches else None

    def size_for(self, client: str | None) -> int:
        if client and client.lower() in self.overrides:
            return self.overrides[client.lower()]
        harness = self.harness_of(client)
        if harness is None:
            return self.overrides.get("*", self.lowest)
        return self.overrides.get(harness, HARNESSES[harness].budget)

    def budget_for(self, client: str | None) -> Budget:
        size = self.size_for(client)
        if size not in self._budgets:
            self._budgets[size] = Budget(size, "bytes")
        return self._budgets[size]


def parse_overrides(values: Mapping[str, Any] | tuple[str, ...], where: str) -> dict[str, int]:
    """``NAME=N`` pairs (the flag) or a mapping (the config), checked: a budget is bytes."""
    pairs: list[tuple[str, Any]]
    if isinstance(values, tuple):
        pairs = []
        for value in values:
            name, sep, size = value.partition("=")
            if not sep or not name.strip():
                raise InputError(f"{where} takes NAME=BYTES (a harness such as claude-code, "
                                 f"or a clientInfo name), got {value!r}")
            pairs.append((name.strip(), size.strip()))
    else:
        pairs = list(values.items())
    out: dict[str, int] = {}
    for name, size in pairs:
        try:
            number = int(size)
            Budget(number, "bytes")
        except (TypeError, ValueError) as exc:
            raise InputError(f"{where} {name!r}: give a whole number of bytes, got {size!r} "
                             f"({exc})") from None
        out[name] = number
    return out


def client_name(ctx: Any) -> str | None:
    """The ``clientInfo.name`` behind a request: its ``_meta`` first (the newest era sends it on
    every request), else what the client said in ``initialize``."""
    meta = getattr(ctx, "meta", None)
    info: Any = None
    if meta is not None:
        info = (meta.get(CLIENT_INFO_META_KEY) if isinstance(meta, Mapping)
                else getattr(meta, "model_extra", None) and meta.model_extra.get(
                    CLIENT_INFO_META_KEY))
    if isinstance(info, Mapping) and isinstance(info.get("name"), str):
        return str(info["name"])
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    client_info = getattr(params, "client_info", None)
    name = getattr(client_info, "name", None)
    return name if isinstance(name, str) else None


def config_client_budgets(path: str | Path) -> dict[str, int]:
    """The config's ``clientBudgets`` (harness or clientInfo name to bytes), checked."""
    raw = orjson.loads(Path(path).read_bytes())  # load_config has read and checked it
    return parse_overrides(raw.get("clientBudgets") or {}, f"{path}: clientBudgets")
