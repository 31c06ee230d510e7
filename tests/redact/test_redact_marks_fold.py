"""The fold of a text of ASCII and combining marks (NFD prose: an accent a word) in a few
passes in C (issue 23: a run a mark cost NFD prose 131 ms a MB): the same copy and the same
way back as the fold a run at a time, wherever the short way is taken or declined."""

from __future__ import annotations

from unittest.mock import patch

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
# French as typeset and its neighbours (nfdfr): chars the fold leaves (a curly apostrophe,
# guillemets, an em dash, a smiley past the astral ranges), chars it folds one for one (a
# no-break space, a narrow one, a full-width semicolon, a mathematical letter, U+1F389 of
# the astral ranges the run holds but the table does not), an expansion (an ellipsis, the
# ligature fi), a look-alike, a surrogate's neighbour (Hangul).
TYPESET = ("\u2019\u00ab\u00bb\u2014\U0001f600\u00a0\u202f\uff1b\U0001d41a\U0001f389"
           "\u2026\ufb01\u0440\ud55c")
texts = st.one_of(
    st.text(alphabet=NAMES + OTHERS + MARKS, max_size=30),
    st.text(alphabet=NAMES + OTHERS + MARKS + FOREIGN, max_size=30),
    st.text(alphabet=NAMES + OTHERS + MARKS + TYPESET, max_size=30),
    st.text(alphabet=NAMES + OTHERS + MARKS + FOREIGN + TYPESET, max_size=40),
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


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.tuples(st.sampled_from(["", "l\u2019", "\u00ab\u00a0", "qu\u2019"]),
                                st.sampled_from(["caf", "pass", "to", "e\u0301t"]),
                                st.text(alphabet=MARKS, min_size=1, max_size=2),
                                st.sampled_from(["", "word", "\u00a0\u00bb", "\u202f;"]),
                                st.sampled_from([" ", "\u00a0: ", "\n", "\u2026 ", ", "])),
                      max_size=30))
def test_french_as_typeset_takes_the_short_way_and_folds_the_same(
    words: list[tuple[str, str, str, str, str]],
) -> None:
    """NFD words with a curly apostrophe, guillemets and no-break spaces among them (nfdfr:
    they sent a text a run at a time, 77 ms a MB): the short way answers but where an
    ellipsis (an expansion) is folded, and its copy and map are the long one's."""
    text = "".join("".join(word) for word in words)
    if text.isascii():
        return
    data = text.encode()
    if "\u2026" not in text and "\u0301" in text:
        assert compat._marks_among(text, data) is not None
    _same(text, data)
    _same(text, None)


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


# A text past ASCII and marks, whether the short way for it answers, the copy.
AMONG = [
    # an apostrophe before a word with an accent: the mark folded, the apostrophe left
    pytest.param("l\u2019e\u0301cole", True, "l\u2019ecole", id="apostrophe"),
    # guillemets with no-break spaces beside ASCII: each space folded one for one
    pytest.param("\u00ab\u00a0cafe\u0301\u00a0\u00bb", True, "\u00ab cafe \u00bb",
                 id="guillemets"),
    # a no-break space right after a mark: one run of the two, folded from the mark
    pytest.param("e\u0301\u00a0: x", True, "e : x", id="mark-then-space"),
    # a run of a mark and a space between spaces: the run left as it is, marks and all
    pytest.param("a \u0301\u00a0 b\u0301", True, "a \u0301\u00a0 b", id="run-kept"),
    # a lone run of marks after an apostrophe: left as it is, so the long way answers
    pytest.param("\u2019\u0301 b\u0301", False, "\u2019\u0301 b", id="lone-marks"),
    # an ellipsis beside ASCII expands to three chars: the long way answers
    pytest.param("e\u0301t\u00e9\u2026x", False, "et\u00e9...x", id="expansion"),
    # Hangul shares its lead byte with a surrogate: the long way answers
    pytest.param("\ud55ca\u0301", False, "\ud55ca", id="hangul"),
    # an astral smiley is no char of a run: the mark before it folded
    pytest.param("e\u0301\U0001f600", True, "e\U0001f600", id="smiley"),
    # U+1F389 is in the run's astral range but not the table: the run is the mark and it
    pytest.param("e\u0301\U0001f389", True, "e\U0001f389", id="astral-run-char"),
    # only a mark in a run of another char, and that run left: nothing folded
    pytest.param("\u00a0\u0301 \u2019", True, None, id="nothing-folded"),
]


@pytest.mark.parametrize(("text", "short", "want"), AMONG)
def test_where_the_short_way_among_other_chars_answers(
    text: str, short: bool, want: str | None,
) -> None:
    data = text.encode("utf-8", "surrogatepass")
    got_short = compat._marks_among(text, data)
    assert (got_short is not None or want is None) is short
    got = compat.folded(text, data)
    assert (got and got.text) == want
    _same(text, data)
    _same(text, None)


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


