"""Credentials in config texts that every text route showed whole (the cfgleak task, from the
hunt's list in design.md: each shown by ``redact_text`` and ``shape()`` on the code before).

* A YAML name/value pair (``env:`` over ``- name: DB_PASSWORD`` over ``  value: S``, as
  ``kubectl get -o yaml`` writes it; value first; CloudFormation's ``ParameterKey`` and
  ``ParameterValue``; ``header`` and ``content``), in YAML and in JSON text: the unquoted name
  at its line's end was no trigger, and no rule read a YAML pair.
* A YAML list or block past the ~1 KB piece its header is judged in: of 200 items under
  ``passwords:`` the first 51 were withheld, the rest shown.
* A ``.netrc`` a token a line, unindented (``machine h`` / ``login u`` / ``password S``, as
  GitHub's docs write it): no trigger.
* A Markdown key/value row with no header and delimiter above it (``| password | S |``), and
  a table whose rows do not open with ``|``.
* SQL's ``PASSWORD`` with three spaces or more before its quote, or at its line's end; curl's
  ``-u`` in a group of switches (``-su``, ``-ku``, ``-vu``); ``--password\\tV`` in NDJSON (the
  tab written ``\\t``).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.generic import is_credential_value

SECRET = "Zq8vN3xK7pL2mR9tW4yB6cH1"

_SECRETS = st.text(alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                   min_size=16, max_size=40)


def _shown(text: str) -> str:
    return str(redact_text(text).value)


LEAKS = [
    # kubectl get pod -o yaml: a container's environment
    f"env:\n- name: DB_PASSWORD\n  value: {SECRET}\n",
    f"spec:\n  containers:\n  - env:\n    - name: PORT\n      value: '8080'\n"
    f"    - name: DB_PASSWORD\n      value: {SECRET}\n",
    # value first, quoted, a comment after it
    f"env:\n- value: \"{SECRET}\"  # rotated\n  name: DB_PASSWORD\n",
    # CloudFormation parameters, CRLF line ends
    f"Parameters:\r\n- ParameterKey: DbPassword\r\n  ParameterValue: {SECRET}\r\n",
    # a header list
    f"headers:\n- header: X-Api-Key\n  content: {SECRET}\n",
    # a member between the name and the value
    f"- name: STRIPE_SECRET_KEY\n  type: string\n  value: {SECRET}\n",
    # the same pairs as JSON text: value first, and the other spellings
    f'{{"value": "{SECRET}", "name": "DB_PASSWORD"}}\n',
    f'[{{"ParameterKey": "DbPassword", "ParameterValue": "{SECRET}"}}]\n',
    f'{{"header": "X-Api-Key", "content": "{SECRET}"}}\n',
    # a netrc a token a line, unindented, and indented with tabs
    f"machine h\nlogin u\npassword {SECRET}\n",
    f"machine api.github.com\n\tlogin u\n\tpassword {SECRET}\n",
    # a Markdown key/value row with no header above it, and a table with no outer pipes
    f"| password | {SECRET} |\n",
    f"Credentials:\n\n| DB_PASSWORD | {SECRET} |\n| user | bob |\n",
    f"name | password\n--- | ---\nbob | {SECRET}\n",
    f"user|api_key\n--|--\nbob|{SECRET}\n",
    # SQL's PASSWORD with three spaces or more, or its quote on the next line
    f"CREATE USER bob PASSWORD   '{SECRET}';\n",
    f"ALTER ROLE app WITH PASSWORD\n'{SECRET}';\n",
    f"CREATE USER bob PASSWORD\r\n  '{SECRET}';\r\n",
    # curl's -u in a group of switches
    f"curl -su admin:{SECRET} https://h/\n",
    f"curl -ku admin:{SECRET} https://h/\n",
    f"curl -vu admin:{SECRET} https://h/\n",
    # an argv in NDJSON, its tab written \t
    json.dumps({"args": f"--password\t{SECRET}"}) + "\n",
]


@pytest.mark.parametrize("text", LEAKS)
@pytest.mark.usefixtures("each_engine")
def test_a_config_credential_the_hunt_found_is_withheld(text: str) -> None:
    shown = _shown(text)
    assert SECRET not in shown
    assert "[credential withheld" in shown
    assert shown.count("\n") == text.count("\n")  # every line kept


@pytest.mark.parametrize("text", LEAKS[::4])
def test_a_config_credential_the_hunt_found_is_withheld_by_shape(text: str) -> None:
    assert SECRET not in shape(text, 100_000, format="text").text


@pytest.mark.parametrize(
    "text",
    [
        # a pair whose name is no credential's, or a schema's
        f"env:\n- name: PORT\n  value: {SECRET}\n",
        f"- name: password_policy\n  value: {SECRET}\n",
        # a reference, not a value
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n",
        # the name's list item ends before the value: the value is the next item's
        f"- name: DB_PASSWORD\n- name: PORT\n  value: {SECRET}\n",
        # a placeholder
        "- name: DB_PASSWORD\n  value: ${DB_PASSWORD}\n",
        # a docs table's row: its value describes the name
        "| password | The user's password |\n",
        "| api_key | Your API key |\n",
        "| password | string |\n",
        # prose around pipes
        "a | b\nc | d\n",
        # sudo's -su is no curl's
        f"sudo -su {SECRET}:x\n",
        # a password with no entry before it
        "login bob\npassword policy\n",
        # SQL's PASSWORD NULL on the next line: no quote
        "ALTER ROLE app PASSWORD\nNULL;\n",
    ],
)
@pytest.mark.usefixtures("each_engine")
def test_a_config_text_that_holds_no_credential_is_kept(text: str) -> None:
    assert _shown(text) == text


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": SECRET}]},
         "$.Parameters[0].ParameterValue"),
        ({"headers": [{"header": "X-Api-Key", "content": SECRET}]}, "$.headers[0].content"),
    ],
)
def test_a_parsed_pair_of_the_other_spellings_withholds_its_value(doc: Any, path: str) -> None:
    result = redact_value(doc)
    assert SECRET not in orjson.dumps(result.value).decode()
    assert path in [entry["path"] for entry in result.withheld]


# -- YAML pairs --------------------------------------------------------------------------------

_PAIR_NAMES = st.sampled_from(["DB_PASSWORD", "api_key", "GITHUB_TOKEN", "ClientSecret",
                               "X-Api-Key", "MASTER_PASSWORD", "PORT", "USER", "password_policy"])
_SPELLINGS = st.sampled_from([("name", "value"), ("key", "value"), ("Name", "Value"),
                              ("Key", "Value"), ("ParameterKey", "ParameterValue"),
                              ("header", "content")])
_QUOTES = st.sampled_from(["", "'", '"'])


@settings(max_examples=60, deadline=None)
@given(_PAIR_NAMES, _SECRETS, _SPELLINGS, st.integers(0, 6), st.booleans(), st.booleans(),
       st.integers(0, 2), _QUOTES, _QUOTES, st.integers(0, 3))
def test_property_a_yaml_pair_shows_its_value_only_where_its_name_does(
    name: str, secret: str, spelling: tuple[str, str], indent: int, value_first: bool,
    dash: bool, between: int, name_quote: str, value_quote: str, before: int,
) -> None:
    """Whatever its indentation, its order, a list's dash, members between and quotes, among
    other pairs, a YAML pair's value is shown exactly where a member so named would show it."""
    name_key, value_key = spelling
    pad = " " * indent
    column = " " * (indent + (2 if dash else 0))
    members = [f"{name_key}: {name_quote}{name}{name_quote}",
               f"{value_key}: {value_quote}{secret}{value_quote}"]
    if value_first:
        members.reverse()
    members[1:1] = [f"kind_{i}: plain" for i in range(between)]
    first = f"{pad}- " if dash else column
    item = first + f"\n{column}".join(members)
    others = "".join(f"{pad}- {name_key}: OTHER_{i}\n{pad}  {value_key}: v{i}\n"
                     for i in range(before))
    text = f"items:\n{others}{item}\n"
    shown = _shown(text)
    assert (secret in shown) == (not is_credential_value(name, secret))
    assert name in shown


