"""Servers of a ``--config`` that did not start: the rest are served, these are retried.

A server that fails to start (a missing binary, a process that exits, one that never
answers within its ``timeout``) does not stop the proxy. Until it answers, ``tools/list``
shows one tool in its place, ``<server>__unavailable``, whose description says why (so the
model knows the server exists and is down), and a call to it or to any ``<server>__<tool>``
is an ``isError`` result naming the server and its failure. The proxy retries it in the
background, 1 s after the failure and then twice as long each time up to a minute; once it
answers, its tools replace the placeholder and agents get ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from elision.errors import UpstreamError, quoted
from elision.mcp.upstream.config import SEPARATOR
from elision.mcp.upstream.upstream import Upstream

logger = logging.getLogger("elision.proxy")

#: The placeholder tool's name after ``<server>__``.
UNAVAILABLE = "unavailable"
#: Seconds before the first retry, and the most between two.
RETRY_FIRST = 1.0
RETRY_MAX = 60.0

#: Starts ``upstream`` and puts its tools in place; raises UpstreamError when it cannot.
Bring = Callable[[Upstream], Awaitable[None]]
#: Tells agents the tools changed.
Announce = Callable[[], Awaitable[None]]


class DownServers:
    """The servers that are not running yet, and why each is not."""

    def __init__(self) -> None:
        self._why: dict[str, str] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._why

    def __bool__(self) -> bool:
        return bool(self._why)

    def mark(self, upstream: Upstream, failure: UpstreamError) -> None:
        self._why[upstream.name] = str(failure)

    def placeholders(self) -> list[types.Tool]:
        """One tool per server that is down, in tools/list where its tools would be."""
        return [
            types.Tool(
                name=f"{name}{SEPARATOR}{UNAVAILABLE}",
                description=(f"Server {name!r} is not running, so its tools are not listed: "
                             f"{_sentence(why)} The proxy retries it and lists its tools once it "
                             "answers."),
                input_schema={"type": "object", "properties": {}},
            )
            for name, why in self._why.items()
        ]

    def refusal(self, tool: str) -> str | None:
        """The error for a call to ``tool`` when it names a server that is down."""
        server, sep, _ = tool.partition(SEPARATOR)
        why = self._why.get(server) if sep else None
        if why is None:
            return None
        return (f"server {server!r} is not running, so {quoted(tool)} cannot be called: "
                f"{_sentence(why)} The proxy retries it in the background; list the tools "
                "again once it is back.")

    async def retry(self, upstream: Upstream, bring: Bring, announce: Announce) -> None:
        """Try ``upstream`` again with backoff until ``bring`` succeeds, then ``announce``."""
        delay = RETRY_FIRST
        while upstream.name in self._why and not upstream.closed:
            await anyio.sleep(delay)
            try:
                await bring(upstream)
            except (UpstreamError, MCPError) as exc:
                self._why[upstream.name] = str(exc)
                delay = min(delay * 2, RETRY_MAX)
                continue
            del self._why[upstream.name]
            logger.warning("server %r started on a retry", upstream.name)
            await announce()


def _sentence(text: str) -> str:
    return text.rstrip(". ") + "."
