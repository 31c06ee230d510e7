"""A credential's name spelled with a char that case-folds to an ASCII letter is still its name.

Found by the dense-text helper (issue 23's brief): the JSON text
``{"x": "api_\\u212aey=…"}`` holds a KELVIN SIGN (U+212A) where the ``k`` of ``api_key`` is.
The precise rules read names case-insensitively, and Unicode case folding makes that sign a
``k`` (as it makes LATIN SMALL LETTER LONG S, U+017F, an ``s`` and DOTLESS I, U+0131,
an ``i``), so a program that compares names that way reads ``api_key``. The byte search for
triggers never saw a ``k`` there, so nothing was judged and the value went through whole.
"""

from __future__ import annotations

import orjson
import pytest

from elision import Budget, shape
from elision.redact import redact_text, redact_value

VALUE = "Zx8Qw3Er5Ty7Ui9OpZx8Qw3Er5Ty7Ui9"  # 32 chars, no placeholder

# (name as the model would read it, name as written)
NAMES = [
    pytest.param("api_\u212aey", id="kelvin-sign-k"),
    pytest.param("pa\u017f\u017fword", id="long-s"),
    pytest.param("\u017fecret_key", id="long-s-first"),
    pytest.param("API_\u212aEY", id="kelvin-upper-name"),
    pytest.param("cl\u0131ent_secret", id="dotless-i"),
    pytest.param("ACCE\u017fS_TO\u212aEN", id="two-look-alikes"),
]


@pytest.mark.parametrize("name", NAMES)
def test_a_look_alike_name_in_text_withholds_its_value(name: str) -> None:
    done = redact_text(f"config: {name}={VALUE}\nnext line")
    assert VALUE not in done.value
    assert done.withheld


@pytest.mark.parametrize("name", NAMES)
def test_a_look_alike_name_in_a_json_escape_withholds_its_value(name: str) -> None:
    # Written as a \u escape in the body, as the example is: orjson reads the sign.
    escaped = "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in name)
    body = b'{"x": "' + f"{escaped}={VALUE}".encode() + b'"}'
    value = orjson.loads(body)
    assert VALUE not in orjson.dumps(redact_value(value, body=body).value).decode()
    assert VALUE not in orjson.dumps(redact_value(value).value).decode()
    assert VALUE not in shape(body, Budget(4096)).text


@pytest.mark.parametrize("name", NAMES)
def test_a_look_alike_member_name_withholds_its_value(name: str) -> None:
    body = orjson.dumps({name: VALUE, "id": 7})
    done = redact_value(orjson.loads(body), body=body)
    assert done.value[name] != VALUE
    assert done.value["id"] == 7


@pytest.mark.parametrize("name", NAMES)
def test_a_look_alike_name_as_an_escape_in_text_withholds_its_value(name: str) -> None:
    # A text (a log of JSON) that spells the sign as an escape: read decoded, then folded.
    escaped = "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in name)
    done = redact_text(f'{{"x": "{escaped}={VALUE}"}}')
    assert VALUE not in done.value


def test_a_look_alike_that_names_nothing_is_left() -> None:
    # Folding reads a name, it does not make every text with the sign a credential.
    text = f"temperature 300 \u212a, the \u017ftory of {VALUE[:8]}"
    assert redact_text(text).value == text
