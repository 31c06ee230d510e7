"""A small MCP server for the proxy's end-to-end tests: the test upstream's tools, resources and
prompts, written as raw JSON-RPC lines of the handshake era.

Run as a script: ``python upstream_server.py`` (stdio) or ``python upstream_server.py --http
PORT`` (``--http-json PORT``: each answer one JSON body, not an SSE event).
``UPSTREAM_TOOL_PREFIX`` renames every tool (to provoke a collision), and
``UPSTREAM_EXTRA_TOOL`` adds a tool of that name, and
``UPSTREAM_CRASH_FILE`` names a file that, while it exists, makes ``crash`` kill the process.

On stdio it does without the SDK, whose import costs a Python ~1.3 s of CPU a start, and writes
the lines the SDK's ``MCPServer`` wrote for the same requests, byte for byte:
``upstream_sdk_server.py`` is that server, and test_mcp_raw_servers.py checks the two against
each other on every request the tests send (recorded from a run of the files that use this
one), the unknown names included. Over HTTP (``--http``, ``--http-json``) it is that SDK
server. The tests whose point is interop with the SDK's own servers run
``upstream_sdk_server.py`` itself (test_mcp_proxy_e2e.py).

Requests are answered in turn, but ``hang`` never answers and ``wait_for_cancel`` answers
when its time is up, unless a ``notifications/cancelled`` came first (then, as with the SDK,
never); meanwhile the requests after them are answered. At the end of input it leaves, unless
a ``hang`` is under way: the SDK's server waited for that one's thread, and so does this.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.environ.get("UPSTREAM_TOOL_PREFIX", "")
EXTRA = os.environ.get("UPSTREAM_EXTRA_TOOL")
NAME = "elision-test-upstream"

#: A presigned link, as a server might hand out in a resource or a prompt.
SIGNED_LINK = (
    "https://files.example.com/q3.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)


def rows_doc(n: int) -> dict[str, Any]:
    # Caveats last, as real servers write them, where a head slice cuts first.
    return {
        "rows": [{"id": i, "name": f"item {i}", "price": i * 1.25, "tags": ["a", "b"]}
                 for i in range(n)],
        "warnings": [f"searched 528 of {n:,} rows"],
        "total_rows": n,
    }


# -- the tools: (function name, docstring, arguments with defaults, what it returns) ---------
# MCPServer named each schema after the function (rowsArguments), whatever the tool's name.

STR_OUT = "str"
#: function -> (description, [(argument, JSON type, default or REQUIRED)], output kind)
REQUIRED = object()
TOOLS: dict[str, tuple[str, list[tuple[str, str, Any]], str | None]] = {
    "rows": ("n rows, then the caveats.", [("n", "integer", 1000)], "dict"),
    "rows_text": ("The same document as rows, as compact JSON text whose bytes a test can "
                  "predict.", [("n", "integer", 1000)], STR_OUT),
    "issues": ("A list: MCPServer sends one text block per item, and the list as "
               "structuredContent.", [("n", "integer", 600)], "list"),
    "quoted": ('A text whose JSON string, in {"result": text}, is larger than the text.',
               [("lines", "integer", 2000)], STR_OUT),
    "log": ("A build log with the verdict on its last line.", [("lines", "integer", 3000)],
            STR_OUT),
    "one_line": ("One line longer than 64 KB (a JSON string).",
                 [("size", "integer", 70_000)], STR_OUT),
    "huge": ("A message over 16 MB.", [("megabytes", "integer", 17)], STR_OUT),
    "pieces": ("One JSON document sent as three text blocks.", [], None),
    "picture": ("A big image and a caption.", [("kilobytes", "integer", 400)], None),
    "fail": ("Raises with a long message: an error result that is itself oversized.", [],
             STR_OUT),
    "crash": ("Kills the server while the marker file exists.", [], STR_OUT),
    "hang": ("Never answers in time.", [], STR_OUT),
    "progress": ("Reports progress, then answers.", [("steps", "integer", 3)], STR_OUT),
    "wait_for_cancel": ("Waits; writes ``started`` to the marker file at once and "
                        "``cancelled`` if cancelled.",
                        [("marker", "string", REQUIRED), ("seconds", "number", 60)], STR_OUT),
    "shout": ("Sends a log message to the client, then answers.",
              [("message", "string", "hello")], STR_OUT),
    "grow": ("Adds a tool and tells the client the list changed.", [], STR_OUT),
    "grown": ("A tool that appears at run time.", [], STR_OUT),
    "extra": ("A tool whose name the test chooses.", [], STR_OUT),
}


def tool(function: str, name: str) -> dict[str, Any]:
    """A tool as MCPServer listed it (members in its models' order)."""
    description, arguments, output = TOOLS[function]
    properties: dict[str, Any] = {}
    required = []
    for argument, kind, default in arguments:
        if default is REQUIRED:
            properties[argument] = {"title": argument.title(), "type": kind}
            required.append(argument)
        else:
            properties[argument] = {"default": default, "title": argument.title(), "type": kind}
    schema: dict[str, Any] = {"properties": properties}
    if required:
        schema["required"] = required
    schema.update(type="object", title=f"{function}Arguments")
    listed: dict[str, Any] = {"description": description, "inputSchema": schema, "name": name}
    if output == "dict":
        listed["outputSchema"] = {"type": "object", "additionalProperties": True,
                                  "title": f"{function}DictOutput"}
    elif output is not None:
        result: dict[str, Any] = {"title": "Result", "type": "string"}
        if output == "list":
            result = {"items": {"additionalProperties": True, "type": "object"},
                      "title": "Result", "type": "array"}
        listed["outputSchema"] = {"properties": {"result": result}, "required": ["result"],
                                  "type": "object", "title": f"{function}Output"}
    return listed


#: tool name -> function, in the order MCPServer listed them (``grown`` joins on ``grow``)
listed: dict[str, str] = {PREFIX + f: f for f in TOOLS if f not in ("grown", "extra")}
if EXTRA:
    listed[EXTRA] = "extra"

_out = threading.Lock()
#: requests of wait_for_cancel under way: id -> (marker, timer)
_waiting: dict[Any, tuple[str, threading.Timer]] = {}
_hanging = threading.Event()


def write(message: dict[str, Any]) -> None:
    line = json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":"), ensure_ascii=False)
    with _out:
        sys.stdout.buffer.write(line.encode() + b"\n")
        sys.stdout.buffer.flush()


