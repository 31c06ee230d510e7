"""End to end: while one client's large message is being gated, another client's calls are answered.

Found by reading the egress gate's place on the wire: it ran on the proxy's event loop, so while
one client's 8 MB message was governed (parsed, every string redacted, cut to its bound: most
of a second), every other client of an HTTP proxy waited, though the brief says one client
never breaks another's calls. The large message is a completion of credential-dense values
(``tests/mcp/egress_server.py``): no shaper cuts it first, the gate governs all of it.

Measured by order, not by time: the upstream holds the big answer until another client's call
comes, then writes both back to back, the big one first; that client then calls again and
again. How many of its calls are answered before the big one is tells whether they waited
for it: each of them is a round trip through the proxy, so with the gate on the loop at most
the one written beside the big answer (and the next, while this process reads the big one)
can be; off the loop, many.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from mcp import Client
from support.processes import Started, started

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from egress_server import HOLDING, RECORD  # noqa: E402

ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
UPSTREAM = [sys.executable, str(HERE / "egress_server.py")]
#: How many of the other client's calls must be answered while the big message is gated. On
#: the loop it was 0-2 in five runs (see the module docstring); off it, 221-311 in three,
#: when they were not stopped at this many.
ANSWERED_MEANWHILE = 10


@pytest.fixture(scope="module")
def proxy() -> Iterator[Started]:
    with started([*ELISION, "proxy", "--budget", "4096", "--no-store", "--no-audit",
                  "--timeout", "60", "--listen", "127.0.0.1:0", "--", *UPSTREAM]) as running:
        yield running


def small_answer(n: int) -> dict[str, object]:
    return {"answer": {"result": {"content": [{"type": "text", "text": f"small {n}"}]}}}


def test_a_big_message_being_gated_leaves_another_clients_calls_answered(
    proxy: Started,
) -> None:
    async def main() -> None:
        async with Client(proxy.url) as big, Client(proxy.url) as other:
            await other.call_tool("emit", small_answer(0))  # connected and warm
            done = anyio.Event()
            answered: list[str] = []
            values: list[str] = []

            async def big_call() -> None:
                result = await big.complete(
                    types.PromptReference(type="ref/prompt", name="brief"),
                    {"name": "big", "value": "hold"},
                )
                values.extend(result.completion.values)
                done.set()

            async def small_calls() -> None:
                n = 0
                while not done.is_set() and len(answered) < ANSWERED_MEANWHILE:
                    n += 1
                    result = await other.call_tool("emit", small_answer(n))
                    block = result.content[0]
                    assert isinstance(block, types.TextContent)
                    assert block.text == f"small {n}"  # its own answer, whole
                    if not done.is_set():
                        answered.append(block.text)

            with anyio.fail_after(120):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(big_call)
                    while HOLDING not in proxy.stderr():  # the big call reached the upstream
                        await anyio.sleep(0.01)
                    tg.start_soon(small_calls)

            assert len(answered) >= ANSWERED_MEANWHILE, (
                f"only {len(answered)} of the other client's calls were answered while the "
                "big message was gated: they waited for it"
            )
            # The big message was governed all the same: every token withheld, cut to bound.
            assert values, "the big completion came back empty"
            shown = "".join(values)
            assert RECORD["token"][4:16] not in shown
            assert RECORD["aws"][4:16] not in shown
            assert "[credential withheld: github-token]" in shown

    anyio.run(main)
