"""A char the fold drops (a combining mark, an invisible char) right before a credential's
name spelled wholly in look-alikes, in plain text: ``\\u0301\\u0422\\u041e\\u041a\\u0415\\u041d=S``,
``\\u200b\\u0422\\u041e\\u041a\\u0415\\u041d=S``, and after a space (``x \\u200b…=S``), were
shown by every text route (design.md's "Not yet", closed by the leaksa session; each case
here marked red was red on the code before). The run fold's alternative for a whole word
asked no letter before the word, but the dropped char opened a run of its own, so the word
was no run's first char and the alternative was never tried. Now such a run may open with
dropped chars (no letter before them), each dropped from the fold as in any run.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import compat, redact_text, redact_value
from support.traced import peak

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"
TOKEN_RU = "\u0422\u041e\u041a\u0415\u041d"  # TOKEN, every letter Cyrillic
TOKEN_EL = "\u03a4\u039f\u039a\u0395\u039d"  # TOKEN, every letter Greek
PASSWD = "\u0440\u0430\u0455\u0455\u051d\u0501"  # passwd, every letter Cyrillic
ACUTE, ZWSP, SHY, WJ = "\u0301", "\u200b", "\u00ad", "\u2060"


def _routes(text: str) -> dict[str, str]:
    """What each route shows of ``text``."""
    body = orjson.dumps({"note": text})
    doc = json.dumps({"note": text}, ensure_ascii=False)
    return {
        "redact_text": str(redact_text(text).value),
        "shape_text": shape(text, 100_000, format="text").text,
        "shape": shape(text, 100_000).text,
        "redact_value": json.dumps(redact_value(orjson.loads(body), body=body).value,
                                   ensure_ascii=False),
        "shape_json": shape(doc, 100_000).text,
        "json_as_text": str(redact_text(doc).value),
        "log_line": str(redact_text(f"2026-12-05 INFO config {text}\n").value),
    }


@pytest.mark.parametrize(
    "text",
    [
        f"{ACUTE}{TOKEN_RU}={S}",  # the brief's: red before
        f"{ZWSP}{TOKEN_RU}={S}",  # red before
        f"x {ZWSP}{TOKEN_RU}={S}",  # after a space: red before
        f"x {ACUTE}{TOKEN_RU}: {S}",  # red before
        f"{SHY}{TOKEN_EL}={S}",  # Greek, a soft hyphen: red before
        f"{WJ}{ZWSP}{ACUTE}{PASSWD}={S}",  # three dropped chars: red before
        f"{ZWSP}DB_{TOKEN_RU}={S}",  # beside ASCII: withheld before too
        f"line\n{ZWSP}{TOKEN_RU} = {S}",  # opening a line: red before
        f"a;{ZWSP}{TOKEN_RU}={S}",  # after punctuation: red before
    ],
)
def test_a_dropped_char_before_a_look_alike_name_withholds_its_value(
    text: str, each_engine: Any
) -> None:
    for route, shown in _routes(text).items():
        if route == "json_as_text" and "\n" in text:
            # A JSON text's escaped line break before a look-alike name (its ``n`` a letter
            # before the word) is shown with no dropped char too: design.md's Not yet.
            continue
        assert S not in shown, route


@pytest.mark.parametrize("dropped", [ACUTE, ZWSP, SHY, WJ, ZWSP + ACUTE])
def test_the_dropped_chars_and_the_name_are_kept_as_written(
    dropped: str, each_engine: Any
) -> None:
    """Only the value is withheld: the marks and the look-alike name stay byte for byte."""
    text = f"x {dropped}{TOKEN_RU}={S} y"
    assert redact_text(text).value == (
        f"x {dropped}{TOKEN_RU}=[credential withheld: credential-assignment] y")


@pytest.mark.parametrize(
    "text",
    [
        # A dropped char before a word of look-alikes that spells no name, or TOKEN's letters
        # inside a longer Russian word (ТОКЕНЫ), or a name with no value after it.
        f"{ZWSP}\u0440\u0443\u043a\u0430 \u0441\u043e\u043a: {S}",
        f"{ACUTE}\u0422\u041e\u041a\u0415\u041d\u042b: {S}",
        f"{ZWSP}{TOKEN_RU} \u0414\u041e\u0421\u0422\u0423\u041f\u0410 \u2014 \u044d\u0442\u043e.",
        # Russian prose with stress marks on its vowels (as a textbook writes it), and a
        # mark on a word of look-alikes that spells no name (an eye, in capitals).
        "\u043c\u043e\u043b\u043e\u043a\u043e\u0301 \u0438 \u0441\u043e\u0301\u043a "
        f"\u041e\u041a\u041e{ACUTE} {ZWSP}\u041e\u041a\u041e.",
        # A letter before the dropped char: the mark is that letter's, one word with it.
        f"\u0431{ACUTE}{TOKEN_RU}\u042b: {S}",
    ],
)
def test_prose_with_dropped_chars_stays_byte_identical(text: str, each_engine: Any) -> None:
    assert redact_text(text).value == text
    body = orjson.dumps({"note": text})
    assert redact_value(orjson.loads(body), body=body).value == {"note": text}
    assert shape(text, 100_000, format="text").text == text


def test_the_fold_drops_the_chars_before_the_name_and_maps_back() -> None:
    """The fold reads the name, and the value's offsets map back to the text's."""
    text = f"a {ZWSP}{ACUTE}{TOKEN_RU}={S}"
    folded = compat.folded(text)
    assert folded is not None
    assert folded.text == f"a TOKEN={S}"
    at = folded.text.index(S)
    assert text[folded.start(at):folded.end(at + len(S))] == S


#: Chars the fold drops: the combining marks and the invisible (default-ignorable) ones.
_DROPPED = st.one_of(
    st.integers(compat.MARKS[0], compat.MARKS[1]),
    st.sampled_from(compat.IGNORABLE).flatmap(lambda r: st.integers(r[0], r[1])),
).map(chr)
_WHOLE = compat._whole_names()


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(sorted(_WHOLE)), data=st.data(),
       dropped=st.lists(_DROPPED, min_size=1, max_size=3).map("".join),
       before=st.sampled_from(["", "x ", "\n", "config ", "a, ", "\t"]),
       sep=st.sampled_from(["=", ": ", " = ", "="]),
       seed=st.text("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=20,
                    max_size=32).filter(lambda s: len(set(s)) > 12))
def test_any_dropped_chars_before_a_look_alike_name_read_as_none(
    name: str, data: st.DataObject, dropped: str, before: str, sep: str, seed: str
) -> None:
    """Random names of the list, each letter a random look-alike, after 1 to 3 random marks
    or invisible chars: withheld by every route exactly where the name alone is."""
    spelled = "".join(data.draw(st.sampled_from(sorted(map(chr, codes))))
                      for codes in _WHOLE[name])
    secret = seed + "7Q"

    def shown(text: str) -> dict[str, bool]:
        return {route: secret in got for route, got in _routes(text).items()}

    assert shown(f"{before}{dropped}{spelled}{sep}{secret}") == shown(
        f"{before}{spelled}{sep}{secret}")


def test_as_many_dropped_chars_as_a_typo_leaves_are_read() -> None:
    """Up to ``compat._DROPPED_MOST`` of them, of any kind, before the name."""
    dropped = (ZWSP + ACUTE + SHY + WJ) * (compat._DROPPED_MOST // 4)
    assert len(dropped) == compat._DROPPED_MOST
    assert S not in redact_text(f"x {dropped}{TOKEN_RU}={S}").value


@pytest.mark.parametrize("unit", [ZWSP, ZWSP + ACUTE])
def test_an_endless_run_of_dropped_chars_before_a_name_holds_no_point_each(unit: str) -> None:
    """A run of them is read as a name's lead only up to the bound: each char read so is a
    point of the fold's map, and a run of 87,000 invisible chars before one name held 36x
    its UTF-8 (1.5x on the code before)."""
    text = unit * (64 * 1024 // len(unit.encode())) + f"{TOKEN_RU}={S}"
    redact_text(text[-4096:])  # the fold's tables and the trigger search's, built once
    assert peak(lambda: redact_text(text)) < 30 * len(text.encode())
