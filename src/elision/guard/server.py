"""Serve the ACS endpoint over HTTP: ``POST /acs``, one JSON-RPC message per request.

The standard library's threading HTTP server in a background thread: no new dependency, and
:meth:`GuardianServer.stop` shuts it down cleanly (tests start and stop it in-process; the
CLI runs it in the foreground until interrupted).
"""

from __future__ import annotations

import ipaddress
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import orjson

from elision.errors import ElisionError, InputError
from elision.guard.acs import AcsEndpoint
from elision.guard.acs_wire import INVALID_REQUEST

#: Largest request body accepted; a bounded toolCallResult keeps real ones far below this.
MAX_REQUEST_BYTES = 64 * 1024 * 1024
PATH = "/acs"


def parse_listen(listen: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) into its parts, or a clear error."""
    host, sep, port_text = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise InputError(
            f"--listen must be HOST:PORT such as 127.0.0.1:8787, got {listen!r}"
        )
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class GuardianServer:
    """An HTTP server for one :class:`AcsEndpoint`; ``port=0`` picks a free port."""

    def __init__(
        self,
        endpoint: AcsEndpoint,
        host: str = "127.0.0.1",
        port: int = 8787,
        *,
        max_request_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self.endpoint = endpoint
        handler = _handler_class(endpoint, max_request_bytes)
        try:
            self._httpd = ThreadingHTTPServer((host, port), handler)
        except OSError as exc:
            raise ElisionError(
                f"cannot listen on {host}:{port}: {exc.strerror}; pick another port with "
                "--listen"
            ) from None
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{PATH}"

    def start(self) -> GuardianServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="elision-guardian",
            daemon=True,
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`stop` (or KeyboardInterrupt)."""
        self._httpd.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> GuardianServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _handler_class(endpoint: AcsEndpoint, limit: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "elision-guardian"
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            if self.path.split("?")[0] != PATH:
                self._send(404, {"error": f"no such path {self.path!r}; POST to {PATH}"})
                return
            length_text = self.headers.get("Content-Length")
            if length_text is None or not length_text.isdigit():
                self._send(411, _http_error("a Content-Length header is required"))
                return
            length = int(length_text)
            if length > limit:
                self.close_connection = True
                self._send(413, _http_error(
                    f"request body is {length:,} bytes, over the {limit:,}-byte limit; send a "
                    "bounded output (inline prefix, digest, content_ref) instead"))
                return
            raw = self.rfile.read(length)
            self._send_raw(200, endpoint.handle_bytes(raw))

        def do_GET(self) -> None:
            self._send(405, {"error": f"use POST {PATH} with a JSON-RPC 2.0 body"})

        def _send(self, status: int, body: object) -> None:
            self._send_raw(status, orjson.dumps(body))

        def _send_raw(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            # Request lines can carry nothing secret, but the default writes every one to
            # stderr; the Guardian's record is the audit log, not an access log.
            pass

    return Handler


def _http_error(message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": None,
            "error": {"code": INVALID_REQUEST, "message": message}}
