"""The stdio loop of a test MCP server written as raw JSON-RPC lines of the handshake era,
without the SDK (whose import costs a Python ~1.3 s of CPU a start).

A server gives :func:`serve` its ``answer(method, params)``, which returns the reply's
``{"result": …}`` or ``{"error": …}``; each request is answered in turn, on one line, in the
compact form the SDK's servers wrote. Notifications, and answers to requests such a server
never sends, are read and dropped. Imports nothing but the standard library.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


def serve(answer: Answer) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 **answer(message["method"], message.get("params") or {})}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
