"""A clean ASCII body is told clean from its bytes under the regex passes too (issue 23).

Under ``ELISION_REDACT_ENGINE=re`` a clean 1 MB log was decoded (1x) and lowered whole (1x)
only to find no trigger: ``shape()`` held 2.0x it, against 0.13x with hyperscan, which tells
it from the bytes. ``_Prefilter.in_ascii_windows`` runs the same passes over the bytes, each
case-insensitive pass in a lowered window at a time read on by what its pattern reads around
a match; its answer is the whole search's, or ``None`` where a pass without a bound would run.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.budget import Budget
from elision.redact import rules, triggers
from elision.shape import shape
from support.engines import trigger_engines, using_engine
from support.traced import peak

MB = 1 << 20
_LINE = b"2026-11-30T12:00:00Z INFO request served in 12 ms by shard 7 of 9 ok\n"
_CLEAN_LOG = _LINE * (MB // len(_LINE))

_PIECES = st.sampled_from([
    "ok ", "INFO ", "the fox ", "\n", "\r\n", " ", "x" * 40, "password=hunter2 ", "PASSWORD=",
    "Token: ", "api_key", "API_KEY=abc", "Secret", "auth_2=", "Cookie_old:", "key_v2=",
    "jwt ", "pwd=", "credentials", "curl -su ", "sk-", "AKIA", "ghp_" + "a1B2c3D4e5" * 3 + "ab",
    "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=", "-----BEGIN ", "|", "@", "%40", "\\", "-", "=",
    "\"", "'", ":", ";", "_", ".",
])


def _whole(data: bytes) -> bool:
    return bool(rules.bytes_prefilter()(data))


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join), st.sampled_from([1, 7, 32, 100]))
@example("x" * 30 + "PassWord=", 32)
@example("a" * 25 + "Secret_v2=", 32)
def test_the_windows_answer_as_the_whole_search(text: str, window: int) -> None:
    data = text.encode()
    told = rules.bytes_prefilter().in_ascii_windows(data, window)
    assert told is None or told == _whole(data)
    if told is False:  # clean to the text's own passes too
        assert not rules.may_match(text)


@pytest.mark.parametrize("name", ["PASSWORD=", "Api_Key=", "SECRET_2:", "Cookie_old=",
                                  "token=", "private_key:",
                                  # an affixed name read on far past its window's end
                                  "Auth_2" + "a" * 100 + "="])
@pytest.mark.parametrize("window", [16, 64])
def test_a_name_across_a_window_edge_is_found(name: str, window: int) -> None:
    for before in range(2 * window):
        data = ("x " * window)[:before].encode() + name.encode() + b"abc\n"
        assert rules.bytes_prefilter().in_ascii_windows(data, window) is True, before


def test_a_clean_ascii_log_is_told_clean_without_a_copy_under_the_regex_passes() -> None:
    regex = trigger_engines()[0]
    with using_engine(regex):
        assert triggers.utf8_text_has_triggers(_CLEAN_LOG) is False  # was None: decoded
        held = peak(lambda: triggers.utf8_text_has_triggers(_CLEAN_LOG))
    # Two lowered windows' worth (64 KB each), not the log lowered whole (1x).
    assert held <= 0.2 * len(_CLEAN_LOG), f"{held / len(_CLEAN_LOG):.2f}x"


def test_shape_of_a_clean_log_holds_no_copy_under_the_regex_passes() -> None:
    with using_engine(trigger_engines()[0]):
        budget = Budget(4096)
        shape(_CLEAN_LOG[:65536], budget)
        held = peak(lambda: shape(_CLEAN_LOG, budget))
    # 2.0x before (the decoding and its lowered copy); hyperscan's path holds 0.13x.
    assert held <= 0.3 * len(_CLEAN_LOG), f"{held / len(_CLEAN_LOG):.2f}x"


@pytest.mark.parametrize("odd", [b"a@b", b"50%", b"C:\\dir", b"| a |"])
def test_a_pass_without_a_bound_leaves_it_to_the_whole_search(odd: bytes) -> None:
    assert rules.bytes_prefilter().in_ascii_windows(_LINE * 4 + odd) is None
