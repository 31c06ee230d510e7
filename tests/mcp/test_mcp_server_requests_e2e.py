"""End to end: a server that asks mid-call (``elicitation/create``, ``sampling/createMessage``,
``roots/list``) behind the proxy, driven by the official mcp.Client, over real processes.

An agent of the handshake era is asked the same question on its own call; an agent of the
newest era gets it bridged into an ``InputRequiredResult`` and answers by calling again.
Either way the answer reaches the tool, the tool's result comes back shaped, decline and
cancel pass through, and a credential the server put in its question never reaches the
agent. Over HTTP, two clients whose calls are in flight together get an error rather than
each other's question, and a bridged call nobody resumes is cancelled and forgotten.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.client.session as client_session
import mcp_types as types
import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
ASKING = [sys.executable, str(HERE / "asking_server.py")]
ELISION = [sys.executable, "-c", "from elision.cli import main; main()"]
BUDGET = 4096
#: A signed URL the server puts into every question it asks.
SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
SECRET = (
    "https://examplebucket.s3.amazonaws.com/receipt.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIDEXAMPLE7Q2%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Date=20261130T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
    f"&X-Amz-Signature={SIGNATURE}"
)
ROOT = "file:///work/project"


def write_config(tmp_path: Path, **servers: dict[str, Any]) -> Path:
    entries = {
        name: {"command": ASKING[0], "args": ASKING[1:], "env": {"ASKING_SECRET": SECRET},
               "sampling": True, **extra}
        for name, extra in servers.items()
    }
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"budget": BUDGET, "timeout": 20, "mcpServers": entries}))
    return config


def stdio_proxy(config: Path) -> StdioServerParameters:
    command = [*ELISION, "proxy", "--config", str(config), "--store", ":memory:"]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


class Agent:
    """Callbacks that answer as told and remember every question they were shown."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.asked: list[str] = []
        self.prompts: list[str] = []
        self.roots_asked = 0

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
        return types.ElicitResult(action="accept", content={"ok": True})

    async def sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.prompts.extend(json.dumps(m.model_dump(mode="json")) for m in params.messages)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text="a short summary"), model="test-model"
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=ROOT)])  # type: ignore[arg-type]

    def shown(self) -> str:
        return "\n".join([*self.asked, *self.prompts])


def doc_of(result: types.CallToolResult) -> Any:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return json.loads(block.text)


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


def assert_shaped_transfer(result: types.CallToolResult, actions: list[str]) -> None:
    assert not result.is_error, result.content
    assert len(text_of(result).encode()) <= BUDGET
    doc = doc_of(result)
    assert doc["__elision__"]["complete"] is False
    assert doc["done"] is True and doc["actions"] == actions and doc["total_rows"] == 2000
    elided = doc["__elision__"]["elided"][0]
    assert elided["path"] == "$.rows" and 0 < elided["shown"] < 2000


def assert_redacted(shown: str) -> None:
    assert SIGNATURE not in shown and "X-Amz-Credential" not in shown
    assert "[credential withheld" in shown


def test_a_handshake_era_agent_is_asked_on_its_own_call(tmp_path: Path) -> None:
    agent = Agent()

    async def main() -> None:
        async with Client(
            stdio_proxy(write_config(tmp_path, bank={})), mode="legacy",
            elicitation_callback=agent.elicit, sampling_callback=agent.sample,
            list_roots_callback=agent.roots,
        ) as client:
            result = await client.call_tool("bank__confirm_transfer", {"amount": 7})
            assert_shaped_transfer(result, ["accept"])
            assert len(agent.asked) == 1 and agent.asked[0].startswith("Transfer 7 EUR? (check 1)")

            # Two questions in one call, each answered in turn.
            result = await client.call_tool("bank__confirm_transfer", {"amount": 8, "checks": 2})
            assert_shaped_transfer(result, ["accept", "accept"])

            for action in ("decline", "cancel"):
                agent.action = action
                result = await client.call_tool("bank__confirm_transfer", {"amount": 1})
                assert doc_of(result) == {"done": False, "actions": [action]}

            result = await client.call_tool("bank__summarize", {"text": "the ledger"})
            assert doc_of(result) == {"summary": "a short summary", "model": "test-model"}
            assert "Summarize: the ledger" in agent.prompts[0]

            result = await client.call_tool("bank__where", {})
            assert doc_of(result) == {"roots": [ROOT]}
            assert agent.roots_asked == 1

            # The agent's roots changed: the server, told the proxy's roots may change, hears.
            await client.session.send_notification(types.RootsListChangedNotification())
            with anyio.fail_after(10):
                while doc_of(await client.call_tool("bank__stats", {}))["roots_changed"] != 1:
                    await anyio.sleep(0.05)

    anyio.run(main)
    assert len(agent.asked) == 5
    assert_redacted(agent.shown())


