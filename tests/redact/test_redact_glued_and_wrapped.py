"""Two leaks docs/design.md listed as "Not yet", each shown whole by ``redact_text`` and by
``shape()`` on the code before (issue 23's leaks; found by the hunt):

* curl's ``-u`` after two switches or more glued to its value or to a quote
  (``curl -skuadmin:S``, ``-sku"admin:S"``, ``-sku'admin:S'``) with no other trigger in its
  piece: the rule read it, but no trigger marked it (the literals were ``{switch}{switch}u``
  then a space), so its piece was never judged.
* A quoted value over three lines or more (``PASSWORD="`` over ``S`` over ``more"``): a quote
  that ended its line opened a value of one line, closed there or at the next line's start.

The user stays shown (``admin``), every line break is kept, and prose that names a password or
a curl command in docs with no credential stays shown.
"""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.commands import _CURL_SWITCHES
from elision.redact.generic import _WRAPPED_LINES, is_credential_value
from elision.redact.rules import credential_stub
from support.cut import cut_inside
from support.engines import trigger_engines, using_engine

S = "Zq8vN3xK7pL2mR9tW4yB6cH1"
STUB = credential_stub("credential-assignment")

_SECRET_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _shown(text: str) -> str:
    return str(redact_text(text).value)


def _secret(seed: int) -> str:
    return "".join(random.Random(seed).choices(_SECRET_CHARS, k=24))


def _withheld_by_each_engine(text: str, secret: str) -> str:
    """What each trigger engine shows of ``text``, the same by each: ``secret`` withheld,
    every line kept."""
    shown = []
    for engine in trigger_engines():
        with using_engine(engine):
            shown.append(_shown(text))
        assert secret not in shown[-1]
        assert shown[-1].count("\n") == text.count("\n")
    assert len(set(shown)) == 1
    return shown[0]


@pytest.mark.parametrize(("text", "shown"), [
    # curl's -u glued to its value after two switches, three, eight; -U (its proxy's)
    (f"curl -skuadmin:{S} https://h/\n", f"curl -skuadmin:{STUB} https://h/\n"),
    (f"curl -vsSLuadmin:{S} https://h/\n", f"curl -vsSLuadmin:{STUB} https://h/\n"),
    (f"curl -sSLkfvqiuci:{S} https://h/\n", f"curl -sSLkfvqiuci:{STUB} https://h/\n"),
    (f"curl -x p:3128 -sLUbob:{S} https://h/\n", f"curl -x p:3128 -sLUbob:{STUB} https://h/\n"),
    # ... glued to a quote, either kind, the user's name empty, a tab before the group
    (f'curl -sku"admin:{S}" https://h/\n', f'curl -sku"admin:{STUB}" https://h/\n'),
    (f"curl -sku'admin:{S}' https://h/\n", f"curl -sku'admin:{STUB}' https://h/\n"),
    (f"curl -ksu:{S} https://h/\n", f"curl -ksu:{STUB} https://h/\n"),
    (f"curl\t-sku'admin:{S}' https://h/\n", f"curl\t-sku'admin:{STUB}' https://h/\n"),
    # ... on a command continued over lines
    (f"curl -sS \\\n  -fsku'ci:{S}' \\\n  https://h/\n",
     f"curl -sS \\\n  -fsku'ci:{STUB}' \\\n  https://h/\n"),
    # a quoted value over three lines, four, the quote closing its last line or the next
    (f'PASSWORD="\n{S}\nmore"\n', f'PASSWORD="\n{STUB}\n"\n'),
    (f'export DB_PASSWORD="\n  {S}\n  more\n  and more"\nX=1\n',
     f'export DB_PASSWORD="\n  {STUB}\n\n"\nX=1\n'),
    (f"api_key = '\n{S}\nmore\n'\n", f"api_key = '\n{STUB}\n\n'\n"),
    (f'token: "\n\t{S}\n\t{S[::-1]}"\n', f'token: "\n\t{STUB}\n"\n'),
    # ... a text cut inside it (a piece's end): what was read is withheld
    (f'PASSWORD="\n{S}\nmore', f'PASSWORD="\n{STUB}\n'),
])
@pytest.mark.usefixtures("each_engine")
def test_a_glued_curl_user_or_a_value_over_lines_is_withheld(text: str, shown: str) -> None:
    assert _shown(text) == shown
    assert S not in shape(text, 100_000, format="text").text


