"""End to end: one client's request that cannot be written does not end the shared session.

Found in a QA pass reading ``Upstream.call``: a request whose params cannot be serialized
(a lone surrogate: Python holds it, no UTF-8 line can carry it) failed in the stdio writer
before a byte was sent, and ``call`` took that for a dead server, so it stopped the session
every other client shares: their calls in flight were lost and the server was restarted.
The proxy's door (:mod:`elision.mcp.agent.ingress`) refuses such params from agents; this is the
second line, for whatever the proxy itself builds. Two clients share a real stdio upstream.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from elision.errors import UpstreamError
from elision.mcp.upstream.config import ServerSpec
from elision.mcp.upstream.upstream import Upstream

pytestmark = pytest.mark.e2e

UPSTREAM = Path(__file__).parent / "upstream_server.py"


def test_one_clients_unsendable_request_leaves_the_others_call_and_the_session_alive(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "marker"
    answers: list[str] = []

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            upstream = Upstream(
                ServerSpec("ledger", command=sys.executable, args=(str(UPSTREAM),), timeout=20),
                tg,
            )
            try:
                async def other_client() -> None:
                    result = await upstream.call("tools/call wait_for_cancel", lambda s: (
                        s.call_tool("wait_for_cancel", {"marker": str(marker), "seconds": 0.5})
                    ))
                    answers.append(result.content[0].text)  # type: ignore[union-attr]

                async with anyio.create_task_group() as clients:
                    clients.start_soon(other_client)
                    with anyio.fail_after(20):
                        while not marker.exists():  # the other call is in flight
                            await anyio.sleep(0.02)
                    with pytest.raises(UpstreamError, match=r"could not be written.*nothing"):
                        await upstream.call("tools/call echo", lambda s: (
                            s.call_tool("rows", {"n": 1, "note": "\ud800"})
                        ))
                assert answers == ["waited"]  # the other client's call came back
                result = await upstream.call("tools/call rows", lambda s: (
                    s.call_tool("rows", {"n": 2})
                ))
                assert not result.is_error
                assert upstream.starts == 1  # the same session served every call
            finally:
                await upstream.aclose()
                tg.cancel_scope.cancel()

    anyio.run(main)