def test_a_newest_era_agent_answers_through_the_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = Agent()
    # quick's timeout bounds its start too: long enough for a Python server on a busy machine.
    config = write_config(tmp_path, bank={}, quick={"timeout": 8}, direct={"mode": "auto"})
    # The client gives up on its server/discover after 10 s and falls back to the handshake
    # era, where the proxy asks by elicitation instead of bridging: a proxy of three upstreams
    # starting on a loaded 2-core machine crossed it once (a complete result where an
    # InputRequiredResult was due). The fallback has tests of its own (era_fallback): here
    # the era is the point, so the client waits.
    monkeypatch.setattr(client_session, "DISCOVER_TIMEOUT_SECONDS", 120.0)

    async def main() -> None:
        async with Client(
            stdio_proxy(config), elicitation_callback=agent.elicit,
            sampling_callback=agent.sample, list_roots_callback=agent.roots,
        ) as client:
            assert client.protocol_version in MODERN_PROTOCOL_VERSIONS, client.protocol_version
            # The SDK's own driver answers each round: two questions, two rounds, one call;
            # the server's progress reaches the agent in every round, not only the first.
            seen: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                seen.append(done)

            result = await client.call_tool(
                "bank__confirm_transfer", {"amount": 9, "checks": 2}, progress_callback=on_progress
            )
            assert_shaped_transfer(result, ["accept", "accept"])
            with anyio.fail_after(5):
                while seen != [0, 1, 2]:
                    await anyio.sleep(0.02)
            assert [a[:27] for a in agent.asked] == [
                "Transfer 9 EUR? (check 1) r", "Transfer 9 EUR? (check 2) r"
            ]
            result = await client.call_tool("bank__summarize", {"text": "the ledger"})
            assert doc_of(result)["summary"] == "a short summary"
            assert doc_of(await client.call_tool("bank__where", {})) == {"roots": [ROOT]}
            agent.action = "cancel"
            result = await client.call_tool("bank__confirm_transfer", {"amount": 1})
            assert doc_of(result) == {"done": False, "actions": ["cancel"]}
            agent.action = "accept"

            # One round by hand: the wire shape the official client answers.
            session = client.session
            interim = await session.call_tool(
                "bank__confirm_transfer", {"amount": 3}, allow_input_required=True
            )
            # The server uses roots (bank__where asked for them): a newest-era agent cannot
            # say its roots changed, so the proxy asks for them first, in a round of its own.
            assert isinstance(interim, types.InputRequiredResult) and interim.input_requests
            (roots_key, roots_request), = interim.input_requests.items()
            assert isinstance(roots_request, types.ListRootsRequest)
            interim = await session.call_tool(
                "bank__confirm_transfer", {"amount": 3}, request_state=interim.request_state,
                input_responses={roots_key: await agent.roots(None)}, allow_input_required=True,
            )
            assert isinstance(interim, types.InputRequiredResult)
            state = interim.request_state
            assert state is not None and state.startswith("elision-ask:")
            assert interim.input_requests is not None and len(interim.input_requests) == 1
            key, request = next(iter(interim.input_requests.items()))
            assert isinstance(request, types.ElicitRequest)
            assert_redacted(request.params.message)

            no: dict[str, types.InputResponse] = {key: types.ElicitResult(action="decline")}
            wrong = await session.call_tool(
                "bank__where", {}, request_state=state, input_responses=no,
                allow_input_required=True,
            )
            assert isinstance(wrong, types.CallToolResult) and wrong.is_error
            assert "belongs to a call of 'bank__confirm_transfer'" in text_of(wrong)

            declined = await session.call_tool(
                "bank__confirm_transfer", {"amount": 3}, request_state=state,
                input_responses=no, allow_input_required=True,
            )
            assert isinstance(declined, types.CallToolResult)
            assert doc_of(declined) == {"done": False, "actions": ["decline"]}

            replayed = await session.call_tool(
                "bank__confirm_transfer", {"amount": 3}, request_state=state,
                input_responses=no, allow_input_required=True,
            )
            assert isinstance(replayed, types.CallToolResult) and replayed.is_error
            assert "names no call this proxy is holding" in text_of(replayed)

            # A newest-era server's own InputRequiredResult: its question is redacted too.
            own = await session.call_tool("direct__transfer", {"amount": 2},
                                          allow_input_required=True)
            assert isinstance(own, types.InputRequiredResult) and own.input_requests
            own_request = own.input_requests["confirm"]
            assert isinstance(own_request, types.ElicitRequest)
            assert_redacted(own_request.params.message)

            # Held and never resumed: cancelled upstream after the server's timeout, forgotten.
            held = await session.call_tool("quick__confirm_transfer", {},
                                           allow_input_required=True)
            assert isinstance(held, types.InputRequiredResult)
            counts: dict[str, int] = {}
            with anyio.fail_after(20):
                while counts.get("cancelled") != 1:
                    await anyio.sleep(0.2)
                    counts = doc_of(await client.call_tool("quick__stats", {}))
            assert held.input_requests is not None
            late = await session.call_tool(
                "quick__confirm_transfer", {}, request_state=held.request_state,
                input_responses={k: types.ElicitResult(action="accept", content={"ok": True})
                                 for k in held.input_requests},
                allow_input_required=True,
            )
            assert isinstance(late, types.CallToolResult) and late.is_error
            assert "names no call this proxy is holding" in text_of(late)

    anyio.run(main)
    assert_redacted(agent.shown())


