"""A member name's fold (:func:`elision.redact.compat.fold_name`) with a char the fold drops
(a combining mark, an invisible char) or widens (U+FB01 is ``fi``) before a word wholly of
look-alikes: the word's reading was spliced into the whole name's fold at the word's offsets
in the name, which the dropped or widened chars had moved, so a char was doubled and the
name's tail cut (``\\u0301`` + ``\\u0391\\u03a1\\u0399\\u039a\\u0395\\u03a5`` x 6 + ``-`` read
``AAPIKEY…APIKEY``, the ``-`` lost). Found by a reviewer of the merge: on the code before for
words up to 32 letters; the merge's ``leaks`` branch read such words at any length.

Through :func:`~elision.redact.redact_value` a member
``\\ufb01_\\u0422\\u041e\\u041a\\u0415\\u041d`` (``fi_TOKEN``) read ``fiTOKENH``, no
credential's name, and its value was shown (on the code before too).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_value
from elision.redact.compat import fold_name

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"
TOKEN_RU = "\u0422\u041e\u041a\u0415\u041d"  # TOKEN, every letter Cyrillic
APIKEY_EL = "\u0391\u03a1\u0399\u039a\u0395\u03a5"  # APIKEY, every letter Greek
PASSWD = "\u0440\u0430\u0455\u0455\u051d\u0501"  # passwd, every letter Cyrillic


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        # The reviewer's: a mark first, a word past 32 letters (red on merge only).
        ("\u0301" + APIKEY_EL * 6 + "-", "APIKEY" * 6 + "-"),
        ("\u0301" + TOKEN_RU, "TOKEN"),  # one mark dropped: "TTOKEN" before
        ("\u0301\u0301" + TOKEN_RU, "TOKEN"),  # two: "TOTOKEN" before
        ("\u200b" + TOKEN_RU + "-x", "TOKEN-x"),  # an invisible char: "TTOKENx" before
        ("a\u0301-" + TOKEN_RU + "-x", "a-TOKEN-x"),  # a mark on an ASCII letter
        ("\ufb01_" + TOKEN_RU, "fi_TOKEN"),  # an expansion: "fiTOKENH" before
        ("\ufb01_" + PASSWD, "fi_passwd"),  # "fipasswdd" before
        ("\u2474_" + TOKEN_RU, "(1)_TOKEN"),  # widened by two: "(1TOKENEH" before
        # Two words read, a dropped char before each: each spliced where it is.
        ("\u0301" + TOKEN_RU + "_\u200b" + PASSWD, "TOKEN_passwd"),
        # Nothing dropped or widened: as before.
        (TOKEN_RU + "_" + PASSWD, "TOKEN_passwd"),
        ("db_" + TOKEN_RU, "db_TOKEN"),
    ],
)
def test_a_dropped_or_widened_char_before_a_look_alike_word(name: str, folded: str) -> None:
    assert fold_name(name) == folded


# Chars the fold drops (marks, the invisible), widens, or reads; look-alikes; ASCII.
DROPPED = "\u0301\u0300\u036f\u200b\u00ad\ufeff"
_PIECES = [TOKEN_RU, APIKEY_EL, PASSWD, "\u0441\u043e\u043a", "db", "Key", "\ufb01",
           "\u2474", "\uff41", "\u0422", "-", "_", "2", ""]
names = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)


@settings(max_examples=80, deadline=None)
@given(name=names, data=st.data())
def test_a_dropped_char_where_no_letter_is_before_it_changes_no_fold(
    name: str, data: st.DataObject
) -> None:
    """The fold is the name's as a model reads it: a mark or an invisible char is read as
    nothing. Each is put where no letter is before it (a mark after a letter is drawn on it,
    so a word wholly of look-alikes goes on: by design no word that ends there)."""
    places = [i for i in range(len(name) + 1) if i == 0 or not name[i - 1].isalpha()]
    at = data.draw(st.lists(st.sampled_from(places), max_size=4), label="at")
    marked = name
    for i in sorted(at, reverse=True):
        marked = marked[:i] + data.draw(st.sampled_from(DROPPED), label="char") + marked[i:]
    assert fold_name(marked) == fold_name(name)


# Compatibility chars the fold widens or reads as no letter (a digit, punctuation, a space):
# ``\w`` holds the circled and parenthesized digits and the superscripts.
UNLETTERED = "\u2474\u2460\u2488\u00b2\uff08\uff3f\uff1d\u00a0\u3000\uff11"


@settings(max_examples=80, deadline=None)
@given(name=names, data=st.data())
@example(name=TOKEN_RU, data=None)  # "\u2474" before it read "(1)TOKEH": its value shown
def test_a_char_folded_to_no_letter_reads_as_its_fold(
    name: str, data: st.DataObject | None
) -> None:
    """A char whose fold holds no letter, where no letter is before it, is read as its fold
    spelled in ASCII: a word wholly of look-alikes after it is read as after ``(1)``. (Not
    after a letter: a look-alike word before it ends at a letter, and ``\\w`` is one.)"""
    if data is None:
        at, chars = [0], ["\u2474"]
    else:
        places = [i for i in range(len(name) + 1) if i == 0 or not name[i - 1].isalpha()]
        at = data.draw(st.lists(st.sampled_from(places), max_size=4), label="at")
        chars = [data.draw(st.sampled_from(UNLETTERED), label="char") for _ in at]
    widened = spelled = name
    for i, char in sorted(zip(at, chars, strict=True), reverse=True):
        widened = widened[:i] + char + widened[i:]
        spelled = spelled[:i] + unicodedata.normalize("NFKC", char) + spelled[i:]
    assert fold_name(widened) == fold_name(spelled)


@settings(max_examples=80, deadline=None)
@given(left=names, right=names, sep=st.sampled_from("-_.=2 "))
@example(left="\ufb01_" + TOKEN_RU, right="x", sep="-")  # red before: "fiTOKENHx"
def test_the_fold_of_a_name_is_its_pieces_folds_between_separators(
    left: str, right: str, sep: str
) -> None:
    """A separator (no letter) ends a word, so each side folds as it would alone, however
    many chars the left side's fold drops or widens."""
    assert fold_name(f"{left}{sep}{right}") == fold_name(left) + sep + fold_name(right)


@pytest.mark.parametrize(
    "name",
    [
        "\ufb01_" + TOKEN_RU,  # red before: the member showed S
        "\ufb01_" + PASSWD,  # red before
        "\u2474_" + TOKEN_RU,  # red before
        "\u0301" + TOKEN_RU,  # withheld before too (the cut fell on no name's letter)
    ],
)
def test_a_member_named_so_is_withheld(name: str, each_engine: Any) -> None:
    member = orjson.dumps({name: S})
    parsed = json.dumps(redact_value(orjson.loads(member), body=member).value)
    python = json.dumps(redact_value({name: S}).value)
    assert S not in parsed
    assert S not in python
    assert S not in shape(member).text
