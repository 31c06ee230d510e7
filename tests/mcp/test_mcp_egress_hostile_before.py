"""The egress gate governs the hostile messages of ``bench/fuzz_paths.py --families govern``
byte for byte as the code before did (issue 23: each was made cheaper, none may change).

The messages: an error whose ``data`` nests hundreds deep (chains of one-member lists and
objects, past orjson's 255 levels) or holds long runs of escaped quotes and control chars, a
notification or request of many short ``_meta`` keys with a few long ones about
``KEY_FLOOR``, some holding a credential. The code before (``ELISION_BEFORE_SRC``, a
checkout's ``src``) answers in a child process; what each kept as an error's full text is
compared too, by its hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.mcp.gate.egress import REQUEST_BUDGET_BYTES, Egress
from support.before import child_before

TOKEN = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"

_CHILD = r"""
import hashlib, sys, orjson
from elision.mcp.gate.egress import REQUEST_BUDGET_BYTES, Egress
gate = Egress(keep=lambda body, scope: "el_" + hashlib.sha256(body).hexdigest()[:16])
for line in sys.stdin.buffer:
    raw, kind = orjson.loads(line)
    sys.stdout.buffer.write(orjson.dumps(gate.gate_bytes(bytes.fromhex(raw), kind).hex()))
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()
"""


def _gated(raw: bytes, kind: str | None) -> bytes:
    gate = Egress(keep=lambda body, scope: "el_" + hashlib.sha256(body).hexdigest()[:16])
    return gate.gate_bytes(raw, kind)


_TEXT = st.lists(st.sampled_from(['"', "\\", "\x01", "\x1f", "a", "\u00e9", "/", TOKEN]),
                 max_size=6).map("".join)
_SCALAR = st.one_of(st.integers(-3, 2**65), st.booleans(), st.none(), _TEXT,
                    st.floats(allow_nan=False, allow_infinity=False))


@st.composite
def _chain(draw: st.DrawFn) -> Any:
    """Links of one-member lists and objects, a drawn pattern of them repeated hundreds
    deep, broken at times by a list of two (drawn a link at a time, a draw took a second)."""
    value: Any = draw(_SCALAR)
    links = draw(st.lists(st.booleans(), min_size=1, max_size=4))
    key = draw(st.sampled_from(["k", "a/b", "\u00e9", "", TOKEN]))  # a token's: walked
    pair = draw(st.sampled_from([0, 0, 7, 45, 100]))
    for i in range(draw(st.integers(200, 420))):
        if pair and i % pair == pair - 1:
            value = [1, value]
        else:
            value = [value] if links[i % len(links)] else {key: value}
    return value


def _chains() -> st.SearchStrategy[list[Any]]:
    """A few chains, each written many times: a message past its bound."""
    return st.lists(st.tuples(_chain(), st.integers(1, 12)), min_size=1, max_size=3).map(
        lambda drawn: [chain for chain, times in drawn for _ in range(times)])


@st.composite
def _escaped(draw: st.DrawFn) -> str:
    return draw(_TEXT) * draw(st.integers(1, 2_000))


@st.composite
def _keys(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(0, 1_500))
    long = draw(st.integers(55, 75))
    value = draw(_SCALAR)
    return {(f"com.example/k{i}" if i % 97 else "k" * long + str(i)): value
            for i in range(count)}


@st.composite
def _messages(draw: st.DrawFn) -> tuple[dict[str, Any], str | None]:
    payload = draw(st.one_of(_chains(), _escaped(), _keys()))
    kind = draw(st.sampled_from(["error", "error", "notification", "request"]))
    if kind == "error":
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32000, "message": draw(_TEXT), "data": payload}}
    elif kind == "notification":
        message = {"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": draw(_TEXT), "_meta": payload}}
    else:
        message = {"jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
                   "params": {"message": draw(_TEXT), "_meta": {"x": payload}}}
    return message, draw(st.sampled_from([kind, None]))


@pytest.fixture(scope="module")
def before() -> Iterator[Callable[[Any], Any]]:
    """The code before, one child for the whole module (a child a draw would be most of
    its cost)."""
    with child_before(_CHILD) as ask:
        yield ask


@given(drawn=_messages())
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_hostile_message_is_governed_as_the_code_before_governed_it(
    before: Callable[[Any], Any], drawn: tuple[dict[str, Any], str | None],
) -> None:
    message, kind = drawn
    # The standard library's writer: orjson stops at 255 levels, an upstream need not.
    raw = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    now, old = _gated(raw, kind), bytes.fromhex(before([raw.hex(), kind]))
    if old == b"" and now and _depth(message) >= _MEASURED_BEFORE:
        # The code before could not measure it (a RecursionError: it was withheld whole as
        # a gate failure); a message this deep is now bounded as any other.
        assert len(now) <= REQUEST_BUDGET_BYTES
        return
    assert now == old


#: The depth from which the code before's measure of a message's longest string (three
#: frames a level) ran out of stack: it withheld such a message over its bound whole.
_MEASURED_BEFORE = 330


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict | list):
            stack.extend((child, depth + 1)
                         for child in (node.values() if isinstance(node, dict) else node))
    return deepest
