"""A credential's name or token spelled with full-width forms or invisible chars is withheld.

Found by the hunt (docs/design.md, "Leaks found by the hunt", 2026-12-05): ``password=S`` in
FULLWIDTH letters (U+FF50 ...), ``ghp_...`` with its prefix in full-width, ``ghp_aB3d`` U+200B
``E6...`` (a ZERO WIDTH SPACE inside the token), a SOFT HYPHEN, a joiner or a BOM inside, and a
token whose body holds full-width digits and letters were each shown whole by every route: no
trigger and no rule reads them, and a model reads each as the credential. Each must be
withheld, the stub over the whole original spelling, the invisible chars inside included.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import Budget, shape
from elision.redact import redact_text, redact_value
from redact.test_redact_family_properties import LINE, TEXT_FAMILIES, fakes
from redact.test_redact_properties import SAFE_CHARS

VALUE = "Zx8Qw3Er5Ty7Ui9OpZx8Qw3E"  # 24 random chars, no placeholder
TOKEN = "ghp_aB3dE6fG1hJ2kL3mN4pQ5rS6tU7vW8xY9z0"
GITHUB = "[credential withheld: github-token]"
ASSIGNED = "[credential withheld: credential-assignment]"


def wide(text: str) -> str:
    """``text`` with each printable ASCII char in its FULLWIDTH form (U+FF01-FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def inside(token: str, char: str, at: int = 8) -> str:
    return token[:at] + char + token[at:]


# (what the text says, what it must become): the stub over all of it, invisible chars too.
CASES = [
    # the hunt's repros
    pytest.param(f"{wide('password')}={VALUE}", f"{wide('password')}={ASSIGNED}",
                 id="full-width-name"),
    pytest.param(wide("ghp_") + TOKEN[4:], GITHUB, id="full-width-family-prefix"),
    pytest.param(wide("ghp") + TOKEN[3:], GITHUB, id="full-width-prefix-ascii-underscore"),
    pytest.param(inside(TOKEN, "\u200b"), GITHUB, id="zero-width-space-inside"),
    pytest.param(inside(TOKEN, "\u00ad"), GITHUB, id="soft-hyphen-inside"),
    pytest.param(inside(TOKEN, "\u200c"), GITHUB, id="zero-width-non-joiner-inside"),
    pytest.param(inside(TOKEN, "\u200d"), GITHUB, id="zero-width-joiner-inside"),
    pytest.param(inside(TOKEN, "\u2060"), GITHUB, id="word-joiner-inside"),
    pytest.param(inside(TOKEN, "\ufeff"), GITHUB, id="bom-inside"),
    pytest.param(inside(TOKEN, "\u200b\u200b\u00ad", 2), GITHUB, id="three-in-the-prefix"),
    pytest.param(TOKEN[:10] + wide(TOKEN[10:20]) + TOKEN[20:], GITHUB,
                 id="full-width-digits-and-letters-in-the-body"),
    pytest.param("".join(c + "\u200b" for c in TOKEN[:-1]) + TOKEN[-1], GITHUB,
                 id="zero-width-between-every-char"),
    # the same reading of other forms
    pytest.param(f"pass\u200bword={VALUE}", f"pass\u200bword={ASSIGNED}", id="zero-width-in-name"),
    pytest.param(f"password{wide('=')}{VALUE}", f"password{wide('=')}{ASSIGNED}",
                 id="full-width-equals"),
    pytest.param(f"password{wide(':')}{VALUE}", f"password{wide(':')}{ASSIGNED}",
                 id="full-width-colon"),
    # spaced out: a full-width separator between ASCII spaces (a random draw of the property
    # below: `aws_secret_access_key` U+FF1D `S` was shown, read only beside printable ASCII)
    pytest.param(f"password {wide('=')} {VALUE}", f"password {wide('=')} {ASSIGNED}",
                 id="full-width-equals-spaced"),
    pytest.param(f"aws_secret_access_key {wide('=')} tOmPKahYBKk/ho4onKrnsAm0dt+Pv4eks/zZDHWe",
                 f"aws_secret_access_key {wide('=')} [credential withheld: aws-secret-access-key]",
                 id="full-width-equals-spaced-family"),
    pytest.param(f"password {wide(':')} {VALUE}", f"password {wide(':')} {ASSIGNED}",
                 id="full-width-colon-spaced"),
    pytest.param(f"password:\u00a0{VALUE}", f"password:\u00a0{ASSIGNED}", id="no-break-space"),
    pytest.param(f"password:\u3000{VALUE}", f"password:\u3000{ASSIGNED}", id="ideographic-space"),
    pytest.param("\U0001d429\U0001d41a\U0001d42c\U0001d42c\U0001d430\U0001d428\U0001d42b"
                 f"\U0001d41d={VALUE}",
                 "\U0001d429\U0001d41a\U0001d42c\U0001d42c\U0001d430\U0001d428\U0001d42b"
                 f"\U0001d41d={ASSIGNED}", id="mathematical-bold-name"),
    pytest.param(f"api_\u212aey\u200b={VALUE}", f"api_\u212aey\u200b={ASSIGNED}",
                 id="kelvin-sign-and-zero-width"),
    pytest.param(f"\u6a21\u578b {wide('ghp_')}{TOKEN[4:]} \u3002", f"\u6a21\u578b {GITHUB} \u3002",
                 id="in-cjk-prose"),
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_a_full_width_or_invisible_spelling_is_withheld_whole(text: str, want: str) -> None:
    done = redact_text(f"before\n{text}\nafter")
    assert done.value == f"before\n{want}\nafter"
    assert [entry["line"] for entry in done.withheld] == [2]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_the_same_in_a_json_string_by_every_route(text: str, want: str) -> None:
    body = orjson.dumps({"note": text, "id": 7})
    assert redact_value(orjson.loads(body), body=body).value == {"note": want, "id": 7}
    assert redact_value(orjson.loads(body)).value == {"note": want, "id": 7}
    assert want in orjson.loads(shape(body, Budget(4096)).text)["note"]
    # A log of such records (NDJSON) is a text; so is a body shaped as one.
    log = f"{body.decode()}\n{body.decode()}\n".encode()
    assert want in redact_text(log.decode()).value
    assert want.encode() in shape(log, Budget(1 << 16), format="text").text.encode()


@pytest.mark.parametrize(("text", "want"), CASES[:4])
def test_the_same_spelled_as_json_escapes_in_a_text(text: str, want: str) -> None:
    escaped = "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in text)
    done = redact_text(f'{{"x": "{escaped}"}}').value
    assert VALUE not in done
    assert TOKEN[10:20] not in done
    assert done.endswith(f'{want[-len(ASSIGNED):]}"}}') or done == f'{{"x": "{GITHUB}"}}'


NAMES = [
    pytest.param(wide("password"), id="full-width"),
    pytest.param(wide("api_key"), id="full-width-underscore"),
    pytest.param(f"{wide('api')}_{wide('key')}", id="full-width-words"),
    pytest.param("pass\u200bword", id="zero-width"),
    pytest.param("client\u00ad_secret", id="soft-hyphen"),
    pytest.param("\ufeffDB_PASSWORD", id="bom-first"),
]


@pytest.mark.parametrize("name", NAMES)
def test_a_member_named_so_has_its_value_withheld(name: str) -> None:
    body = orjson.dumps({name: VALUE, "id": 7})
    for done in (redact_value(orjson.loads(body), body=body), redact_value(orjson.loads(body))):
        assert done.value[name] != VALUE
        assert done.value["id"] == 7
    assert VALUE not in shape(body, Budget(4096)).text


@pytest.mark.parametrize("text", [
    # What reads as nothing to withhold stays as it is, every char.
    "\u6a21\u578b\uff0c\u4e16\u754c\uff1a\u4f60\u597d\u3002",  # CJK prose, full-width comma
    "\uff12\uff10\uff12\uff16\u5e74\uff11\uff12\u6708",  # full-width digits in a date
    "ok \u2764\ufe0f \U0001f468\u200d\U0001f469\u200d\U0001f467 done!",  # emoji, joiners
    f"temperature 300 \u212a, {wide('hello world')} \u00b2",
    "soft\u00adhyphen\u200bed words",
])
def test_prose_with_such_chars_is_left_whole(text: str) -> None:
    assert redact_text(text).value == text
    body = orjson.dumps({"note": text})
    assert redact_value(orjson.loads(body), body=body).value == {"note": text}


#: Chars a model reads as nothing: Default_Ignorable_Code_Point, a few of each kind.
INVISIBLE = "\u00ad\u034f\u200b\u200c\u200d\u200e\u2060\u2063\ufe0f\ufeff\U000e0041"


@st.composite
def hidden(draw: st.DrawFn, text: str) -> str:
    """``text`` with invisible chars put between chars, and printable ASCII chars made
    full-width, at drawn places: where a model still reads ``text``."""
    out: list[str] = []
    for i, char in enumerate(text):
        if "!" <= char <= "~" and draw(st.integers(0, 5)) == 0:
            char = wide(char)
        out.append(char)
        between = i + 1 < len(text) and "!" <= text[i] <= "~" and "!" <= text[i + 1] <= "~"
        if between and draw(st.integers(0, 7)) == 0:
            out.append(draw(st.text(alphabet=INVISIBLE, min_size=1, max_size=3)))
    return "".join(out)


def read(text: str) -> str:
    """``text`` as a model reads it: each full-width form its ASCII, each invisible char none."""
    out = "".join(c for c in text if c not in INVISIBLE)
    return "".join(chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else c for c in out)


@settings(max_examples=150, deadline=None)
@given(fake=fakes(), data=st.data(), before=LINE, after=LINE)
def test_a_fake_of_any_family_hidden_so_never_shows(
    fake: tuple[object, str, tuple[str, ...]], data: st.DataObject, before: str, after: str,
) -> None:
    _, text, values = fake
    seeded = data.draw(hidden(text))
    done = redact_text(f"{before}\n{seeded}\n{after}")
    lines = done.value.split("\n")
    assert lines[0] == before
    assert lines[-1] == after
    shown = read("\n".join(lines[1:-1]))
    for value in values:
        assert value not in shown
    assert done.withheld


@settings(max_examples=60, deadline=None)
@given(fake=fakes([f for f in TEXT_FAMILIES if "\n" not in f.shapes[0]]), data=st.data())
def test_a_fake_hidden_so_in_a_json_string_never_shows(
    fake: tuple[object, str, tuple[str, ...]], data: st.DataObject,
) -> None:
    _, text, values = fake
    body = orjson.dumps({"note": data.draw(hidden(text)), "id": 1})
    for done in (redact_value(orjson.loads(body), body=body), redact_value(orjson.loads(body))):
        shown = read(done.value["note"])
        assert all(value not in shown for value in values)


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=SAFE_CHARS + "KEY=:_-ghp", max_size=60))
def test_a_text_of_no_such_char_is_redacted_as_the_code_before(
    text: str, code_before_answers: object,
) -> None:
    """ASCII texts, and texts whose chars past ASCII fold to nothing (é, 漢, 🙂), come out
    byte for byte as before (a development check: ``ELISION_BEFORE_SRC``)."""
    from support.before import redacted

    assert callable(code_before_answers)
    assert redacted("text", text) == code_before_answers("text", text)


def test_a_value_withheld_to_its_quote_takes_the_invisible_chars_before_it() -> None:
    """Found by the keys' differential against the code before: ``"db_password": "S"`` with
    a SOFT HYPHEN before the closing quote was withheld to the quote before the fold, and the
    fold's span ended at ``S``, leaving the hyphen after the stub."""
    done = redact_text(f'{{"db_password": "{VALUE}\u00ad\u200b"}}')
    assert done.value == f'{{"db_password": "{ASSIGNED}"}}'
