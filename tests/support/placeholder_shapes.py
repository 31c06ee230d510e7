"""Letters-only values on both sides of the line a Bearer token's check draws: a generated run
(random letters, as a service makes one) and the shapes a person types in a token's place (a
run along the alphabet or a keyboard's row, one char over and over, a unit repeated, a
template, a word that says so). Shared by the placeholder tests and the Bearer ones."""

from __future__ import annotations

import random
import string

from hypothesis import strategies as st

ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def random_letters(seed: int, size: int, alphabet: str = string.ascii_letters) -> str:
    """``size`` letters drawn at random from ``alphabet``: a generated token."""
    return "".join(random.Random(seed).choices(alphabet, k=size))


def _case(draw: st.DrawFn, value: str) -> str:
    how = draw(st.sampled_from(["lower", "upper", "title", "alternate"]))
    if how == "upper":
        return value.upper()
    if how == "title":
        return value[:1].upper() + value[1:]
    if how == "alternate":
        return "".join(c.upper() if i % 2 else c for i, c in enumerate(value))
    return value


@st.composite
def alphabet_runs(draw: st.DrawFn, least: int = 16) -> str:
    """A run along the alphabet, either way, wrapping past ``z``: ``abcdefghijklmnop``."""
    start = draw(st.integers(0, 25))
    size = draw(st.integers(least, 40))
    run = "".join(string.ascii_lowercase[(start + i) % 26] for i in range(size))
    return _case(draw, run[::-1] if draw(st.booleans()) else run)


@st.composite
def keyboard_runs(draw: st.DrawFn, least: int = 16) -> str:
    """Runs along a keyboard's rows, either way, one after another: ``qwertyuiopasdfgh``."""
    run = ""
    while len(run) < least:
        row = draw(st.sampled_from(ROWS))
        row = row[::-1] if draw(st.booleans()) else row
        start = draw(st.integers(0, len(row) - 4))
        run += row[start:]
    return _case(draw, run)


@st.composite
def repeats(draw: st.DrawFn, least: int = 16) -> str:
    """A unit of one to six letters repeated to ``least`` chars or more: ``xxxxxxxx``,
    ``abcabcabc``, ``kXvQkXvQkXvQ``."""
    unit = draw(st.text(st.sampled_from(string.ascii_letters), min_size=1, max_size=6))
    times = max(3, -(-least // len(unit))) + draw(st.integers(0, 3))
    return unit * times


#: Words a person writes in a token's place.
PLACEHOLDER_WORDS = ["your", "token", "here", "example", "dummy", "changeme", "redacted",
                     "placeholder", "sample", "fake", "test", "access", "api", "key",
                     "secret", "value", "goes", "my"]


#: Words that say so anywhere, run together with others (``exampletokenvalue``).
_SAYING = ["example", "dummy", "changeme", "redacted", "placeholder", "sample"]
#: Words that say so as a word of their own (``YOUR_TOKEN_HERE``, ``myTestKey``).
_SAYING_AS_A_WORD = [*_SAYING, "your", "here", "fake", "test"]


@st.composite
def worded(draw: st.DrawFn, letters_only: bool = False) -> str:
    """Words joined as identifiers are (``YOUR_TOKEN_HERE``, ``yourAccessTokenHere``,
    ``exampletokenvalue``), one of them one that says the value is none; ``letters_only``:
    joined with no separator (camel case, or run together)."""
    words = draw(st.lists(st.sampled_from(PLACEHOLDER_WORDS), min_size=2, max_size=5))
    joins = ["camel", "flat"] if letters_only else ["snake", "upper", "camel", "flat", "kebab"]
    join = draw(st.sampled_from(joins))
    saying = _SAYING if join == "flat" else _SAYING_AS_A_WORD
    words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(saying)))
    if join == "snake":
        return "_".join(words)
    if join == "upper":
        return "_".join(words).upper()
    if join == "camel":
        return words[0] + "".join(w.title() for w in words[1:])
    if join == "kebab":
        return "-".join(words)
    return "".join(words)


@st.composite
def templates(draw: st.DrawFn) -> str:
    """A template or a mask: ``<token>``, ``${TOKEN}``, ``{{token}}``, ``%TOKEN%``, ``***``."""
    name = draw(st.sampled_from(["token", "TOKEN", "api_token", "ACCESS_TOKEN", "access token",
                                 "your-token"]))
    form = draw(st.sampled_from(["<{}>", "${{{}}}", "{{{{{}}}}}", "{{{{ {} }}}}", "%{}%"]))
    if "%" in form or "$" in form:
        name = name.replace(" ", "_").replace("-", "_")
    mask = draw(st.sampled_from("*x#•")) * draw(st.integers(3, 24))
    return draw(st.sampled_from([form.format(name), mask]))


#: Every placeholder shape, letters-only or not.
PLACEHOLDERS = st.one_of(alphabet_runs(), keyboard_runs(), repeats(), worded(), templates())
#: Those of letters alone, as long as a generated token: the ones a Bearer rule must tell.
LETTER_PLACEHOLDERS = st.one_of(alphabet_runs(), keyboard_runs(), repeats(),
                                worded(letters_only=True).filter(lambda w: len(w) >= 16))
