"""The URL rules' gates over a whole text, asked with a byte's search (issue 23).

Found by profiling ``bench/redact.py --worst url-token-closers`` after its candidates were
told dead a block at a time: the URL rules (``urls.find_signed_urls``) read its 1 MB line
with a char-class regex for a query's chars (2.2 ms), then for a ``://`` and a ``%40`` that a
``:`` and a ``%`` found absent tell in a ``memchr`` (0.6 ms each): 3.6 ms, five times prose's
redaction. The work test was red on the code before; the gate says what the regex says.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import urls


def _regex_urlish(text: str, start: int, end: int) -> bool:
    return re.search(r"[?&;#%\\]", text[start:end]) is not None or "://" in text[start:end]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="y?&;#%\\:/=@.\u00e9", max_size=60), st.data())
def test_the_gate_says_what_the_regex_says(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    with pytest.MonkeyPatch.context() as patch:
        for above in (0, 8, 1024):  # the finds a char, and the regex
            patch.setattr(urls, "_FIND_ABOVE", above)
            assert urls._urlish(text, start, end) == _regex_urlish(text, start, end)


class _Reading:
    """A pattern that counts the chars its searches are given."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.read = 0

    def search(self, text: str, start: int = 0, end: int = 2**62) -> Any:
        self.read += min(end, len(text)) - start
        return self.pattern.search(text, start, end)


def test_a_long_line_without_a_query_is_not_read_by_the_regex(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: the char-class regex read all of the 400 KB line."""
    reading = _Reading(urls._URLISH)
    monkeypatch.setattr(urls, "_URLISH", reading)
    unit = "pwd=x)" + "y" * 35
    text = unit * 10_000
    assert urls.find_signed_urls(text) == []
    assert reading.read < 10_000
    assert urls.find_signed_urls(text + " https://h.example/p?sig=Zm9vYmFy&sv=2022&se=1") != []
