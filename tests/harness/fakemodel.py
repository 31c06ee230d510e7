"""A scripted fake model on 127.0.0.1 that speaks four API dialects, and records what it is sent.

The plan is the same in every dialect, and it is read from the conversation the harness sends
(so side requests, retries and title generation need no bookkeeping here):

1. no tool result yet, and a tool whose name ends with the wanted tool is offered: call it;
2. the last result is that tool's, and it names a ``next`` (``elision_fetch(ref=…, …)``) and
   ``elision_fetch`` is offered: call ``elision_fetch`` with those arguments;
3. otherwise: answer ``done`` and stop.

Dialects: Anthropic Messages (``/v1/messages``, SSE), OpenAI Responses (``/responses``, SSE),
OpenAI Chat Completions (``/chat/completions``, SSE) and Gemini (``:streamGenerateContent``
SSE, ``:generateContent``, ``:countTokens``). Stdlib only, so it runs in any namespace.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: what an envelope's or a text header's ``next`` looks like: elision_fetch(ref="el_…", …),
#: its quotes escaped once for each time the text was serialized again (a JSON string inside
#: the JSON a harness hands over: Cline, Continue)
NEXT = re.compile(r'elision_fetch\(((?:\w+=\\*"[^"\\]*\\*"(?:,\s*)?)+)\)')
ARG = re.compile(r'(\w+)=\\*"([^"\\]*)\\*"')


@dataclass
class Event:
    """One step of the conversation as the harness sent it back."""

    kind: str  # "call" or "result"
    name: str
    call_id: str
    text: str = ""
    args: dict[str, Any] = field(default_factory=dict)


def next_call(text: str) -> dict[str, str] | None:
    """The arguments of the ``elision_fetch`` a shaped result points to, if it names one."""
    found = NEXT.search(text)
    return dict(ARG.findall(found.group(1))) if found else None


def _text_of(content: Any) -> str:
    """A tool result's text however a dialect nests it (a string, blocks, or an object)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c) for c in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content", "llmContent", "result"):
            if key in content:
                return _text_of(content[key])
        return json.dumps(content, ensure_ascii=False)
    return "" if content is None else json.dumps(content)


# ---- reading a request: the tools offered and the conversation so far, per dialect ----------

def _anthropic(body: dict[str, Any]) -> tuple[list[str], list[Event]]:
    tools = [t.get("name", "") for t in body.get("tools") or []]
    events: list[Event] = []
    names: dict[str, str] = {}
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
                events.append(Event("call", block["name"], block["id"], args=block["input"]))
            elif block.get("type") == "tool_result":
                cid = block.get("tool_use_id", "")
                events.append(Event("result", names.get(cid, ""), cid,
                                    _text_of(block.get("content"))))
    return tools, events


def _joined(namespace: str, name: str) -> str:
    """A namespaced tool's one name (``mcp__fixture`` + ``trade_report``), as Claude Code
    spells it; :func:`_split` undoes it."""
    return f"{namespace}__{name}" if namespace and not namespace.endswith("_") else namespace + name


def _split(tool: str) -> tuple[str | None, str]:
    if tool.startswith("mcp__") and tool.count("__") >= 2:
        namespace, name = tool.rsplit("__", 1)
        return namespace, name
    return None, tool


def _responses_tools(specs: list[dict[str, Any]]) -> list[str]:
    tools = []
    for tool in specs:
        if tool.get("type") == "namespace":  # a group of tools under one prefix
            tools += [_joined(tool.get("name", ""), t.get("name", "")) for t in
                      tool.get("tools", [])]
        elif tool.get("type") == "tool_search":
            tools.append(SEARCH_TOOL)
        else:
            tools.append(tool.get("name", ""))
    return tools


def _responses(body: dict[str, Any]) -> tuple[list[str], list[Event]]:
    tools = _responses_tools(body.get("tools") or [])
    events: list[Event] = []
    names: dict[str, str] = {}
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind in ("additional_tools", "tool_search_output"):
            tools += _responses_tools(item.get("tools") or [])
        if kind == "tool_search_output":
            events.append(Event("result", SEARCH_TOOL, item.get("call_id", ""), "found"))
        elif kind == "tool_search_call":
            events.append(Event("call", SEARCH_TOOL, item.get("call_id", ""),
                                args=item.get("arguments") or {}))
        elif kind == "function_call":
            name = _joined(item.get("namespace") or "", item["name"])
            names[item["call_id"]] = name
            events.append(Event("call", name, item["call_id"],
                                args=json.loads(item.get("arguments") or "{}")))
        elif kind == "function_call_output":
            cid = item.get("call_id", "")
            events.append(Event("result", names.get(cid, ""), cid, _text_of(item.get("output"))))
    return tools, events


