"""A piece's name words are searched for once, where its shapes are not told together (issue 23).

Found by a profile of ``bench/redact.py --worst bearer-letters-lines cookies-json-deep``: a
piece of distinct Bearer tokens (no shape repeats) or of cookie maps (seven words a piece,
fewer than ``generic._SHAPED_FEWEST``) was lowered and split at its name words by
``generic._shaped``, which then declined, and lowered and searched for the same words again by
``find_assignments``' loop: a fifth of that loop's cost. The loop now reads the split's words.
What it finds must not change: the property compares it with the loop alone (shapes off).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import generic, redact_text


class _Counted:
    """A name-word pattern whose searches (``finditer``, ``split``) are counted."""

    def __init__(self, pattern: Any, counts: list[str]) -> None:
        self.pattern, self.counts = pattern, counts

    def finditer(self, *args: Any) -> Iterator[re.Match[str]]:
        self.counts.append("finditer")
        return self.pattern.finditer(*args)  # type: ignore[no-any-return]

    def split(self, *args: Any) -> list[str]:
        self.counts.append("split")
        return self.pattern.split(*args)  # type: ignore[no-any-return]


def _bearer_lines(count: int) -> str:
    # Each token distinct (a line's number spelled in letters), so no shape repeats.
    return "".join(
        f"sent upstream, Authorization: Bearer kXvQmRtbLpWzNyHd{chr(97 + i % 26)}"
        f"{chr(65 + i // 26)}Tq (expired)\n" for i in range(count))


_COOKIE_MAP = '{"cookies": {"sid": "Xq7vR2mK9pL4wT8n"}} the quick brown fox jumps over\n'


@pytest.mark.parametrize(("piece", "values"), [
    # Eight words, each shape its own: _shaped declines (a Bearer token is its family's).
    (_bearer_lines(8), 0),
    (_COOKIE_MAP * 7, 7),  # seven words: too few for _shaped
    ("Password=hunter2x and token: Zq81kLmv0PwnYt3c\n", 2),  # two words, mixed case
], ids=["bearer-distinct", "cookie-maps", "few-words"])
def test_a_piece_is_searched_for_its_name_words_once(
    piece: str, values: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts: list[str] = []
    monkeypatch.setattr(generic, "_NAME_WORD", _Counted(generic._NAME_WORD, counts))
    monkeypatch.setattr(generic, "_NAME_WORD_SPLIT", _Counted(generic._NAME_WORD_SPLIT, counts))
    assert len(generic.find_assignments(piece)) == values
    assert counts == ["split"]


# Names in any case, separators, values, quotes and brackets: the loop's sharp edges (a name
# run on past its word, a word inside a longer name, a value that runs into the next word).
_PARTS = st.sampled_from([
    "password", "PASSWORD", "Passwd", "pass", "passphrase", "secret", "token", "Token",
    "credential", "cookie", "Cookies", "authorization", "Authorization", "auth", "pwd", "key",
    "API_KEY", "jwt", "db_", "_x", "my", "=", ": ", ":=", " = ", '"', "'", '": "', "\\\"",
    "{", "}", "[", "]", ", ", " ", "\n", "\t", "-", "--", "/", "$", "${", ":-",
    "hunter2x", "Xq7vR2mK9pL4wT8n", "kXvQmRtbLpWzNyHd", "Bearer ", "Basic ", "sid=",
    "x" * 30, "the quick brown fox",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PARTS, max_size=24).map("".join))
@example(_bearer_lines(3))
@example(_COOKIE_MAP * 3)
@example("password=hunter2x " * 7)  # seven repeats: _shaped declines, the split is read
def test_the_split_finds_what_the_search_finds(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generic, "_SHAPES", False)
        alone = generic.find_assignments(text)
    assert generic.find_assignments(text) == alone


def test_a_bearer_log_withholds_each_token() -> None:
    text = _bearer_lines(40)
    assert len(redact_text(text).withheld) == 40


def test_a_bearer_header_finds_no_line_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: ``_authorization`` found each header's line end before it saw the Bearer
    scheme, whose token is its family's (found by the same profile)."""
    ends: list[int] = []
    line_end = generic._Reach.line_end

    def counted(self: generic._Reach, at: int) -> int:
        ends.append(at)
        return line_end(self, at)

    monkeypatch.setattr(generic._Reach, "line_end", counted)
    assert generic.find_assignments(_bearer_lines(8)) == []
    assert ends == []
    # A header of another scheme still reads its line.
    assert len(generic.find_assignments("Authorization: Token Zq81kLmv0PwnYt3c9\n")) == 1
    assert ends