# -- YAML lists and blocks past their piece ----------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["passwords", "api_keys", "client_secrets", "DB_PASSWORDS"]),
       st.integers(0, 8), st.integers(1, 4), st.integers(60, 300), st.booleans(),
       st.sampled_from(["", "prefix: 1\n", "a: b\n" * 40]))
def test_property_every_item_of_a_long_yaml_list_is_withheld(
    name: str, indent: int, deeper: int, items: int, keyed: bool, before: str,
) -> None:
    """A list (or a mapping) under a credential's plural name is withheld to its last item,
    however far past the piece its header is judged in it runs; what follows it is kept."""
    pad = " " * indent
    item = " " * (indent + deeper) + ("key_{i}: " if keyed else "- ")
    lines = "".join(item.format(i=i) + f"{SECRET[:16]}{i:05d}\n" for i in range(items))
    text = f"{before}{pad}{name}:\n{lines}{pad}after: kept-{SECRET[:8]}\n"
    shown = _shown(text)
    assert SECRET[:16] not in shown
    assert shown.count("[credential withheld") == items
    assert f"after: kept-{SECRET[:8]}" in shown


def test_a_long_yaml_block_is_withheld_to_its_last_line() -> None:
    lines = "".join(f"  {SECRET}{i:04d}\n" for i in range(100))
    text = f"private_password: |\n{lines}user: bob\n"
    shown = _shown(text)
    assert SECRET not in shown
    assert shown.endswith("user: bob\n") and shown.count("\n") == text.count("\n")


