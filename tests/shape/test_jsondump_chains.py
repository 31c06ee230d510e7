"""A chain of one-member containers past orjson's 255 levels is written with a few tries of
orjson, not one a level, and as it was written before (:func:`elision.shape.jsondump._chain`).

Found by ``bench/fuzz_paths.py --families govern`` (issue 23): an error whose ``data`` held
1,700 lists each 300 deep took the egress gate 200x the time of prose; each of the 45 levels
over orjson's limit was tried with orjson, and each refusal read 255 levels again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.errors import InputError
from elision.shape import jsondump
from elision.shape.jsondump import dumps_value
from support.calls import counted


def _chain(depth: int, bottom: Any = "x") -> Any:
    value = bottom
    for _ in range(depth):
        value = [value]
    return value


def test_a_deep_chain_is_tried_with_orjson_a_stride_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: 1,747 tries of orjson (each level over its limit refused and read
    again), now one for each 32 links stepped."""
    tried = counted(monkeypatch, jsondump.orjson, "dumps")
    out = dumps_value([_chain(2_000)])
    assert out == b"[" * 2_001 + b'"x"' + b"]" * 2_001
    assert len(tried) <= 70, len(tried)


def test_a_key_at_the_bottom_of_a_chain_that_no_body_can_carry_is_named_with_its_path() -> None:
    value = _chain(300, {"ok": 1, "bad\ud800": 2})
    with pytest.raises(InputError, match=r"lone surrogate") as raised:
        dumps_value({"a": value})
    assert "$.a" + "[0]" * 300 in str(raised.value)


_SCALARS = st.one_of(st.integers(-(2**70), 2**70), st.booleans(), st.none(),
                     st.text(st.characters(exclude_categories=["Cs"]), max_size=4))
_KEYS = st.text(st.characters(exclude_categories=["Cs"]), max_size=3)


@st.composite
def _deep(draw: st.DrawFn) -> Any:
    """Chains of lists and one-member objects hundreds deep, with a branch or a scalar
    member on the way at times, and small trees between them."""
    value: Any = draw(st.recursive(_SCALARS, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)), max_leaves=5))
    for _ in range(draw(st.integers(1, 2))):
        for _ in range(draw(st.integers(0, 400))):
            link = draw(st.integers(0, 200))
            if link < 150:
                value = [value]
            elif link < 199:
                value = {draw(_KEYS): value}
            elif link == 199:
                value = [draw(_SCALARS), value]  # a member beside the chain
            else:
                value = (value,)  # a tuple is an array
        value = [value, draw(_SCALARS)]
    return value


@given(_deep())
@settings(max_examples=40, deadline=None)
def test_deep_values_are_written_as_the_standard_library_writes_them(value: Any) -> None:
    """No floats (the two writers spell some alike only): the standard library's C writer
    goes to any depth the recursion limit allows, orjson's bytes for all else."""
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    assert dumps_value(value) == expected
