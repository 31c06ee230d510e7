"""An MCP server whose resource read, prompt and completion each answer with a JSON-RPC error
of many short lines (1,500, about 3 KB: within the proxy's 8 KB error bound, over Qwen Code's
1,000-line cap). Raw JSON-RPC lines of the handshake era on stdio (tests/support/rawserver.py),
no SDK: it serves only what the test of error line caps needs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.rawserver import initialized, not_found, serve

LINES = 1_500
LAST = "END OF THE ERROR"
URI = "log://broken"
PROMPT = "broken_prompt"


def message() -> str:
    return "\n".join([*(["e"] * (LINES - 1)), LAST])


def failed() -> dict[str, Any]:
    return {"error": {"code": -32000, "message": message()}}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return initialized(params, "elision-test-erring-reads", {
            "completions": {}, "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False}})
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": []}}
    if method == "resources/list":
        return {"result": {"resources": [{"mimeType": "text/plain", "name": "broken", "uri": URI}]}}
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": []}}
    if method == "prompts/list":
        return {"result": {"prompts": [{"arguments": [], "name": PROMPT}]}}
    if method in ("resources/read", "prompts/get", "completion/complete"):
        return failed()
    return not_found(method)


if __name__ == "__main__":
    serve(answer)