def text(value: str) -> dict[str, Any]:
    return {"text": value, "type": "text"}


def done(value: str) -> dict[str, Any]:
    """A tool's string result, as MCPServer sent it: text, and ``{"result": …}``."""
    return {"result": {"content": [text(value)], "isError": False,
                       "structuredContent": {"result": value}}}


def failed(message: str) -> dict[str, Any]:
    return {"result": {"content": [text(message)], "isError": True}}


def run_tool(request_id: Any, name: str, args: dict[str, Any],
             meta: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to a call of the tool ``name``; None when it answers later or never."""
    function = listed[name]
    if function == "rows":
        doc = rows_doc(args.get("n", 1000))
        return {"result": {"content": [text(json.dumps(doc, indent=2, ensure_ascii=False))],
                           "isError": False, "structuredContent": doc}}
    if function == "rows_text":
        return done(json.dumps(rows_doc(args.get("n", 1000))))
    if function == "issues":
        items = [{"id": i, "title": f"issue {i}", "body": "steps to reproduce " * 20}
                 for i in range(args.get("n", 600))]
        return {"result": {"content": [text(json.dumps(item, indent=2)) for item in items],
                           "isError": False, "structuredContent": {"result": items}}}
    if function == "quoted":
        return done("".join(f'"line" {i} \\ "quoted"\n' for i in range(args.get("lines", 2000))))
    if function == "log":
        body = "".join(f"2026-11-30T12:00:00Z INFO step {i} ok\n"
                       for i in range(args.get("lines", 3000)))
        return done(body + "FATAL: build failed with 3 errors\n")
    if function == "one_line":
        return done(json.dumps({"blob": "x" * args.get("size", 70_000), "note": "end"}))
    if function == "huge":
        return done(json.dumps(rows_doc(args.get("megabytes", 17) * 16_000)))
    if function == "pieces":
        whole = json.dumps(rows_doc(300))
        third = len(whole) // 3
        return {"result": {"content": [text(whole[:third]), text(whole[third:2 * third]),
                                       text(whole[2 * third:])], "isError": False}}
    if function == "picture":
        data = base64.b64encode(os.urandom(args.get("kilobytes", 400) * 1024)).decode()
        return {"result": {"content": [{"data": data, "mimeType": "image/png", "type": "image"},
                                       text("a caption")], "isError": False}}
    if function == "fail":
        return failed(f"Error executing tool {name}: bad input: "
                      + ", ".join(f"field_{i} is missing" for i in range(2000)))
    if function == "crash":
        marker = os.environ.get("UPSTREAM_CRASH_FILE")
        if marker and os.path.exists(marker):
            os.remove(marker)
            os._exit(3)
        return done("still here")
    if function == "hang":
        _hanging.set()
        return None
    if function == "progress":
        steps = args.get("steps", 3)
        for i in range(steps):
            if "progressToken" in meta:
                write({"method": "notifications/progress", "params": {
                    "progressToken": meta["progressToken"], "progress": i + 1, "total": steps,
                    "message": f"step {i + 1}"}})
            time.sleep(0.01)
        return done("done")
    if function == "wait_for_cancel":
        marker = args["marker"]
        with open(marker, "w") as out:
            out.write("started")

        def waited() -> None:
            if _waiting.pop(request_id, None) is not None:
                write({"id": request_id, **done("waited")})

        timer = threading.Timer(args.get("seconds", 60), waited)
        timer.daemon = True
        _waiting[request_id] = (marker, timer)
        timer.start()
        return None
    if function == "shout":
        write({"method": "notifications/message",
               "params": {"level": "info", "data": args.get("message", "hello")}})
        return done("said")
    if function == "grow":
        listed[PREFIX + "grown"] = "grown"
        write({"method": "notifications/tools/list_changed"})
        return done("grew")
    return done(function)  # grown, extra: their own names


def cancelled(request_id: Any) -> None:
    waiting = _waiting.pop(request_id, None)
    if waiting is not None:
        marker, timer = waiting
        timer.cancel()
        with open(marker, "w") as out:
            out.write("cancelled")


def answer(request_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    if method == "initialize":
        return {"result": {"capabilities": {
            "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}},
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "serverInfo": {"name": NAME, "version": ""}}}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": [tool(f, name) for name, f in listed.items()]}}
    if method == "tools/call":
        name = params.get("name")
        if name not in listed:
            return failed(f"Unknown tool: {name}")
        return run_tool(request_id, name, params.get("arguments") or {},
                        params.get("_meta") or {})
    if method == "resources/list":
        return {"result": {"resources": [{"description": "A small resource.",
                                          "mimeType": "text/plain", "name": "hello",
                                          "uri": "test://hello"}]}}
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": [
            {"description": "A resource of about ``kilobytes`` KB of log lines.",
             "mimeType": "text/plain", "name": "big", "uriTemplate": "test://big/{kilobytes}"},
            {"description": "A resource template whose notes carry a presigned link.",
             "mimeType": "text/plain", "name": "note", "uriTemplate": "test://notes/{name}"}]}}
    if method == "resources/read":
        return read(str(params.get("uri")))
    if method == "prompts/list":
        return {"result": {"prompts": [
            {"arguments": [{"name": "name", "required": True}],
             "description": "A prompt with an argument.", "name": "greet"},
            {"arguments": [], "description": "A prompt that quotes a presigned link.",
             "name": "handoff"}]}}
    if method == "prompts/get":
        return prompt(params.get("name"), params.get("arguments") or {})
    return {"error": {"code": -32601, "message": "Method not found", "data": method}}


def read(uri: str) -> dict[str, Any]:
    body = None
    if uri == "test://hello":
        body = "hello from upstream"
    elif uri.startswith("test://big/") and uri[11:].isdigit():
        body = "".join(f"resource line {i}\n" for i in range(int(uri[11:]) * 1024 // 20))
    elif uri.startswith("test://notes/") and uri[13:] and "/" not in uri[13:]:
        body = f"note {uri[13:]}: the report is at {SIGNED_LINK}"
    if body is None:
        return {"error": {"code": -32602, "message": f"Unknown resource: {uri}",
                          "data": {"uri": uri}}}
    return {"result": {"contents": [{"mimeType": "text/plain", "text": body, "uri": uri}]}}


def prompt(name: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "greet":
        if "name" not in arguments:
            return {"error": {"code": 0, "message": "Missing required arguments: {'name'}"}}
        said, description = f"Say hello to {arguments['name']}.", "A prompt with an argument."
    elif name == "handoff":
        said = f"Summarise the report at {SIGNED_LINK}"
        description = "A prompt that quotes a presigned link."
    else:
        return {"error": {"code": 0, "message": f"Unknown prompt: {name}"}}
    return {"result": {"description": description, "messages": [
        {"content": text(said), "role": "user"}]}}


def main() -> None:
    """Serve on stdio until the end of input."""
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        method = message.get("method")
        if method == "notifications/cancelled":
            cancelled((message.get("params") or {}).get("requestId"))
        if "id" not in message or method is None:
            continue  # a notification, or an answer to a request this server never sends
        reply = answer(message["id"], method, message.get("params") or {})
        if reply is not None:
            write({"id": message["id"], **reply})
    for request_id in list(_waiting):  # the SDK's server cancelled them as it left
        cancelled(request_id)
    if _hanging.is_set():
        time.sleep(3600)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ("--http", "--http-json"):
        sdk = os.path.join(HERE, "upstream_sdk_server.py")
        os.execv(sys.executable, [sys.executable, sdk, *sys.argv[1:]])
    main()
