"""What the egress gate does per member of a big message, counted, and that its fast paths
change no governed message.

Found by ``bench/fuzz_paths.py --families govern`` (issue 23): a notification whose ``_meta``
held 47,000 short keys took 175x the time of prose, each key cut and its tail formatted again
at every cap of the bound's binary search; 12,000 annotated text blocks took 68x, a quarter of
it a walk looking for ``blob`` members in a message whose bytes hold none.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.mcp.gate import capping, egress
from elision.mcp.gate.egress import NOTIFICATION_BUDGET_BYTES, Egress
from support.calls import counted

TOKEN = "ghp_S33d3dCh4nn3lT0k3nXyZ0123456789ab"


class _CountedTail(str):
    """The cut's tail template, counting how often it is written."""

    calls = 0

    def format(self, *args: Any, **kwargs: Any) -> str:
        type(self).calls += 1
        return str.format(self, *args, **kwargs)


def _meta_keys(count: int) -> bytes:
    meta = {f"com.example/k{i}": "v" for i in range(count)}
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                         "params": {"level": "info", "data": "ok", "_meta": meta}})


def test_a_cut_tail_is_written_once_a_length_not_once_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(capping, "_CUT", _CountedTail(capping._CUT))
    _CountedTail.calls = 0
    out = Egress().gate_bytes(_meta_keys(5_000), "notification")
    assert len(out) <= NOTIFICATION_BUDGET_BYTES
    # 5,000 keys of 4 lengths, a binary search of about 5 caps: the code before wrote ~25,000
    assert _CountedTail.calls <= 40


def test_a_container_no_cut_reaches_is_not_walked_at_each_cap() -> None:
    short = [{"a": "b", "c": [1, 2, "d"]} for _ in range(2_000)]
    message = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
               "params": {"message": "x" * 90_000, "short": short}}
    out = Egress().gate_message(message)
    assert out["params"]["message"] != message["params"]["message"]  # cut
    assert out["params"]["short"] is short  # the same list: none of its 12,000 values read


def test_no_walk_looks_for_a_blob_in_a_message_whose_bytes_name_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked = [0]
    plain = egress._blobs_redacted

    def counted(value: Any) -> tuple[Any, int]:
        walked[0] += 1
        return plain(value)

    monkeypatch.setattr(egress, "_blobs_redacted", counted)
    block = {"type": "text", "text": "ok", "annotations": {"audience": ["user"]}}
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [block] * 500,
                                                              "x": TOKEN}})
    out = Egress().gate_bytes(raw)
    assert TOKEN.encode() not in out
    assert walked[0] == 0


