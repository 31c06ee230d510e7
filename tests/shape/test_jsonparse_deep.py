"""A document past the C parsers' depth has its shallow containers read by the C scanner.

Found by ``bench/fuzz_linear.py``'s ``json-deep-wide`` (9,000 levels around a record array,
issue 23): ``parse_deep`` read the whole body a token at a time in Python, 227 ms a MB where a
C parse takes a few, and ``shape()`` with redaction cost 14.5x prose. Its containers that nest
no deeper than the C scanner reads are now read by it whole, with the exact path's hooks: the
same values, repeated keys, refusals and depth limit as the token walk (compared here with the
C reads turned off), and no token of them read in Python.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.errors import InputError
from elision.shape import jsonparse
from elision.shape.jsonparse import MAX_DEPTH, dumps_value, parse_deep
from support.json_tokens import Token, json_documents

documents = json_documents(
    st.sampled_from(["1", "-0", "1.10", "1E5", "18446744073709551616", "2.5", "1e400"]),
    st.text(alphabet="ab\u0130\u212a\"\\\x01", max_size=6),
    st.sampled_from(["a", "b", "\u0130", "\u212a"]),  # few keys: objects repeat them
    st.sampled_from(["", " ", "\n"]),
    max_items=4, max_leaves=20,
)


def _outcome(body: bytes, *, c_reads: bool) -> tuple[Any, ...]:
    shadowed: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonparse, "C_READS", c_reads)
        try:
            value = parse_deep(body, shadowed)
        except InputError as exc:  # DepthError is one
            return type(exc).__name__, str(exc)
    return _spelled(value), shadowed  # exact spellings, at any depth (repr recurses)


def _spelled(value: Any) -> tuple[list[str | None], bytes]:
    """``dumps_value(value)`` told as the containers of one member around it (a key, or
    ``None`` for an array) and the bytes inside them: the same comparison, where writing a
    spine of thousands of levels a member at a time was half of these tests' CPU."""
    around: list[str | None] = []
    while type(value) in (list, dict) and len(value) == 1:
        if type(value) is list:
            around.append(None)
            value = value[0]
        else:
            (key, value), = value.items()
            around.append(key)
    return around, dumps_value(value)


def _records(count: int, depth: int) -> bytes:
    rows = b",".join([b'{"id":1,"ok":true,"v":[2.50,"x"]}'] * count)
    return b'{"k":' * depth + b"[" + rows + b"]" + b"}" * depth


def test_a_deep_record_array_is_not_read_a_token_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: each record's three scalars were read by ``_scalar``, 6,000 calls."""
    calls = [0]
    scalar = jsonparse._scalar

    def counted(text: str, pos: int) -> Any:
        calls[0] += 1
        return scalar(text, pos)

    monkeypatch.setattr(jsonparse, "_scalar", counted)
    body = _records(2000, 9000)
    value = parse_deep(body)
    assert calls[0] < 10
    for _ in range(9000):
        value = value["k"]
    assert len(value) == 2000 and repr(value[0]) == repr({"id": 1, "ok": True, "v": [
        jsonparse.parse_json(b"2.50"), "x"]})


# Nesting around MAX_DEPTH: a spine, then a shallow container as deep as is left, or one more.
@pytest.mark.parametrize("spine", [1100, 5000, 9000, 9472, 9600, 9990])
@pytest.mark.parametrize("over", [0, 1])
@pytest.mark.parametrize("bounded", [True, False])  # False: as from 3.12, the read is measured
def test_the_depth_limit_holds_where_the_c_scanner_reads(
    spine: int, over: int, bounded: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonparse, "_C_BOUNDED", bounded)
    inner = MAX_DEPTH - spine + over
    body = (b'{"k":' * spine + b"[" * inner + b"1" + b"]" * inner + b"}" * spine)
    got = _outcome(body, c_reads=True)
    assert got == _outcome(body, c_reads=False)
    assert (got[0] == "DepthError") == bool(over)


@settings(max_examples=150, deadline=None)
@given(documents, st.sampled_from([1100, 1400, 9000, 9800]), st.integers(0, 3),
       st.booleans(), st.data())
def test_c_reads_parse_as_the_token_walk(
    token: Token, spine: int, siblings: int, bounded: bool, data: st.DataObject,
) -> None:
    """The same value, repeated keys' paths, and refusal (its message and offset) with the C
    reads on and off: documents with repeats, escapes, case folds and numbers the exact path
    keeps raw, under a spine, beside siblings, whole or cut or damaged."""
    inner = token[0]
    sibling = "".join(f',{{"k":{inner}}}' for _ in range(siblings))
    body = bytearray(("[" * spine + inner + sibling + "]" * spine).encode("utf-8"))
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(spine, len(body)))
        body = body[:cut]
        if len(body) > spine and data.draw(st.booleans()):
            body[data.draw(st.integers(spine, len(body) - 1))] = data.draw(st.integers(0, 255))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonparse, "_C_BOUNDED", bounded)
        try:
            expected = _outcome(bytes(body), c_reads=False)
        except Exception as exc:  # the decode of damaged bytes: both must raise alike
            with pytest.raises(type(exc)):
                _outcome(bytes(body), c_reads=True)
            return
        assert _outcome(bytes(body), c_reads=True) == expected


def test_a_repeated_key_is_read_by_the_token_walk_with_its_path() -> None:
    body = b"[" * 1100 + b'{"a":1,"b":{"c":1,"c":2},"a":3}' + b"]" * 1100
    value, shadowed = _outcome(body, c_reads=True)
    assert (value, shadowed) == _outcome(body, c_reads=False)
    assert shadowed == ["$" + "[0]" * 1100 + ".b.c", "$" + "[0]" * 1100 + ".a"]