# A JSON body of ASCII and marks (nfdfr: records of a line of NFD prose had every string
# judged alone, 269 ms a MB beside 4.7 in ASCII): the body is searched with its marks dropped,
# each position mapped back. The serialization, whether it is read so, its ASCII.
UNMARKED = [
    # a mark after its letter in a string: dropped
    pytest.param('{"a":"cafe\u0301"}', True, '{"a":"cafe"}', id="in-a-string"),
    # a name spelled with a mark: the ASCII holds the name
    pytest.param('{"pa\u0301ssword":"x"}', True, '{"password":"x"}', id="in-a-key"),
    # a mark first in a string, a name's char after it
    pytest.param('["\u0301ab"]', True, '["ab"]', id="first-in-a-string"),
    # after an escape's letter: a newline in the string, no name's char beside the mark
    pytest.param('["x\\n\u0301 y"]', False, None, id="after-an-escape-letter"),
    # after a \u escape's last hex digit: the string's char is not ASCII
    pytest.param('["\\u00e9\u0301b"]', False, None, id="after-a-u-escape"),
    # an escaped backslash then a letter: a name's char, but declined all the same
    pytest.param('["\\\\n\u0301"]', False, None, id="after-an-escaped-backslash"),
    # a run the fold leaves (spaces beside it)
    pytest.param('["a \u0301 b"]', False, None, id="a-lone-run"),
    # another char past ASCII: the fold a run at a time reads it
    pytest.param('["\u00e9a\u0301"]', False, None, id="another-char"),
    # no mark
    pytest.param('["caf\u00e9"]', False, None, id="no-mark"),
]


@pytest.mark.parametrize(("body", "short", "want"), UNMARKED)
def test_where_a_json_body_is_read_without_its_marks(
    body: str, short: bool, want: str | None,
) -> None:
    got = compat.unmarked(body.encode())
    assert (got is not None) is short
    if got is not None:
        ascii_, back = got
        assert ascii_.decode() == want
        data = body.encode()
        # Each ASCII byte maps back to the same byte of the body.
        for i, byte in enumerate(ascii_):
            assert data[back.start(i)] == byte


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=NAMES + OTHERS + MARKS, max_size=40),
       data=st.data())
def test_each_offset_maps_back_in_one_pass_as_one_at_a_time(text: str, data: st.DataObject) -> None:
    """:meth:`_Dropped.starts` of ascending offsets is :meth:`_Dropped.start` of each, for a
    body's bytes and a text's chars alike."""
    body = orjson.dumps([text])
    got = compat.unmarked(body)
    if got is None:
        return
    back = got[1]
    ats = sorted(data.draw(st.lists(st.integers(0, len(got[0]) + 2), max_size=12)))
    assert back.starts(ats) == [back.start(at) for at in ats]
    assert [body[at] for at in back.starts(range(len(got[0])))] == list(got[0])


def _records(draw_words: list[tuple[str, str]]) -> bytes:
    return orjson.dumps([{"id": i, key: value} for i, (key, value) in enumerate(draw_words)])


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.tuples(
    st.sampled_from(["text", "note", "pa\u0301ssword", "to\u0301ken", "e\u0301tat"]),
    st.lists(st.sampled_from(["cafe\u0301 ", "e\u0301cole ", "ou\u0300 ", "the ", *SECRETS,
                              "sk-\u0301abc ", "Bearer e\u0301x "]),
             max_size=5).map("".join)), min_size=1, max_size=8))
def test_nfd_records_are_redacted_as_each_string_judged_alone(
    words: list[tuple[str, str]],
) -> None:
    """A body of NFD records read without its marks withholds what judging each string with a
    mark alone (the way before, kept where the body is declined) withholds, byte for byte."""
    from support.before import redacted

    body = _records(words).decode()
    now = redacted("json", body)
    with patch.object(compat, "unmarked", lambda data: None):
        assert now == redacted("json", body)


@settings(max_examples=30, deadline=None)
@given(words=st.lists(st.tuples(st.sampled_from(["text", "pa\u0301ssword"]),
                                st.sampled_from(["cafe\u0301 ", *SECRETS])),
                      min_size=1, max_size=6))
def test_nfd_records_are_redacted_as_the_code_before(
    words: list[tuple[str, str]], code_before_answers: object,
) -> None:
    """A development check (``ELISION_BEFORE_SRC``), beside the in-process one above."""
    from support.before import redacted

    assert callable(code_before_answers)
    body = _records(words).decode()
    assert redacted("json", body) == code_before_answers("json", body)
