"""Lists of several servers as one paged list, and which server a resource uri belongs to.

Behind a ``--config`` of several servers, ``resources/list``, ``resources/templates/list``
and ``prompts/list`` walk the servers in config order, one upstream page per proxy page. The
proxy's ``nextCursor`` is opaque to the agent: it names the server to ask next and that
server's own cursor (``None``: its first page). A cursor the proxy did not make, or one that
names a server no longer serving, is refused as invalid params.

A ``resources/read`` goes to the one server that listed the uri (or whose template matches
it). A uri that two servers list is refused: the proxy cannot tell whose data the agent
means, and answering with either could be the wrong one.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError

#: Marks a cursor as the proxy's own.
PREFIX = "elision1."
#: At most this many empty upstream pages are skipped in one proxy page.
MAX_SKIPPED = 100

P = TypeVar("P")
T = TypeVar("T")


def encode_cursor(server: str, cursor: str | None) -> str:
    raw = json.dumps([server, cursor], separators=(",", ":")).encode()
    return PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, servers: Sequence[str]) -> tuple[int, str | None]:
    """The index in ``servers`` to ask and its own cursor; ``(0, None)`` with no cursor."""
    if cursor is None:
        return 0, None
    try:
        if not cursor.startswith(PREFIX):
            raise ValueError(cursor)
        body = cursor[len(PREFIX):]
        server, inner = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        if not isinstance(server, str) or not (inner is None or isinstance(inner, str)):
            raise ValueError(cursor)
    except (ValueError, TypeError) as exc:
        raise MCPError(
            types.INVALID_PARAMS,
            "this cursor was not made by the elision proxy (or was changed); list again "
            "without a cursor",
        ) from exc
    if server not in servers:
        raise MCPError(
            types.INVALID_PARAMS,
            f"this cursor pages server {server!r}, which is not serving this list now; list "
            "again without a cursor",
        )
    return list(servers).index(server), inner


async def paged(
    servers: Sequence[str],
    cursor: str | None,
    fetch: Callable[[str, str | None], Awaitable[P]],
    items: Callable[[str, P], list[T]],
    next_of: Callable[[P], str | None],
) -> tuple[list[T], str | None]:
    """One proxy page over ``servers``: the items of one upstream page and the next cursor.

    Empty last pages are skipped, so a page is empty only at the very end."""
    index, inner = decode_cursor(cursor, servers)
    for _ in range(MAX_SKIPPED):
        if index >= len(servers):
            return [], None
        server = servers[index]
        page = await fetch(server, inner)
        found = items(server, page)
        following = next_of(page)
        if following:
            return found, encode_cursor(server, following)
        index, inner = index + 1, None
        if found:
            return found, encode_cursor(servers[index], None) if index < len(servers) else None
    return [], encode_cursor(servers[index], inner) if index < len(servers) else None


def template_pattern(template: str) -> re.Pattern[str]:
    """A pattern for the uris an RFC 6570 template (its simple ``{var}`` form) stands for."""
    out = []
    for literal, expression in re.findall(r"([^{]*)(\{[^}]*\})?", template):
        out.append(re.escape(literal))
        if expression:
            # {+var} and {#var} may hold slashes; {var} is one segment.
            out.append(".*" if expression[1:2] in ("+", "#") else "[^/?#]*")
    return re.compile("".join(out) + r"\Z")


def ambiguous(uri: str, servers: Sequence[str]) -> MCPError:
    return MCPError(
        types.INVALID_PARAMS,
        f"resource {uri!r} is listed by several servers ({', '.join(sorted(servers))}), so "
        "the proxy cannot tell whose it is; give the servers distinct uris, or proxy one "
        "of them alone",
    )


def unknown(uri: str) -> MCPError:
    return MCPError(
        types.INVALID_PARAMS,
        f"no server behind this proxy lists the resource {uri!r} or a template it fits; list "
        "resources (and resource templates) to see what each serves",
    )
