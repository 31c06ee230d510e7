"""A compatibility char whose fold holds no letter (``\\u2474`` is ``(1)``, ``\\u2460`` is
``1``, full-width ``(``) right before a word wholly of Cyrillic or Greek look-alikes that
spells a credential's name: the word was not read as that name, and its value was shown.
``redact_value({"\\u2474\\u0422\\u041e\\u041a\\u0415\\u041d": S})`` and
``redact_text("\\u2474\\u0422\\u041e\\u041a\\u0415\\u041d=S")`` showed S, while
``(1)\\u0422\\u041e\\u041a\\u0415\\u041d=S`` was withheld: Python's ``\\w`` holds the
circled and parenthesized digits, so the fold took them for a letter before the word, and a
run that opened with such a char was never read as a word at all (full-width ``(``, a
no-break space). Found by a random draw of
tests/redact/test_redact_fold_name_offsets.py::test_a_dropped_char_where_no_letter_is_before_it_changes_no_fold
(dev profile), on the code before too.

The model reads the fold: a char folded to no letter is no letter before the word.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from elision.redact import redact_text, redact_value
from elision.redact.compat import fold_name
from support.routes import every_route, member_routes

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"
TOKEN_RU = "\u0422\u041e\u041a\u0415\u041d"  # TOKEN, every letter Cyrillic
APIKEY_EL = "\u0391\u03a1\u0399\u039a\u0395\u03a5"  # APIKEY, every letter Greek
PASSWD = "\u0440\u0430\u0455\u0455\u051d\u0501"  # passwd, every letter Cyrillic


def shown_by(name: str) -> list[str]:
    """The routes that show S as ``name``'s value: a line of text (and in a JSON string), a
    member (walked parsed, from its body too, as a JSON text, through ``shape()``)."""
    member = orjson.dumps({name: S})
    seen = every_route(f"{name}={S}") | {
        f"member {route}": out for route, out in member_routes(name, S).items()}
    seen["member from its body"] = json.dumps(
        redact_value(orjson.loads(member), body=member).value)
    return [route for route, out in seen.items() if S in out]


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("\u2474" + TOKEN_RU, "(1)TOKEN"),  # the draw's: red before ("(1)TOKEH")
        ("\u2460" + TOKEN_RU, "1TOKEN"),  # circled one: red before
        ("\u2488" + TOKEN_RU, "1.TOKEN"),  # digit full stop: red before
        ("\u00b2" + TOKEN_RU, "2TOKEN"),  # superscript two: red before
        ("\u2460" + APIKEY_EL, "1APIKEY"),  # Greek, no EN: withheld before too
        ("x\u2474" + TOKEN_RU, "x(1)TOKEN"),  # a letter before the widened char: red before
        ("\u2474\u0301" + TOKEN_RU, "(1)TOKEN"),  # then a mark: red before
        ("\u2474\u200b" + TOKEN_RU, "(1)TOKEN"),  # then an invisible char: red before
        ("\u2474" + PASSWD, "(1)passwd"),  # no EN in it: the map reads it alike, as before
        # Not \\w, so the fold of a name read it before too; the run in text did not.
        ("\uff08" + TOKEN_RU, "(TOKEN"),
        ("\uff3f" + TOKEN_RU, "_TOKEN"),
        ("\u00a0" + TOKEN_RU, " TOKEN"),
        # As before: an ASCII digit or bracket, a space between.
        ("(1)" + TOKEN_RU, "(1)TOKEN"),
        ("1" + TOKEN_RU, "1TOKEN"),
        ("\u2474 " + TOKEN_RU, "(1) TOKEN"),
    ],
)
def test_a_name_after_a_char_folded_to_no_letter_is_withheld(
    name: str, folded: str, each_engine: Any
) -> None:
    assert fold_name(name) == folded
    assert shown_by(name) == []


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("\u2460\u043f\u0440\u0438\u0432\u0435\u0442", "1\u043fp\u0438\u0432e\u0442"),  # prose
        ("\u2474\u0441\u043b\u043e\u0432\u043e", "(1)c\u043bo\u0432o"),  # prose
        ("\u2460\u041e\u041a\u041e", "1OKO"),  # look-alikes that spell no name
        ("\u2460" + TOKEN_RU + "\u042b", "1TOKEH\u042b"),  # a letter after: a longer word
        ("\u2160" + TOKEN_RU, "ITOKEH"),  # Roman numeral one folds to a letter: ASCII's rule
        ("\uff41" + TOKEN_RU, "aTOKEH"),  # full-width a: a letter before, as "a" is
    ],
)
def test_a_word_that_is_no_name_is_left_as_before(
    name: str, folded: str, each_engine: Any
) -> None:
    """Near misses: Cyrillic prose and look-alikes that spell no name after such a char
    fold as before, and nothing in them is withheld."""
    assert fold_name(name) == folded
    assert redact_text(f"{name} {S}").value == f"{name} {S}"
