"""``elision view``: a local web page that shows what the model saw beside what the tool
returned, call by call, with the audit chain's verdict.

:func:`serve` binds 127.0.0.1 (another address only when asked), makes a random token for
this start, prints the URL that carries it and serves until interrupted. The app and its
guard are in :mod:`elision.view.app`; pages of calls in :mod:`elision.view.calls`; the two
bodies in :mod:`elision.view.bodies`; the chain's verdict in :mod:`elision.view.chain`.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from elision.errors import InputError

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers the viewer answers: the address it is bound to (and ``localhost``
    for a loopback address), with the port."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    hosts = {f"{shown}:{port}"}
    if is_loopback(host):
        hosts.add(f"localhost:{port}")
    return hosts


@dataclass
class Started:
    url: str
    token: str
    sock: socket.socket
    host: str
    port: int


def bind(host: str = LOOPBACK, port: int = 0) -> Started:
    """A listening socket on ``host:port`` (port 0: a free one) and a fresh token."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror}; pick another --port (0 picks a "
            "free one)"
        ) from None
    sock.listen(64)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    shown = f"[{host}]" if ":" in host else host
    return Started(f"http://{shown}:{bound}/?token={token}", token, sock, host, bound)


def serve(
    log: str | None = None,
    *,
    store: str | None = None,
    host: str = LOOPBACK,
    port: int = 0,
    show_raw: bool = False,
    key: str | None = None,
    announce: Callable[[Started], None] = lambda started: None,
) -> None:
    """Serve the viewer until interrupted; ``announce`` is told the URL once it listens."""
    import uvicorn

    from elision.view.app import Viewer, build_app
    from elision.view.calls import open_calls
    from elision.view.chain import ChainWatch

    calls = open_calls(log)
    opened = None
    if store is not None or _default_store_exists():
        from elision.store import open_store

        opened = open_store(store)
    spec: str | Path = (log if log and log.startswith(("postgresql://", "postgres://"))
                        else Path(calls.where))
    chain = ChainWatch(spec, key=key)
    started = bind(host, port)
    chain.start()
    app = build_app(Viewer(calls, opened, chain, show_raw=show_raw),
                    token=started.token, hosts=allowed_hosts(started.host, started.port))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    announce(started)
    try:
        server.run(sockets=[started.sock])
    finally:
        started.sock.close()
        calls.close()
        if opened is not None:
            opened.close()


def _default_store_exists() -> bool:
    import os

    from elision.store import default_store_path

    return bool(os.environ.get("ELISION_STORE")) or default_store_path().exists()
