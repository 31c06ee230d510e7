"""The viewer's guard, over real HTTP to ``elision view`` as a process: the token, its
cookie, the Host check, and the headers every answer carries, refusals included."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from elision.view.app import CSP

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def http() -> Any:
    with httpx.Client(follow_redirects=False, timeout=30) as client:
        yield client


def _secured(response: httpx.Response) -> None:
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/", "/call/1", "/chain", "/static/view.css", "/page?ref=x"])
def test_every_path_without_the_token_is_refused(http: Any, viewer: Any, path: str) -> None:
    response = http.get(viewer.base + path)
    assert response.status_code == 403
    assert "rows" not in response.text and "sha256" not in response.text
    _secured(response)


@pytest.mark.parametrize("token", [
    "",  # empty
    "x",  # short
    "TOKEN-WRONG-BY-ONE",  # replaced below by the real token with its last char changed
])
def test_a_wrong_token_is_refused(http: Any, viewer: Any, token: str) -> None:
    if token == "TOKEN-WRONG-BY-ONE":
        token = viewer.token[:-1] + ("A" if viewer.token[-1] != "A" else "B")
    response = http.get(viewer.base + "/", params={"token": token})
    assert response.status_code == 403
    assert "set-cookie" not in response.headers


def test_the_token_becomes_a_strict_httponly_cookie_and_leaves_the_address(
    http: Any, viewer: Any
) -> None:
    response = http.get(viewer.base + "/call/1", params={"token": viewer.token, "x": "1"})
    assert response.status_code == 303
    assert response.headers["location"] == "/call/1?x=1"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    _secured(response)
    with httpx.Client(cookies={"elision_view": viewer.token}) as client:
        page = client.get(viewer.base + "/call/1")
    assert page.status_code == 200 and "rows" in page.text
    _secured(page)
    assert "<script" not in page.text.lower()


@pytest.mark.parametrize("host", [
    "evil.example:{port}",  # a DNS-rebinding page: its name now points at 127.0.0.1
    "127.0.0.1:1",  # the right address, another port
    "127.0.0.2:{port}",  # another loopback address the viewer is not bound to
    "",  # none at all
])
def test_a_host_header_that_is_not_the_viewers_is_refused(viewer: Any, host: str) -> None:
    port = int(viewer.base.rsplit(":", 1)[1])
    request = (f"GET /?token={viewer.token} HTTP/1.1\r\nHost: {host.format(port=port)}\r\n"
               "Connection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = answer.split(b"\r\n", 1)[0]
    assert status.split()[1] in (b"421", b"400"), status
    assert b"set-cookie" not in answer.lower()


def test_localhost_is_the_same_place(http: Any, viewer: Any) -> None:
    url = viewer.base.replace("127.0.0.1", "localhost") + "/"
    response = http.get(url, params={"token": viewer.token})
    assert response.status_code == 303


def test_the_stylesheet_is_the_packages_own(viewer: Any) -> None:
    with httpx.Client(cookies={"elision_view": viewer.token}) as client:
        css = client.get(viewer.base + "/static/view.css")
        other = client.get(viewer.base + "/static/..%2F__init__.py")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "url(" not in css.text and "@import" not in css.text  # nothing from outside
    assert other.status_code == 404


def test_a_page_that_is_not_there_says_where_the_calls_are(viewer: Any) -> None:
    """Found by the newcomer pass: /call/abc answered a bare "Not Found", no way back."""
    with httpx.Client(cookies={"elision_view": viewer.token}) as client:
        answers = [client.get(viewer.base + path)
                   for path in ("/call/abc", "/calls", "/call/1/%1B%5B31mquoted")]
    for answer in answers:
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert "the calls are listed at /" in answer.text and 'href="/"' in answer.text
        assert "\x1b" not in answer.text and "quoted" not in answer.text  # the path not quoted
