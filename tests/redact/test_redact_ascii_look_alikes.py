"""A credential whose name is spelled with a DOTTED CAPITAL I (U+0130) is withheld.

Found in review (2026-12-04), attacking the case folding the family prefixes rely on: the
regex engine's case-insensitive ``i`` matches U+0130 as it matches the DOTLESS I (U+0131),
but only the dotless one was folded (``elision.redact.folding.FOLDS``). So
``MİSTRAL_API_KEY=<key>`` was withheld by no rule (the family's keyword search is ASCII, and
the generic rules read the name with the look-alike in it), where ``M\\u0131STRAL_API_KEY=<key>``
and ``MISTRAL_API_KEY=<key>`` were; before the review's session too.
"""

from __future__ import annotations

import re

import orjson
import pytest

from elision.redact import redact_text, redact_value
from elision.redact.folding import FOLDS

_KEY = "1P1AsMcSgRzMpqJuV0NpKf4KmU73wAOv"


@pytest.mark.parametrize("text", [
    f"M\u0130STRAL_API_KEY={_KEY}",  # a family's name
    f"m\u0130stral_key: {_KEY}",
    f"AP\u0130_KEY={_KEY}",  # a generic name
    f"SECRET_ACCESS_KEY=x\nCL\u0130ENT_SECRET={_KEY}",
    f"log line\r\n{'x' * 2000}\r\nAUTH0_CL\u0130ENT_SECRET={_KEY}Ab3dEf6hIj9lMn2pQr5tUv8xYz1b",
])
def test_a_credential_named_with_a_dotted_capital_i_is_withheld(text: str) -> None:
    done = redact_text(text)
    assert _KEY not in done.value
    assert done.withheld
    value = redact_value({"log": text}, body=orjson.dumps({"log": text}))
    assert _KEY not in orjson.dumps(value.value).decode()


def test_every_char_the_regex_engine_reads_as_an_ascii_letter_is_folded() -> None:
    """What ``(?i)`` matches to an ASCII letter, outside ASCII, is a key of ``FOLDS`` (the
    engine's table, read over the Basic Multilingual Plane and beyond)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    # Each letter's pattern matches one char: its matches in the chars side by side are the
    # chars it matches alone (a search in C, where a fullmatch a char and letter took 3.4 M
    # Python calls).
    chars = "".join(chr(cp) for cp in range(128, 0x20000))
    found = {char for letter in letters for char in re.findall("(?i)" + letter, chars)}
    assert found <= set(FOLDS), sorted(found - set(FOLDS))
