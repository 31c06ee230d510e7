"""An MCP server that puts every seeded credential (``support.seeded``) on every channel.

Run as a script: ``python seeded_server.py`` (stdio). What it sends the seeds on:

* ``tools/list``: each tool's title, description, input and output schemas (descriptions,
  defaults, examples), annotations and ``_meta``;
* ``text`` / ``json``: a text result, and a JSON result in text and ``structuredContent``,
  large enough to be cut (so ``elision_fetch`` pages carry them too), with ``_meta``;
* ``fails``: an ``isError`` result; ``raises``: a JSON-RPC error;
* ``logs``: log messages (a string and an object) during the call;
* ``resources/list`` and ``resources/read``, ``prompts/list`` and ``prompts/get``.

Written as raw JSON-RPC lines of the handshake era, without the SDK: importing the SDK costs a
Python ~1.3 s of CPU a start, and it is there for its channels, not for interop with the SDK.
It writes the lines the SDK's low-level ``Server`` wrote for the same requests, byte for byte:
``seeded_sdk_server.py`` is that server, and test_mcp_raw_servers.py checks the two against
each other on every request the tests send, the unknown names included. The proxy's interop
with the SDK's own servers is proven on upstream_sdk_server.py and the others.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.rawserver import initialized, not_found, notify, serve
from support.seeded import seeded_document, seeded_log, seeds

ALL = "\n".join(s.text for s in seeds())
#: Rows enough that any budget the tests use cuts the JSON result.
ROWS = 400


def _tool(name: str) -> dict[str, Any]:
    # The SDK's models wrote their fields in name order, and a schema's own members after
    # "properties" and "type"; a free dict (a schema's property, _meta) kept its order.
    schema = {"properties": {"q": {
        "type": "string", "description": f"query, e.g. {ALL}",
        "default": seeds()[0].text, "examples": [s.text for s in seeds()]}},
        "type": "object", "description": f"input: {ALL}"}
    tool: dict[str, Any] = {
        "_meta": {"example/note": ALL}, "annotations": {"title": f"annotated {ALL}"},
        "description": f"Returns {ALL}", "inputSchema": schema, "name": name}
    if name == "json":
        tool["outputSchema"] = {"type": "object", "description": f"output: {ALL}"}
    tool["title"] = f"{name}: {seeds()[0].text}"
    return tool


def document() -> dict[str, Any]:
    doc = seeded_document()
    return {**doc, "rows": [{"id": i, "name": f"row {i}"} for i in range(ROWS)],
            "footer": ALL}


def text(value: str) -> list[dict[str, Any]]:
    return [{"text": value, "type": "text"}]


def call(name: Any) -> dict[str, Any]:
    meta = {"example/trace": ALL, "example/nested": {"why": seeds()[1].text}}
    if name == "text":
        body = seeded_log() + "".join(f"line {i} ok\n" for i in range(ROWS)) + seeded_log()
        return {"result": {"_meta": meta, "content": text(body), "isError": False}}
    if name == "json":
        doc = document()
        return {"result": {"_meta": meta, "content": text(json.dumps(
            doc, separators=(",", ":"), ensure_ascii=False)), "isError": False,
            "structuredContent": doc}}
    if name == "fails":
        return {"result": {"_meta": meta, "content": text(f"failed: {ALL}"), "isError": True}}
    if name == "raises":
        return {"error": {"code": -32603, "message": f"upstream broke: {ALL}"}}
    if name == "logs":
        for level, data in (("error", f"log: {ALL}"), ("warning", seeded_document())):
            notify("notifications/message", {
                "level": level, "logger": f"seeded {seeds()[0].text}", "data": data})
        return {"result": {"content": text("logged"), "isError": False}}
    return {"result": {"content": text("no such tool"), "isError": True}}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, "elision-test-seeded", {
            "logging": {}, "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}}, version="1")
    if method in ("ping", "logging/setLevel"):
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": [_tool(n) for n in ("text", "json", "fails", "raises",
                                                        "logs")]}}
    if method == "tools/call":
        return call(params.get("name"))
    if method == "resources/list":
        return {"result": {"resources": [{
            "description": f"notes holding {ALL}", "mimeType": "text/plain", "name": "notes",
            "title": f"notes {seeds()[0].text}", "uri": "test://seeded/notes"}]}}
    if method == "resources/read":  # any uri reads as the notes, as the SDK server's did
        return {"result": {"contents": [
            {"mimeType": "text/plain", "text": seeded_log(), "uri": params.get("uri")}]}}
    if method == "prompts/list":
        return {"result": {"prompts": [{
            "arguments": [{"description": f"who, not {ALL}", "name": "who"}],
            "description": f"hands off {ALL}", "name": "handoff",
            "title": f"handoff {seeds()[0].text}"}]}}
    if method == "prompts/get":  # any name gets the handoff, as the SDK server's did
        return {"result": {"description": f"a handoff with {ALL}", "messages": [
            {"content": {"text": seeded_log(), "type": "text"}, "role": "user"}]}}
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
