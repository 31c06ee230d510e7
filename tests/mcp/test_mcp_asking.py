"""The parts of carrying a server's questions that need no processes: linking a question to
the call that caused it, the capability and scope checks, redaction of what the agent is
shown, the call clock that stops while a person answers, and the config switch for sampling.
The whole path over real processes is in ``test_mcp_server_requests_e2e.py``."""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from elision.errors import InputError
from elision.mcp.asking import Asking
from elision.mcp.upstream.config import parse_config
from elision.mcp.upstream.upstream import Deadline
from elision.pipeline import Pipeline, Redacted
from elision.redact import RedactStage

HERE = Path(__file__).parent
HANDSHAKE, NEWEST = "2025-11-25", "2026-07-28"


def _secrets() -> dict[str, tuple[str, str]]:
    """Each seeded credential (from the redaction e2e upstream) and the form it is written in:
    a bearer token after its header, a key body inside its PEM block."""
    spec = importlib.util.spec_from_file_location(
        "pipeline_upstream", HERE / "test_mcp_pipeline_upstream.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = {"bearer": f"Authorization: Bearer {module.SECRETS['bearer']}",
               "pem-body": module.PEM}
    return {name: (secret, written.get(name, secret)) for name, secret in module.SECRETS.items()}


SECRETS = _secrets()
EVERYTHING = types.ClientCapabilities(
    elicitation=types.ElicitationCapability(form=types.FormElicitationCapability()),
    sampling=types.SamplingCapability(),
    roots=types.RootsCapability(),
)


class Session:
    """The downstream side of one agent call: records what it was asked and answers."""

    def __init__(self, connection: object, caps: types.ClientCapabilities | None) -> None:
        self._connection = connection
        self.client_capabilities = caps
        self.can_send_request = True
        self.sent: list[tuple[Any, Any, Any]] = []

    async def send_request(self, request: Any, result_type: Any, metadata: Any = None) -> Any:
        self.sent.append((request, result_type, metadata))
        return types.ElicitResult(action="accept", content={"ok": True})


def ctx(connection: object, *, caps: types.ClientCapabilities | None = EVERYTHING,
        version: str = HANDSHAKE, request_id: int = 1) -> Any:
    return SimpleNamespace(session=Session(connection, caps), protocol_version=version,
                           request_id=request_id)


def upstream(name: str = "bank") -> Any:
    return SimpleNamespace(name=name, spec=SimpleNamespace(timeout=5.0), modern=False)


def elicit(message: str = "Transfer 5 EUR?") -> types.ElicitRequest:
    return types.ElicitRequest(params=types.ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": {}},
    ))


def asking(connections: list[Any] | None = None, redactor: Any = None) -> Asking:
    return Asking(Pipeline(redactor=redactor or RedactStage()), lambda: connections or [])


async def in_flight(
    ask: Asking, calls: list[tuple[Any, Any]], question: types.InputRequest, up: Any
) -> Any:
    """Put ``calls`` (ctx, scope) in flight on ``up``, ask ``question``, end the calls."""
    release = anyio.Event()
    started = 0

    async def send(deadline: Deadline) -> Any:
        nonlocal started
        started += 1
        await release.wait()
        return types.CallToolResult(content=[])

    async def run_one(call_ctx: Any, scope: str) -> None:
        await ask.run(call_ctx, up, tool="bank__t", scope=scope, send=send)

    answer: Any = None
    async with anyio.create_task_group() as tg:
        ask.start(tg)
        for call_ctx, scope in calls:
            tg.start_soon(run_one, call_ctx, scope)
        while started < len(calls):
            await anyio.sleep(0.001)
        answer = await ask.answer(up, question)
        release.set()
        ask.close()  # the bridge's idle workers end, and so can the task group
    return answer