@contextmanager
def http_proxy(config: Path) -> Iterator[tuple[str, list[str]]]:
    proc = subprocess.Popen(
        [*ELISION, "proxy", "--config", str(config), "--store", ":memory:",
         "--listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "listening on " in line:
                ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        assert ready.wait(60), "".join(lines)
        url = next(line for line in lines if "listening on " in line).split()[-1]
        yield url, lines
    finally:
        proc.terminate()
        proc.wait(10)
        reader.join(10)
        proc.stderr.close()


def test_over_http_each_client_gets_its_own_question_and_concurrent_ones_are_refused(
    tmp_path: Path,
) -> None:
    first, second, newest = Agent(), Agent(), Agent()

    with http_proxy(write_config(tmp_path, bank={})) as (url, stderr):
        async def main() -> None:
            async with Client(
                url, mode="legacy", elicitation_callback=first.elicit,
                sampling_callback=first.sample,
            ) as a, Client(url, mode="legacy", elicitation_callback=second.elicit) as b:
                # One call at a time: the question goes to the client that made it.
                assert_shaped_transfer(
                    await a.call_tool("bank__confirm_transfer", {"amount": 4}), ["accept"]
                )
                assert (len(first.asked), len(second.asked)) == (1, 0)
                assert_shaped_transfer(
                    await b.call_tool("bank__confirm_transfer", {"amount": 5}), ["accept"]
                )
                assert (len(first.asked), len(second.asked)) == (1, 1)

                # A kind the client did not declare is refused, saying which.
                refused = doc_of(await b.call_tool("bank__summarize", {"text": "x"}))
                assert "did not declare sampling" in refused["error"]

                # Both in flight when the server asks: neither client is asked.
                gated: dict[str, Any] = {}

                async def gate(name: str, client: Client) -> None:
                    gated[name] = doc_of(await client.call_tool("bank__gate", {"wait_for": 2}))

                with anyio.fail_after(30):
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(gate, "a", a)
                        tg.start_soon(gate, "b", b)
                for outcome in gated.values():
                    assert outcome["asked"] is False
                    assert "ambiguous" in outcome["error"], outcome
                assert (len(first.asked), len(second.asked)) == (1, 1)

            # The newest era over HTTP: bridged, with no session to hold anything.
            async with Client(url, elicitation_callback=newest.elicit) as c:
                assert_shaped_transfer(
                    await c.call_tool("bank__confirm_transfer", {"amount": 6}), ["accept"]
                )
                assert len(newest.asked) == 1

        anyio.run(main)
        log = "".join(stderr)
    assert "refused rather than guess" in log
    assert SIGNATURE not in log
    for agent in (first, second, newest):
        assert_redacted(agent.shown())
