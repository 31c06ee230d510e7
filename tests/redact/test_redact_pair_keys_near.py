"""A window with no pair's name key near it asks no quoted name whether it is a pair's.

Found by the perfpairs session (issue 23, bench class ``ndjson-name-values``): a MB of NDJSON
lines that hold a credential's name as a value (``{"field": "password", "n": 3}``) is 43,000
trigger matches, and each window's (about to turn dense) were asked, each, whether a pair's
name key was before them (``weak.pair_form_lead``, a regex search a name): a third of the
trigger search's match handling. One search in C a window now tells that none is
(``weak.pair_keys_near``); what counts towards the density bound is unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, weak
from support.engines import hyperscan_only

_PARTS = st.sampled_from([
    '"name"', '"Name"', '"key"', "'hostname'", '"header"', '"value"', ":", " ", "\t", "\n",
    '"', "'", "\\", '\\"', "password", "api_key", '"tokens"', ",", "}", "x" * 40, "y" * 90,
])


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(_PARTS, max_size=60), lo=st.integers(0, 400), width=st.integers(1, 300))
def test_no_pair_key_near_means_no_quoted_name_in_the_window_is_a_pairs(
    parts: list[str], lo: int, width: int,
) -> None:
    """Sound: where it says none, :func:`weak.pair_form_lead` finds none for any literal
    that ends in the window, and :func:`weak.quoted_counts` says the same either way."""
    data = "".join(parts).encode()
    hi = lo + width
    near = weak.pair_keys_near(data, lo, hi)
    for end in range(max(1, lo + 1), min(hi, len(data)) + 1):
        if data[end - 1] not in b"\"'\\":
            continue
        if not near:
            assert weak.pair_form_lead(data, end) < 0
        assert weak.quoted_counts(data, end, paired=near) == weak.quoted_counts(data, end)


@hyperscan_only("the regex passes ask each match's name (weak.quoted_match_counts), as before")
def test_ndjson_of_names_as_values_asks_no_name_for_its_pair(monkeypatch: Any) -> None:
    """96 KB of ``ndjson-name-values``' lines: was a search a name of each window's (3,000)."""
    calls = [0]
    real = weak.pair_form_lead

    def counting(data: Any, end: int) -> int:
        calls[0] += 1
        return real(data, end)

    monkeypatch.setattr(weak, "pair_form_lead", counting)
    text = '{"m": "tokens"}\n{"field": "password", "n": 3}\n' * 2000
    assert redact_text(text).withheld == ()
    assert calls[0] < 20


def test_a_pair_in_the_window_is_still_counted() -> None:
    """The pairs' text (``text-pairs``) is credential-dense as before."""
    text = '{"name":"api_key","value":"abc"}\n' * 8000
    assert [e["reason"] for e in redact_text(text).withheld] == ["credential-dense"]


@pytest.mark.parametrize(("data", "lo"), [
    # the key well before the window, the name's literal in it: a pair's name still
    (b'{"name": "' + b"x" * 80 + b'password"}', 90),
    # the key's colon the window's first byte
    (b'{"key"' + b':"password"}', 6),
    # escaped JSON-in-JSON, the key and name's quotes escaped
    (b'{\\"Name\\": \\"' + b"y" * 60 + b'password\\"}', 70),
])
def test_a_key_before_the_window_is_near(data: bytes, lo: int) -> None:
    end = data.rindex(b"password") + len(b"password") + 1
    assert lo < end
    assert weak.pair_form_lead(data, end) >= 0
    assert weak.pair_keys_near(data, lo, len(data))