def test_a_question_goes_to_the_call_s_own_back_channel_with_its_request_id() -> None:
    ask, conn = asking(), object()
    first, second = ctx(conn, request_id=7), ctx(conn, request_id=8)
    answer = anyio.run(in_flight, ask, [(first, "s"), (second, "s")], elicit(), upstream())
    assert answer == types.ElicitResult(action="accept", content={"ok": True})
    # Both calls are the same client's: it is asked once, on one of its calls.
    sent = first.session.sent + second.session.sent
    assert len(sent) == 1
    request, result_type, metadata = sent[0]
    assert request == elicit() and result_type is types.ElicitResult
    assert metadata.related_request_id in (7, 8)


def test_calls_of_two_clients_make_a_question_ambiguous(caplog: pytest.LogCaptureFixture) -> None:
    ask = asking()
    a, b = ctx(object()), ctx(object())
    with caplog.at_level(logging.WARNING, logger="elision.proxy"):
        answer = anyio.run(in_flight, ask, [(a, "s1"), (b, "s2")], elicit(), upstream())
    assert isinstance(answer, types.ErrorData) and "ambiguous" in answer.message
    assert not a.session.sent and not b.session.sent
    assert "refused rather than guess" in caplog.text


@pytest.mark.parametrize(
    ("caps", "question", "missing"),
    [
        # no capabilities at all
        (None, elicit(), "elicitation"),
        # sampling only: cannot elicit
        (types.ClientCapabilities(sampling=types.SamplingCapability()), elicit(), "elicitation"),
        # form elicitation only: a URL question needs URL mode
        (EVERYTHING, types.ElicitRequest(params=types.ElicitRequestURLParams(
            message="Sign in", url="https://example.com/login", elicitation_id="e1")),
         "URL-mode elicitation"),
        # elicitation only: cannot sample
        (types.ClientCapabilities(elicitation=types.ElicitationCapability()),
         types.CreateMessageRequest(params=types.CreateMessageRequestParams(
             messages=[], max_tokens=5)), "sampling"),
    ],
)
def test_only_a_declared_kind_is_forwarded(
    caps: types.ClientCapabilities | None, question: types.InputRequest, missing: str
) -> None:
    agent = ctx(object(), caps=caps)
    answer = anyio.run(in_flight, asking(), [(agent, "s")], question, upstream())
    assert isinstance(answer, types.ErrorData)
    assert answer.message.endswith(f"did not declare {missing}")
    assert not agent.session.sent


def test_roots_are_never_put_to_the_one_calling_agent() -> None:
    # The one upstream session serves every agent, so roots/list is answered from all their
    # roots (elision.mcp.upstream.roots), not forwarded to whichever agent's call is in flight; with
    # no agent that offers roots, the server gets an error.
    agent = ctx(object())
    answer = anyio.run(in_flight, asking(), [(agent, "s")], types.ListRootsRequest(), upstream())
    assert isinstance(answer, types.ErrorData)
    assert answer.message == "elision proxy: no connected agent offers roots"
    assert not agent.session.sent


def test_a_question_with_no_call_in_flight_is_refused() -> None:
    answer = anyio.run(asking().answer, upstream(), elicit())
    assert isinstance(answer, types.ErrorData) and "no agent call" in answer.message


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_every_credential_in_a_question_is_withheld_from_the_agent(name: str) -> None:
    secret, written = SECRETS[name]
    ask = asking()
    questions: list[types.InputRequest] = [
        elicit(f"Confirm the export to {written} please"),
        types.ElicitRequest(params=types.ElicitRequestURLParams(
            message=f"Open {written}", url=written, elicitation_id="e1")),
        types.CreateMessageRequest(params=types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(
                text=f"Summarize the file at {written}"))],
            system_prompt=f"key: {written}", max_tokens=10)),
    ]
    for question in questions:
        shown = ask.shown(question, scope="s", server="bank")
        dumped = json.dumps(shown.model_dump(mode="json"))
        assert secret not in dumped and "withheld" in dumped, name


def test_a_question_redaction_would_break_is_refused_not_sent() -> None:
    class Breaking:
        def redact(self, capture: Any) -> Redacted:
            return Redacted("[credential withheld: test]", ({"path": "$", "reason": "test"},))

    shown = asking(redactor=Breaking()).shown(elicit(), scope="s", server="bank")
    assert isinstance(shown, types.ErrorData) and "cannot be withheld" in shown.message


