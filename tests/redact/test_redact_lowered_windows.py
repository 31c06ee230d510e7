"""A long text is lower-cased a window at a time, never copied whole (issue 23).

Found by ``bench/redact.py``'s peak column: ``url-token-closers`` (``pwd=x)`` and 35 name chars,
100 a 4 KB on one 1 MB line) held 2.0-2.3x the input at its peak, where a text's target is
1.5x: the name words' search (``generic.find_assignments``) and the URL rules
(``urls.find_signed_urls``) each lower-cased the whole line. Counted with ``tracemalloc``, not
the RSS. What is found is the same as one window over all of the text (always run) and as the
code before where ``ELISION_BEFORE_SRC`` names its ``src`` (skipped otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import folding, generic, redact_text, urls
from support.before import redacted
from support.engines import hyperscan_only
from support.traced import peak

MB = 1 << 20


def _closers_line(size: int) -> str:
    unit = "pwd=x)" + "y" * 35
    return (unit * (size // len(unit) + 1))[:size]


@hyperscan_only("the regex passes' trigger search reads one lowered copy of the text, 1.0x "
                "(bounded by test_redact_text_memory's test_the_regex_passes_lower_a_text_once)")
def test_a_long_line_is_not_lowered_whole() -> None:
    """Red before: two lowered copies of the 1 MB line, 1.0x the input above it."""
    text = _closers_line(MB)
    redact_text(text[: 64 << 10])  # caches and databases, made
    assert peak(lambda: redact_text(text)) < len(text) // 2


def test_a_dotted_capital_i_moves_no_name() -> None:
    """Red before: ``İ`` lower-cases to two chars, so every name after it was read one char
    off in the lowered copy, and this assignment was not found (the scan folds the text
    first, so ``redact_text`` withheld it all the same)."""
    text = "\u0130" * 3 + " db_password=Xq7rT2mZp9vLw4 and more"
    spans = generic.find_assignments(text)
    assert [text[s.start:s.end] for s in spans] == ["Xq7rT2mZp9vLw4"]


# Names, commands and the Slack host, in any case, beside the chars whose case changes
# offsets or folds to ASCII, so that a window's edge falls inside each of them.
_PIECES = st.one_of(
    st.sampled_from([
        "password=Xq7rT2mZp9vLw4", "PASSWD: s3cr3tV4lu3x", "api_key=", "x_AUTHORIZATION=",
        "secret", "token", "Passphrase", "jwt=eyJabc.def.ghi", "pwd=x)", "--password hunter22",
        " login ", "mysql -pS3cretPw", "sshpass -p hunter22", "HOOKS.Slack.com",
        "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://h.example/p?sig=Zm9vYmFy&sv=2022&se=1", "&token=s3cr3tval", "%40",
    ]),
    st.sampled_from(["\u0130", "\u0131", "\u212a", "\u017f", "\u03a3", "\u00df", " ", "\n",
                     "=", ":", "-", "_", "y", "Y"]),
    st.text(alphabet="yY0._-= \u0130\u212a", max_size=40),
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(_PIECES, min_size=1, max_size=25)))


def _found(text: str) -> tuple[Any, ...]:
    return (generic.find_assignments(text), urls.find_signed_urls(text),
            folding.holds_lowered(text, "hooks.slack.com"))


@settings(max_examples=300, deadline=None)
@given(_texts(), st.integers(min_value=1, max_value=48))
def test_windows_find_what_one_window_finds(text: str, window: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "_SHAPES", False)  # the loop's windows, not a text's shapes
        whole = _found(text)
        patch.setattr(folding, "LOWER_WINDOW", window)
        assert _found(text) == whole


@settings(max_examples=60, deadline=None)
@given(_texts(), st.integers(min_value=1, max_value=48))
def test_windows_withhold_as_before(
    code_before_answers: Callable[[str, str], Any], text: str, window: int,
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(folding, "LOWER_WINDOW", window)
        assert redacted("text", text) == code_before_answers("text", text)


def test_the_bench_line_is_withheld_as_before(
    code_before_answers: Callable[[str, str], Any],
) -> None:
    text = _closers_line(200_000)
    assert redacted("text", text) == code_before_answers("text", text)
