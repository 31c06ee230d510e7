"""The fake model itself, without a harness: it must read every dialect's conversation, follow
its plan, and answer in a form each dialect's client parses. These run everywhere (no npm, no
namespace), so a broken fake model shows here, not as a puzzling harness failure."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.fakemodel import COMPACTED, READERS, FakeModel, Step, next_call, plan
from harness.toolserver import sized_text

REF = st.from_regex(r"el_[A-Za-z0-9_-]{24}", fullmatch=True)
PATH = st.from_regex(r"\$\.[a-z]{1,8}\[[0-9]{1,5}:\]", fullmatch=True)


@settings(max_examples=40)
@given(ref=REF, path=PATH)
def test_next_is_read_from_an_envelope_and_from_a_text_header(ref: str, path: str) -> None:
    call = f'elision_fetch(ref="{ref}", path="{path}")'
    envelope = json.dumps({"__elision__": {"v": 1, "next": call}, "rows": [1]})
    header = f"[elision] partial: lines 1-3 of 9 shown; ref={ref}\n… {call} …"
    assert next_call(envelope) == {"ref": ref, "path": path}
    assert next_call(header) == {"ref": ref, "path": path}


@settings(max_examples=40)
@given(ref=REF, path=PATH, depth=st.integers(min_value=1, max_value=3))
def test_next_is_read_from_an_envelope_a_harness_serialized_again(
        ref: str, path: str, depth: int) -> None:
    """Continue CLI hands the model ``JSON.stringify(result.content)`` and Cline the whole
    result as JSON, so the envelope's ``next`` reaches the model escaped twice or more
    (three backslashes before each quote); the fake model, reading only one escape, answered
    ``done`` where a model would fetch (seen with Continue CLI 1.5.47)."""
    call = f'elision_fetch(ref="{ref}", path="{path}")'
    text = json.dumps({"__elision__": {"v": 1, "next": call}, "rows": [1]})
    for _ in range(depth):
        text = json.dumps([{"type": "text", "text": text}])
    assert next_call(text) == {"ref": ref, "path": path}


@pytest.mark.parametrize("text", [
    '{"rows": [1, 2]}',  # a result that fit: nothing to fetch
    "elision_fetch()",  # no arguments
    "[elision] partial: lines 1-3 of 9 shown; sha256=ab",  # no ref kept (stored: false)
])
def test_no_next_where_the_result_names_none(text: str) -> None:
    assert next_call(text) is None


@settings(max_examples=40)
@given(size=st.integers(min_value=3, max_value=20_000))
def test_sized_text_is_exactly_the_size_asked_and_ends_its_last_line_with_end(size: int) -> None:
    text = sized_text(size)
    assert len(text.encode()) == size
    assert text.rsplit("\n", 1)[-1].startswith("END")


NEXT = 'elision_fetch(ref="el_abc", path="$.rows[5:]")'
FOUND_IT = '<functions>\n<function>{"name":"mcp__f__trade_report","description":"…"}</function>'


@pytest.mark.parametrize(("tools", "results", "expected"), [
    # first turn: the wanted tool, however the harness prefixes it
    (["Bash", "mcp__fixture__trade_report"], [], Step("mcp__fixture__trade_report")),
    (["fixture-trade_report"], [], Step("fixture-trade_report")),
    # the tool not there yet: wait (Claude Code), or search (Codex, Qwen Code)
    (["WaitForMcpServers"], [], Step("WaitForMcpServers")),
    (["tool_search"], [], Step("tool_search", {"query": "trade_report"})),
    # after the result: the fetch its next names, found by search if it is deferred
    (["x_trade_report", "x_elision_fetch"], [("x_trade_report", NEXT)],
     Step("x_elision_fetch", {"ref": "el_abc", "path": "$.rows[5:]"})),
    (["x_trade_report", "tool_search"], [("x_trade_report", NEXT)],
     Step("tool_search", {"query": "elision_fetch"})),
    # a result with no next, or the fetch done: stop
    (["x_trade_report", "x_elision_fetch"], [("x_trade_report", "{}")], Step(text="done")),
    (["x_elision_fetch"], [("x_trade_report", NEXT), ("x_elision_fetch", "{}")],
     Step(text="done")),
    # deferred tools (Qwen Code 0.24): search, then call the name it gave through tool_call
    (["tool_search", "tool_call"], [("tool_search", FOUND_IT)],
     Step("tool_call", {"name": "mcp__f__trade_report", "arguments": {}})),
    (["tool_search", "tool_call"], [("mcp__f__trade_report", NEXT)],
     Step("tool_search", {"query": "elision_fetch"})),
    (["tool_search", "tool_call"], [("tool_search", FOUND_IT), ("mcp__f__trade_report", NEXT),
                                    ("tool_search", FOUND_IT.replace("trade_report",
                                                                     "elision_fetch"))],
     Step("tool_call", {"name": "mcp__f__elision_fetch",
                        "arguments": {"ref": "el_abc", "path": "$.rows[5:]"}})),
])
def test_the_plan(tools: list[str], results: list[tuple[str, str]], expected: Step) -> None:
    from harness.fakemodel import Event

    events = [Event("result", name, str(i), text) for i, (name, text) in enumerate(results)]
    assert plan("trade_report", tools, events) == expected


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    server = FakeModel("trade_report").start()
    yield server
    server.stop()


def post(model: FakeModel, path: str, body: dict[str, Any]) -> tuple[str, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{model.port}{path}",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read().decode()


def sse_data(text: str) -> list[Any]:
    return [json.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


def test_anthropic_messages_stream_a_tool_use(model: FakeModel) -> None:
    kind, text = post(model, "/v1/messages?beta=true", {
        "model": "m", "stream": True, "tools": [{"name": "mcp__f__trade_report"}],
        "messages": [{"role": "user", "content": "go"}]})
    events = sse_data(text)
    assert kind == "text/event-stream"
    assert events[1]["content_block"] == {"type": "tool_use", "id": events[1]["content_block"][
        "id"], "name": "mcp__f__trade_report", "input": {}}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"


def test_responses_answers_a_namespaced_call_and_reads_its_output_back(
        model: FakeModel) -> None:
    tools = [{"type": "namespace", "name": "mcp__fixture", "tools": [
        {"type": "function", "name": "trade_report"}, {"type": "function",
                                                       "name": "elision_fetch"}]}]
    _, text = post(model, "/v1/responses", {"model": "m", "tools": tools, "input": []})
    item = sse_data(text)[-1]["response"]["output"][0]
    assert (item["namespace"], item["name"]) == ("mcp__fixture", "trade_report")
    follow = {"model": "m", "tools": tools, "input": [
        {"type": "function_call", "call_id": "c1", "namespace": "mcp__fixture",
         "name": "trade_report", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": NEXT}]}
    _, text = post(model, "/v1/responses", follow)
    item = sse_data(text)[-1]["response"]["output"][0]
    assert item["name"] == "elision_fetch"
    assert json.loads(item["arguments"]) == {"ref": "el_abc", "path": "$.rows[5:]"}
    assert READERS["responses"](follow)[1][1].text == NEXT


def test_chat_completions_stream_a_tool_call_and_done(model: FakeModel) -> None:
    _, text = post(model, "/v1/chat/completions", {
        "model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}],
        "tools": [{"type": "function", "function": {"name": "fixture_trade_report"}}]})
    assert text.rstrip().endswith("data: [DONE]")
    chunks = sse_data(text)
    call = chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
    assert call["name"] == "fixture_trade_report"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_gemini_reads_a_function_response_and_stops(model: FakeModel) -> None:
    body = {"tools": [{"functionDeclarations": [{"name": "mcp_f_trade_report"}]}],
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"functionCall": {
                    "name": "mcp_f_trade_report", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {
                    "name": "mcp_f_trade_report", "response": {"output": "{}"}}}]}]}
    _, text = post(model, "/v1beta/models/g:streamGenerateContent?alt=sse", body)
    assert sse_data(text)[0]["candidates"][0]["content"]["parts"] == [{"text": "done"}]
    assert model.records[-1]["step"]["text"] == "done"


def test_a_result_of_a_deferred_call_is_read_as_the_tools_own() -> None:
    """Qwen Code 0.24 runs a deferred tool through ``tool_call``: its result is the tool's."""
    body = {"messages": [
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "tool_call",
            "arguments": json.dumps({"name": "mcp__f__trade_report", "arguments": {}})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": NEXT}]}
    _, events = READERS["chat"](body)
    assert [(e.kind, e.name) for e in events] == [("call", "mcp__f__trade_report"),
                                                  ("result", "mcp__f__trade_report")]


def test_a_harness_compacting_its_history_gets_a_summary_and_then_done(
        model: FakeModel) -> None:
    """Continue CLI compacts its history when a result fills the context: it asks the model for
    a summary, tools still offered, and carries on from the summary. The fake model called the
    tool again each time, and Continue compacted again, until the run timed out (measuring
    Continue CLI 1.5.47's cut with a ~340 KB result)."""
    tools = [{"type": "function", "function": {"name": "trade_report"}}]
    ask = {"role": "user", "content": "Please provide a concise summary of our conversation "
                                      "so far, capturing the key context"}
    _, text = post(model, "/v1/chat/completions", {
        "model": "m", "stream": True, "tools": tools,
        "messages": [{"role": "user", "content": "go"}, ask]})
    assert model.records[-1]["step"] == {"tool": None, "args": {}, "text": COMPACTED}
    assert "tool_calls" not in json.dumps(sse_data(text))
    post(model, "/v1/chat/completions", {
        "model": "m", "stream": True, "tools": tools,
        "messages": [{"role": "assistant", "content": COMPACTED},
                     {"role": "user", "content": "go"}]})
    assert model.records[-1]["step"]["text"] == "done"
    assert model.records[-1]["step"]["tool"] is None
