"""``_meta`` keys that belong to one hop of a connection, never to what is passed on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The prefix of keys that describe a connection (its protocol era, its client or server, a
#: subscription id): the proxy speaks for its own connections, so these are never forwarded.
RESERVED_META = "io.modelcontextprotocol/"


def without_reserved(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` without the keys of the hop it came over."""
    return {k: v for k, v in meta.items() if not k.startswith(RESERVED_META)}