def test_without_redaction_a_question_passes_as_sent() -> None:
    ask = Asking(Pipeline(redactor=None), lambda: [])
    question = elicit(f"at {SECRETS['aws-sigv4'][0]}")
    assert ask.shown(question, scope="s", server="bank") is question


def test_a_held_call_is_answered_only_by_its_client_on_its_tool() -> None:
    ask = asking()
    up = upstream()

    async def main() -> None:
        async def send(deadline: Deadline) -> Any:
            answer = await ask.answer(up, elicit())
            return types.CallToolResult(content=[types.TextContent(text=answer.model_dump_json())])

        async with anyio.create_task_group() as tg:
            ask.start(tg)
            first = await ask.run(ctx(object(), version=NEWEST), up, tool="bank__t", scope="s1",
                                  send=send)
            assert isinstance(first, types.InputRequiredResult) and first.input_requests
            key = next(iter(first.input_requests))
            yes: dict[str, types.InputResponse] = {
                key: types.ElicitResult(action="accept", content={"ok": True})
            }

            def params(name: str, state: str | None) -> types.CallToolRequestParams:
                return types.CallToolRequestParams(name=name, request_state=state,
                                                   input_responses=yes)

            bridge = ask.bridge
            assert "another client's" in (bridge.refusal(params("bank__t", first.request_state),
                                                         "s2") or "")
            assert "belongs to a call of 'bank__t'" in (
                bridge.refusal(params("bank__u", first.request_state), "s1") or "")
            assert "names no call" in (bridge.refusal(params("bank__t", "elision-ask:x"), "s1")
                                       or "")
            assert bridge.refusal(params("bank__t", first.request_state), "s1") is None
            done = await bridge.resume(params("bank__t", first.request_state))
            assert isinstance(done, types.CallToolResult)
            assert json.loads(done.content[0].text)["action"] == "accept"  # type: ignore[union-attr]
            assert len(bridge) == 0
            # Spent: the same state again names nothing.
            assert "names no call" in (bridge.refusal(params("bank__t", first.request_state),
                                                      "s1") or "")
            ask.close()

    anyio.run(main)


def test_the_call_clock_stops_while_the_agent_answers() -> None:
    async def main() -> None:
        deadline = Deadline(0.2)
        with anyio.fail_after(0.2) as scope:
            deadline.bind(scope)
            deadline.pause()
            await anyio.sleep(0.4)  # past the timeout, but the agent is answering
            deadline.resume()
        with pytest.raises(TimeoutError), anyio.fail_after(0.2) as scope:
            deadline.bind(scope)
            deadline.pause()
            deadline.resume()
            await anyio.sleep(0.4)  # the server's own time: the timeout holds

    anyio.run(main)


@pytest.mark.parametrize(("value", "expected"), [(True, True), (False, False), (None, False)])
def test_sampling_is_offered_only_when_the_config_says_so(value: Any, expected: bool) -> None:
    entry: dict[str, Any] = {"command": "server"}
    if value is not None:
        entry["sampling"] = value
    specs, _ = parse_config({"mcpServers": {"bank": entry}})
    assert specs[0].sampling is expected


def test_a_sampling_switch_that_is_not_a_boolean_is_refused() -> None:
    with pytest.raises(InputError, match=r"mcpServers\.bank\.sampling must be true or false"):
        parse_config({"mcpServers": {"bank": {"command": "server", "sampling": "yes"}}})


def test_an_agent_s_refusal_goes_back_as_it_gave_it() -> None:
    class Refusing(Session):
        async def send_request(self, request: Any, result_type: Any, metadata: Any = None) -> Any:
            raise MCPError(types.INVALID_REQUEST, "the user is away")

    agent = ctx(object())
    agent.session = Refusing(object(), EVERYTHING)
    answer = anyio.run(in_flight, asking(), [(agent, "s")], elicit(), upstream())
    assert answer == types.ErrorData(code=types.INVALID_REQUEST, message="the user is away")
