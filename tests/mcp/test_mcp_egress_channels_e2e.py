"""End to end: every channel issue 22 lists is governed by the egress gate, on both transports
and in both protocol eras.

Found by a hostile upstream and the official client (issue 22): a ``ghp_`` token in a text
block's ``_meta`` or ``annotations``, a ``structuredContent`` wrapper key, a resource's or a
prompt's ``_meta``, a presigned content uri, a ``resource_link`` description, a base64 ``.env``
read as a resource, a progress message, a log's ``params._meta``, completion values and an
elicitation's message all reached the agent; a 1.6 MB error and 1-2 MB notifications reached
it whole behind ``--budget``; a token split across two text blocks read whole when joined.

Each row sends its message through ``tests/mcp/egress_server.py``; the raw bytes the client
received (before it parsed them) must hold no piece of the credential, must hold the row's
canary where the row's channel reaches an agent of that era (so the row is not vacuous), and
every message must be within its bound.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from elision.mcp.gate.egress import (
    ERROR_BUDGET_BYTES,
    LISTING_BUDGET_BYTES,
    NOTIFICATION_BUDGET_BYTES,
    REQUEST_BUDGET_BYTES,
)
from support.egress import ERAS, MODERN, Agent, http_agent, messages, proxy_command, stdio_agent
from support.processes import started

pytestmark = [
    pytest.mark.e2e,
    # Logging is deprecated at protocol 2026-07-28; these tests listen to it on purpose.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

TOKEN = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"
SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
PRESIGNED = (
    "https://bucket.s3.amazonaws.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIDSEEDEDEXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    f"&X-Amz-Signature={SIGNATURE}"
)
ENV_BLOB = base64.b64encode(f"HOME=/srv\nGITHUB_TOKEN={TOKEN}\n".encode()).decode()
SECRETS = (TOKEN, SIGNATURE, ENV_BLOB)
PIECE = 12


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def result(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"result": {"content": list(blocks), **extra}}


def note(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def log(**params: Any) -> dict[str, Any]:
    return note("notifications/message", {"level": "info", **params})


def progress(message: str) -> dict[str, Any]:
    return note("notifications/progress",
                {"progressToken": "$PROGRESS", "progress": 1, "message": message})


OK = result(text("ok"))


def read(agent: Agent) -> Any:
    return agent.run(lambda c: c.read_resource("test://egress/doc"))


def prompt(agent: Agent) -> Any:
    return agent.run(lambda c: c.get_prompt("brief"))


def complete(agent: Agent) -> Any:
    return agent.run(lambda c: c.complete(
        types.PromptReference(type="ref/prompt", name="brief"), {"name": "who", "value": ""}))


def list_resources(agent: Agent) -> Any:
    return agent.run(lambda c: c.list_resources())


def subscribe_then_update(agent: Agent) -> Any:
    if agent.era == "legacy":
        agent.run(lambda c: c.subscribe_resource("test://egress/doc"))
    return agent.emit(send=[note("notifications/resources/updated", {
        "uri": "test://egress/doc", "_meta": {"debug": f"canary {TOKEN}"}})], answer=OK)


Action = Callable[[Agent], Any]
#: (channel, emit's arguments, what the agent does after, the eras whose agent must get the
#: canary through this channel; a newest-era agent hears of list changes only on a listen
#: stream, which these agents do not open).
ROWS: list[tuple[str, dict[str, Any], Action | None, tuple[str, ...]]] = [
    ("text block _meta (fast path)",
     {"answer": result(text("canary", _meta={"debug": TOKEN}))}, None, ERAS),
    ("text block annotations",
     {"answer": result(text("canary", annotations={"lastModified": TOKEN}))}, None, ERAS),
    ("text blocks' _meta (many-block path)",
     {"answer": result(*[text(f"canary {i} " + "x" * 600, _meta={"debug": TOKEN})
                         for i in range(12)])}, None, ERAS),
    ("structuredContent wrapper key",
     {"answer": result(text("canary"), structuredContent={TOKEN: "canary"})}, None, ERAS),
    ("ReadResourceResult _meta",
     {"script": {"resources/read": {"result": {"_meta": {"debug": TOKEN}, "contents": [
         {"uri": "test://egress/doc", "text": "canary"}]}}}, "answer": OK}, read, ERAS),
    ("resource contents _meta",
     {"script": {"resources/read": {"result": {"contents": [
         {"uri": "test://egress/doc", "text": "canary", "_meta": {"debug": TOKEN}}]}}},
      "answer": OK}, read, ERAS),
    ("resource content uri, presigned",
     {"script": {"resources/read": {"result": {"contents": [
         {"uri": PRESIGNED, "text": "canary"}]}}}, "answer": OK}, read, ERAS),
    ("resource blob, a base64 .env",
     {"script": {"resources/read": {"result": {"contents": [
         {"uri": "test://egress/doc", "mimeType": "text/plain", "blob": ENV_BLOB,
          "_meta": {"note": "canary"}}]}}}, "answer": OK}, read, ERAS),
    ("GetPromptResult _meta",
     {"script": {"prompts/get": {"result": {"_meta": {"debug": TOKEN}, "messages": [
         {"role": "user", "content": text("canary")}]}}}, "answer": OK}, prompt, ERAS),
    ("prompt resource_link description",
     {"script": {"prompts/get": {"result": {"messages": [{"role": "user", "content": {
         "type": "resource_link", "uri": "test://egress/doc", "name": "canary",
         "description": TOKEN}}]}}}, "answer": OK}, prompt, ERAS),
    ("prompt embedded blob, a base64 .env",
     {"script": {"prompts/get": {"result": {"messages": [{"role": "user", "content": {
         "type": "resource", "resource": {"uri": "test://egress/doc", "blob": ENV_BLOB,
                                          "_meta": {"note": "canary"}}}}]}}},
      "answer": OK}, prompt, ERAS),
    ("completion values",
     {"script": {"completion/complete": {"result": {"completion": {
         "values": ["canary", TOKEN]}}}}, "answer": OK}, complete, ERAS),
    ("resources/list _meta",
     {"script": {"resources/list": {"result": {"resources": [
         {"uri": "test://egress/doc", "name": "canary", "_meta": {"debug": TOKEN}}]}}},
      "answer": OK}, list_resources, ERAS),
    ("progress message", {"send": [progress(f"canary {TOKEN}")], "answer": OK}, None, ERAS),
    ("logging params._meta",
     {"send": [log(data="canary", _meta={"debug": TOKEN})], "answer": OK}, None, ERAS),
    ("logging data key",
     {"send": [log(data={"canary": {TOKEN: 1}})], "answer": OK}, None, ERAS),
    ("list-changed _meta",
     {"send": [note("notifications/resources/list_changed",
                    {"_meta": {"debug": f"canary {TOKEN}"}})], "answer": OK}, None,
     ("legacy",)),
    ("resource-updated _meta", {}, subscribe_then_update, ("legacy",)),
    ("an unknown notification",
     {"send": [note("notifications/egress/custom", {"x": f"canary {TOKEN}"})],
      "answer": OK}, None, ()),
    ("elicitation message",
     {"send": [{"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {
         "mode": "form", "message": f"canary {TOKEN}",
         "requestedSchema": {"type": "object", "properties": {}}}}], "answer": OK}, None,
     ("legacy",)),
    ("JSON-RPC error",
     {"answer": {"error": {"code": 42, "message": f"canary {TOKEN}",
                           "data": {TOKEN: PRESIGNED}}}}, None, ERAS),
    ("isError result", {"answer": result(text(f"canary {TOKEN}"), isError=True)}, None, ERAS),
    ("a 1.6 MB error behind --budget 4096",
     {"answer": {"error": {"code": 42, "message": "canary " + "e" * 1_600_000}}},
     None, ERAS),
    ("a 1.1 MB log message",
     {"send": [log(data="canary " + "l" * 1_100_000)], "answer": OK}, None, ERAS),
    ("a 2 MB progress message",
     {"send": [progress("canary " + "p" * 2_000_000)], "answer": OK}, None, ERAS),
    ("a token split across two text blocks",
     {"answer": result(text(f"canary {TOKEN[:18]}"), text(f"{TOKEN[18:]} tail"))}, None,
     ERAS),
]

#: The bound of each kind of message on the wire (a result's own budget is the shaper's).
BOUNDS = {
    "error": ERROR_BUDGET_BYTES, "notification": NOTIFICATION_BUDGET_BYTES,
    "request": REQUEST_BUDGET_BYTES, "result": LISTING_BUDGET_BYTES,
}


def kind(message: dict[str, Any]) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "result"


def leaked(wire: str) -> list[str]:
    return [s[:8] for s in SECRETS
            if any(s[i:i + PIECE] in wire for i in range(len(s) - PIECE + 1))]


def over_bound(wire: bytes) -> list[str]:
    out = []
    for message in messages(wire):
        size = len(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode())
        if size > BOUNDS[kind(message)]:
            out.append(f"{kind(message)} {message.get('method', '')} of {size:,} bytes")
    return out


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Agent]]:
    tmp = tmp_path_factory.mktemp("egress")
    out: dict[str, Agent] = {}
    with (
        stdio_agent(tmp / "legacy", "legacy") as legacy,
        stdio_agent(tmp / "modern", MODERN) as modern,
        started(_http_command(tmp / "http")) as http,
        http_agent(http.url, "legacy") as http_legacy,
        http_agent(http.url, MODERN) as http_modern,
    ):
        out.update({"stdio legacy": legacy, "stdio newest": modern,
                    "http legacy": http_legacy, "http newest": http_modern})
        yield out


def _http_command(tmp: Path) -> list[str]:
    tmp.mkdir(parents=True, exist_ok=True)
    return proxy_command(tmp, "--listen", "127.0.0.1:0")


AGENTS = ["stdio legacy", "stdio newest", "http legacy", "http newest"]


@pytest.mark.parametrize("which", AGENTS)
@pytest.mark.parametrize(("channel", "args", "then", "eras"), ROWS, ids=[r[0] for r in ROWS])
def test_every_channel_is_governed(
    agents: dict[str, Agent], which: str, channel: str, args: dict[str, Any],
    then: Action | None, eras: tuple[str, ...],
) -> None:
    agent = agents[which]
    agent.wire()
    if args:
        agent.emit(**args)
    if then is not None:
        then(agent)
    agent.settle()
    wire = agent.wire()
    shown = wire.decode("utf-8", "replace")
    assert leaked(shown) == [], f"{channel}: the credential reached the agent"
    assert over_bound(wire) == [], f"{channel}: a message over its bound"
    if agent.era in eras:
        assert "canary" in shown, f"{channel}: the channel never reached the agent"


@pytest.mark.parametrize("which", ["stdio legacy", "http newest"])
def test_a_cut_errors_full_text_is_kept_by_ref_and_fetchable(
    agents: dict[str, Agent], which: str
) -> None:
    """An error's full text is evidence: the cut message names a ref, and the agent reads the
    rest of the error through elision_fetch (the 1.6 MB error of issue 22 was shown whole)."""
    agent = agents[which]
    tail = "the-last-words-of-the-error"
    reply = agent.emit(answer={"error": {"code": 42,
                                         "message": "canary " + "e" * 200_000 + tail}})
    message = str(getattr(reply, "error", reply))
    assert tail not in message
    ref = re.search(r"el_[A-Za-z0-9_-]+", message)
    assert ref is not None, message
    page = agent.run(lambda c: c.call_tool(
        "elision_fetch", {"ref": ref[0], "bytes": f"{200_000}-", "budget": 4096}))
    assert not page.is_error, page
    assert tail in page.content[0].text


BAD_NAMES = ["evil\u202etxt", "[b]bold[/b]", "zero\u200bwidth", "<img src=x>"]


@pytest.mark.parametrize("which", ["stdio legacy", "http legacy"])
def test_a_tool_whose_name_holds_control_characters_or_markup_is_left_out(
    agents: dict[str, Agent], which: str
) -> None:
    """A name reaches the agent verbatim (it must call it back so), so one with a bidi
    override, a zero-width space or markup is left out of tools/list (issue 22)."""
    agent = agents[which]
    tools = [{"name": n, "inputSchema": {"type": "object"}}
             for n in ["emit", "ok_tool", *BAD_NAMES]]
    agent.emit(script={"tools/list": {"result": {"tools": tools}}},
               send=[note("notifications/tools/list_changed", {})], answer=OK)
    deadline = time.monotonic() + 15
    names: set[str] = set()
    while "ok_tool" not in names and time.monotonic() < deadline:
        names = {t.name for t in agent.run(lambda c: c.list_tools()).tools}
    assert "ok_tool" in names and "emit" in names
    assert not names & set(BAD_NAMES), sorted(names & set(BAD_NAMES))


@pytest.mark.parametrize("which", ["stdio newest", "http newest"])
def test_a_prompt_whose_name_holds_control_characters_or_markup_is_left_out(
    agents: dict[str, Agent], which: str
) -> None:
    """As for tools: a prompt's name is sent back verbatim by the agent (prompts/get)."""
    agent = agents[which]
    prompts = [{"name": n} for n in ["brief", *BAD_NAMES]]
    agent.emit(script={"prompts/list": {"result": {"prompts": prompts}}}, answer=OK)
    names = {p.name for p in agent.run(lambda c: c.list_prompts()).prompts}
    assert names == {"brief"}, sorted(names)
