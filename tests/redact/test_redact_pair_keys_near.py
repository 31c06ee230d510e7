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

from elision.redact import redact_text, triggers, weak
from support.calls import counted
from support.engines import hyperscan_only

_PARTS = st.sampled_from([
    '"name"', '"Name"', '"key"', "'hostname'", '"header"', '"value"', ":", " ", "\t", "\n",
    '"NAME"', "'KeY'", '"HEADER"', "\\n", "\\r", ")", "]", "        ",
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
        lead = weak.pair_form_lead(data, end)
        if not near:
            assert lead < 0
        assert lead == _lead_caseless(data, end)
        counted = weak.quoted_counts(data, end)
        assert counted == _counts_sliced(data, end)
        assert weak.quoted_counts(data, end, paired=near) == counted
        assert weak.quoted_counts(memoryview(data), end) == counted
        assert weak.quoted_counts(data.decode(), end) == counted


def _lead_caseless(data: bytes, end: int) -> int:
    """:func:`weak.pair_form_lead` as it was: the caseless pattern over the bytes as they are."""
    start = max(0, end - 1 - weak._PAIR_BACK)
    found = weak._PAIR_NAME.search(data[start:end - 1])
    return -1 if found is None else start + found.start()


def _counts_sliced(data: bytes, end: int) -> bool:
    """:func:`weak.quoted_counts` as it was: the closing check of a slice's copy."""
    at = end
    if data[end - 1] == 0x5C:
        escaped = weak._ESCAPED_QUOTE.match(data[end:end + 66])
        if escaped is None:
            return True
        at = end + escaped.end()
    if weak._CLOSED.match(data[at:at + weak._AFTER]) is None:
        return True
    return _lead_caseless(data, end) >= 0


@hyperscan_only("the regex passes ask each match's name (weak.quoted_match_counts), as before")
def test_ndjson_of_names_as_values_asks_no_name_for_its_pair(monkeypatch: Any) -> None:
    """96 KB of ``ndjson-name-values``' lines: was a search a name of each window's (2,400)."""
    calls = counted(monkeypatch, weak, "pair_form_lead")
    text = '{"m": "tokens"}\n{"field": "password", "n": 3}\n' * 2000
    assert redact_text(text).withheld == ()
    # a few a window before the window is searched once (each window asked some 100)
    assert len(calls) <= (len(text) // triggers.DENSE_WINDOW + 1) * (triggers._PAIRED_ASKS - 1)


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


@pytest.mark.parametrize(("data", "counted"), [
    (b'{"password"' + b" " * 8 + b"}", False),  # closed past 8 spaces: nothing assigned
    (b'{"password"' + b" " * 9 + b"}", True),  # past the spaces read: counted (fail closed)
    (b'{"password"' + b" " * 9, True),
    (b'{"password"' + b" " * 8, False),  # the text's end closes it
    (b'{"password"\\n', False),  # an escaped line break closes it
    (b'{"password"\\t', True),
    (b'{"password": 1', True),
    (b'{"password"' + b" " * 6 + b"x", True),  # a bare value after the spaces
])
def test_a_quoted_names_closing_is_read_in_place(data: bytes, counted: bool) -> None:
    end = data.index(b'password"') + len(b'password"')
    for target in (data, memoryview(data), data.decode()):
        assert weak.quoted_counts(target, end) is counted