def test_no_redaction_walks_a_message_whose_bytes_hold_nothing_to_withhold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An error's ``data`` 300 lists deep, 1,700 times: the walk was 600x prose."""
    import elision.redact

    walked = [0]
    plain = elision.redact.redact_value

    def counted(*args: Any, **kwargs: Any) -> Any:
        walked[0] += 1
        return plain(*args, **kwargs)

    monkeypatch.setattr(elision.redact, "redact_value", counted)
    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    raw = egress._dumps({"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32000, "message": "failed", "data": [deep] * 20}})
    out = orjson.loads(Egress(keep=lambda body, scope: "el_kept").gate_bytes(raw))
    assert "el_kept" in out["error"]["message"]
    assert walked[0] == 0
    secret = raw.replace(b'"failed"', b'"' + TOKEN.encode() + b'"')
    assert TOKEN.encode() not in Egress().gate_bytes(secret)
    assert walked[0] == 1


def test_a_body_of_few_members_is_walked_not_searched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Prose: the two searches of its bytes cost more than the walk of its few members."""
    searched = [0]

    def counted(*args: Any) -> bool:
        searched[0] += 1
        return True

    monkeypatch.setattr(egress, "_may_hold_blob", counted)
    monkeypatch.setattr(Egress, "_may_need_redaction", lambda self, raw: counted())
    text = "the quick fox, over the lazy dog\n" * 30_000  # 1 MB, oversized for a kind unknown
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [
        {"type": "text", "text": text}]}})
    assert orjson.loads(Egress().gate_bytes(raw))["result"]["content"][0]["text"] == text
    assert searched[0] == 0


def test_a_blob_named_with_an_escape_is_still_decoded_and_read() -> None:
    """A ``\\u`` escape spells ``blob`` without the bytes ``"blob"``: still read."""
    blob = base64.b64encode(f"push with {TOKEN} please\n".encode()).decode()
    many = b",".join(b'{"uri":"test://y","text":"ok"}' for _ in range(300))  # searched
    raw = (b'{"jsonrpc":"2.0","id":1,"result":{"contents":[' + many + b',{"uri":"test://x",'
           b'"\\u0062lob":"' + blob.encode() + b'"}]}}')
    out = orjson.loads(Egress().gate_bytes(raw))
    shown = base64.b64decode(out["result"]["contents"][-1]["blob"]).decode()
    assert TOKEN not in shown and "[credential withheld" in shown


# -- the fast paths against the plain ones -----------------------------------------------------

_SECRETS = st.sampled_from([TOKEN, "sk-proj-" + "Ab3dE" * 8, "api_key=Zx9Qw8Er7Ty6Ui5Op4"])
_SHORT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)
_LEAF = st.one_of(_SHORT, _SECRETS, st.integers(-(2**53), 2**53), st.none(), st.booleans(),
                  st.text(max_size=1).map(lambda c: c * 3_000))
_JSON = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=6),
    st.dictionaries(st.one_of(_SHORT, _SECRETS), inner, max_size=6),
), max_leaves=30)


def _many(unit: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Many small members (a big ``_meta``, many blocks): the shape the bound cuts hardest."""
    return st.tuples(unit, st.integers(0, 600)).map(
        lambda pair: {f"com.example/k{i}": pair[0] for i in range(pair[1])})


def _ladder() -> st.SearchStrategy[Any]:
    """Members whose strings (keys and values, in small containers) step through lengths:
    each cap of the search cuts some of them and leaves the rest."""
    return st.tuples(st.integers(1, 97), st.integers(0, 500), _SHORT).map(
        lambda t: {f"k{i}{t[2]}" + "-" * ((i * t[0]) % 13): {"n": "z" * ((i * t[0]) % 97)}
                   for i in range(t[1])})


@st.composite
def _messages(draw: st.DrawFn) -> dict[str, Any]:
    meta = draw(st.one_of(_JSON, _many(_JSON), _ladder()))
    extra = draw(st.dictionaries(_SHORT, _JSON, max_size=3))
    kind = draw(st.sampled_from(["notification", "request", "error", "result", "listing"]))
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": draw(st.sampled_from(
            ["notifications/message", "notifications/progress", "x/unknown"])),
            "params": {"progressToken": draw(_SHORT), "data": draw(_JSON), "_meta": meta,
                       **extra}}
    if kind == "request":
        return {"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage",
                "params": {"_meta": {"progressToken": draw(_SHORT), **extra},
                           "messages": draw(_JSON)}}
    if kind == "error":
        return {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32000, "message": draw(st.one_of(_SHORT, _SECRETS)),
            "data": draw(st.one_of(_JSON, _many(_JSON), _ladder()))}, **extra}
    if kind == "listing":
        return {"jsonrpc": "2.0", "id": 2, "result": {
            "tools": draw(st.lists(_JSON, max_size=4)), "nextCursor": draw(_SHORT),
            "_meta": meta, **extra}}
    block = {"type": "text", "text": draw(st.one_of(_SHORT, _SECRETS)),
             "annotations": draw(_JSON)}
    blob = base64.b64encode(draw(st.one_of(_SHORT, _SECRETS)).encode()).decode()
    return {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [block] * draw(st.integers(1, 300)),
        "contents": [{"uri": "x://y", "blob": blob}], "_meta": meta, **extra}}


@given(st.one_of(_JSON, _ladder(), _many(_JSON)), st.integers(0, 120))
@settings(max_examples=200, deadline=None)
def test_a_capper_cuts_as_the_plain_walk_does_at_every_cap(value: Any, cap: int) -> None:
    capper = capping._Capper(value)
    assert capper.longest == capping._longest(value)
    assert orjson.dumps(capper.capped(value, cap)) == orjson.dumps(capping._capped(value, cap))


def _gated(message: dict[str, Any], kind: str | None) -> bytes:
    return Egress(keep=lambda body, scope: "el_kept").gate_bytes(orjson.dumps(message), kind)


