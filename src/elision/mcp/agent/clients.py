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

Some harnesses cut by lines as well as by bytes (OpenCode keeps 2,000 lines, Qwen Code 1,000),
so a client's budget also carries its line cap (``NAME=BYTES,LINES``; the lowest known for a
client no table names), and no text the proxy gives it has more lines: a result's blocks
together, an ``elision_fetch`` page, an error, a resource read or a prompt. A tool's budget
from ``servers.json`` keeps the client's line cap: the cap is the harness's, whatever size the
user chose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
from mcp_types import CLIENT_INFO_META_KEY

from elision.budget import MINIMUM, Budget
from elision.errors import InputError
from elision.install.harnesses import HARNESSES


@dataclass(frozen=True)
class ClientLimit:
    """One client's budget: bytes, and the most lines it keeps (None: it cuts by size only)."""

    bytes: int
    lines: int | None = None

    def budget(self) -> Budget:
        return Budget(self.bytes, "bytes", lines=self.lines)


class ClientBudgets:
    """Budgets by client: the harness table, with the user's overrides on top.

    An override is keyed by a harness name (``copilot-cli``) or by a client's exact
    ``clientInfo.name``; the table matches a client by the substrings each harness is known to
    put in its name. An override given in bytes alone keeps the table's line cap for that
    harness (the cap is the harness's own); ``NAME=BYTES,LINES`` sets both.
    """

    def __init__(self, overrides: Mapping[str, int | ClientLimit] | None = None) -> None:
        self.overrides = {key.lower(): value for key, value in (overrides or {}).items()}
        self._budgets: dict[ClientLimit, Budget] = {}
        self.lowest = min(h.budget for h in HARNESSES.values())
        #: what a client no table names may be: the lowest line cap known, too
        self.lowest_lines = min((h.lines for h in HARNESSES.values() if h.lines), default=None)

    def harness_of(self, client: str | None) -> str | None:
        """The harness a ``clientInfo.name`` belongs to, or None when no harness claims it."""
        if not client:
            return None
        name = client.lower()
        matches = [(len(part), h.name) for h in HARNESSES.values() for part in h.clients
                   if part in name]
        return max(matches)[1] if matches else None

    def limit_for(self, client: str | None) -> ClientLimit:
        """The bytes and line cap of the client that calls itself ``client``."""
        harness = self.harness_of(client)
        table = (ClientLimit(self.lowest, self.lowest_lines) if harness is None
                 else ClientLimit(HARNESSES[harness].budget, HARNESSES[harness].lines))
        key = client.lower() if client else None
        given = self.overrides.get(key) if key in self.overrides else self.overrides.get(
            harness or "*")
        if given is None:
            return table
        if isinstance(given, ClientLimit):
            return given
        return ClientLimit(given, table.lines)  # bytes alone: the harness still cuts lines

    def size_for(self, client: str | None) -> int:
        return self.limit_for(client).bytes

    def budget_for(self, client: str | None) -> Budget:
        limit = self.limit_for(client)
        if limit not in self._budgets:
            self._budgets[limit] = limit.budget()
        return self._budgets[limit]


def held_to_lines(budget: Budget, client: Budget) -> Budget:
    """``budget`` (a tool's, an error's, a resource read's) held to the client's line cap too:
    the cap is the harness's, whatever size was chosen."""
    if client.lines is None or (budget.lines is not None and budget.lines <= client.lines):
        return budget
    return replace(budget, lines=client.lines)


def parse_overrides(
    values: Mapping[str, Any] | tuple[str, ...], where: str
) -> dict[str, int | ClientLimit]:
    """``NAME=BYTES[,LINES]`` pairs (the flag) or a mapping (the config: a number of bytes, or
    ``{"bytes": N, "lines": M}``), checked: a budget is bytes, a line cap a number of lines."""
    pairs: list[tuple[str, Any]]
    if isinstance(values, tuple):
        pairs = []
        for value in values:
            name, sep, size = value.partition("=")
            if not sep or not name.strip():
                raise InputError(f"{where} takes NAME=BYTES or NAME=BYTES,LINES (a harness such "
                                 f"as claude-code, or a clientInfo name), got {value!r}")
            size, comma, lines = size.partition(",")
            pairs.append((name.strip(), {"bytes": size.strip(), "lines": lines.strip()}
                          if comma else size.strip()))
    else:
        pairs = list(values.items())
    out: dict[str, int | ClientLimit] = {}
    for name, given in pairs:
        if isinstance(given, Mapping):
            out[name] = ClientLimit(_bytes(where, name, given.get("bytes")),
                                    _lines(where, name, given.get("lines")))
        else:
            out[name] = _bytes(where, name, given)
    return out


def _bytes(where: str, name: str, size: Any) -> int:
    try:
        number = int(size)
        Budget(number, "bytes")
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where} {name!r}: give a whole number of bytes, got {size!r} "
                         f"({exc})") from None
    return number


def _lines(where: str, name: str, lines: Any) -> int | None:
    if lines is None or (isinstance(lines, str) and lines.lower() == "none"):
        return None  # a client that cuts by size only
    try:
        number = int(lines)
        Budget(MINIMUM["bytes"], "bytes", lines=number)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where} {name!r}: give the most lines the client keeps as a whole "
                         f"number, got {lines!r} ({exc})") from None
    return number


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


def config_client_budgets(path: str | Path) -> dict[str, int | ClientLimit]:
    """The config's ``clientBudgets`` (harness or clientInfo name to bytes, or to
    ``{"bytes": N, "lines": M}``), checked."""
    raw = orjson.loads(Path(path).read_bytes())  # load_config has read and checked it
    return parse_overrides(raw.get("clientBudgets") or {}, f"{path}: clientBudgets")
