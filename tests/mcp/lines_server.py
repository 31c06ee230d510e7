"""An MCP server whose results are many short lines: where a harness's cap on lines (OpenCode
keeps 2,000, Qwen Code 1,000) bites long before its cap on bytes. Run as a script on stdio.

- ``short_log``: 12,001 lines of ``ok`` (~36 KB), its verdict last;
- ``short_error``: the same as the text of an error result;
- the resource ``log://short`` and the prompt ``short_log_prompt``: the same text, read and got.

Written as raw JSON-RPC lines of the handshake era (what the proxy speaks to an upstream unless
told otherwise), without the SDK: importing the SDK costs a Python ~1.3 s of CPU, and each test
of test_mcp_client_lines_e2e.py starts two of these. It writes the lines the SDK's MCPServer
wrote for the same requests, byte for byte (checked against it request by request, the unknown
tool, resource and prompt included, by test_mcp_raw_servers.py against lines_sdk_server.py).
The proxy's interop with the SDK's own servers is proven on upstream_sdk_server.py and the
others.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.rawserver import initialized, not_found, serve

VERDICT = "VERDICT: 3 failures"
LINES = 12_001

LOG_TOOL = "The unit tests' log, one short line a test; its verdict is the last line."
ERROR_TOOL = "The same log, as the text of a failed call."
PROMPT = "The same log, as a prompt's message."
URI = "log://short"


def text() -> str:
    return "\n".join([*(["ok"] * (LINES - 1)), VERDICT])


def tool(name: str, description: str) -> dict[str, Any]:
    # MCPServer titled each tool's argument model after the function
    schema = {"properties": {}, "type": "object", "title": f"{name}Arguments"}
    return {"description": description, "inputSchema": schema, "name": name}


def result(value: dict[str, Any]) -> dict[str, Any]:
    return {"result": value}


def error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"error": body}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, "elision-test-lines", {
            "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}})
    if method == "ping":
        return result({})
    if method == "tools/list":
        return result({"tools": [tool("short_log", LOG_TOOL),
                                             tool("short_error", ERROR_TOOL)]})
    if method == "tools/call":
        name = params.get("name")
        if name in ("short_log", "short_error"):
            return result({"content": [{"text": text(), "type": "text"}],
                                       "isError": name == "short_error"})
        return result({"content": [{"text": f"Unknown tool: {name}",
                                                "type": "text"}], "isError": True})
    if method == "resources/list":
        return result({"resources": [{
            "description": "The same log, as a resource.", "mimeType": "text/plain",
            "name": "short_log_resource", "uri": URI}]})
    if method == "resources/templates/list":
        return result({"resourceTemplates": []})
    if method == "resources/read":
        uri = params.get("uri")
        if uri == URI:
            return result({"contents": [
                {"mimeType": "text/plain", "text": text(), "uri": URI}]})
        return error(-32602, f"Unknown resource: {uri}", {"uri": uri})
    if method == "prompts/list":
        return result({"prompts": [
            {"arguments": [], "description": PROMPT, "name": "short_log_prompt"}]})
    if method == "prompts/get":
        name = params.get("name")
        if name == "short_log_prompt":
            return result({"description": PROMPT, "messages": [
                {"content": {"text": text(), "type": "text"}, "role": "user"}]})
        return error(0, f"Unknown prompt: {name}")  # the SDK's code, as it sent it
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