@given(_messages(), st.booleans())
@settings(max_examples=60, deadline=None)
def test_the_fast_gate_governs_every_message_as_the_plain_walk_does(
    message: dict[str, Any], told: bool
) -> None:
    kind = egress._kind(message) if told else None
    fast = _gated(message, kind)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(egress, "_FAST_CAPS", False)
        patch.setattr(egress, "_CLEAN_SKIPS", False)
        patch.setattr(egress, "_may_hold_blob", lambda raw: True)
        plain = _gated(message, kind)
    assert fast == plain


@functools.cache
def _before_egress() -> Any:
    src = os.environ.get("ELISION_BEFORE_SRC")
    if not src:
        pytest.skip("ELISION_BEFORE_SRC is not set (the code before's src)")
    path = Path(src) / "elision" / "mcp" / "gate" / "egress.py"
    spec = importlib.util.spec_from_file_location("_egress_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@given(_messages(), st.booleans())
@settings(max_examples=60, deadline=None)
def test_the_gate_governs_every_message_as_the_gate_before_did(
    message: dict[str, Any], told: bool
) -> None:
    """The gate's code before (its redaction this code's: the change is the gate's own).
    Not where the gate before cut a key under ``KEY_FLOOR`` chars: it cut the protocol's own
    names and let keys cut alike replace each other, fixed since
    (``test_mcp_egress_keys_alike.py``)."""
    before = _before_egress()
    kind = egress._kind(message) if told else None
    raw = orjson.dumps(message)
    old = before.Egress(keep=lambda body, scope: "el_kept").gate_bytes(raw, kind)
    assume(not any(int(shown.replace(b",", b"")) < capping.KEY_FLOOR
                   for shown in _KEY_CUT.findall(old)))
    assert _gated(message, kind) == old


#: A cut key in a gated message: how many chars it kept.
_KEY_CUT = re.compile(rb'\[elision: cut, shown ([0-9,]+) of [0-9,]+ chars\]":')


def test_a_result_the_shaper_bounded_is_not_serialized_to_be_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its bound is none (the shaper held it to its budget), so a count of its bytes tells
    nothing: 12,000 annotated blocks were dumped whole for it, a sixth of the gate's time
    (``bench/fuzz_paths.py --families govern``)."""
    measured = counted(monkeypatch, capping, "_dumps")
    block = {"type": "text", "text": "ok", "annotations": {"audience": ["user"]}}
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [block] * 500}})
    assert Egress().gate_bytes(raw) is raw
    assert measured == []


def test_an_error_s_data_is_written_once_to_be_measured_and_to_be_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: twice, the message whole to measure it and its data to keep it; past
    orjson's 255 levels each is the slow writer's (``error-data-deep``, 200x prose)."""
    written = counted(monkeypatch, egress, "_dumps")
    data = [{"n": i, "note": "failed here"} for i in range(2_000)]
    message = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x", "data": data}}
    kept: list[bytes] = []
    out = Egress(keep=lambda body, scope: kept.append(body) or "el_kept").gate_message(message)
    assert "el_kept" in out["error"]["message"]
    assert kept == [b"x\n\ndata: " + orjson.dumps(data)]

    def holds_data(value: Any) -> bool:
        error = value.get("error") if isinstance(value, dict) else None
        return value is data or (isinstance(error, dict) and error.get("data") is data)

    assert sum(map(holds_data, written)) == 1


def test_a_message_its_short_keys_alone_put_over_its_bound_is_not_cut_at_each_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys within ``KEY_FLOOR`` are never cut, so no cap fits 5,000 of them in 8 KB: it is
    summarized at once. Red before: cut at each of 4 caps, the last walking every key
    (``meta-keys``, 20x prose)."""
    cuts = counted(monkeypatch, capping._Capper, "capped")
    out = Egress().gate_bytes(_meta_keys(5_000), "notification")
    assert len(out) <= NOTIFICATION_BUDGET_BYTES
    assert b"[elision: withheld," in out
    assert cuts == []


def test_a_container_whose_keys_no_cut_reaches_is_the_message_s_own_below_their_length() -> None:
    """Red before: its longest key (20 chars, never cut) counted as what a cut reaches, so
    at each cap below it its 2,000 members were copied unchanged."""
    meta = {f"com.example/k{i:07d}": "v" for i in range(2_000)}
    message = {"jsonrpc": "2.0", "method": "x", "params": {"_meta": meta, "note": "n" * 30}}
    capped = capping._Capper(message).capped(message, 5)
    assert capped["params"]["note"] != "n" * 30  # cut
    assert capped["params"]["_meta"] is meta