@pytest.mark.parametrize("text", [
    # curl in docs with no credential: a user with no ":" (curl prompts), no -u at all
    "curl -skuadmin https://h/\n",
    'curl -sku"$USER:$TOKEN" https://h/\n',
    "curl -fsSL https://get.example.com | sh\n",
    "Run `curl -sSLo out.tgz https://h/x.tgz` to fetch it.\n",
    # switches and words that look like a group: no curl, or no u glued after switches
    "rm -rf /tmp/build && grep -rn TODO src/\n",
    "gcc -fno-strict-aliasing -fsanitize=address -o app main.c\n",
    "that was a non -issue: sudoku and tofu\n",
    # prose that says password, a quote over lines that holds prose or a placeholder
    "Reset your password at the portal; the password policy is on the wiki.\n",
    'PASSWORD="\n${DB_PASSWORD}\n${SUFFIX}"\n',
    'greeting="\nhello there\nand welcome"\n',
    'description="\nThe password must be rotated\nevery ninety days"\n',
])
@pytest.mark.usefixtures("each_engine")
def test_prose_and_commands_without_a_credential_stay_shown(text: str) -> None:
    assert _shown(text) == text


_SWITCH_GROUPS = st.text(alphabet=_CURL_SWITCHES, min_size=2, max_size=8)
_USERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=0, max_size=12)


def _curl(group: str, user: str, secret: str, spelling: int) -> str:
    quote = ('', '"', "'")[spelling % 3]
    flag = "u" if spelling < 3 else "U"
    return f"curl -{group}{flag}{quote}{user}:{secret}{quote} https://api.example.com/v1\n"


def _wrapped(name: str, secret: str, lines: int, variant: int) -> str:
    quote = "'" if variant % 2 else '"'
    indent = ("", "  ", "\t")[variant % 3]
    body = "\n".join(f"{indent}{secret if i == 0 else secret[i:] + 'x' * i}"
                     for i in range(lines))
    closing = f"\n{indent}{quote}" if variant % 4 >= 2 else quote
    return f"{name}={quote}\n{body}{closing}\n"


@settings(max_examples=40, deadline=None)
@given(_SWITCH_GROUPS, _USERS, st.integers(0, 1 << 30), st.integers(0, 5),
       st.integers(0, 1000), st.integers(0, 1 << 16), st.integers(0, 50))
def test_property_a_glued_curl_user_is_withheld_wherever_a_piece_is_cut(
    group: str, user: str, seed: int, spelling: int, before: int, inside: int, filler: int,
) -> None:
    """Random switches before ``-u`` (or ``-U``), glued to a random user (or a quote), a
    seeded secret after its ``:``; prose around it sized so the text's first cut
    (``scan._halve``, at its middle's next line end) falls at any char of the command. The
    secret is withheld by each trigger engine, the user and every line kept."""
    secret = _secret(seed)
    text = cut_inside(_curl(group, user, secret, spelling), before, inside, filler)
    assert f"-{group}" in _withheld_by_each_engine(text, secret)
    assert f"{user}:" in _shown(text)


# the most lines, the quote opening the line after (read one line short at first)
@example(name="PASSWORD", seed=0, lines=_WRAPPED_LINES, variant=2, before=0, inside=0,
         filler=0)
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["PASSWORD", "DB_PASSWORD", "api_key", "GITHUB_TOKEN", "secret"]),
       st.integers(0, 1 << 30), st.integers(2, _WRAPPED_LINES), st.integers(0, 11),
       st.integers(0, 1000), st.integers(0, 1 << 16), st.integers(0, 50))
def test_property_a_value_over_lines_is_withheld_wherever_a_piece_is_cut(
    name: str, seed: int, lines: int, variant: int, before: int, inside: int, filler: int,
) -> None:
    """A quoted value of 2 to :data:`_WRAPPED_LINES` lines, its first a seeded secret, with
    prose around it sized so the first cut falls at any char of it: the secret is withheld
    by each trigger engine, every line kept."""
    secret = _secret(seed)
    assume(is_credential_value(name, secret))
    text = cut_inside(_wrapped(name, secret, lines, variant), before, inside, filler)
    assert f"{name}=" in _withheld_by_each_engine(text, secret)


@pytest.mark.parametrize("command", [
    f"curl -skuadmin:{S} https://h/",
    f'curl -sku"admin:{S}" https://h/',
    f"curl -vsSLu'ci:{S}' https://h/",
])
def test_a_glued_curl_user_in_a_json_body_is_withheld(command: str) -> None:
    """The JSON route asks the raw body first whether anything may be withheld
    (``triggers.body_may_need_redaction``): the glued user's pass answers there too."""
    body = orjson.dumps({"log": command, "n": 1})
    assert S not in str(redact_value(orjson.loads(body), body=body).value)
    assert S not in shape(body, 100_000, format="json").text
