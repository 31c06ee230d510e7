"""The fold of a text of ASCII and combining marks (NFD prose: an accent a word) in a few
passes in C (issue 23: a run a mark cost NFD prose 131 ms a MB): the same copy and the same
way back as the fold a run at a time, wherever the short way is taken or declined."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact import compat

# A name's ASCII chars, other ASCII, the marks the short way reads (U+0300-033F), marks it
# does not (U+0340, U+034F: a mark that is also invisible, U+0361), chars of the table (a
# zero-width space, a full-width letter, a Cyrillic look-alike) and chars past ASCII that
# fold to nothing (a precomposed letter, an ideograph).
NAMES = "ab_9"
OTHERS = " =.-\n"
MARKS = "\u0300\u0301\u0327\u033f"
FOREIGN = "\u0340\u034f\u0361\u200b\uff41\u0430\u00e9\u6f22"
texts = st.one_of(
    st.text(alphabet=NAMES + OTHERS + MARKS, max_size=30),
    st.text(alphabet=NAMES + OTHERS + MARKS + FOREIGN, max_size=30),
)


def _same(text: str, data: bytes | None) -> None:
    want = compat._folded_runs(compat._tables(), text)
    got = compat.folded(text, data)
    if want is None:
        assert got is None
        return
    assert got is not None
    assert got.text == want.text
    offsets = range(len(want.text) + 1)
    assert [got.start(i) for i in offsets] == [want.start(i) for i in offsets]
    assert [got.end(i) for i in offsets] == [want.end(i) for i in offsets]


@settings(max_examples=500, deadline=None)
@given(text=texts)
def test_the_short_way_folds_as_a_run_at_a_time_does(text: str) -> None:
    """As hyperscan's caller hands it (the UTF-8 with the text) and as the regex engine's
    (the text alone)."""
    _same(text, text.encode("utf-8", "surrogatepass"))
    _same(text, None)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.tuples(st.sampled_from(["caf", "pass", "to", "se_1"]),
                                st.text(alphabet=MARKS, min_size=1, max_size=3),
                                st.sampled_from(["", "word", "ken"]),
                                st.sampled_from([" ", "=", "\n", ". "])), max_size=30))
def test_nfd_prose_takes_the_short_way_and_folds_the_same(
    words: list[tuple[str, str, str, str]],
) -> None:
    """Words with marks after a name's char: every run is folded, so the short way answers
    (it is not declined into the long one), and its copy and map are the long one's."""
    text = "".join("".join(word) for word in words)
    if text.isascii():
        return
    assert compat._marks_only(text, text.encode()) is not None
    _same(text, text.encode())


# A text, whether the short way answers, the copy.
EDGES = [
    pytest.param("pa\u0301ssword", True, "password", id="inside-a-word"),
    pytest.param("\u0301ab", True, "ab", id="first-then-a-name"),
    pytest.param("ab\u0301", True, "ab", id="last-after-a-name"),
    pytest.param("a\u0301\u0300\u0327b c\u0301", True, "ab c", id="a-run-of-three"),
    pytest.param("a \u0301 b", False, None, id="between-spaces-not-folded"),
    pytest.param("\u0301", False, None, id="alone"),
    pytest.param("\u0301 x", False, None, id="first-then-a-space"),
    pytest.param("x \u0301", False, None, id="last-after-a-space"),
    pytest.param("= \u0301\u0300 =a\u0301", False, "= \u0301\u0300 =a", id="one-run-kept"),
    pytest.param("a\u0301\u200bb", False, "ab", id="beside-an-invisible-char"),
    pytest.param("a\u0341b", False, "ab", id="a-mark-past-0x33f"),
    pytest.param("\u00e9a\u0301", False, "\u00e9a", id="beside-another-char"),
]


@pytest.mark.parametrize(("text", "short", "want"), EDGES)
def test_where_the_short_way_answers(text: str, short: bool, want: str | None) -> None:
    assert (compat._marks_only(text, text.encode()) is not None) is short
    got = compat.folded(text, text.encode())
    assert (got and got.text) == want
    _same(text, text.encode())


# NFD words, and credentials among them spelled with marks (a name, a value, a token).
SECRETS = ["pa\u0301ssword=hunter2x ", "to\u0301ken: S3cr\u0300etV4lue9 ",
           "ghp_aB3d\u0301E6fG7hI8jK9lM0nO1pQ2rS3tU4vW5xY6z ", "api_ke\u0327y = 'x7Hk2mQ9vL4pR8' "]


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from(["cafe\u0301 ", "e\u0301cole\n", "ou\u0300 ", "the ",
                                       *SECRETS]), max_size=12),
       kind=st.sampled_from(["text", "json"]))
def test_nfd_text_is_redacted_as_the_code_before(
    parts: list[str], kind: str, code_before_answers: object,
) -> None:
    """Byte for byte as before, as a text and as a JSON string (a development check:
    ``ELISION_BEFORE_SRC``; the in-process differentials above always run)."""
    from support.before import redacted

    assert callable(code_before_answers)
    payload = "".join(parts)
    if kind == "json":
        payload = orjson.dumps({"note": payload}).decode()
    assert redacted(kind, payload) == code_before_answers(kind, payload)
