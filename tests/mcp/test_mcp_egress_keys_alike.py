"""Keys the gate cuts to the same first chars stay distinct members.

Found by the gatecost session: a message over its bound has its longest strings cut, keys
included, and two keys cut to the same chars (``com.example/key-0001…`` and
``…-0002…`` at 16 chars) became one key, so every member but the last of them was dropped
and nothing said so (300 ``_meta`` members came out as 30). Where the search for a cap
went below the protocol's own names, those were cut too: 2,000 ``_meta`` members of six-char
keys came out as ``{"json … [elision: cut, shown 4 of 7 chars]": "2.0", "meth …": …}``,
a message no client reads. Keys keep 64 chars now (``KEY_FLOOR``), each cut one distinct.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.mcp.gate import egress
from elision.mcp.gate.egress import NOTIFICATION_BUDGET_BYTES, Egress


def _notification(meta: dict[str, Any], pad: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                         "params": {"_meta": meta, "level": "info", "data": "y" * pad}})


def _members(meta: Any) -> int | None:
    """How many members the gate showed, or None where it summarized the object."""
    return len(meta) if isinstance(meta, dict) else None


def test_keys_cut_alike_are_all_shown_or_summarized() -> None:
    """Red before: 120 keys that differ only past their 72nd char came out as 12 members."""
    meta = {"com.example/" + "p" * 60 + f"{i:04d}" + "x" * 300: i for i in range(120)}
    gated = orjson.loads(Egress().gate_bytes(_notification(meta, 2000)))
    shown = gated["params"]["_meta"]
    assert _members(shown) in (120, None)
    if isinstance(shown, dict):
        assert sorted(shown.values()) == list(range(120))
    else:
        assert shown.startswith("[elision: withheld")
    assert len(orjson.dumps(gated)) <= NOTIFICATION_BUDGET_BYTES


def test_the_protocol_names_are_never_cut() -> None:
    """Red before: ``jsonrpc``, ``method``, ``params`` and ``_meta`` were cut to four chars."""
    meta = {f"{i:06d}": i for i in range(2000)}
    gated = orjson.loads(Egress().gate_bytes(_notification(meta, 0)))
    assert list(gated) == ["jsonrpc", "method", "params"]
    assert list(gated["params"]) == ["_meta", "level", "data"]
    assert gated["method"] == "notifications/message"
    assert len(orjson.dumps(gated)) <= NOTIFICATION_BUDGET_BYTES


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 120), prefix=st.integers(1, 40), tail=st.integers(1, 400),
       pad=st.integers(0, 9000), fast=st.booleans())
def test_no_member_is_lost_to_a_cut_key(
    count: int, prefix: int, tail: int, pad: int, fast: bool
) -> None:
    """Every object comes out with all its members, or summarized as a whole (saying how big
    it was): never with fewer members and no word of it. Both cutters, the fast and the
    plain one."""
    meta = {"k" * prefix + f"{i:04d}" + "z" * tail: i for i in range(count)}
    old = egress._FAST_CAPS
    egress._FAST_CAPS = fast
    try:
        gated = orjson.loads(Egress().gate_bytes(_notification(meta, pad)))
    finally:
        egress._FAST_CAPS = old
    assert list(gated) == ["jsonrpc", "method", "params"]
    shown = gated["params"]["_meta"]
    assert _members(shown) in (count, None)
    if isinstance(shown, dict):
        assert sorted(shown.values()) == list(range(count))
    else:
        assert shown.startswith("[elision: withheld")