def _chat(body: dict[str, Any]) -> tuple[list[str], list[Event]]:
    tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
    events: list[Event] = []
    names: dict[str, str] = {}
    for message in body.get("messages") or []:
        for call in message.get("tool_calls") or []:
            fn = call.get("function", {})
            args = json.loads(fn.get("arguments") or "{}")
            name = fn.get("name", "")
            if name == CALL_TOOL and isinstance(args.get("name"), str):
                name = args["name"]  # a deferred tool, called through the harness's tool_call
            names[call["id"]] = name
            events.append(Event("call", name, call["id"], args=args))
        if message.get("role") == "tool":
            cid = message.get("tool_call_id", "")
            events.append(Event("result", names.get(cid, ""), cid,
                                _text_of(message.get("content"))))
    return tools, events


def _gemini(body: dict[str, Any]) -> tuple[list[str], list[Event]]:
    tools = [d.get("name", "") for t in body.get("tools") or []
             for d in t.get("functionDeclarations") or []]
    events: list[Event] = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if "functionCall" in part:
                call = part["functionCall"]
                events.append(Event("call", call["name"], call.get("id", call["name"]),
                                    args=call.get("args") or {}))
            elif "functionResponse" in part:
                resp = part["functionResponse"]
                events.append(Event("result", resp["name"], resp.get("id", resp["name"]),
                                    _text_of(resp.get("response"))))
    return tools, events


READERS = {"anthropic": _anthropic, "responses": _responses, "chat": _chat, "gemini": _gemini}


@dataclass
class Step:
    """What the model does next: call ``tool`` with ``args``, or say ``text``."""

    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    text: str = "done"


#: a harness's own tool that waits for MCP servers still starting (Claude Code offers it when
#: its first request goes out before the servers have connected); the model calls it, as a real
#: model told to use an MCP tool would, at most this many times (a wait lasts about 10 s)
WAIT_TOOL = "WaitForMcpServers"
WAITS = 12
#: the Responses API's own tool search (Codex defers MCP tools behind it): the model searches
#: for the tool it wants, as a real model would, and the harness adds what was found
SEARCH_TOOL = "tool_search"
PREP_TOOLS = (WAIT_TOOL, SEARCH_TOOL)
#: the harness's own tool that calls a deferred tool by the name a search gave (Qwen Code 0.24
#: offers MCP tools only so: ``tool_search``, then ``tool_call`` with the exact name)
CALL_TOOL = "tool_call"
#: a tool's name in a search's answer (Qwen Code: ``<function>{"name":"mcp__…", …}</function>``)
FOUND = re.compile(r'"name"\s*:\s*"([^"]+)"')


def found_by_search(events: list[Event]) -> list[str]:
    """The tools the harness's search answers named: offered, though deferred."""
    return [name for e in events if e.kind == "result" and e.name == SEARCH_TOOL
            for name in FOUND.findall(e.text)]


def _find(tools: list[str], name: str) -> str | None:
    return next((t for t in tools if t == name or t.endswith(("_" + name, "-" + name))), None)


def plan(wanted: str, tools: list[str], events: list[Event],
         wanted_args: dict[str, Any] | None = None) -> Step:
    """The scripted turn plan (see the module's docstring); ``wanted_args`` are the first
    call's arguments (none for the fixture's tools; a command for a shell tool)."""
    results = [e for e in events if e.kind == "result" and e.name not in PREP_TOOLS]
    # the waits and searches since the last real result
    since = 0
    for event in events:
        if event.kind == "result":
            since = since + 1 if event.name in PREP_TOOLS else 0
    if not results:
        want: str | None = wanted
        args: dict[str, Any] = dict(wanted_args or {})
    elif len(results) == 1:
        found = next_call(results[0].text)
        want, args = ("elision_fetch", found) if found is not None else (None, {})
    else:
        want = None
    if want is None:
        return Step(text="done")
    tool = _find(tools, want)
    if tool is not None:
        return Step(tool, args)
    deferred = _find(found_by_search(events), want) if CALL_TOOL in tools else None
    if deferred is not None:
        return Step(CALL_TOOL, {"name": deferred, "arguments": args})
    if since < WAITS:
        if WAIT_TOOL in tools and not results:
            return Step(WAIT_TOOL, {})
        if SEARCH_TOOL in tools:
            return Step(SEARCH_TOOL, {"query": want})
    return Step(text=f"no tool {want} was offered")


#: the fake model's summary when a harness compacts its history (Continue CLI, when a result
#: fills its context); seen again, the run is over: the result the model was to read is gone
COMPACTED = "summary: a tool result was too large for the context and was compacted away"
SUMMARY_ASKED = re.compile(r"summary of (?:our|the) conversation", re.IGNORECASE)


def compacting(body: dict[str, Any]) -> Step | None:
    """The step for a request made while the harness compacts its history, else None."""
    turns = body.get("messages") or body.get("input") or body.get("contents") or []
    if not isinstance(turns, list) or not turns:
        return None
    if any(COMPACTED in json.dumps(turn) for turn in turns):
        return Step(text="done")
    if SUMMARY_ASKED.search(json.dumps(turns[-1])):
        return Step(text=COMPACTED)
    return None


