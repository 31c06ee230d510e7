"""Error messages quote what a model or a user typed bounded and terminal-safe (issue 22).

``elision_fetch`` with a 200 KB ref answered with the whole ref in its error; a path, a lines
range, a pasted ``next`` call or a stub id did the same, control characters included (an
ESC sequence in a ref cleared the operator's terminal when ``elision fetch`` printed it).
Each now shows at most 64 chars of the input, its length, and no control character.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from elision.errors import ElisionError
from elision.store import MemoryStore
from elision.store.fetch import parse_next
from elision.store.select import parse_path, select_bytes, select_lines

HUGE = "el_\x1b[2J" + "A" * 200_000
LIMIT = 600  # the message around a 64-char quote


def _store_read() -> None:
    MemoryStore().read(HUGE)


def _store_fetch() -> None:
    MemoryStore().fetch(HUGE, path="$")


def _reference() -> None:
    MemoryStore().get_reference(HUGE, scope=None)


@pytest.mark.parametrize(
    "call",
    [
        _store_read,  # the ref elision_fetch was given
        _store_fetch,
        _reference,  # elision_fetch_reference's stub
        lambda: parse_path("$" + HUGE),  # a path that cannot be read
        lambda: parse_path("$.a[" + HUGE),
        lambda: select_lines(b"a\nb\n", HUGE),  # a lines range
        lambda: select_bytes(b"ab", HUGE),
        lambda: parse_next(HUGE),  # a pasted next call
        lambda: parse_next('elision_fetch(' + HUGE + ')'),
    ],
)
def test_an_error_quotes_a_huge_input_bounded(call: Callable[[], object]) -> None:
    with pytest.raises(ElisionError) as caught:
        call()
    message = str(caught.value)
    assert len(message) < LIMIT, message[:200]
    assert "\x1b" not in message
    assert not any(c < " " for c in message if c not in "\t\n")


def test_a_call_to_a_down_server_quotes_the_tool_bounded() -> None:
    """The proxy's refusal of a call to a server that is down echoed the model's tool name."""
    from types import SimpleNamespace

    from elision.errors import UpstreamError
    from elision.mcp.upstream.down import DownServers

    down = DownServers()
    down.mark(SimpleNamespace(name="srv"), UpstreamError("it exited"))  # type: ignore[arg-type]
    message = down.refusal("srv__" + "\x1b[2J" + "x" * 200_000)
    assert message is not None and len(message) < LIMIT and "\x1b" not in message
