"""The viewer's web app: a small Starlette app behind a guard that every request passes.

The guard (:class:`Guard`) answers before any page is made:

* a ``Host`` header other than the address the viewer is bound to is refused (a page on
  another site that rebinds its name to 127.0.0.1 cannot read the viewer);
* the per-start token is required: in the printed URL as ``?token=…`` (answered by a
  redirect to the same page without it, setting an ``HttpOnly``, ``SameSite=Strict``
  cookie), then that cookie; both compared in constant time;
* every response carries a strict Content-Security-Policy (nothing from outside, no inline
  script or style), ``nosniff``, ``no-referrer`` and ``no-store``.

Pages are Jinja2 templates with autoescaping on: every value from the log or a body is text,
never markup, and control characters are spelled out (:func:`elision.view.bodies.visible`).
The stylesheet is package data; the pages run no script.
"""

from __future__ import annotations

import hmac
import importlib.resources
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from elision.errors import ElisionError, InputError
from elision.store.base import OWNER_SCOPE, Store
from elision.view.bodies import (
    Account,
    account_of,
    draw_full,
    draw_shown,
    find_body,
    pieces,
    visible,
)
from elision.view.calls import Call, Calls, Filter
from elision.view.chain import ChainWatch

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "elision_view"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
DECISIONS = ("allow", "modify", "deny", "ask", "defer")
STATIC = ("view.css",)


@dataclass
class Viewer:
    """What the pages read: the log's calls, the store, the chain's verdict, and whether raw
    bodies may be shown (only when the viewer was started with ``--show-raw``)."""

    calls: Calls
    store: Store | None
    chain: ChainWatch
    show_raw: bool = False
    fetch_budget: int = 8192
    _templates: Any = field(default=None, init=False, repr=False)

    def render(self, name: str, **context: Any) -> str:
        if self._templates is None:
            import jinja2

            env = jinja2.Environment(
                loader=jinja2.PackageLoader("elision.view", "templates"),
                autoescape=True, undefined=jinja2.StrictUndefined,
            )
            env.filters["visible"] = visible
            env.filters["short"] = lambda s: (str(s)[:12] + "…") if s and len(str(s)) > 13 else s
            env.globals["url"] = _url
            self._templates = env
        template = self._templates.get_template(name)
        # The store is named beside the log: a viewer given another store than the proxy's
        # finds none of its bodies, and the reader should see which one it reads.
        bodies = "no store" if self.store is None else str(getattr(self.store, "path", "a store"))
        return str(template.render(raw=self.show_raw, where=self.calls.where, bodies=bodies,
                                   **context))


def _url(where: str, /, **query: Any) -> str:
    """A link within the viewer; every value is URL-encoded (the template escapes the rest)."""
    pairs = {k: str(v) for k, v in query.items() if v is not None and v != ""}
    return where + ("?" + urlencode(pairs) if pairs else "")


