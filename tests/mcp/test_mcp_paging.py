"""The proxy's own cursors over several servers' pages, and uri templates (issue 14, item 11)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from elision.mcp.gate.paging import decode_cursor, encode_cursor, paged, template_pattern

SERVERS = ["north", "south", "west"]


@given(server=st.sampled_from(SERVERS), cursor=st.none() | st.text())
def test_a_cursor_names_its_server_and_carries_the_upstream_cursor_exactly(
    server: str, cursor: str | None
) -> None:
    assert decode_cursor(encode_cursor(server, cursor), SERVERS) == (
        SERVERS.index(server), cursor)


@pytest.mark.parametrize(("cursor", "message"), [
    ("42", "not made by the elision proxy"),  # an upstream's own cursor, passed through
    ("elision1.!!!", "not made by the elision proxy"),  # not base64
    ("elision1.WzFd", "not made by the elision proxy"),  # [1]: not [server, cursor]
    (encode_cursor("east", None), "pages server 'east', which is not serving"),  # gone
])
def test_a_cursor_the_proxy_did_not_make_is_refused(cursor: str, message: str) -> None:
    with pytest.raises(MCPError, match=message):
        decode_cursor(cursor, SERVERS)


def test_pages_walk_each_server_in_turn_and_skip_empty_ones() -> None:
    pages: dict[tuple[str, str | None], tuple[list[int], str | None]] = {
        ("north", None): ([1, 2], "n2"), ("north", "n2"): ([3], None),
        ("south", None): ([], None),  # nothing: skipped within the same proxy page
        ("west", None): ([4], None),
    }

    async def walk() -> list[list[int]]:
        out: list[list[int]] = []
        cursor: str | None = None
        while True:
            async def fetch(server: str, inner: str | None) -> Any:
                return pages[(server, inner)]

            found, cursor = await paged(SERVERS, cursor, fetch, lambda s, p: list(p[0]),
                                        lambda p: p[1])
            out.append(found)
            if cursor is None:
                return out

    assert anyio.run(walk) == [[1, 2], [3], [4]]


@pytest.mark.parametrize(("template", "uri", "fits"), [
    ("south://note/{id}", "south://note/7", True),
    ("south://note/{id}", "south://note/7/extra", False),  # {id} is one segment
    ("file:///{+path}", "file:///a/b/c.txt", True),  # {+path} may hold slashes
    ("south://note/{id}", "north://note/7", False),
    ("db://{table}?q={q}", "db://t?q=x", True),
    ("a.b://{x}", "aXb://1", False),  # literals are literal
])
def test_uri_templates(template: str, uri: str, fits: bool) -> None:
    assert (template_pattern(template).match(uri) is not None) is fits