# ---- writing an answer, per dialect ---------------------------------------------------------

def _sse(events: list[tuple[str | None, Any]]) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        payload = data if isinstance(data, str) else json.dumps(data)
        yield f"{head}data: {payload}\n\n".encode()


def _anthropic_answer(step: Step, body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    mid = "msg_" + uuid.uuid4().hex[:20]
    usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    start = {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "content": [],
        "model": body.get("model", "fake"), "stop_reason": None, "stop_sequence": None,
        "usage": usage}}
    if step.tool:
        block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": step.tool,
                 "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.args)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": step.text}
        stop = "end_turn"
    return [("message_start", start),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"})]


def _anthropic_message(step: Step, body: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = (
        [{"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": step.tool,
          "input": step.args}] if step.tool else [{"type": "text", "text": step.text}])
    return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
            "content": content, "model": body.get("model", "fake"),
            "stop_reason": "tool_use" if step.tool else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def _responses_answer(step: Step, body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    rid = "resp_" + uuid.uuid4().hex[:20]
    if step.tool == SEARCH_TOOL:
        item: dict[str, Any] = {"type": "tool_search_call", "id": "ts_" + uuid.uuid4().hex[:16],
                                "call_id": "call_" + uuid.uuid4().hex[:16], "status": "completed",
                                "execution": "client", "arguments": {**step.args, "limit": 8}}
    elif step.tool:
        namespace, name = _split(step.tool)
        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16],
                "call_id": "call_" + uuid.uuid4().hex[:16], "name": name,
                "arguments": json.dumps(step.args), "status": "completed"}
        if namespace is not None:
            item["namespace"] = namespace
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    response = {"id": rid, "object": "response", "status": "in_progress",
                "model": body.get("model", "fake"), "output": []}
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    return [("response.created", {"type": "response.created", "response": response}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done",
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": done})]


def _chat_answer(step: Step, body: dict[str, Any]) -> list[tuple[str | None, Any]]:
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    base = {"id": cid, "object": "chat.completion.chunk", "created": 1_764_000_000,
            "model": body.get("model", "fake")}
    if step.tool:
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": "call_" + uuid.uuid4().hex[:16], "type": "function",
            "function": {"name": step.tool, "arguments": json.dumps(step.args)}}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": step.text}
        finish = "stop"
    return [(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            (None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                              "total_tokens": 15}}),
            (None, "[DONE]")]


def _gemini_chunk(step: Step) -> dict[str, Any]:
    part = ({"functionCall": {"name": step.tool, "args": step.args}} if step.tool
            else {"text": step.text})
    return {"candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15}, "modelVersion": "fake"}


class FakeModel:
    """The server: ``start()`` on 127.0.0.1, the harness talks to it, ``records`` says what it
    was sent (each request's path and JSON body, in order)."""

    def __init__(self, wanted: str, port: int = 0,
                 args: dict[str, Any] | None = None) -> None:
        self.wanted = wanted
        self.args = args or {}
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]

    def start(self) -> FakeModel:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _record(self, path: str, body: Any, dialect: str, step: Step | None) -> None:
        with self._lock:
            self.records.append({"path": path, "dialect": dialect, "body": body,
                                 "step": None if step is None else step.__dict__})

    def answer(self, path: str, body: Any) -> tuple[int, str, Any]:
        """Status, content type and payload (a dict, or SSE events) for one request."""
        route = path.split("?")[0]
        if "/messages/count_tokens" in route:
            self._record(path, body, "anthropic", None)
            return 200, "json", {"input_tokens": 10}
        if route.endswith(":countTokens"):
            self._record(path, body, "gemini", None)
            return 200, "json", {"totalTokens": 10}
        dialect = ("anthropic" if route.endswith("/messages") else
                   "responses" if route.endswith("/responses") else
                   "chat" if route.endswith("/chat/completions") else
                   "gemini" if ":" in route.rsplit("/", 1)[-1] else None)
        if dialect is None or not isinstance(body, dict):
            self._record(path, body, "unknown", None)
            return 404, "json", {"error": {"message": f"no such route {route}"}}
        tools, events = READERS[dialect](body)
        step = compacting(body) or plan(self.wanted, tools, events, self.args)
        self._record(path, body, dialect, step)
        if dialect == "anthropic":
            if body.get("stream"):
                return 200, "sse", _anthropic_answer(step, body)
            return 200, "json", _anthropic_message(step, body)
        if dialect == "responses":
            return 200, "sse", _responses_answer(step, body)
        if dialect == "chat":
            return 200, "sse", _chat_answer(step, body)
        if "streamGenerateContent" in route:
            return 200, "sse", [(None, _gemini_chunk(step))]
        return 200, "json", _gemini_chunk(step)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                model._record(self.path, None, "get", None)
                self._send(200, "json", {"data": [], "models": []})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                self._send(*model.answer(self.path, body))

            def _send(self, status: int, kind: str, payload: Any) -> None:
                if kind == "json":
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                data = b"".join(_sse(payload))
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
