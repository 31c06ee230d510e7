"""Offer: what an agent's first request declares, and the elicitation modes a session sends."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server.lowlevel import Server

from elision.mcp.upstream.config import ServerSpec
from elision.mcp.upstream.offer import Offer, offering

META = "io.modelcontextprotocol/clientCapabilities"


@pytest.mark.parametrize(
    ("method", "params", "roots", "modes", "sampling"),
    [
        # a handshake that declares roots and form-only elicitation
        ("initialize", {"capabilities": {"roots": {}, "elicitation": {"form": {}}}},
         True, {"form"}, False),
        # a newest-era request, capabilities in _meta
        ("tools/list", {"_meta": {META: {"sampling": {"tools": {}}}}}, False, None, True),
        # a newest-era request that declares nothing
        ("tools/list", {}, False, None, False),
        # capabilities of the wrong shape: nothing offered rather than a guess
        ("initialize", {"capabilities": {"roots": "yes"}}, False, None, False),
        # no request at all (the pipe closed first)
        ("", None, False, None, False),
    ],
)
def test_an_agents_first_request_says_what_is_offered(
    method: str, params: Any, roots: bool, modes: set[str] | None, sampling: bool
) -> None:
    offer = Offer.of_request(method, params)
    assert offer.roots is roots
    declared = None if offer.elicitation is None else set(
        offer.elicitation.model_dump(exclude_none=True)
    )
    assert declared == modes
    assert (offer.sampling is not None) is sampling


def test_the_config_entry_turns_off_what_it_says() -> None:
    spec = ServerSpec(name="s", command="x", roots=False, elicitation=False, sampling=True)
    cut = Offer.everything().allowed(spec)
    assert (cut.roots, cut.elicitation, cut.sampling is not None) == (False, None, True)
    assert Offer.everything().allowed(ServerSpec(name="s", command="x")).sampling is None


async def _elicit(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


def test_a_session_declares_only_the_elicitation_modes_offered() -> None:
    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        caps = ctx.session.client_capabilities
        return types.CallToolResult(content=[types.TextContent(
            text=json.dumps(caps.model_dump(mode="json", exclude_none=True))
        )])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name="any", input_schema={"type": "object", "properties": {}})])

    server: Server[Any] = Server("caps", on_call_tool=call_tool, on_list_tools=list_tools)
    form_only = Offer(roots=False, elicitation=types.ElicitationCapability(
        form=types.FormElicitationCapability()), sampling=None)

    async def main() -> dict[str, Any]:
        async with offering(form_only)(server, mode="legacy",
                                       elicitation_callback=_elicit) as client:
            result = await client.call_tool("any", {})
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            declared: dict[str, Any] = json.loads(block.text)
            return declared

    assert anyio.run(main)["elicitation"] == {"form": {}}  # the SDK alone adds "url"
