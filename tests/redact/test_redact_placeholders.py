"""Telling a placeholder from a token (``elision.redact.placeholders``), the check a Bearer
token of letters alone is asked before it is withheld: widened without it, the Bearer rule
withheld ``Bearer abcdefghijklmnop``, a placeholder, in 76 of test_redact_same_as_before's 400
texts (docs/design.md's "Not yet", the bearer task). Red on the code before (no such module,
no such check).

A token a service generates is random letters; a run along the alphabet or a keyboard's row,
a repeat, a template or a word that says so is typed by a person.
"""

from __future__ import annotations

import string
from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.redact import families, placeholders
from support.placeholder_shapes import LETTER_PLACEHOLDERS, PLACEHOLDERS, random_letters


@pytest.mark.parametrize("value", [
    "abcdefghijklmnop",  # the alphabet's run the 400 texts hold after Bearer
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",  # the same, upper case
    "zyxwvutsrqponmlk",  # backwards
    "AbCdEfGhIjKlMnOp",  # its case turning at every char: still the alphabet
    "qwertyuiopasdfgh",  # a keyboard's top row, then the next: typed, whatever its entropy
    "zxcvbnmasdfghjkl",  # the bottom row, then the middle one
    "poiuytrewqlkjhgfdsa",  # rows walked right to left
    "1234567890123456",  # the digits' row
    "xxxxxxxxxxxxxxxx",  # one char over and over: a mask
    "XXXXXXXXXXXXXXXXXXXX",
    "aaaabbbbccccdddd",  # repeats along the alphabet
    "abcabcabcabcabca",  # a unit repeated, its last cut short
    "kXvQkXvQkXvQkXvQ",  # a random unit, repeated: nobody's token
    "YOUR_TOKEN_HERE",  # a word that says so, as a word
    "yourAccessTokenHere",
    "MyTestTokenValue",
    "fake_token_value",
    "exampletokenvalue",  # run together: the longer words say so anywhere
    "dummytokenforlocaldev",
    "changeme",
    "changemechangeme",
    "REDACTED",
    "thisisnotarealtoken",
    "insert-your-token",
    "placeholderplaceholder",
    "<token>",  # templates
    "<your access token>",
    "${TOKEN}",
    "${API_TOKEN}",
    "{{token}}",
    "{{ access_token }}",
    "%TOKEN%",
    "$TOKEN",
    "***",  # masks
    "********************",
    "••••••••",
    "----------------",
    "",  # nothing at all
    "   ",
])
def test_a_placeholder_is_told(value: str) -> None:
    assert placeholders.placeholder(value), value


@pytest.mark.parametrize("value", [
    "kXvQmRtbLpWzNyHd",  # random mixed-case letters: a token
    "qfjjDuTBJLrkDgNRWR",
    "zmqxkvbwjtrplhgdnc",  # random lower case
    "HJWQZKXMBVTRLPNDGF",  # random upper case
    "PermissionDenied",  # a CamelCase code: no placeholder (what else it is, is not asked)
    "TestingFrameworkIdentifier",  # "test" inside a word, not a word of its own
    "heretofore",  # "here" at a word's start, not a word
])
def test_a_token_is_no_placeholder(value: str) -> None:
    assert not placeholders.placeholder(value), value


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 1 << 32), size=st.integers(16, 64),
       alphabet=st.sampled_from([string.ascii_letters, string.ascii_lowercase,
                                 string.ascii_uppercase]))
def test_random_letters_are_a_token(seed: int, size: int, alphabet: str) -> None:
    """Random letters as a service draws them, of any case: no placeholder, and (high in
    entropy) generated. A random run is stepped, periodic or worded about once in 10**5."""
    token = random_letters(seed, size, alphabet)
    assert not placeholders.placeholder(token), token
    assume(families.entropy(token) >= 3.0)
    assert families.generated_letters(token), token


@settings(max_examples=80, deadline=None)
@given(value=PLACEHOLDERS)
def test_every_placeholder_shape_is_told(value: str) -> None:
    """Alphabet and keyboard runs (any start, either way, any case), repeats of any unit up to
    six letters, words joined any way with one that says so, templates and masks."""
    assert placeholders.placeholder(value), value


@settings(max_examples=60, deadline=None)
@given(value=LETTER_PLACEHOLDERS)
def test_no_letters_placeholder_is_generated(value: str) -> None:
    """What a Bearer rule meets of the placeholders (letters alone, 16 or more): none is
    called generated, however high its entropy (an alphabet's run of 16 has 4 bits a char)."""
    assert not families.generated_letters(value), value


@pytest.mark.parametrize(("value", "generated"), [
    ("kXvQmRtbLpWzNyHd", True),  # random: high in entropy
    ("zmqxkvbwjtrplhgdnc", True),
    ("qMqmMQqmQMmqqMmQ", True),  # low in entropy, its case turning as no word's does
    ("kXvQmRtbLpWzNyH", False),  # fifteen: shorter than a generated value is
    ("kXvQmRtbLpWzNyHd1", False),  # a digit: not letters alone (the digit check's)
    ("abcdefghijklmnop", False),  # a placeholder
    ("internationalization", False),  # a word: low in entropy, no turn of case
    (random_letters(9, 1 << 20), True),  # a MB of random letters: judged by its head
    (string.ascii_lowercase * 40_000, False),  # a MB of the alphabet over and over
])
def test_generated_letters(value: str, generated: bool) -> None:
    assert families.generated_letters(value) is generated, value


def test_a_long_value_costs_its_length() -> None:
    """A MB of letters is judged by passes in C: none of its tests steps a char in Python,
    nor compares the value with itself more than :data:`placeholders.LONGEST_UNIT` times."""
    value = random_letters(7, 1 << 20)
    assert not placeholders.placeholder(value)
    assert placeholders.placeholder("abcdefghijklmnopqrstuvwxyz" * 40_000)


def _stepped_whole(value: str) -> bool:
    """:func:`placeholders.stepped` as first written: every pair counted."""
    pairs = list(pairwise(value))
    return len(value) >= 2 and sum(p in placeholders._STEP for p in pairs) >= (
        placeholders.STEPPED_SHARE * (len(value) - 1))


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(
    st.text(alphabet="abcdefqwertyasdzx0123x*", max_size=40),
    st.lists(st.sampled_from(["abc", "qwe", "x", "k", "Q", "9", "zyx", "asdf", "p"]),
             max_size=16).map("".join)))
def test_a_run_told_by_its_first_pairs_is_told_as_by_all(value: str) -> None:
    """The first pairs that reject a random run (issue 23: a MB of Bearer lines asks each
    token) say what all its pairs say, near the share too."""
    assert placeholders.stepped(value) == _stepped_whole(value)
