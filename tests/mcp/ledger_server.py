"""The demo ledger (``elision.demo.server``) as raw JSON-RPC lines of the handshake era, for
tests that need a large real result behind the proxy. Run as a script on stdio.

The demo server is written with the SDK's ``MCPServer``, and importing the SDK costs a Python
~1.3 s of CPU; test_mcp_client_budget_e2e.py starts eight of them for the size of one result.
This one writes the lines the demo server wrote for the same requests, byte for byte (checked
against it request by request in test_mcp_raw_servers.py: the handshake, the lists, each tool,
the resource, the unknown names), from
the same ledger; only a call with arguments that do not validate is answered in other words
(no test sends one). The proxy's interop with the SDK's own servers is proven on
upstream_sdk_server.py and the others; ``elision demo`` runs the demo server itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from elision.demo import ledger

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.rawserver import initialized, not_found, serve

_OPTIONAL_TEXT = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}


def _dict_output(name: str) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": True, "title": f"{name}DictOutput"}


# As MCPServer described the demo's functions: argument and output models titled after them.
TOOLS = [
    {
        "description": "Search trades by symbol (ACME, BOLT, ...) and side (buy or sell).",
        "inputSchema": {"properties": {"symbol": {**_OPTIONAL_TEXT, "title": "Symbol"},
                                       "side": {**_OPTIONAL_TEXT, "title": "Side"}},
                        "type": "object", "title": "search_tradesArguments"},
        "name": "search_trades",
        "outputSchema": _dict_output("search_trades"),
    },
    {
        "description": "The settlement log of the last day, one line per trade.",
        "inputSchema": {"properties": {}, "type": "object",
                        "title": "failed_settlementsArguments"},
        "name": "failed_settlements",
        "outputSchema": {"properties": {"result": {"title": "Result", "type": "string"}},
                         "required": ["result"], "type": "object",
                         "title": "failed_settlementsOutput"},
    },
    {
        "description": "Trade count, volume and failures of one account, e.g. ACC-0007.",
        "inputSchema": {"properties": {"account": {"title": "Account", "type": "string"}},
                        "required": ["account"], "type": "object",
                        "title": "account_summaryArguments"},
        "name": "account_summary",
        "outputSchema": _dict_output("account_summary"),
    },
]
SYMBOLS_URI = "ledger://symbols"


def structured(value: Any) -> dict[str, Any]:
    """A tool's return value as MCPServer sent it: indented JSON text, and the value itself
    (a string wrapped as ``{"result": …}``)."""
    if isinstance(value, str):
        return {"content": [{"text": value, "type": "text"}], "isError": False,
                "structuredContent": {"result": value}}
    return {"content": [{"text": json.dumps(value, indent=2), "type": "text"}],
            "isError": False, "structuredContent": value}


def call(name: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        if name == "search_trades":
            return structured(ledger.search_trades(arguments.get("symbol"),
                                                   arguments.get("side")))
        if name == "failed_settlements":
            return structured(ledger.failed_settlements())
        if name == "account_summary":
            return structured(ledger.account_summary(arguments["account"]))
    except (KeyError, TypeError) as exc:
        text = f"Error executing tool {name}: {exc!r}"
        return {"content": [{"text": text, "type": "text"}], "isError": True}
    return {"content": [{"text": f"Unknown tool: {name}", "type": "text"}], "isError": True}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, "elision-demo-ledger", {
            "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}},
            instructions="A trade ledger. Results can be large.")
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return {"result": call(params.get("name"), params.get("arguments") or {})}
    if method == "resources/list":
        return {"result": {"resources": [{
            "description": "The traded symbols, one per line.", "mimeType": "text/plain",
            "name": "symbols", "uri": SYMBOLS_URI}]}}
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": []}}
    if method == "resources/read":
        uri = params.get("uri")
        if uri == SYMBOLS_URI:
            return {"result": {"contents": [{"mimeType": "text/plain",
                                             "text": "\n".join(ledger.SYMBOLS), "uri": uri}]}}
        return {"error": {"code": -32602, "message": f"Unknown resource: {uri}",
                          "data": {"uri": uri}}}
    if method == "prompts/list":
        return {"result": {"prompts": []}}
    if method == "prompts/get":  # it has none; the SDK's code, as it sent it
        return {"error": {"code": 0, "message": f"Unknown prompt: {params.get('name')}"}}
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
