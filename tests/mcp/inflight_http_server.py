"""inflight_server's answers over streamable HTTP, for back-pressure tests of HTTP upstreams.

``python inflight_http_server.py PORT`` serves ``POST /mcp`` on 127.0.0.1, one thread a
request. Each request is answered as inflight_server answers it on stdio; how the answer is
sent follows the completion's value (``"<bytes>"``, ``"<bytes>:notify"`` and so on, see there)
with one more word after a ``/``: ``json`` (the default: one ``application/json`` body with its
``Content-Length``), ``chunked`` (the same body with no length) or ``sse`` (``text/event-stream``,
every message the request caused an event, the answer last). A body is written in pieces of
16 KiB.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import inflight_server

_sink = threading.local()
PIECE = 16 * 1024


def _collect(message: dict[str, Any]) -> None:
    _sink.messages.append(message)


inflight_server.write = _collect


def _how(request: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The request as inflight_server reads it, and how its answer is to be sent."""
    params = request.get("params") or {}
    argument = params.get("argument") if isinstance(params, dict) else None
    if not isinstance(argument, dict) or "/" not in str(argument.get("value", "")):
        return request, "json"
    value, _, how = str(argument["value"]).partition("/")
    return {**request, "params": {**params, "argument": {**argument, "value": value}}}, how


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        request = json.loads(raw)
        if "method" not in request or "id" not in request:  # a notification or an answer
            self.send_response(202)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        request, how = _how(request)
        _sink.messages = []
        inflight_server.answer(request)
        messages = _sink.messages if how == "sse" else _sink.messages[-1:]
        self.send_response(200)
        if how == "sse":
            body = b"".join(b"event: message\ndata: " + json.dumps(m).encode() + b"\n\n"
                            for m in messages)
            self.send_header("content-type", "text/event-stream")
        else:
            body = json.dumps(messages[0]).encode()
            self.send_header("content-type", "application/json")
        if how == "chunked" or how == "sse":
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for at in range(0, len(body), PIECE):
                piece = body[at:at + PIECE]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            for at in range(0, len(body), PIECE):
                self.wfile.write(body[at:at + PIECE])
        self.wfile.flush()


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
