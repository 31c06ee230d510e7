"""End to end: whose refs a stateless HTTP client may fetch, over a real ``elision proxy
--listen`` with the official mcp.Client (protocol 2026-07-28 has no session).

A client that sends an Authorization header is scoped by it; clients that send none share
the proxy's scope, where a ref is a 144-bit capability; with $ELISION_REQUIRE_AUTH_SCOPE=1
their fetches are refused and what they were shown is kept nowhere another client reaches.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp import Client
from support.processes import started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
UPSTREAM = [sys.executable, str(HERE / "upstream_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]


@contextmanager
def listening_proxy(**env: str) -> Iterator[str]:
    """An ``elision proxy --listen`` on a free port in front of the test upstream; its URL."""
    with started(
        [*ELISION, "proxy", "--budget", "2048", "--store", ":memory:", "--listen",
         "127.0.0.1:0", "--", *UPSTREAM],
        env=env,
    ) as proxy:
        yield proxy.url


@asynccontextmanager
async def stateless(url: str, credential: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {credential}"} if credential else {}
    async with create_mcp_http_client(headers=headers) as http, Client(
        streamable_http_client(url, http_client=http)
    ) as client:
        yield client


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def shaped_ref(client: Client) -> str:
    result = await client.call_tool("rows", {"n": 400})
    assert not result.is_error, text(result)
    ref: str = json.loads(text(result))["__elision__"]["ref"]
    return ref


async def fetch(client: Client, ref: str) -> types.CallToolResult:
    return await client.call_tool("elision_fetch", {"ref": ref, "path": "$.rows[0]"})


@pytest.mark.parametrize("scope_key", ["", "a-secret-shared-by-replicas"])
def test_stateless_clients_by_default_a_credential_is_a_scope_and_a_ref_a_capability(
    scope_key: str,
) -> None:
    # With $ELISION_SCOPE_KEY the header's hash is keyed; clients see no difference.
    with listening_proxy(ELISION_REQUIRE_AUTH_SCOPE="0", ELISION_SCOPE_KEY=scope_key) as url:

        async def main() -> None:
            async with stateless(url, "alice-token") as alice, stateless(
                url, "bob-token"
            ) as bob, stateless(url) as anon, stateless(url) as other_anon:
                mine = await shaped_ref(alice)
                assert not (await fetch(alice, mine)).is_error
                # Another credential is another client, even knowing the ref.
                stolen = await fetch(bob, mine)
                assert stolen.is_error and mine in text(stolen)
                assert (await fetch(anon, mine)).is_error
                # No credential: the shared scope, where holding the ref is the permission.
                shared = await shaped_ref(anon)
                assert not (await fetch(other_anon, shared)).is_error
                # A client with a credential never reads the shared scope.
                assert (await fetch(alice, shared)).is_error
                listed = {t.name: t for t in (await anon.list_tools()).tools}
                description = listed["elision_fetch"].description or ""
                assert "treat it as a secret" in description

        anyio.run(main)


def test_require_auth_scope_refuses_fetches_from_clients_that_name_no_one() -> None:
    with listening_proxy(ELISION_REQUIRE_AUTH_SCOPE="1") as url:

        async def main() -> None:
            async with stateless(url) as anon, stateless(url) as other_anon, stateless(
                url, "alice-token"
            ) as alice, Client(url, mode="legacy") as with_session:
                # Results are still shaped and honest; only fetching needs a name.
                ref = await shaped_ref(anon)
                for tool, arguments in (
                    ("elision_fetch", {"ref": ref, "path": "$.rows[0]"}),
                    ("elision_fetch_reference", {"stub": "ref_abcdefghjk"}),
                ):
                    refused = await anon.call_tool(tool, arguments)
                    assert refused.is_error
                    assert f"{tool}: this proxy lets a client fetch only" in text(refused)
                    assert "send an Authorization header" in text(refused)
                # What it was shown was kept nowhere another client reaches.
                assert (await fetch(other_anon, ref)).is_error
                assert (await fetch(alice, ref)).is_error
                # A credential or a session names the client: fetching works as ever.
                assert not (await fetch(alice, await shaped_ref(alice))).is_error
                own = await shaped_ref(with_session)
                assert not (await fetch(with_session, own)).is_error

        anyio.run(main)


@pytest.mark.parametrize(("value", "ok"), [
    ("1", True), ("true", True), ("0", True), ("", True),
    ("maybe", False),  # neither on nor off: refused at startup, not read as off
])
def test_the_env_switch_is_read_strictly(value: str, ok: bool) -> None:
    from elision.errors import InputError
    from elision.mcp.agent.scopes import require_auth_scope_from_env

    os.environ["ELISION_REQUIRE_AUTH_SCOPE"] = value
    try:
        if ok:
            assert require_auth_scope_from_env() is (value in ("1", "true"))
        else:
            with pytest.raises(InputError, match="got 'maybe'"):
                require_auth_scope_from_env()
    finally:
        del os.environ["ELISION_REQUIRE_AUTH_SCOPE"]
