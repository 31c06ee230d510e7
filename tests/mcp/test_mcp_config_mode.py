"""servers.json ``mode``: how the proxy's session with a server picks its protocol era."""

from __future__ import annotations

from typing import Any

import pytest

from elision.errors import InputError
from elision.mcp.upstream.config import ServerSpec, parse_config


def entry(**extra: Any) -> dict[str, Any]:
    return {"mcpServers": {"bank": {"command": "python", **extra}}}


@pytest.mark.parametrize(("extra", "mode"), [
    ({}, "legacy"),  # absent: the handshake every server speaks
    ({"mode": "legacy"}, "legacy"),
    ({"mode": "auto"}, "auto"),  # newest era when the server speaks it
])
def test_mode_is_read(extra: dict[str, Any], mode: str) -> None:
    specs, _ = parse_config(entry(**extra))
    assert specs[0].mode == mode


@pytest.mark.parametrize("bad", [
    "modern",  # not a mode name
    "2026-07-28",  # a version pin is not offered
    "",
    None,
    ["auto"],
])
def test_a_bad_mode_is_named_with_its_value(bad: Any) -> None:
    with pytest.raises(InputError) as info:
        parse_config(entry(mode=bad), source="servers.json")
    message = str(info.value)
    assert "servers.json: mcpServers.bank.mode must be one of legacy, auto" in message
    assert repr(bad) in message


def test_a_spec_refuses_an_unknown_mode() -> None:
    with pytest.raises(InputError, match="mode must be one of legacy, auto, got 'fast'"):
        ServerSpec("bank", command="python", mode="fast")
