"""An upstream message nested past orjson's 255 levels is bounded like any other.

Found by the fuzzhunt session (bench/fuzz_paths.py, ``govern error-data-deep``): the gate
measured a message over its bound with ``orjson.dumps``, which stops at 255 levels, so an
error whose ``data`` nested 300 deep, a notification's params or a result's structured
content, over 8 KiB, was withheld whole as "a bug in elision" instead of cut.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from elision.mcp.gate.egress import ERROR_BUDGET_BYTES, NOTIFICATION_BUDGET_BYTES, Egress


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [300, 900])
def test_a_deep_error_over_its_bound_is_cut_not_withheld(levels: int) -> None:
    data = [_deep(levels)] * 20
    raw = json.dumps({"jsonrpc": "2.0", "id": 1,
                      "error": {"code": -32000, "message": "failed", "data": data}}).encode()
    assert len(raw) > ERROR_BUDGET_BYTES
    gated = Egress(keep=lambda body, scope: "el_deepErrorKept000000000").gate_bytes(raw)
    out = json.loads(gated)
    assert out["error"]["code"] == -32000  # the upstream's own error, not the gate's
    assert out["error"]["message"].startswith("[elision] error cut to the 8,192-byte")
    assert len(gated) <= ERROR_BUDGET_BYTES


def test_a_deep_notification_over_its_bound_is_bounded_not_dropped() -> None:
    raw = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": [_deep(300)] * 20}}).encode()
    gated = Egress().gate_bytes(raw)
    assert gated, "the notification was dropped"
    out = json.loads(gated)
    assert out["method"] == "notifications/message"
    assert len(gated) <= NOTIFICATION_BUDGET_BYTES


def test_a_lone_surrogate_is_still_withheld() -> None:
    # The fallback is for depth alone: what orjson refuses to write otherwise stays withheld.
    raw = ('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"\\ud800' + "x" * 9000
           + '"}}').encode()
    out = json.loads(Egress().gate_bytes(raw))
    assert out["error"]["code"] == -32603
