"""Credentials the hunt listed as still shown (docs/design.md, "Not yet"), each read where a
construct's head and its value lie on different lines, or its parts in another order than the
rules read:

* SQL's ``PASSWORD 'S'`` clause on a line of its own under its ``CREATE USER`` line (the
  statement was read to its first line's end), and ``PASSWORD="`` over ``S"`` (no quoted value
  spanned a line).
* curl's ``-u`` after two switches or more (``-sku``, ``-vsSLu``): the rule read it, but no
  trigger was in the text unless another one was in its piece.
* A YAML pair whose value is a block (``value: |`` over the secret); a pair, a netrc entry or
  a SQL statement whose lines a piece's edge cut apart (a text is judged in pieces of about
  1 KB, each read one line on but never back: the piece with the value lacked the head).
* A page's CSRF token with ``content`` before ``name`` in its meta tag.

Each was shown whole by ``redact_text`` and by ``shape()`` on the code before (found by the
hunt; the cut ones by random filler before a construct, so a piece's edge fell at each line).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text
from elision.redact.generic import is_credential_value
from elision.redact.rules import credential_stub
from support.cut import cut_inside
from support.engines import trigger_engines, using_engine

S = "Zq8vN3xK7pL2mR9tW4yB6cH1"
STUB = credential_stub("credential-assignment")

_SECRETS = st.text(alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                   min_size=24, max_size=40)


def _shown(text: str) -> str:
    return str(redact_text(text).value)


@pytest.mark.parametrize(("text", "shown"), [
    # a clause a line, indented or not, under its CREATE USER / ALTER ROLE line
    (f"CREATE USER bob WITH\n  LOGIN\n  PASSWORD '{S}';\n",
     f"CREATE USER bob WITH\n  LOGIN\n  PASSWORD '{STUB}';\n"),
    (f"ALTER ROLE app\nPASSWORD '{S}'\nVALID UNTIL 'infinity';\n",
     f"ALTER ROLE app\nPASSWORD '{STUB}'\nVALID UNTIL 'infinity';\n"),
    (f'create role app with\n\tencrypted password "{S}";\n',
     f'create role app with\n\tencrypted password "{STUB}";\n'),
    (f"CREATE USER scott\n  IDENTIFIED BY {S};\n", f"CREATE USER scott\n  IDENTIFIED BY {STUB};\n"),
    # a quote that ends its line: the value on the next, closed there or a line on
    (f'PASSWORD="\n{S}"\n', f'PASSWORD="\n{STUB}"\n'),
    (f"export DB_PASSWORD='\n  {S}'\n", f"export DB_PASSWORD='\n  {STUB}'\n"),
    (f'api_key = "\n{S}\n"\n', f'api_key = "\n{STUB}\n"\n'),
    # curl's -u after two switches or more, with any value spelling
    (f"curl -sku admin:{S} https://h/\n", f"curl -sku admin:{STUB} https://h/\n"),
    (f"curl -vsSLu admin:{S} https://h/\n", f"curl -vsSLu admin:{STUB} https://h/\n"),
    (f'curl -fsSLu "ci:{S}" https://h/\n', f'curl -fsSLu "ci:{STUB}" https://h/\n'),
    (f"curl -sLkU bob:{S} -x p:3128 https://h/\n", f"curl -sLkU bob:{STUB} -x p:3128 https://h/\n"),
    # a YAML pair's value as a block, each style
    (f"env:\n- name: DB_PASSWORD\n  value: |\n    {S}\n",
     f"env:\n- name: DB_PASSWORD\n  value: |\n    {STUB}\n"),
    (f"env:\n  - value: >-\n      {S}\n    name: API_TOKEN\n",
     f"env:\n  - value: >-\n      {STUB}\n    name: API_TOKEN\n"),
    (f"- Name: ClientSecret\n  Value: |+ # rotated\n    {S}\n- Name: PORT\n",
     f"- Name: ClientSecret\n  Value: |+ # rotated\n    {STUB}\n- Name: PORT\n"),
    # content before name
    (f'<meta content="{S}" name="csrf-token">', f'<meta content="{STUB}" name="csrf-token">'),
    (f"<input type=hidden value='{S}' name='_csrf'/>",
     f"<input type=hidden value='{STUB}' name='_csrf'/>"),
])
@pytest.mark.usefixtures("each_engine")
def test_a_credential_the_hunt_listed_as_shown_is_withheld(text: str, shown: str) -> None:
    assert _shown(text) == shown
    assert S not in shape(text, 100_000, format="text").text


@pytest.mark.parametrize("text", [
    # the statement ended before the clause, or the clause does not open its line (prose)
    f"CREATE USER bob;\nSELECT 1;\n  PASSWORD '{S}'\n",
    f"ALTER ROLE bob LOGIN\n\n  PASSWORD '{S}'\n",
    f"Create user accounts for the team.\nThe password '{S}' is in the vault.\n",
    "CREATE USER bob WITH\n  LOGIN\n  PASSWORD NULL;\n",
    # a quote over lines whose value is a placeholder or prose, or no credential's
    'PASSWORD="\n${DB_PASSWORD}"\n',
    f'greeting="\n{S}"\n',
    # curl with switches but no password; a word that ends like a switch group
    "curl -sku admin https://h/\n",
    "curl -fsSL https://get.example.com | sh\n",
    "a haiku about tofu and a bijou\n",
    # a block under a pair whose name is no credential's, a tag pair that names none
    f"env:\n- name: MOTD\n  value: |\n    {S}\n",
    '<meta content="width=device-width" name="viewport">',
])
@pytest.mark.usefixtures("each_engine")
def test_a_text_near_those_constructs_is_kept(text: str) -> None:
    assert _shown(text) == text


def test_a_bind_parameter_after_sql_password_is_left_to_the_generic_reading() -> None:
    """``UPDATE users SET password = :password``: the statement rules leave it to the generic
    reading, which shows a bind parameter (a placeholder, no secret: generic._BIND; it was
    withheld before, test_redact_bind_parameters.py); a value there is still withheld."""
    text = "UPDATE users SET password = :password WHERE id = :id"
    assert _shown(text) == text
    assert _shown(f"UPDATE users SET password = '{S}' WHERE id = :id") == (
        f"UPDATE users SET password = '{STUB}' WHERE id = :id")


_CREDENTIAL_NAMES = st.sampled_from([
    "DB_PASSWORD", "api_key", "GITHUB_TOKEN", "ClientSecret", "X-Api-Key", "MASTER_PASSWORD",
    "stripe_secret_key", "REDIS_AUTH_TOKEN"])


def _construct(kind: int, name: str, secret: str, variant: int) -> str:
    """A construct of several lines whose value a piece's edge may cut from its head."""
    pad = " " * (variant % 3) * 2
    if kind == 0:  # SQL: each clause a line, indented or not
        step = "  " if variant % 2 else ""
        return (f"CREATE USER bob WITH\n{step}LOGIN\n{step}CONNECTION LIMIT 3\n"
                f"{step}PASSWORD '{secret}';\n")
    if kind == 1:  # a YAML pair: name or value first, a member between, a block or a line
        value = f"value: |\n{pad}    {secret}" if variant % 2 else f"value: {secret}"
        members = [f"name: {name}", "image: x", value]
        if variant % 4 >= 2:
            members.reverse()
        return f"{pad}env:\n{pad}- " + f"\n{pad}  ".join(members) + "\n"
    if kind == 2:  # a netrc entry, a token a line, indented or not
        step = "\t" if variant % 2 else "  " * (variant % 3)
        return (f"machine h.example.com\n{step}login bob\n{step}account ops\n"
                f"{step}password {secret}\n")
    if kind == 3:  # curl's switches before -u, on a continued command
        return f"curl -sSL \\\n  -H 'Accept: */*' \\\n  -sku admin:{secret} https://h/\n"
    # a meta tag, content first, its attributes over lines
    return f'<meta\n  content="{secret}"\n  name="csrf-token">\n'


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4), _CREDENTIAL_NAMES, _SECRETS, st.integers(0, 11),
       st.integers(0, 1000), st.integers(0, 1 << 16), st.integers(0, 50))
def test_property_a_construct_cut_by_a_piece_edge_is_withheld(
    kind: int, name: str, secret: str, variant: int, before: int, inside: int, seed: int,
) -> None:
    """Prose around a construct, sized so that the middle of the text, where a text over a
    piece is first cut (at the next line end: ``scan._halve``), falls at any char of it: its
    value is withheld wherever the edge falls, by each trigger engine, every line kept."""
    assume(is_credential_value(name, secret))
    text = cut_inside(_construct(kind, name, secret, variant), before, inside, seed)
    for engine in trigger_engines():
        with using_engine(engine):
            shown = _shown(text)
        assert secret not in shown
        assert shown.count("\n") == text.count("\n")