# -- netrc, Markdown rows, commands -------------------------------------------------------------

_SPACES = st.sampled_from(["", " ", "  ", "\t"])
_INDENTS = st.sampled_from(["", " ", "  ", "   "])  # four spaces: CommonMark code


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["password", "DB_PASSWORD", "api_key", "client-secret", "apiToken"]),
       _SECRETS, _SPACES, _INDENTS, st.booleans(), st.integers(0, 3))
def test_property_a_markdown_key_value_row_with_no_header_shows_no_credential(
    name: str, secret: str, inner: str, outer: str, closed: bool, rows_before: int,
) -> None:
    """A row ``| name | value |`` with no header above it, however it is spaced and whether or
    not it closes with a ``|``, shows its value only where a member so named would."""
    before = "".join(f"| user_{i} | bob |\n" for i in range(rows_before))
    row = f"{outer}|{inner}{name}{inner}|{inner}{secret}{inner}{'|' if closed else ''}\n"
    shown = _shown(before + row)
    assert (secret in shown) == (not is_credential_value(name, secret))


#: Where a command or a statement holds a password (``{}``): SQL's PASSWORD with any white
#: space before its quote, a line's end among it; curl's -u in a group of its switches.
_COMMANDS = st.sampled_from([
    *(f"{opening} PASSWORD{gap}{quote}{{}}{quote};"
      for opening in ("CREATE USER app WITH", "ALTER ROLE app", "create user app")
      for gap in ("   ", "    ", "\t", "\t ", " \t", "\n", "\r\n", " \n  ", "\n\t")
      for quote in "'\""),
    *(f"$ curl -{switch}u{gap}admin:{{}} https://api.example.com"
      for switch in "skvLiIfgGnNqjOJR" for gap in ("", " ")),
])


@settings(max_examples=80, deadline=None)
@given(_SECRETS, _COMMANDS)
def test_property_a_commands_password_however_written_is_withheld(
    secret: str, command: str,
) -> None:
    assume(is_credential_value("password", secret))  # not one char over and over
    assert secret not in _shown(command.format(secret) + "\n")


def test_a_yaml_list_after_a_credential_dense_stretch_is_withheld_to_its_last_item() -> None:
    """Found by a search over crowded texts: 481 ``api_key:`` lines are withheld whole, unread
    (credential-dense), the ``passwords:`` header after them with them; only a stretch's last
    4 KB is read on past it (``scan._wrapping_out``), so items past that were shown (20 of 300,
    and the one at the cut in part)."""
    dense = "".join(f"api_key: abcdefghijklmnopqrstu{i:05d}\n" for i in range(481))
    items = "".join(f"  - {SECRET[:16]}{i:05d}\n" for i in range(300))
    shown = _shown(f"{dense}passwords:\n{items}done: 1\n")
    assert SECRET[:16] not in shown
    assert shown.endswith("done: 1\n")
