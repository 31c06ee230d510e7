"""Properties of the egress gate over generated server-to-client messages (issue 22).

A hostile upstream (``egress_server.py``) sends whatever the test generates: tool results with
random blocks, ``_meta``, annotations, ``structuredContent`` and unknown members; JSON-RPC
errors; notifications (progress, logging, list-changed, resource-updated, unknown methods);
resource reads, prompts, completions and lists. A credential from the families table (a fake of
every family, as ``support.seeded`` makes them) is planted at random places in it, as keys and
as values, in plain text or base64. Through the stdio proxy and the HTTP proxy, to an agent of
each protocol era:

* the agent never receives a 12-char piece of the credential, nor its base64 form;
* every message it receives is within the bound of its kind;
* with the Guardian's deny marker planted instead, a tool's answer (result or error) is
  denied, the marker never reaches the agent, and the audit log has a deny entry for it.

Each example costs one or two round trips: the proxies and their clients are started once for
the module.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.mcp.gate.egress import (
    ERROR_BUDGET_BYTES,
    LISTING_BUDGET_BYTES,
    NOTIFICATION_BUDGET_BYTES,
    REQUEST_BUDGET_BYTES,
)
from elision.redact import redact_text
from support.egress import MODERN, Agent, http_agent, messages, proxy_command, stdio_agent
from support.policies import DENY_MARKER
from support.processes import started
from support.seeded import PIECE, Seed, seeds

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

GUARD = f"""
[[guardian.policies]]
use = "support.policies:deny_marker"
# the marker: {DENY_MARKER}
"""
SPOT = "@@"  # where the plant goes
BOUNDS = {
    "error": ERROR_BUDGET_BYTES, "notification": NOTIFICATION_BUDGET_BYTES,
    "request": REQUEST_BUDGET_BYTES, "result": LISTING_BUDGET_BYTES,
}
AGENTS = ("stdio legacy", "stdio newest", "http legacy", "http newest")


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("egress-property")
    guard = tmp / "guard.toml"
    guard.write_text(GUARD)
    extra = ("--guard-config", str(guard))
    (tmp / "http").mkdir()
    env = {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    with (
        stdio_agent(tmp / "legacy", "legacy", *extra) as legacy,
        stdio_agent(tmp / "modern", MODERN, *extra) as modern,
        started([*proxy_command(tmp / "http", *extra, "--listen", "127.0.0.1:0")],
                env=env) as http,
        http_agent(http.url, "legacy") as http_legacy,
        http_agent(http.url, MODERN) as http_modern,
    ):
        yield {
            "stdio legacy": (legacy, tmp / "legacy" / "audit.db"),
            "stdio newest": (modern, tmp / "modern" / "audit.db"),
            "http legacy": (http_legacy, tmp / "http" / "audit.db"),
            "http newest": (http_modern, tmp / "http" / "audit.db"),
        }


# -- generated messages ------------------------------------------------------------------------

words = st.sampled_from(["ok", "rows", "note", "debug", "x"])
spot_text = st.sampled_from([SPOT, f"see {SPOT} now", "plain words", f"{SPOT}\nnext line"])
keys = st.one_of(words, st.just(SPOT))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), words, spot_text)
free = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)
free_dict = st.dictionaries(keys, free, min_size=1, max_size=3)


@st.composite
def text_block(draw: st.DrawFn) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(spot_text)}
    if draw(st.booleans()):
        block["_meta"] = draw(free_dict)
    if draw(st.booleans()):
        block["annotations"] = {"audience": ["user"], "priority": 0.5,
                                "lastModified": draw(spot_text)}
    return block


@st.composite
def other_block(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"type": "resource_link", "uri": "test://egress/doc", "name": draw(spot_text),
                "description": draw(spot_text)}
    return {"type": "resource", "resource": {"uri": "test://egress/doc", "text": draw(spot_text),
                                             "_meta": draw(free_dict)}}


blocks = st.lists(st.one_of(text_block(), text_block(), other_block()), min_size=1, max_size=4)


@st.composite
def tool_result(draw: st.DrawFn, unknown: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = {"content": draw(blocks)}
    if draw(st.booleans()):
        result["structuredContent"] = draw(free_dict)
    if draw(st.booleans()):
        result["_meta"] = draw(free_dict)
    if draw(st.booleans()):
        result["isError"] = True
    if unknown and draw(st.booleans()):
        result[draw(keys)] = draw(free)  # an unknown member (the SDK drops it)
    return {"answer": {"result": result}}


@st.composite
def tool_error(draw: st.DrawFn) -> dict[str, Any]:
    error: dict[str, Any] = {"code": draw(st.sampled_from([-32602, 7, 42])),
                             "message": draw(spot_text)}
    if draw(st.booleans()):
        error["data"] = draw(free)
    return {"answer": {"error": error}}


OK = {"result": {"content": [{"type": "text", "text": "ok"}]}}


@st.composite
def notification(draw: st.DrawFn) -> dict[str, Any]:
    method, params = draw(st.sampled_from([
        ("notifications/progress", {"progressToken": "$PROGRESS", "progress": 1}),
        ("notifications/message", {"level": "info"}),
        ("notifications/resources/list_changed", {}),
        ("notifications/resources/updated", {"uri": "test://egress/doc"}),
        ("notifications/egress/unknown", {}),
    ]))
    params = dict(params)
    if method == "notifications/progress":
        params["message"] = draw(spot_text)
    elif method == "notifications/message":
        params["data"] = draw(free)
        params["logger"] = draw(spot_text)
    else:
        params[draw(keys)] = draw(free)
    if draw(st.booleans()):
        params["_meta"] = draw(free_dict)
    return {"send": [{"jsonrpc": "2.0", "method": method, "params": params}], "answer": OK}


@st.composite
def scripted(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(
        ["resources/read", "prompts/get", "completion/complete", "resources/list"]))
    result: dict[str, Any]
    if method == "resources/read":
        content: dict[str, Any] = {"uri": "test://egress/doc"}
        if draw(st.booleans()):
            content["text"] = draw(spot_text)
        else:
            content["blob"] = SPOT  # planted base64
        if draw(st.booleans()):
            content["_meta"] = draw(free_dict)
        result = {"contents": [content]}
    elif method == "prompts/get":
        block = draw(st.one_of(text_block(), other_block()))
        result = {"description": draw(spot_text), "messages": [{"role": "user",
                                                                 "content": block}]}
    elif method == "completion/complete":
        result = {"completion": {"values": draw(st.lists(spot_text, min_size=1, max_size=3))}}
    else:
        result = {"resources": [{"uri": "test://egress/doc", "name": "doc",
                                 "description": draw(spot_text)}]}
    if draw(st.booleans()):
        result["_meta"] = draw(free_dict)
    return {"script": {method: {"result": result}}, "answer": OK, "then": method}


def planted(value: Any, plant: str) -> Any:
    """``value`` with every spot (in a string or a key) holding ``plant``; a blob's spot
    holds the plant in base64."""
    if isinstance(value, str):
        return value.replace(SPOT, plant)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "blob" and v == SPOT:
                out[k] = base64.b64encode(plant.encode()).decode()
            else:
                out[planted(k, plant)] = planted(v, plant)
        return out
    if isinstance(value, list):
        return [planted(v, plant) for v in value]
    return value


def holds_spot(value: Any) -> bool:
    return SPOT in json.dumps(value)


def then(agent: Agent, method: str | None) -> None:
    import mcp_types as types

    if method == "resources/read":
        agent.run(lambda c: c.read_resource("test://egress/doc"))
    elif method == "prompts/get":
        agent.run(lambda c: c.get_prompt("brief"))
    elif method == "completion/complete":
        agent.run(lambda c: c.complete(types.PromptReference(type="ref/prompt", name="brief"),
                                       {"name": "who", "value": ""}))
    elif method == "resources/list":
        agent.run(lambda c: c.list_resources())


def kind(message: dict[str, Any]) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "result"


def forbidden(seed: Seed) -> list[str]:
    """The 12-char pieces of the seed's secret, less those its own redacted line keeps (a
    name before the stub), and the head of its base64 form."""
    secret = seed.secret
    kept = str(redact_text(seed.text).value)
    pieces = [secret[i:i + PIECE] for i in range(len(secret) - PIECE + 1)]
    return [*(p for p in pieces if p not in kept),
            base64.b64encode(seed.text.encode()).decode()[:24]]


def send(agent: Agent, args: dict[str, Any]) -> Any:
    args = dict(args)
    method = args.pop("then", None)
    reply = agent.emit(**args)
    then(agent, method)
    agent.settle()
    return reply


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    which=st.sampled_from(AGENTS),
    case=st.one_of(tool_result(), tool_error(), notification(), scripted()),
    seed=st.sampled_from(seeds()),
)
def test_no_planted_credential_reaches_the_agent_and_every_message_is_bounded(
    agents: dict[str, Any], which: str, case: dict[str, Any], seed: Seed,
) -> None:
    agent, _ = agents[which]
    agent.wire()
    send(agent, planted(case, seed.text))
    wire = agent.wire()
    shown = wire.decode("utf-8", "replace")
    found = [piece for piece in forbidden(seed) if piece in shown]
    assert not found, f"{seed.name} reached the {which} agent: {found[0]!r}"
    for message in messages(wire):
        size = len(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode())
        assert size <= BOUNDS[kind(message)], f"a {kind(message)} of {size:,} bytes"


def deny_entries(log: Path) -> int:
    with sqlite3.connect(log) as db:
        rows = db.execute("SELECT body FROM entries").fetchall()
    return sum(1 for (body,) in rows if json.loads(body).get("decision") == "deny")


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(which=st.sampled_from(AGENTS),
       case=st.one_of(tool_result(unknown=False), tool_error()))
def test_a_planted_deny_marker_is_denied_and_audited(
    agents: dict[str, Any], which: str, case: dict[str, Any],
) -> None:
    if not holds_spot(case):
        case = {"answer": {"error": {"code": 7, "message": SPOT}}}
    agent, log = agents[which]
    before = deny_entries(log)
    agent.wire()
    reply = send(agent, planted(case, DENY_MARKER))
    shown = agent.wire().decode("utf-8", "replace")
    assert DENY_MARKER not in shown
    said = str(getattr(reply, "error", None) or reply)
    assert "denied" in said, said
    assert deny_entries(log) == before + 1
