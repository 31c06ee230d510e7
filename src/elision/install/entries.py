"""One server entry, as a harness writes it, and the same entry run through ``elision proxy``.

A rewritten entry keeps everything the harness needs to start the server (``env``, ``cwd``,
its own keys) and changes only what it runs: ``elision proxy [options] -- COMMAND ARGS…``, or
``elision proxy [options] --upstream-url URL`` for a remote server. The store and audit paths
are arguments, not environment variables: a harness starts MCP servers with a stripped
environment, so an ``ELISION_*`` variable set in the user's shell would never reach the proxy.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elision.install.harnesses import Harness

#: Options of ``elision proxy`` that the installer writes, in this order.
PROXY_OPTIONS = ("--budget", "--store", "--audit")


def proxy_executable() -> list[str]:
    """How a harness should run elision: the absolute path of this installation's command.

    The harness's PATH may not hold the virtual environment elision lives in, so the path is
    absolute; ``python -m elision`` from the same interpreter when no script is found.
    """
    script = Path(sys.executable).with_name("elision.exe" if os.name == "nt" else "elision")
    if script.is_file():
        return [str(script)]
    found = shutil.which("elision")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "elision"]


@dataclass(frozen=True)
class Settings:
    """What every rewritten entry of one install carries."""

    #: None: no --budget, so the proxy sizes results for the client connected
    budget: int | None
    store: str
    audit: str
    executable: tuple[str, ...]
    #: a hook's line cap (``--lines``), for a harness that cuts by lines too (OpenCode)
    lines: int | None = None

    def proxy_args(self) -> list[str]:
        budget = [] if self.budget is None else ["--budget", str(self.budget)]
        return [*self.executable[1:], "proxy", *budget, "--store", self.store,
                "--audit", self.audit]


@dataclass(frozen=True)
class Proxied:
    """What an entry that already runs through elision proxies, read back from its args."""

    options: dict[str, str]
    command: list[str]
    upstream_url: str | None


def argv_of(entry: dict[str, Any], command_key: str = "command") -> list[str] | None:
    """What an entry runs: ``command`` (Goose: ``cmd``) and ``args``, or OpenCode's one
    ``command`` array."""
    command = entry.get(command_key)
    if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
        return list(command)
    args = entry.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    return [command, *[str(a) for a in args]]


def read_proxied(entry: dict[str, Any], command_key: str = "command") -> Proxied | None:
    """The proxy settings of ``entry``, or ``None`` when it does not run ``elision proxy``."""
    argv = argv_of(entry, command_key)
    if argv is None:
        return None
    command = argv[0]
    name = Path(command).name.lower()
    if name in ("elision", "elision.exe"):
        rest = argv[1:]
    else:  # python -m elision, maybe with one interpreter flag before -m
        try:
            at = argv.index("-m", 1, 3)
        except ValueError:
            return None
        if argv[at + 1:at + 2] != ["elision"]:
            return None
        rest = argv[at + 2:]
    if not rest or rest[0] != "proxy":
        return None
    rest = rest[1:]
    options: dict[str, str] = {}
    upstream: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == "--":
            upstream = rest[i + 1:]
            break
        if rest[i].startswith("--"):
            value = rest[i + 1] if i + 1 < len(rest) else "--"
            if value.startswith("--"):  # a flag such as --no-redact
                options[rest[i]] = ""
                i += 1
                continue
            options[rest[i]] = value
            i += 2
            continue
        i += 1
    return Proxied(options, upstream, options.get("--upstream-url"))


@dataclass(frozen=True)
class Rewrite:
    """What to do with one entry: ``how`` is "stdio", "url", or "" with ``why`` it is left."""

    how: str
    why: str = ""
    url: str = ""


def classify(harness: Harness, entry: Any) -> Rewrite:
    """Whether and how an entry can go through the proxy."""
    if not isinstance(entry, dict):
        return Rewrite("", "is not an object")
    if read_proxied(entry, harness.command_key) is not None:
        return Rewrite("", "already runs through elision")
    command = entry.get(harness.command_key)
    if harness.command_array and command is not None:
        if argv_of(entry) is None or "args" in entry:
            return Rewrite("", "has a command that is not a list of strings")
        return Rewrite("stdio")
    if command is not None:
        args = entry.get("args", [])
        if not isinstance(command, str) or not command:
            return Rewrite("", "has a command that is not a string")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return Rewrite("", "has args that are not a list of strings")
        return Rewrite("stdio")
    for key, transport in harness.url_keys:
        url = entry.get(key)
        if not isinstance(url, str):
            continue
        if transport == "by-type" and harness.type_key:
            transport = str(entry.get(harness.type_key, "unknown"))
        if transport in ("http", "streamable-http", "streamableHttp", "streamable_http"):
            held = [k for k in harness.header_keys if entry.get(k)]
            if held:
                return Rewrite("", f"is remote and sends {', '.join(held)}, which elision "
                               "proxy cannot forward yet")
            return Rewrite("url", url=url)
        return Rewrite("", f"is remote over {transport} transport; elision proxy speaks "
                       "streamable HTTP to an upstream, so it is left as it is")
    return Rewrite("", neither(harness, entry))


def neither(harness: Harness, entry: dict[str, Any]) -> str:
    """Why an entry with no command and no url is left: its type says what it is (Goose's
    ``builtin`` extensions run inside Goose)."""
    kind = entry.get(harness.type_key) if harness.type_key else None
    said = f" (its type is {kind!r})" if isinstance(kind, str) else ""
    return f"has neither a command nor a url{said}"


def rewritten(entry: dict[str, Any], harness: Harness, rewrite: Rewrite,
              settings: Settings) -> dict[str, Any]:
    """The entry as it reads after the install (key order kept, new keys last)."""
    if rewrite.how == "stdio" and harness.command_array:
        out = dict(entry)
        out["command"] = [settings.executable[0], *settings.proxy_args(), "--",
                          *entry["command"]]
        return out
    if rewrite.how == "stdio":
        upstream = [entry[harness.command_key], *entry.get("args", [])]
        args = [*settings.proxy_args(), "--", *upstream]
        out = dict(entry)
        out[harness.command_key] = settings.executable[0]
        out["args"] = args
        return out
    out = {}
    dropped = {key for key, _ in harness.url_keys}
    for key, value in entry.items():
        if key in dropped:
            continue
        out[key] = "stdio" if key == harness.type_key else value
    out[harness.command_key] = settings.executable[0]
    out["args"] = [*settings.proxy_args(), "--upstream-url", rewrite.url]
    return out