def build_app(viewer: Viewer, *, token: str, hosts: set[str]) -> ASGIApp:
    """The viewer's ASGI app, behind the guard."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Route

    def html(body: str, status: int = 200) -> Response:
        return HTMLResponse(body, status_code=status)

    def failed(exc: ElisionError) -> Response:
        from elision.redact.messages import redact_message

        status = 400 if isinstance(exc, InputError) else 500
        return html(viewer.render("error.html", message=redact_message(str(exc))), status)

    def calls_page(request: Request) -> Response:
        query = dict(request.query_params)
        try:
            flt = Filter.parse(query)
            page = viewer.calls.page(flt, before=_int(query.get("older")),
                                     after=_int(query.get("newer")))
        except ElisionError as exc:
            return failed(exc)
        rows = [_row(viewer, call) for call in page.calls]
        return html(viewer.render("calls.html", page=page, rows=rows, filter=flt,
                                  decisions=DECISIONS, verdict=viewer.chain.verdict.about_log()))

    def call_page(request: Request) -> Response:
        seq = int(request.path_params["seq"])
        try:
            call = viewer.calls.get(seq)
        except ElisionError as exc:
            return failed(exc)
        if call is None:
            return html(viewer.render("error.html", message=f"the log has no entry {seq}"), 404)
        return html(viewer.render("call.html", **_call_view(viewer, call)))

    def fetched_page(request: Request) -> Response:
        query = dict(request.query_params)
        ref = query.get("ref", "")
        if viewer.store is None:
            return html(viewer.render("error.html", message="no store was given (--store)"),
                        404)
        try:
            from elision.budget import Budget

            shaped = viewer.store.fetch(
                ref, path=query.get("path") or None, lines=query.get("lines") or None,
                byte_range=query.get("bytes") or None, budget=Budget(viewer.fetch_budget),
                scope=OWNER_SCOPE, redact=not viewer.show_raw)
        except ElisionError as exc:
            return failed(exc)
        body = shaped.body
        account = account_of(body)
        return html(viewer.render("page.html", ref=ref, query=query, drawn=draw_shown(body),
                                  account=account))

    def chain_page(request: Request) -> Response:
        return html(viewer.render("chain.html", verdict=viewer.chain.verdict,
                                  about=viewer.chain.verdict.about_log()))

    async def chain_again(request: Request) -> Response:
        viewer.chain.start()
        return RedirectResponse("/chain", status_code=303)

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404, media_type="text/plain")
        data = importlib.resources.files("elision.view").joinpath("static", name).read_bytes()
        return Response(data, media_type="text/css")

    def no_such_page(request: Request, exc: Exception) -> Response:
        # The path is not quoted back: it is the visitor's text, and the list is the way on.
        return html(viewer.render(
            "error.html", message="there is no such page in this viewer: the calls are "
            "listed at /, and a call's page is /call/<entry number>"), 404)

    app = Starlette(exception_handlers={404: no_such_page}, routes=[
        Route("/", calls_page),
        Route("/call/{seq:int}", call_page),
        Route("/page", fetched_page),
        Route("/chain", chain_page, methods=["GET"]),
        Route("/chain", chain_again, methods=["POST"]),
        Route("/static/{name}", static),
    ])
    return Guard(app, token=token, hosts=hosts)


def _int(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise InputError(f"a page key must be an entry number, got {text!r}") from None


@dataclass
class Row:
    call: Call
    elided: int | None
    note: str = ""


def _row(viewer: Viewer, call: Call) -> Row:
    """One line of the list; the elided count is read from the kept shown body: its trimmed
    nodes and its cut texts (a result that went out complete elided nothing, and needs no
    lookup)."""
    if call.member("complete") is True:
        return Row(call, 0)
    sha, size = call.digest("shown")
    side = find_body(viewer.store, sha, size)
    if side.body is None:
        return Row(call, None, "the shown body is not kept")
    account = account_of(side.body)
    return Row(call, len(account.elided) + len(account.texts))


def _call_view(viewer: Viewer, call: Call) -> dict[str, Any]:
    shown = find_body(viewer.store, *call.digest("shown"))
    full = find_body(viewer.store, *call.digest("full"))
    if full.body is None and shown.body is not None and call.digest("full")[0] == (
            call.digest("shown")[0]):
        full = shown  # sent as it came: one body, kept once
    account = account_of(shown.body) if shown.body is not None else Account()
    parts: list[dict[str, Any]] = []
    if shown.body is not None:
        for label, full_part, shown_part in pieces(full.body, shown.body):
            part: dict[str, Any] = {"label": label, "shown": draw_shown(shown_part)}
            if full_part is not None:
                part["full"], part["withheld_at"] = draw_full(full_part, shown_part,
                                                              raw=viewer.show_raw)
            parts.append(part)
    elif full.body is not None:
        drawn, where = draw_full(full.body, None, raw=viewer.show_raw)
        parts.append({"label": "result", "shown": None, "full": drawn, "withheld_at": where})
    verdict = viewer.chain.verdict
    return {
        "call": call, "entry": call.entry or {}, "shown": shown, "full": full,
        "account": account, "parts": parts, "verdict": verdict.about_log(),
        "entry_verdict": verdict.about_entry(call.seq),
        "session_verdict": verdict.about_session(call.member("session_id")),
        "checkpoints": verdict.checkpoints,
        "nexts": _next_links(account),
        "size": viewer.calls.size(),
    }


def _next_links(account: Account) -> list[dict[str, str]]:
    out = []
    for args in account.nexts:
        out.append({"href": _url("/page", **args),
                    "text": ", ".join(f"{k}={v}" for k, v in args.items())})
    for ref in account.refs:
        if not any(a.get("ref") == ref for a in account.nexts):
            out.append({"href": _url("/page", ref=ref), "text": f"ref={ref} (first page)"})
    return out


class Guard:
    """Host check, token, security headers: in front of every route, static files too."""

    def __init__(self, app: ASGIApp, *, token: str, hosts: set[str]) -> None:
        self.app = app
        self.token = token.encode()
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            await _plain(send, 421, "this viewer answers only at the address it printed "
                         "(the Host header names another)")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.pop("token", None)
        if given is not None:
            if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token):
                await _plain(send, 403, "wrong token: open the URL elision view printed")
                return
            # Into a cookie, and out of the address bar (and the browser's history).
            location = scope.get("path", "/") + ("?" + urlencode(query) if query else "")
            cookie = (f"{COOKIE}={self.token.decode()}; Path=/; HttpOnly; SameSite=Strict")
            await send({"type": "http.response.start", "status": 303, "headers": [
                (b"location", location.encode("latin-1", "replace")),
                (b"set-cookie", cookie.encode()), *SECURITY_HEADERS]})
            await send({"type": "http.response.body", "body": b""})
            return
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:
            jar = SimpleCookie()
        morsel = jar.get(COOKIE)
        if morsel is None or not hmac.compare_digest(morsel.value.encode("utf-8", "replace"),
                                                     self.token):
            await _plain(send, 403, "this viewer needs its token: open the URL elision view "
                         "printed (it ends in ?token=…)")
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_secured)


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": text.encode()})
